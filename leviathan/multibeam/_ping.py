"""One multibeam echosounder ping: the water column, the bottom detections, soundings and truth.

Stages (each the shared one where it exists):

1. Beam geometry (:func:`leviathan.multibeam.beam_geometry`; formulas in
   :mod:`leviathan.reference_cpu.multibeam`) and the water column's rays below.
2. Water column: :func:`leviathan.sonar.render_fan` (the imaging sonar's pipeline
   and complete per-cell truth over ``[range_bin, beam]``; tracing through the shared
   ``raycast`` stage, so every backend gives the same bits).
3. Bottom detection per beam on its own return column (``speckle_return`` when speckle is
   on, else ``linear_return``): :func:`leviathan.reference_cpu.multibeam.detect_bottom`.
4. Soundings: ``p_sensor = R u_k`` (``u_k`` the beam axis), ``p_world =
   T_world_sensor.apply_point(p_sensor)`` (:meth:`leviathan.frames.Transform.apply_point`,
   its fixed order), two-way travel time ``2 R / c``.
5. Truth (:func:`leviathan.multibeam.beam_truth`): the axis ray's nearest hit and the
   footprint flags; the sounding's error ``R - R_axis`` along the beam and ``z - z_axis``
   vertically.

**Rays of a beam.** Sample ``s = a * M_c + c`` of beam ``k`` is ray ``s * N + k`` (column
``k``, row ``s``): along-track angle ``psi_a`` on :func:`~leviathan.sonar.beams.inclusive_grid`
over ``[-w_t, w_t]`` (``w_t`` the transmit fan's -3 dB full width) and across-track offset
``delta_c`` over ``[-w_k, w_k]`` (``w_k`` the beam's own width, ``w_0 / cos theta_k``):
twice the -3 dB widths, where a Gaussian two-way pattern is 24 dB down. Direction
``(sin psi, cos psi sin(theta_k + delta), cos psi cos(theta_k + delta))``; two-way gain
``G2 = g_t(psi) * g_r(delta)`` with the shared one-way patterns
(:func:`~leviathan.sonar.beams.one_way_gain`: transmit along, receive across, each at 0.5
at its half width); ``dOmega = (cos psi * wa_a) * wc_c`` with trapezoid weights.

**Sound speed** is the water's at the sensor's depth (Mackenzie 1981), constant along
every ray: no refraction (a sound-speed profile is a later, analytic-tier feature). The
metadata says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from leviathan.acoustics import sound_speed_m_per_s
from leviathan.frames import Transform
from leviathan.multibeam._geometry import BeamGeometry, beam_geometry
from leviathan.multibeam._truth import beam_truth
from leviathan.raycast import resolve_backend
from leviathan.reference_cpu import multibeam as ref
from leviathan.reference_cpu.sonar import trapezoid_weights
from leviathan.scene import Scene
from leviathan.sonar import (
    FanRays,
    check_ping_inputs,
    fan_rays,
    ping_header,
    range_bin_edges,
    render_fan,
    scene_record,
    spec_range_window,
)
from leviathan.sonar.beams import inclusive_grid, one_way_gain
from leviathan.specs import MultibeamSpec, WaterSpec

__all__ = ["MULTIBEAM_MODEL_VERSION", "MultibeamPing", "multibeam_ping", "multibeam_rays"]

MULTIBEAM_MODEL_VERSION = "leviathan.multibeam.v1"
"""Name and version of the multibeam model; part of every ping's identity."""

REFRACTION_NOTE = (
    "none: sound speed is the water's at the sensor depth (Mackenzie 1981), constant along "
    "every ray"
)


