"""The canonical sonar product: :class:`SonarFrame`.

A frame holds every channel of one ping as arrays over ``[range_bin, bearing]``
(``[range_bin, bearing, 3]`` for points and normals, ``[range_bin, bearing, K]``
for top-K lists) plus the metadata that defines it. Its ``content_hash`` is the
SHA-256 of the scientific content (metadata and channels; the root seed enters
only when speckle was drawn). The backend that computed it is recorded but is
not part of the identity: every backend must produce the same content.

Sentinels: integer ids are -1 where there is no contributor; float channels
are NaN where a value is missing (never 0); ``primary_acoustic_status`` is 0
(``AcousticStatus.NONE``) in empty cells.
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

__all__ = ["CHANNEL_NAMES", "SonarFrame"]

# Every channel a frame can carry, in a fixed documented order.
CHANNEL_NAMES: tuple[str, ...] = (
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
    "primary_elevation_rad",
    "primary_incidence_rad",
    "primary_hit_point_world",
    "primary_normal_world",
    "primary_semantic",
    "primary_acoustic_status",
    "primary_moving",
    "topk_instance",
    "topk_triangle",
    "topk_range_m",
    "topk_elevation_rad",
    "topk_contribution",
    "topk_geometric_weight",
    "topk_energy_fraction",
)


class _OwnedChannels(dict):
    """Channels whose arrays the frame may canonicalise in place (no one else holds them)."""


@dataclass(frozen=True, eq=False)
class SonarFrame:
    """One imaging-sonar ping with per-cell ground truth.

    Attributes:
        channels: Read-only mapping of read-only arrays by name (see
            :data:`CHANNEL_NAMES`; ``speckle_return`` only when speckle was drawn).
            Each access returns a fresh view of immutable memory.
        metadata: Deep read-only, JSON-like description of the ping: sensor id, sample
            index, time [ns], sensor pose, spec, scene hash, water, medium support,
            absorption [dB/m], grids (arrays over immutable memory), lookup tables, the
            speckle record.
        backend: Name of the tracing backend that produced the frame (not hashed).
        device: Device it traced on, e.g. ``"cpu"`` or ``"cuda:0"`` (not hashed).
        display: Display settings such as ``dynamic_range_db`` (not hashed: display
            products have their own identities).
    """

    __content_type__ = "leviathan.sonar.frame.SonarFrame"

    channels: Mapping[str, np.ndarray]
    metadata: Mapping[str, Any]
    backend: str = field(default="reference", compare=False)
    device: str = field(default="cpu", compare=False)
    display: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name in ("channels", "metadata", "display"):
            check_mapping(name, getattr(self, name))
        unknown = set(self.channels) - set(CHANNEL_NAMES)
        if unknown:
            raise ValueError(f"channels: unknown channel names {sorted(unknown)}")
        frozen = {}
        # Arrays handed over by ``render`` (which keeps no reference) are canonicalised
        # in place; anything else is copied first so the caller's arrays stay untouched.
        # Either way the frame keeps its own copy over immutable bytes (frozen_array),
        # so nothing can make its arrays writable again or stale its content_hash.
        adopt = isinstance(self.channels, _OwnedChannels)
        for name in CHANNEL_NAMES:
            if name in self.channels:
                a = np.asarray(self.channels[name])
                if a.dtype.hasobject:
                    raise TypeError(
                        f"channels[{name!r}]: expected a numeric array, got dtype {a.dtype}"
                    )
                if a.dtype.kind == "f":
                    if not (adopt and a.flags.c_contiguous and a.flags.writeable):
                        a = np.array(a, copy=True, order="C")
                    # One NaN bit pattern for "missing", whatever arithmetic produced it
                    # (x86 and ARM differ in the sign of a default NaN), so channels can
                    # be compared byte for byte across backends.
                    a[np.isnan(a)] = np.nan
                frozen[name] = frozen_array(a)
        metadata = freeze(self.metadata)
        display = freeze(self.display)
        object.__setattr__(self, "channels", FrozenMapping._adopt(frozen))
        object.__setattr__(self, "metadata", metadata)
        object.__setattr__(self, "display", display)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.channels[name]

    @property
    def sensor_id(self) -> str:
        """Stable sensor id (``vehicle/sensor``)."""
        return self.metadata["sensor_id"]

    @property
    def sample_index(self) -> int:
        """Index n of this sample in the sensor's schedule."""
        return self.metadata["sample_index"]

    @property
    def time_ns(self) -> int:
        """Sample time [ns]."""
        return self.metadata["time_ns"]

    @property
    def shape(self) -> tuple[int, int]:
        """Image shape ``(range_bin_count, bearing_count)``."""
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

    # Display products (separate identities; never part of content_hash).
    def db_image(self, *, dynamic_range_db: float | None = None) -> np.ndarray:
        """Return in dB relative to the frame's brightest cell, clipped to ``[-DR, 0]``."""
        from leviathan.sonar.display import db_image

        return db_image(self, dynamic_range_db=dynamic_range_db)

    def preview_png(
        self, path: str | None = None, *, dynamic_range_db: float | None = None
    ) -> bytes:
        """sRGB range × bearing preview as PNG bytes (written to ``path`` if given)."""
        from leviathan.sonar.display import preview_png

        return preview_png(self, path, dynamic_range_db=dynamic_range_db)

    def fan_png(
        self, path: str | None = None, *, width_px: int = 512, dynamic_range_db: float | None = None
    ) -> bytes:
        """Polar-to-Cartesian fan image as PNG bytes (written to ``path`` if given)."""
        from leviathan.sonar.display import fan_png

        return fan_png(self, path, width_px=width_px, dynamic_range_db=dynamic_range_db)
