"""The side-scan product: :class:`SideScanLine`, one ping's ``2 x N`` cells with their truth.

Channels are arrays over ``[side, range_bin]`` (side 0 port, 1 starboard;
``[side, range_bin, 3]`` for points and normals, ``[side, range_bin, K]`` for
top-K), the imaging sonar's channels and sentinels (ids −1, floats NaN with one
bit pattern, status 0) with the side-scan's two angles and two ground ranges.
``content_hash`` is the SHA-256 of metadata and channels; backend and device are
recorded, not hashed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from leviathan._frozen import FrozenMapping, freeze, frozen_array
from leviathan._validation import check_mapping
from leviathan.identity import content_hash

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
class SideScanLine:
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

    channels: Mapping[str, np.ndarray]
    metadata: Mapping[str, Any]
    backend: str = field(default="reference", compare=False)
    device: str = field(default="cpu", compare=False)
    display: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name in ("channels", "metadata", "display"):
            check_mapping(name, getattr(self, name))
        unknown = set(self.channels) - set(SIDE_SCAN_CHANNEL_NAMES)
        if unknown:
            raise ValueError(f"channels: unknown channel names {sorted(unknown)}")
        frozen = {}
        for name in SIDE_SCAN_CHANNEL_NAMES:
            if name in self.channels:
                a = np.asarray(self.channels[name])
                if a.dtype.hasobject:
                    raise TypeError(f"channels[{name!r}]: expected a numeric array, got {a.dtype}")
                if a.dtype.kind == "f":
                    a = np.array(a, copy=True, order="C")
                    a[np.isnan(a)] = np.nan
                frozen[name] = frozen_array(a)
        object.__setattr__(self, "channels", FrozenMapping._adopt(frozen))
        object.__setattr__(self, "metadata", freeze(self.metadata))
        object.__setattr__(self, "display", freeze(self.display))

    def __getitem__(self, name: str) -> np.ndarray:
        return self.channels[name]

    @property
    def sensor_id(self) -> str:
        """Stable sensor id (``vehicle/sensor``)."""
        return self.metadata["sensor_id"]

    @property
    def sample_index(self) -> int:
        """Index n of this ping in the sensor's schedule."""
        return self.metadata["sample_index"]

    @property
    def time_ns(self) -> int:
        """Ping time [ns]."""
        return self.metadata["time_ns"]

    @property
    def shape(self) -> tuple[int, int]:
        """``(2, range_bin_count)``."""
        return tuple(self.channels["linear_return"].shape)  # type: ignore[return-value]

    def __content__(self) -> dict[str, Any]:
        return {"metadata": dict(self.metadata), "channels": dict(self.channels)}

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the scientific content (hex)."""
        return content_hash(self)

    def channel_hashes(self) -> dict[str, str]:
        """SHA-256 of each channel's canonical encoding, by channel name."""
        return {name: content_hash(a) for name, a in self.channels.items()}

    def record_attributes(self) -> dict[str, str | int]:
        """The scalars a dataset stores beside the channels and metadata: the tracer."""
        return {"backend": self.backend, "device": self.device}

    @classmethod
    def from_record(
        cls,
        *,
        channels: Mapping[str, np.ndarray],
        metadata: Mapping[str, Any],
        display: Mapping[str, Any],
        attributes: Mapping[str, Any],
    ) -> SideScanLine:
        """The line a dataset stored (see :meth:`record_attributes`); same ``content_hash``."""
        return cls(
            channels=channels,
            metadata=metadata,
            backend=attributes["backend"],
            device=attributes["device"],
            display=display,
        )