@lru_cache(maxsize=32)
def _rays(
    geometry: BeamGeometry,
    along_width: float,
    along_count: int,
    across_count: int,
    pattern: str,
) -> FanRays:
    angles, widths = geometry.angle_rad.tolist(), geometry.width_rad.tolist()
    n = len(angles)
    s_count = along_count * across_count
    psi = inclusive_grid(-along_width, along_width, along_count).tolist()
    wa = trapezoid_weights(2.0 * along_width, along_count).tolist()
    sin_psi = [math.sin(p) for p in psi]
    cos_psi = [math.cos(p) for p in psi]
    direction = np.empty((s_count, n, 3), dtype=np.float64)
    gain = np.empty((s_count, n), dtype=np.float64)
    domega = np.empty((s_count, n), dtype=np.float64)
    across = np.empty((s_count, n), dtype=np.float64)
    along = np.empty((s_count, n), dtype=np.float64)
    for k in range(n):
        theta, w = angles[k], widths[k]
        delta = inclusive_grid(-w, w, across_count).tolist()
        wc = trapezoid_weights(2.0 * w, across_count).tolist()
        for a in range(along_count):
            for c in range(across_count):
                s = a * across_count + c
                g = one_way_gain(pattern, psi[a], delta[c], widths_rad=(along_width, w))
                t = theta + delta[c]
                direction[s, k, 0] = sin_psi[a]
                direction[s, k, 1] = cos_psi[a] * math.sin(t)
                direction[s, k, 2] = cos_psi[a] * math.cos(t)
                gain[s, k] = g * g
                domega[s, k] = (cos_psi[a] * wa[a]) * wc[c]
                across[s, k] = t
                along[s, k] = psi[a]
    rows = np.repeat(np.arange(s_count, dtype=np.int64), n)
    columns = np.tile(np.arange(n, dtype=np.int64), s_count)
    return fan_rays(
        directions=direction.reshape(s_count * n, 3),
        two_way_gain=gain.reshape(-1),
        solid_angle_sr=domega.reshape(-1),
        column=columns,
        row=rows,
        column_count=n,
        angles={"across_track_rad": across.reshape(-1), "along_track_rad": along.reshape(-1)},
    )


def multibeam_rays(spec: MultibeamSpec) -> tuple[BeamGeometry, FanRays]:
    """The beam geometry and the water column's rays of ``spec`` (cached, read-only)."""
    geometry = beam_geometry(spec)
    rays = _rays(
        geometry,
        math.radians(spec.along_track_width_deg),
        int(spec.along_track_sample_count),
        int(spec.across_track_sample_count),
        spec.beam_pattern,
    )
    return geometry, rays


@dataclass(frozen=True, eq=False)
class MultibeamPing:
    """One ping's channels and metadata (the kind module wraps them in a ``SensorSample``).

    Attributes:
        channels: Water-column cells over ``[range_bin, beam]`` (the fan's names) and the
            per-beam detections, soundings and truth (see the kind's channel docs).
        metadata: Everything besides the channels that defines the ping.
        backend, device: Where it was traced (never part of its identity).
    """

    __content_type__ = "leviathan.multibeam.MultibeamPing"

    channels: dict[str, np.ndarray]
    metadata: dict[str, Any]
    backend: str
    device: str | None


def _physics_spec(spec: MultibeamSpec) -> dict[str, Any]:
    names = (
        "frequency_hz", "swath_deg", "beam_count", "beam_spacing", "along_track_width_deg",
        "across_track_width_deg", "beam_pattern", "along_track_sample_count",
        "across_track_sample_count", "range_min_m", "range_max_m", "range_bin_count", "top_k",
        "speckle", "detection_threshold_db", "detection_window_db",
        "detection_max_half_window_bins",
    )  # fmt: skip
    return {name: getattr(spec, name) for name in names}


