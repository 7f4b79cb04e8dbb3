"""The acoustic fan render: the imaging sonar's pipeline for any set of rays grouped in columns.

Every acoustic sensor of LEVIATHAN that integrates a fan of rays into
(column x slant-range bin) cells runs this one pipeline: the imaging sonar (a
column is a bearing), the side-scan sonar (a column is a side) and the
multibeam echosounder (a column is a receive beam). The caller provides the
rays in the sensor frame, with for each ray

* its unit direction (sensor FRD: x along the boresight, y starboard, z down),
* its two-way gain ``G²`` and quadrature solid angle ``dΩ`` [sr],
* its column ``c`` in ``[0, C)`` and its row, the ordinal of the ray within its
  column (unique per column: a cell's samples are summed in ascending row),
* any number of named angles (e.g. ``elevation_rad``), written into the
  ``primary_<name>`` and ``topk_<name>`` truth channels;

and a slant-range window with its bin count. :func:`render_fan` then runs the
stages of :mod:`leviathan.sonar._render` on them: the shared scene preparation
and ``raycast`` tracing (every backend gives the same bits), the per-sample
physics (:func:`leviathan.reference_cpu.sonar.sample_physics`),
binning (:func:`leviathan.sonar.range_bin`) and the per-cell ground truth of
:mod:`leviathan.sonar._ground_truth` (primary, top-K, counts, truncation,
validity, ``primary_basis``), and returns the cell channels over
``[range_bin, column]``. The imaging sonar's frames are this function's output
for its rays (``r = j * B + i``: column ``i``, row ``j``), bit for bit.

The ``"reference"`` backend runs the numpy stages throughout: the authority. Every
Warp backend runs the compiled host stage instead (:mod:`leviathan.kernels.host_stage`
and :mod:`leviathan.kernels.host_cells`: which rays are samples, the per-sample
physics, the cell sums, the per-cell ground truth and the channels as Warp ``cpu``
kernels, on the host whatever device traces), which gives the same bits —
the three frozen fixtures and ``tests/kernels/test_host_stage.py`` hold it to that.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from leviathan._fan_product import FrozenChannels
from leviathan._frozen import frozen_array
from leviathan._validation import check_sample_identifiers, check_seed
from leviathan.frames import Transform
from leviathan.random import exponential
from leviathan.raycast import PreparedScene, TraceResult, prepare_scene, trace_rays
from leviathan.scene import Scene
from leviathan.sonar._binning import _range_window, bin_samples
from leviathan.sonar._frame import _ChannelBuffer
from leviathan.sonar._ground_truth import (
    canonical_nan,
    cell_channels,
    cell_ground_truth,
    channel_layout,
)
from leviathan.sonar._physics import (
    Medium,
    Samples,
    compiled_samples,
    medium_at,
    reference_samples,
)
from leviathan.specs import WaterSpec

__all__ = [
    "SPECKLE_EFFECT",
    "FanRays",
    "FanRender",
    "check_ping_inputs",
    "fan_rays",
    "render_fan",
]

SPECKLE_EFFECT = "speckle"


@dataclass(frozen=True, eq=False)
class FanRays:
    """The rays of one acoustic fan in the sensor frame (read-only arrays; see :func:`fan_rays`).

    Attributes:
        directions: Unit directions in sensor FRD, float64 [R, 3].
        two_way_gain: ``G²`` per ray, float64 [R].
        solid_angle_sr: ``dΩ`` per ray [sr], float64 [R].
        column: Column per ray, int64 [R] in ``[0, column_count)``.
        row: Ordinal of the ray within its column, int64 [R], unique per column,
            in ``[0, row_count)``.
        column_count: Number of columns C.
        row_count: One more than the largest row.
        angles: Per-ray angles by channel name, float64 [R] each.
    """

    __content_type__ = "leviathan.sonar.FanRays"

    directions: np.ndarray
    two_way_gain: np.ndarray
    solid_angle_sr: np.ndarray
    column: np.ndarray
    row: np.ndarray
    column_count: int
    row_count: int
    angles: Mapping[str, np.ndarray]

    @property
    def ray_count(self) -> int:
        """Number of rays R."""
        return int(self.directions.shape[0])


def _float_rays(name: str, values: Any, shape: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(values)
    if a.dtype != np.float64 or a.shape != shape:
        raise ValueError(f"{name}: expected float64 of shape {shape}, got {a.dtype} {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name}: expected finite values, got a non-finite one")
    return frozen_array(np.ascontiguousarray(a))


def _int_rays(name: str, values: Any, count: int) -> np.ndarray:
    a = np.asarray(values)
    if a.dtype.kind not in "iu" or a.shape != (count,):
        raise ValueError(f"{name}: expected integers of shape ({count},), got {a.dtype} {a.shape}")
    return frozen_array(np.ascontiguousarray(a, dtype=np.int64))


def fan_rays(
    *,
    directions: np.ndarray,
    two_way_gain: np.ndarray,
    solid_angle_sr: np.ndarray,
    column: np.ndarray,
    row: np.ndarray,
    column_count: int,
    angles: Mapping[str, np.ndarray],
) -> FanRays:
    """Checks and freezes the rays of a fan (build once per sensor geometry and keep).

    Args:
        directions: Unit ray directions in sensor FRD, float64 [R, 3] (|d| within 1e-12 of 1).
        two_way_gain: ``G²`` per ray, float64 [R], finite, >= 0.
        solid_angle_sr: ``dΩ`` per ray [sr], float64 [R], finite, >= 0.
        column: Column per ray, integers [R] in ``[0, column_count)``.
        row: Ordinal of the ray within its column, integers [R] >= 0, no two rays of a
            column with the same row.
        column_count: Number of columns C >= 1.
        angles: Per-ray angles by channel name (lower-case identifiers), float64 [R]
            each; ``primary_<name>`` and ``topk_<name>`` channels carry them.

    Returns:
        The frozen :class:`FanRays`.

    Raises:
        ValueError: Naming the argument, when a shape, dtype or value is wrong.
    """
    if isinstance(column_count, bool) or not isinstance(column_count, int) or column_count < 1:
        raise ValueError(f"column_count: expected an integer >= 1, got {column_count!r}")
    d = _float_rays("directions", directions, (np.asarray(directions).shape[0], 3))
    n = int(d.shape[0])
    if n < 1:
        raise ValueError("directions: expected at least one ray, got 0")
    norm = np.sqrt((d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2])
    if not (np.abs(norm - 1.0) <= 1e-12).all():
        raise ValueError("directions: expected unit vectors (|d| within 1e-12 of 1)")
    gain = _float_rays("two_way_gain", two_way_gain, (n,))
    domega = _float_rays("solid_angle_sr", solid_angle_sr, (n,))
    for name, a in (("two_way_gain", gain), ("solid_angle_sr", domega)):
        if (a < 0.0).any():
            raise ValueError(f"{name}: expected values >= 0, got {float(a.min())!r}")
    col = _int_rays("column", column, n)
    if int(col.min()) < 0 or int(col.max()) >= column_count:
        raise ValueError(
            f"column: expected values in [0, {column_count}), got {col.min()}..{col.max()}"
        )
    rw = _int_rays("row", row, n)
    if int(rw.min()) < 0:
        raise ValueError(f"row: expected values >= 0, got {int(rw.min())}")
    row_count = int(rw.max()) + 1
    key = col * row_count + rw
    if np.unique(key).shape[0] != n:
        raise ValueError("row: expected a unique row per ray within each column, got a repeat")
    if not isinstance(angles, Mapping):
        raise TypeError(f"angles: expected a mapping of name to per-ray angles, got {angles!r}")
    frozen_angles = {}
    for name, values in angles.items():
        if not (isinstance(name, str) and name.isidentifier() and name == name.lower()):
            raise ValueError(f"angles: expected lower-case identifier names, got {name!r}")
        frozen_angles[name] = _float_rays(f"angles[{name!r}]", values, (n,))
    return FanRays(d, gain, domega, col, rw, int(column_count), row_count, frozen_angles)


class FanRender(NamedTuple):
    """One fan rendered: cell channels and what produced them.

    Attributes:
        channels: Read-only cell channels over ``[range_bin, column]`` (``[..., 3]``
            for points/normals, ``[..., K]`` for top-K), laid out by
            :func:`leviathan.sonar._ground_truth.channel_layout` with the fan's angle
            names; ``speckle_return`` only when speckle was drawn.
        speckle: The speckle record ``{"effect", "drawn", "root_seed"}``.
        medium: The water at the sensor (support, absorption).
        samples: The integrated samples (ray order).
        hits: The nearest hit of every ray.
        prepared: The prepared scene (cached BVHs).
        origins, directions: The rays in world NED, float64 [R, 3].
    """

    channels: FrozenChannels
    speckle: dict[str, Any]
    medium: Medium
    samples: Samples
    hits: TraceResult
    prepared: PreparedScene
    origins: np.ndarray
    directions: np.ndarray


def check_ping_inputs(
    scene: Any,
    spec: Any,
    spec_type: type,
    sensor_pose: Any,
    sensor_id: Any,
    sample_index: Any,
    time_ns: Any,
    seed: Any,
    water: Any,
) -> WaterSpec:
    """The argument checks of a ping function on the fan render (the three fan sonars).

    Args:
        scene, spec, sensor_pose: Must be a :class:`~leviathan.scene.Scene`, a
            ``spec_type`` and a :class:`~leviathan.frames.Transform` ``T_world_sensor``.
        sensor_id, sample_index, time_ns: The sample's identifiers.
        seed: The root seed, required when ``spec.speckle``.
        water: A :class:`WaterSpec` or ``None`` (its defaults).

    Returns:
        The water to render in.

    Raises:
        TypeError, ValueError: Naming the argument, what was given and what was expected.
    """
    if not isinstance(scene, Scene):
        raise TypeError(f"scene: expected a leviathan.scene.Scene, got {type(scene).__name__}")
    if not isinstance(spec, spec_type):
        raise TypeError(f"spec: expected a {spec_type.__name__}, got {type(spec).__name__}")
    if not isinstance(sensor_pose, Transform):
        raise TypeError(
            f"sensor_pose: expected a Transform T_world_sensor (T_world_body @ T_body_sensor), "
            f"got {type(sensor_pose).__name__}"
        )
    check_sample_identifiers(sensor_id, sample_index, time_ns)
    check_seed(seed, needed_by="speckle (the spec enables it)" if spec.speckle else None)
    water = WaterSpec() if water is None else water
    if not isinstance(water, WaterSpec):
        raise TypeError(f"water: expected a WaterSpec, got {type(water).__name__}")
    return water


def render_fan(
    scene: Scene,
    rays: FanRays,
    sensor_pose: Transform,
    *,
    range_min_m: float,
    range_max_m: float,
    range_bin_count: int,
    top_k: int,
    frequency_hz: float,
    water: WaterSpec,
    backend: str,
    device: str | None,
    speckle_key: tuple[int, str, int] | None = None,
    lap: Callable[[str], None] | None = None,
) -> FanRender:
    """Traces a fan and integrates it into cells with the imaging sonar's complete truth.

    Args:
        scene: The canonical scene at the ping instant.
        rays: The fan (:func:`fan_rays`).
        sensor_pose: ``T_world_sensor``.
        range_min_m, range_max_m, range_bin_count: The slant-range window and its bins
            (bins by :func:`leviathan.sonar.range_bin`).
        top_k: Contributors kept per cell (>= 1).
        frequency_hz: Carrier frequency [Hz] (absorption, medium support).
        water: The water (absorption at the sensor's depth ``sensor_pose`` z).
        backend, device: A resolved tracing backend and device
            (:func:`leviathan.raycast.resolve_backend`).
        speckle_key: ``(root_seed, sensor_id, sample_index)`` to draw
            ``speckle_return = linear_return x Exp(1)`` keyed on (seed, sensor,
            sample, ``"speckle"``, flat cell ``range_bin * C + column``); ``None``: none.
        lap: Called after each stage with its name (``prepare``, ``trace``,
            ``physics``, ``binning``, ``ground_truth``, ``channels``).

    Returns:
        The :class:`FanRender`.
    """
    if not isinstance(rays, FanRays):
        raise TypeError(f"rays: expected FanRays (from fan_rays), got {type(rays).__name__}")
    _range_window(range_min_m, range_max_m, range_bin_count)
    lap = lap or (lambda _stage: None)
    N, C, K = int(range_bin_count), rays.column_count, int(top_k)
    window = {
        "range_min_m": float(range_min_m),
        "range_max_m": float(range_max_m),
        "range_bin_count": N,
    }
    if backend == "reference":
        d = sensor_pose.apply_direction(rays.directions)
        o = np.ascontiguousarray(np.broadcast_to(sensor_pose.translation, d.shape))
    else:
        from leviathan.kernels.host_stage import world_rays

        o, d = world_rays(rays.directions, sensor_pose.rotation, sensor_pose.translation)
    prepared = prepare_scene(scene)
    lap("prepare")
    hits = trace_rays(
        prepared,
        o,
        d,
        t_max=window["range_max_m"],
        sea_surface_instance=scene.sea_surface_instance,
        backend=backend,
        device=device,
    )
    lap("trace")

    medium = medium_at(frequency_hz, water, depth_m=float(sensor_pose.translation[2]))
    physics_inputs = {
        "scene": scene,
        "prepared": prepared,
        "window": window,
        "ray_column": rays.column,
        "ray_row": rays.row,
        "column_count": C,
    }
    # The numpy reference throughout on "reference": the authority the compiled stage
    # (every other backend) is held to.
    physics = reference_samples if backend == "reference" else compiled_samples
    samples, terms = physics(
        hits,
        o,
        d,
        **physics_inputs,
        medium=medium,
        ray_two_way_gain=rays.two_way_gain,
        ray_solid_angle_sr=rays.solid_angle_sr,
    )
    lap("physics")

    truth_inputs = {
        "top_k": K,
        "medium_supported": medium.support.supported,
        "sample_cell": samples.cell,
        "sample_elevation": samples.elevation_index,
        "sample_instance": samples.instance,
        "sample_range": samples.range_m,
        "sample_status": samples.status,
        "contribution": terms["contribution"],
        "geometric_weight": terms["geometric_weight"],
        "geometric_weight_no_absorption": terms["geometric_weight_no_absorption"],
    }
    if backend == "reference":
        binned = bin_samples(
            range_bin_count=N,
            bearing_count=C,
            elevation_count=rays.row_count,
            sample_cell=samples.cell,
            sample_elevation=samples.elevation_index,
            contribution=terms["contribution"],
        )
        lap("binning")
        truth = cell_ground_truth(**truth_inputs, **binned)
    else:
        from leviathan.kernels.host_cells import cell_ground_truth as compiled_ground_truth

        # The cell sums are the ground-truth kernels' first pass (binning's lap
        # times the counts only).
        count = np.bincount(samples.cell, minlength=N * C).astype(np.int32)
        lap("binning")
        truth = compiled_ground_truth(**truth_inputs, sample_count=count, linear_return=None)
        binned = {"sample_count": count, "linear_return": truth.pop("linear_return")}
    lap("ground_truth")
    layout = channel_layout((N, C), K, speckle=speckle_key is not None, angles=tuple(rays.angles))
    buffer = _ChannelBuffer(layout)
    channel_inputs = {
        "top_k": K,
        "cells": {**binned, **truth},
        "inst": samples.instance,
        "tri": samples.triangle,
        "R": samples.range_m,
        "cos_incidence": samples.cos_incidence,
        "point": samples.point,
        "normal": samples.normal,
        "status": samples.status,
        "tables": scene.instance_tables,
        "terms": terms,
    }
    if backend == "reference":
        cell_channels(
            buffer=buffer,
            shape=(N, C),
            sample_cell=samples.cell,
            angles={name: a[samples.ray] for name, a in rays.angles.items()},
            **channel_inputs,
        )
    else:
        from leviathan.kernels.host_cells import cell_channels as compiled_channels

        # Every byte of every channel but the speckle is written there.
        compiled_channels(
            channels={
                name: buffer.unfilled(name) for name, _, _ in layout if name != "speckle_return"
            },
            sample_ray=samples.ray,
            ray_angles=dict(rays.angles),
            **channel_inputs,
        )
    lap("channels")

    if speckle_key is None:
        speckle: dict[str, Any] = {"effect": SPECKLE_EFFECT, "drawn": False, "root_seed": None}
    else:
        seed, sensor_id, sample_index = speckle_key
        draw = exponential(
            seed, sensor_id, sample_index, SPECKLE_EFFECT, np.arange(N * C, dtype=np.int64)
        )
        out = buffer.array("speckle_return", 0).reshape(N * C)
        out[...] = canonical_nan(binned["linear_return"] * draw)
        speckle = {"effect": SPECKLE_EFFECT, "drawn": True, "root_seed": int(seed)}
    return FanRender(buffer.finish(), speckle, medium, samples, hits, prepared, o, d)
