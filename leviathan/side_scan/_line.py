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
from leviathan.sonar import fan_channel_names

__all__ = ["SIDES", "SIDE_SCAN_CHANNEL_NAMES", "SideScanLine"]

SIDES: tuple[str, ...] = ("port", "starboard")

#: Every channel a line can carry, in a fixed documented order: the fan render's with the
#: line's two angles, and its two ground ranges after the primary channels.
SIDE_SCAN_CHANNEL_NAMES: tuple[str, ...] = fan_channel_names(
    ("across_track_rad", "along_track_rad"),
    after_primary=("primary_ground_range_m", "flat_bottom_ground_range_m"),
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
