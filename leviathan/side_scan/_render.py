"""One side-scan ping: both fans through the acoustic fan render, then the side-scan's own truth.

Stages: the rays of :func:`leviathan.reference_cpu.side_scan.side_scan_rays`
(cached per geometry); :func:`leviathan.sonar._fan.render_fan` (scene
preparation, the shared ``raycast`` tracing, the reference physics, binning and
the imaging sonar's per-cell truth, column = side); the sensor's true altitude
(one ray straight down in world NED, the same tracer); the two ground ranges;
the line, its channels over ``[side, range_bin]``.

Ground ranges, per cell: ``primary_ground_range_m`` is the exact horizontal
distance from the sensor to the primary hit, ``sqrt(dx² + dy²)`` in world NED;
``flat_bottom_ground_range_m`` is what processing software computes from the
bin's centre slant range ``R_k = r_min + (k + ½) Δr`` and the true altitude
``a``: ``sqrt(R_k² − a²)``, NaN where ``R_k < a`` or no altitude was found.

Sampling rule: adjacent across-track rays on a flat seabed at altitude ``h`` differ
in range by at most ``R_max² / h · Δψ``, so a line fills every bin of its swath when
``Δψ <= ½ Δr h / R_max²``, i.e. ``h >= fill_altitude_m = 2 R_max² Δψ / Δr``. The
metadata records ``Δψ``, that altitude and whether this ping's altitude meets it; a
ping below it warns (:class:`leviathan.sonar.SonarSamplingWarning`).
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache
from typing import Any

import numpy as np

from leviathan.frames import Transform
from leviathan.raycast import resolve_backend, trace_rays
from leviathan.reference_cpu.side_scan import side_scan_rays
from leviathan.scene import Scene
from leviathan.side_scan._line import SIDES, SideScanLine
from leviathan.sonar import (
    FanRays,
    SonarSamplingWarning,
    StageClock,
    check_ping_inputs,
    fan_rays,
    ping_header,
    range_bin_edges,
    render_fan,
    scene_record,
    spec_range_window,
)
from leviathan.specs import SideScanSonarSpec, WaterSpec

__all__ = ["SIDE_SCAN_MODEL_VERSION", "SIDE_SCAN_STAGES", "render", "side_scan_fan"]

SIDE_SCAN_MODEL_VERSION = "leviathan.side_scan.v1"
#: The stages timed into ``stage_times_s``.
SIDE_SCAN_STAGES: tuple[str, ...] = (
    "rays",
    "prepare",
    "trace",
    "physics",
    "binning",
    "ground_truth",
    "channels",
    "line",
)
# The SideScanRays fields a fan is made of, under fan_rays' names, and its per-ray angles.
_FAN_FIELDS = ("directions", "two_way_gain", "solid_angle_sr", "column", "row")
_ANGLES = ("across_track_rad", "along_track_rad")


def _geometry(spec: SideScanSonarSpec) -> tuple[tuple[str, Any], ...]:
    """The spec's :func:`side_scan_rays` arguments, as ``(name, value)`` pairs (a cache key)."""
    bp = spec.beam_pattern
    widths = lengths = None
    if bp.kind == "gaussian":
        widths = (
            math.radians(bp.along_track_3db_full_width_deg),
            math.radians(bp.across_track_3db_full_width_deg),
        )
    elif bp.kind == "sinc2":
        lengths = (float(bp.along_track_array_length_m), float(bp.across_track_array_length_m))
    arguments = {
        "depression_rad": math.radians(spec.depression_deg),
        "min_depression_rad": math.radians(spec.aperture_min_depression_deg),
        "max_depression_rad": math.radians(spec.aperture_max_depression_deg),
        "across_count": int(spec.across_track_sample_count),
        "along_aperture_rad": math.radians(spec.along_track_aperture_deg),
        "along_count": int(spec.along_track_sample_count),
        "pattern": bp.kind,
        "widths_rad": widths,
        "array_lengths_m": lengths,
        "frequency_hz": float(spec.frequency_hz),
    }
    return tuple(arguments.items())


@lru_cache(maxsize=16)
def _fan(key: tuple[tuple[str, Any], ...]) -> tuple[Any, FanRays]:
    rays = side_scan_rays(**dict(key))
    fan = fan_rays(
        **{name: getattr(rays, name) for name in _FAN_FIELDS},
        column_count=2,
        angles={name: getattr(rays, name) for name in _ANGLES},
    )
    return rays, fan


def side_scan_fan(spec: SideScanSonarSpec) -> tuple[Any, FanRays]:
    """The spec's rays (reference_cpu.side_scan.SideScanRays) and fan, cached."""
    return _fan(_geometry(spec))


def _physics_spec(spec: SideScanSonarSpec) -> dict[str, Any]:
    """The spec fields that define the line (mount, schedule, display, name left out)."""
    bp = spec.beam_pattern
    return {
        "frequency_hz": float(spec.frequency_hz),
        "depression_deg": float(spec.depression_deg),
        "aperture_min_depression_deg": float(spec.aperture_min_depression_deg),
        "aperture_max_depression_deg": float(spec.aperture_max_depression_deg),
        "across_track_sample_count": int(spec.across_track_sample_count),
        "along_track_aperture_deg": float(spec.along_track_aperture_deg),
        "along_track_sample_count": int(spec.along_track_sample_count),
        "range_min_m": float(spec.range_min_m),
        "range_max_m": float(spec.range_max_m),
        "range_bin_count": int(spec.range_bin_count),
        "beam_pattern": bp.model_dump(mode="json"),
        "top_k": int(spec.top_k),
        "speckle": bool(spec.speckle),
    }


