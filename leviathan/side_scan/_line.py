"""The side-scan product: :class:`SideScanLine`, one ping's ``2 x N`` cells with their truth.

Channels are arrays over ``[side, range_bin]`` (side 0 port, 1 starboard;
``[side, range_bin, 3]`` for points and normals, ``[side, range_bin, K]`` for
top-K), the imaging sonar's channels and sentinels (ids −1, floats NaN with one
bit pattern, status 0) with the side-scan's two angles and two ground ranges.
``content_hash`` is the SHA-256 of metadata and channels; backend and device are
recorded, not hashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from leviathan._fan_product import FanProduct

__all__ = ["SIDES", "SIDE_SCAN_CHANNEL_NAMES", "SideScanLine"]

SIDES: tuple[str, ...] = ("port", "starboard")

#: Every channel a line can carry, in a fixed documented order.
SIDE_SCAN_CHANNEL_NAMES: tuple[str, ...] = (
    "linear_return",
    "speckle_return",
    "sample_count",
    "validity",
    "primary_basis",
    "truncation",
    "primary_instance",
    "primary_object",
    "primary_triangle",
    "primary_range_m",
    "primary_across_track_rad",
    "primary_along_track_rad",
    "primary_incidence_rad",
    "primary_hit_point_world",
    "primary_normal_world",
    "primary_semantic",
    "primary_acoustic_status",
    "primary_moving",
    "primary_ground_range_m",
    "flat_bottom_ground_range_m",
    "topk_instance",
    "topk_triangle",
    "topk_range_m",
    "topk_across_track_rad",
    "topk_along_track_rad",
    "topk_contribution",
    "topk_geometric_weight",
    "topk_energy_fraction",
)


@dataclass(frozen=True, eq=False)
class SideScanLine(FanProduct):
    """One side-scan ping: a line of ``2 x range_bin_count`` cells with per-cell truth.

    Attributes:
        channels: Read-only arrays by name (:data:`SIDE_SCAN_CHANNEL_NAMES`).
        metadata: Deep read-only description of the ping (sensor id, sample index,
            time [ns], pose, spec, scene hash, water, medium, grids, altitude, the
            sampling rule and density used, speckle record).
        backend, device: The tracer (not hashed).
        display: Display settings (not hashed).
    """

    __content_type__ = "leviathan.side_scan.SideScanLine"

    CHANNEL_ORDER: ClassVar[tuple[str, ...]] = SIDE_SCAN_CHANNEL_NAMES