def multibeam_ping(
    scene: Scene,
    spec: MultibeamSpec,
    sensor_pose: Transform,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
    seed: int | None = None,
    water: WaterSpec | None = None,
    backend: str = "auto",
    device: str | None = None,
) -> MultibeamPing:
    """One multibeam ping (module docstring): water column, detections, soundings, truth.

    Args:
        scene: The canonical scene at the ping instant.
        spec: The multibeam.
        sensor_pose: ``T_world_sensor`` (``T_world_body @ T_body_sensor``).
        sensor_id, sample_index, time_ns: The sample's identifiers.
        seed: Root seed (required when ``spec.speckle``).
        water: The water (default :class:`WaterSpec` defaults).
        backend, device: Tracing backend and device; every backend gives the same bits.
    """
    water = check_ping_inputs(
        scene, spec, MultibeamSpec, sensor_pose, sensor_id, sample_index, time_ns, seed, water
    )
    backend, device = resolve_backend(backend, device)
    geometry, rays = multibeam_rays(spec)
    window = spec_range_window(spec)
    n_bins, width = window["range_bin_count"], float(spec.range_bin_width_m)
    fan = render_fan(
        scene,
        rays,
        sensor_pose,
        **window,
        top_k=int(spec.top_k),
        frequency_hz=float(spec.frequency_hz),
        water=water,
        backend=backend,
        device=device,
        speckle_key=(int(seed), sensor_id, int(sample_index)) if spec.speckle else None,  # type: ignore[arg-type]
    )
    echo = fan.channels["speckle_return" if spec.speckle else "linear_return"]
    centres = float(spec.range_min_m) + (np.arange(n_bins, dtype=np.float64) + 0.5) * width
    det = ref.detect_bottom(
        echo,
        centres,
        threshold_db=float(spec.detection_threshold_db),
        window_db=float(spec.detection_window_db),
        max_half_window_bins=int(spec.detection_max_half_window_bins),
    )
    depth = float(sensor_pose.translation[2])
    c = sound_speed_m_per_s(
        temperature_c=water.temperature_c, salinity_psu=water.salinity_psu, depth_m=max(depth, 0.0)
    )
    detected = det.flag == ref.DETECTION_FLAGS["DETECTED"]
    R = det.range_m
    p_sensor = R[:, None] * geometry.axis
    p_world = sensor_pose.apply_point(np.where(detected[:, None], p_sensor, 0.0))
    p_world[~detected] = np.nan

    truth = beam_truth(
        scene,
        fan.prepared,
        geometry,
        sensor_pose,
        range_max_m=float(spec.range_max_m),
        range_bin_width_m=width,
        backend=backend,
        device=device,
    )
    tables = scene.instance_tables
    flag = det.flag | truth.footprint_flag
    axis_hit = truth.instance >= 0
    inst = np.where(axis_hit, truth.instance, 0)
    surface = axis_hit & (truth.instance == scene.sea_surface_instance)
    moving = axis_hit & (tables["moving"][inst] == 1) & ~surface
    flag[surface] |= ref.DETECTION_FLAGS["SEA_SURFACE"]
    flag[moving] |= ref.DETECTION_FLAGS["MOVING_BODY"]

    beams = {
        "beam_angle_rad": geometry.angle_rad,
        "beam_width_rad": geometry.width_rad,
        "detection_range_m": R,
        "two_way_travel_time_s": (2.0 * R) / c,
        "intensity": det.peak_return,
        "peak_bin": det.peak_bin.astype(np.int32),
        "window_first_bin": det.window_first_bin.astype(np.int32),
        "window_last_bin": det.window_last_bin.astype(np.int32),
        "quality": flag.astype(np.uint8),
        "sounding_sensor_m": np.where(detected[:, None], p_sensor, np.nan),
        "sounding_ned_m": p_world,
        "truth_range_m": truth.range_m,
        "truth_point_ned_m": truth.point_ned_m,
        "truth_instance": truth.instance.astype(np.int32),
        "truth_object": np.where(axis_hit, tables["object_index"][inst], -1).astype(np.int32),
        "truth_triangle": truth.triangle.astype(np.int32),
        "truth_semantic": np.where(axis_hit, tables["semantic_index"][inst], -1).astype(np.int32),
        "footprint_deviation_m": truth.footprint_deviation_m,
        "error_along_beam_m": R - truth.range_m,
        "error_vertical_m": p_world[:, 2] - truth.point_ned_m[:, 2],
    }
    metadata = {
        **ping_header(
            scene,
            sensor_pose,
            water,
            (sensor_id, sample_index, time_ns),
            MULTIBEAM_MODEL_VERSION,
            _physics_spec(spec),
        ),
        "sound_speed_m_per_s": c,
        "refraction": REFRACTION_NOTE,
        **fan.medium.record(),
        "range_bin_edges_m": range_bin_edges(**window),
        **scene_record(scene),
        "quality_flags": dict(ref.DETECTION_FLAGS),
        "speckle": fan.speckle,
    }
    return MultibeamPing({**fan.channels, **beams}, metadata, backend, device)
