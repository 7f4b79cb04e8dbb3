"""Canonical side-scan sonar: a line of ``2 x N`` cells per ping with per-cell ground truth.

``render(scene, spec, sensor_pose, *, sensor_id, sample_index, time_ns, seed=None,
water=None, backend="auto", device=None)`` returns a :class:`SideScanLine` whose
channels are arrays over ``[side, range_bin]`` (side 0 port, 1 starboard): the
imaging sonar's channels and rules (``linear_return``, ``sample_count``,
``validity``, ``primary_basis``, ``truncation``, ``primary_*``, ``topk_*``;
see :mod:`leviathan.sonar`) with the side-scan's angles (``*_across_track_rad``:
the ray's depression below the sensor's x–y plane; ``*_along_track_rad``) and two
ground ranges (``primary_ground_range_m``, exact; ``flat_bottom_ground_range_m``,
``sqrt(R² − a²)`` from the true altitude). The physics is the imaging sonar's
return model per side (:mod:`leviathan.reference_cpu.side_scan` for the rays,
:mod:`leviathan.sonar._fan` for the pipeline). Display products (waterfall,
ground-range-corrected waterfall) are in :mod:`leviathan.side_scan.display`.
``render_track(scene, spec, *, position_ned_m, rpy_deg, speed_m_per_s, ping_count, ...)``
renders the lines of a straight track at constant attitude and speed, pinged on the
spec's schedule (what the Dashboard's posed waterfall shows).
"""

from leviathan.side_scan._line import SIDE_SCAN_CHANNEL_NAMES, SIDES, SideScanLine
from leviathan.side_scan._render import (
    SIDE_SCAN_MODEL_VERSION,
    SIDE_SCAN_STAGES,
    render,
    side_scan_fan,
)
from leviathan.side_scan._track import MAX_TRACK_PINGS, render_track

__all__ = [
    "MAX_TRACK_PINGS",
    "SIDES",
    "SIDE_SCAN_CHANNEL_NAMES",
    "SIDE_SCAN_MODEL_VERSION",
    "SIDE_SCAN_STAGES",
    "SideScanLine",
    "render",
    "render_track",
    "side_scan_fan",
]
