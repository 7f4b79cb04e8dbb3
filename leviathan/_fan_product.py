"""What every fan product shares: frozen channels, identity and the dataset record.

:class:`FanProduct` is the base of the imaging sonar's
:class:`~leviathan.sonar.SonarFrame` and the side-scan's
:class:`~leviathan.side_scan.SideScanLine`. Each subclass is a frozen dataclass with the
fields ``channels``, ``metadata``, ``backend``, ``device`` and ``display``, names its
channels in ``CHANNEL_ORDER`` and pins its own ``__content_type__``; the identity is
that tag with the metadata and channels, never where the class lives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

import numpy as np

from leviathan._frozen import FrozenMapping, freeze, frozen_array
from leviathan._validation import check_mapping
from leviathan.identity import content_hash, content_hash_property

__all__ = ["FanProduct", "FrozenChannels", "freeze_channels"]


class FrozenChannels(dict):
    """Channels already over immutable bytes with one NaN bit pattern.

    The product adopts them as they are: no copy and no NaN pass.
    """


def freeze_channels(channels: Mapping[str, Any], names: tuple[str, ...]) -> FrozenMapping:
    """The read-only channels of a product, in the order of ``names``.

    Float arrays are copied before their NaNs are made one bit pattern, so the caller's
    arrays stay untouched; every array is kept over immutable bytes (``frozen_array``),
    so nothing can make it writable again or stale the ``content_hash``.
    :class:`FrozenChannels` (written once over immutable bytes by a renderer) are
    adopted without a copy.

    Raises:
        ValueError: If a channel name is not in ``names``.
        TypeError: If a channel is not a numeric array.
    """
    unknown = set(channels) - set(names)
    if unknown:
        raise ValueError(f"channels: unknown channel names {sorted(unknown)}")
    canonical = isinstance(channels, FrozenChannels)
    frozen = {}
    for name in names:
        if name not in channels:
            continue
        a = np.asarray(channels[name])
        if canonical:
            # Built over immutable bytes, NaNs already canonical: frozen_array returns
            # a new view without copying.
            frozen[name] = frozen_array(a)
            continue
        if a.dtype.hasobject:
            raise TypeError(f"channels[{name!r}]: expected a numeric array, got dtype {a.dtype}")
        if a.dtype.kind == "f":
            a = np.array(a, copy=True, order="C")
            # One NaN bit pattern for "missing", whatever arithmetic produced it (x86 and
            # ARM differ in the sign of a default NaN), so channels can be compared byte
            # for byte across backends.
            a[np.isnan(a)] = np.nan
        frozen[name] = frozen_array(a)
    return FrozenMapping._adopt(frozen)


@dataclass(frozen=True, eq=False)
class FanProduct:
    """The fields and behaviour of every fan product (see the module docstring).

    Attributes:
        channels: Read-only arrays by name (the subclass's ``CHANNEL_ORDER``).
        metadata: Deep read-only description of the ping.
        backend, device: The tracer that computed it (not hashed).
        display: Display settings (not hashed).
        rule_support: Exact inputs of the kind's channel rules that are neither channels
            nor metadata (:attr:`leviathan.sensors.SensorKind.channel_rules`), such as
            the normals of the triangles a sonar frame's truth names; read-only arrays
            by name, empty where the renderer gave none. Not hashed and not part of the
            identity: a dataset stores them beside the channels so that it can store
            the rules' channels as rules.
    """

    #: The subclass's channel names, in their fixed documented order.
    CHANNEL_ORDER: ClassVar[tuple[str, ...]] = ()

    channels: Mapping[str, np.ndarray]
    metadata: Mapping[str, Any]
    backend: str = field(default="reference", compare=False)
    device: str = field(default="cpu", compare=False)
    display: Mapping[str, Any] = field(default_factory=dict, compare=False)
    rule_support: Mapping[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("channels", "metadata", "display", "rule_support"):
            check_mapping(name, getattr(self, name))
        channels = freeze_channels(self.channels, self.CHANNEL_ORDER)
        object.__setattr__(self, "channels", channels)
        object.__setattr__(self, "metadata", freeze(self.metadata))
        object.__setattr__(self, "display", freeze(self.display))
        support = {name: frozen_array(np.asarray(a)) for name, a in self.rule_support.items()}
        object.__setattr__(self, "rule_support", FrozenMapping._adopt(support))

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
        """Shape of ``linear_return``: ``(range_bin_count, bearing_count)`` for a frame,
        ``(2, range_bin_count)`` for a side-scan line."""
        return tuple(self.channels["linear_return"].shape)  # type: ignore[return-value]

    def __content__(self) -> dict[str, Any]:
        return {"metadata": dict(self.metadata), "channels": dict(self.channels)}

    content_hash = content_hash_property("SHA-256 of the scientific content (hex).")

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
        rule_support: Mapping[str, np.ndarray] | None = None,
    ) -> Self:
        """The product a dataset stored (see :meth:`record_attributes`); same ``content_hash``."""
        return cls(
            channels=channels,
            metadata=metadata,
            backend=attributes["backend"],
            device=attributes["device"],
            display=display,
            rule_support={} if rule_support is None else rule_support,
        )