def _side_major(a: np.ndarray) -> np.ndarray:
    """``[range_bin, side, ...]`` -> ``[side, range_bin, ...]``, contiguous."""
    return np.ascontiguousarray(np.swapaxes(a, 0, 1))


def render(
    scene: Scene,
    spec: SideScanSonarSpec,
    sensor_pose: Transform,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
    seed: int | None = None,
    water: WaterSpec | None = None,
    backend: str = "auto",
    device: str | None = None,
    stage_times_s: dict[str, float] | None = None,
    sampling_warnings: bool = True,
) -> SideScanLine:
    """Renders one side-scan ping (both sides) with per-cell ground truth.

    Args:
        scene: The canonical scene at the ping instant.
        spec: The side-scan spec.
        sensor_pose: ``T_world_sensor`` (``T_world_body @ T_body_sensor``).
        sensor_id, sample_index, time_ns: The ping's identity.
        seed: Root seed (required when ``spec.speckle``).
        water: The water (default :class:`WaterSpec`).
        backend, device: Tracing backend (every backend gives the same line).
        stage_times_s: If given, receives each stage's wall time [s] (:data:`SIDE_SCAN_STAGES`).
        sampling_warnings: Warn when this ping's altitude is below the fill altitude.

    Returns:
        The :class:`SideScanLine`; identical content (and hash) for identical inputs.
    """
    clock = StageClock(stage_times_s)
    water = check_ping_inputs(
        scene, spec, SideScanSonarSpec, sensor_pose, sensor_id, sample_index, time_ns, seed, water
    )
    backend, device = resolve_backend(backend, device)
    window = spec_range_window(spec)
    N = window["range_bin_count"]
    rays, fan_geometry = side_scan_fan(spec)
    clock.lap("rays")
    fan = render_fan(
        scene,
        fan_geometry,
        sensor_pose,
        **window,
        top_k=int(spec.top_k),
        frequency_hz=spec.frequency_hz,
        water=water,
        backend=backend,
        device=device,
        speckle_key=(seed, sensor_id, sample_index) if spec.speckle else None,
        lap=clock.lap,
    )

    # True altitude: the nearest surface straight below (world +z), same tracer.
    origin = np.ascontiguousarray(sensor_pose.translation.reshape(1, 3), dtype=np.float64)
    down = np.array([[0.0, 0.0, 1.0]], dtype=np.float64)
    below = trace_rays(
        fan.prepared,
        origin,
        down,
        t_max=math.inf,
        sea_surface_instance=scene.sea_surface_instance,
        backend=backend,
        device=device,
    )
    altitude = float(below.t[0]) if int(below.instance[0]) >= 0 else math.nan

    channels = {name: _side_major(a) for name, a in fan.channels.items()}
    point = channels["primary_hit_point_world"]
    s = sensor_pose.translation
    dx = point[..., 0] - float(s[0])
    dy = point[..., 1] - float(s[1])
    channels["primary_ground_range_m"] = np.sqrt(dx * dx + dy * dy)
    width = (float(spec.range_max_m) - float(spec.range_min_m)) / float(N)
    centre = float(spec.range_min_m) + width * (np.arange(N, dtype=np.float64) + 0.5)
    flat = np.full(N, np.nan, dtype=np.float64)
    if math.isfinite(altitude):
        reach = centre >= altitude
        flat[reach] = np.sqrt(centre[reach] * centre[reach] - altitude * altitude)
    channels["flat_bottom_ground_range_m"] = np.stack([flat, flat])

    fill_altitude = spec.fill_altitude_m
    fills = bool(math.isfinite(altitude) and altitude >= fill_altitude)
    metadata = {
        **ping_header(
            scene,
            sensor_pose,
            water,
            (sensor_id, sample_index, time_ns),
            SIDE_SCAN_MODEL_VERSION,
            _physics_spec(spec),
        ),
        **fan.medium.record(),
        "sides": list(SIDES),
        "along_track_rad": rays.along_grid_rad,
        "depression_rad": rays.depression_grid_rad,
        "along_track_weight_rad": rays.along_weight_rad,
        "depression_weight_rad": rays.depression_weight_rad,
        "range_bin_edges_m": range_bin_edges(**window),
        "altitude_m": altitude,
        "sampling": {
            "rule": "a line fills every bin of its swath on a flat seabed at altitude h when "
            "across-track spacing <= 0.5 * range_bin_width * h / range_max^2",
            "across_track_spacing_rad": spec.across_track_spacing_rad,
            "range_bin_width_m": width,
            "fill_altitude_m": fill_altitude,
            "fills_swath": fills,
        },
        **scene_record(scene),
        "speckle": fan.speckle,
    }
    line = SideScanLine(
        channels=channels,
        metadata=metadata,
        backend=backend,
        device=device,
        display={"dynamic_range_db": float(spec.dynamic_range_db)},
    )
    clock.lap("line")
    if sampling_warnings and math.isfinite(altitude) and not fills:
        warnings.warn(
            f"{sensor_id}: altitude {altitude:.3g} m is below the fill altitude "
            f"{fill_altitude:.3g} m of across_track_sample_count "
            f"{spec.across_track_sample_count} (across-track spacing "
            f"{spec.across_track_spacing_rad:.3g} rad must be <= 0.5 * range_bin_width * h / "
            "range_max^2): range bins of the swath can get no sample (a striped line)",
            SonarSamplingWarning,
            stacklevel=2,
        )
    return line
