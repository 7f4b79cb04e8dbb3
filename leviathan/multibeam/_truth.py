"""Per-beam truth of a multibeam ping: the beam axis's nearest hit and the beam's footprint.

Both come from one trace through the shared stage (:func:`leviathan.raycast.trace_rays`,
meshes then the analytic sea surface), so they are the same bits on every backend:

* **axis truth**: the nearest hit of beam ``k``'s axis ray within the range window's far
  edge: range, point (world NED), instance, triangle (and through the scene's tables its
  object and label); no hit gives NaN and -1;
* **footprint**: :data:`~leviathan.multibeam._geometry.FOOTPRINT_RAY_COUNT` rays across
  the beam's -3 dB width at ``psi = 0``. ``NONPLANAR_FOOTPRINT`` is set when every one
  hits and some footprint point lies farther than half a range bin from the chord
  joining the first and last (a planar seabed puts them on one straight line: the
  plane's intersection with the beam's plane); ``MIXED_FOOTPRINT`` when the rays do
  not all hit the same instance (a miss counts as an instance of its own). A beam
  straddling a step or an object's edge carries one or both.

The sounding's error against the axis truth is ``R_detected - R_axis`` along the beam
and ``z_sounding - z_axis`` vertically (world NED, positive down: a sounding too deep
is positive).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from leviathan.frames import Transform
from leviathan.multibeam._geometry import FOOTPRINT_RAY_COUNT, BeamGeometry
from leviathan.raycast import PreparedScene, trace_rays
from leviathan.reference_cpu.multibeam import DETECTION_FLAGS
from leviathan.scene import Scene

__all__ = ["BeamTruth", "beam_truth"]


class BeamTruth(NamedTuple):
    """Truth per beam, every array [N] (points [N, 3]).

    Attributes:
        range_m: Axis ray's nearest hit range [m], NaN without a hit.
        point_ned_m: Its point in world NED [m], NaN without a hit.
        instance: Its instance (the sea surface is ``scene.sea_surface_instance``), -1 none.
        triangle: Its triangle within the instance's mesh, -1 none.
        footprint_flag: ``NONPLANAR_FOOTPRINT`` / ``MIXED_FOOTPRINT`` bits, uint8.
        footprint_deviation_m: Largest distance of a footprint point from the chord [m],
            NaN where a footprint ray missed.
    """

    range_m: np.ndarray
    point_ned_m: np.ndarray
    instance: np.ndarray
    triangle: np.ndarray
    footprint_flag: np.ndarray
    footprint_deviation_m: np.ndarray


def beam_truth(
    scene: Scene,
    prepared: PreparedScene,
    geometry: BeamGeometry,
    sensor_pose: Transform,
    *,
    range_max_m: float,
    range_bin_width_m: float,
    backend: str,
    device: str | None,
) -> BeamTruth:
    """Traces the axes and footprints of every beam (module docstring)."""
    n = geometry.axis.shape[0]
    f_count = FOOTPRINT_RAY_COUNT
    d_sensor = np.concatenate([geometry.axis, geometry.footprint])
    d = sensor_pose.apply_direction(d_sensor)
    o = np.ascontiguousarray(np.broadcast_to(sensor_pose.translation, d.shape))
    hits = trace_rays(
        prepared,
        o,
        d,
        t_max=range_max_m,
        sea_surface_instance=scene.sea_surface_instance,
        backend=backend,
        device=device,
    )
    hit = hits.instance >= 0
    t = np.where(hit, hits.t, np.nan)
    point = o + t[:, None] * d  # component by component: o_i + t d_i
    inst = np.where(hit, hits.instance, -1).astype(np.int64)
    tri = np.where(hit, hits.triangle, -1).astype(np.int64)

    fp_inst = inst[n:].reshape(n, f_count)
    fp_point = point[n:].reshape(n, f_count, 3)
    flag = np.zeros(n, dtype=np.uint8)
    mixed = np.any(fp_inst != fp_inst[:, :1], axis=1)
    flag[mixed] |= DETECTION_FLAGS["MIXED_FOOTPRINT"]
    a = fp_point[:, 0, :]
    b = fp_point[:, f_count - 1, :]
    ab = b - a
    ab_len = np.sqrt((ab[:, 0] * ab[:, 0] + ab[:, 1] * ab[:, 1]) + ab[:, 2] * ab[:, 2])
    deviation = np.zeros(n, dtype=np.float64)
    for f in range(1, f_count - 1):
        ap = fp_point[:, f, :] - a
        cx = ap[:, 1] * ab[:, 2] - ap[:, 2] * ab[:, 1]
        cy = ap[:, 2] * ab[:, 0] - ap[:, 0] * ab[:, 2]
        cz = ap[:, 0] * ab[:, 1] - ap[:, 1] * ab[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            dist = np.sqrt((cx * cx + cy * cy) + cz * cz) / ab_len
        deviation = np.maximum(deviation, np.where(ab_len > 0.0, dist, 0.0))
    all_hit = np.all(fp_inst >= 0, axis=1)
    deviation = np.where(all_hit, deviation, np.nan)
    nonplanar = all_hit & (deviation > 0.5 * range_bin_width_m)
    flag[nonplanar] |= DETECTION_FLAGS["NONPLANAR_FOOTPRINT"]
    return BeamTruth(t[:n], point[:n], inst[:n], tri[:n], flag, deviation)
