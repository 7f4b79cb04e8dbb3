"""Channels a sensor kind rebuilds from a sample's other channels, stored as the rule.

A kind may declare ``channel_rules`` (:class:`leviathan.sensors.SensorKind`): channel
name -> ``rule(channels, metadata, support)``. From format version 3 the HDF5 writer
stores such a channel as its rule alone (``storage = "rule"``, ``source_rule`` the
rule's qualified name) where the rule, given the sample's channels that no rule of
the kind names (less those derived from a ruled one), its metadata and its support,
rebuilds the channel byte for byte; otherwise as any other channel. The reader runs
the same rule once those channels are rebuilt, so ``verify`` re-hashes what it
rebuilt. The imaging sonar's rules are in :mod:`leviathan.sonar._rebuild`.

From version 4 a product's ``rule_support`` (exact inputs its renderer kept, such as
the normals of the triangles a sonar frame's truth names) is stored beside its
channels, in the sample's ``rule_support`` group, where some channel is stored as a
rule; a version-3 file has none, so only rules that need no support apply there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import h5py
import numpy as np

from leviathan.datasets._errors import DatasetError
from leviathan.datasets._hdf5_layout import _GZIP
from leviathan.sensors import sensor_declarations

__all__ = [
    "RULE",
    "SUPPORT_GROUP",
    "channel_rules",
    "read_rule_support",
    "rebuilt_by_rule",
    "ruled_source",
    "write_rule_support",
]

RULE = "rule"
"""The ``storage`` attribute of a channel stored as its kind's rule."""

SUPPORT_GROUP = "rule_support"
"""The sample's group that holds its product's ``rule_support`` (format version 4)."""

Rules = Mapping[str, tuple[str, Callable[[Mapping[str, np.ndarray]], Any]]]
"""Channel name -> (the rule's qualified name, the rule bound to the sample's metadata)."""


def channel_rules(
    kind: str, metadata: Mapping[str, Any], support: Mapping[str, np.ndarray] | None = None
) -> dict[str, tuple[str, Callable]]:
    """The channel rules of ``kind`` bound to one sample's ``metadata`` and ``support``
    (an empty mapping where None; no rules for a kind that is not registered here)."""
    support = {} if support is None else support
    try:
        rules = sensor_declarations(kind).channel_rules
    except LookupError:
        return {}
    return {
        name: (
            f"{rule.__module__}.{rule.__qualname__}",
            functools.partial(rule, metadata=metadata, support=support),
        )
        for name, rule in rules.items()
    }


def _inputs(channels: Mapping[str, np.ndarray], rules: Rules) -> dict[str, np.ndarray]:
    """What a rule is given: the channels no rule of the kind names."""
    return {name: value for name, value in channels.items() if name not in rules}


def _rebuilt(
    entry: tuple[str, Callable], channels: Mapping[str, np.ndarray], rules: Rules, like: tuple
) -> np.ndarray | None:
    """What the rule ``entry`` rebuilds from ``channels``, if it is an array of ``like``
    ``(dtype, shape)``; else None."""
    rebuilt = entry[1](_inputs(channels, rules))
    if not isinstance(rebuilt, np.ndarray) or (rebuilt.dtype, rebuilt.shape) != like:
        return None
    return rebuilt


def ruled_source(
    name: str, a: np.ndarray, channels: Mapping[str, np.ndarray], rules: Rules
) -> dict[str, str] | None:
    """``{"rule": qualified name}`` where the kind's rule for ``name`` rebuilds ``a``
    byte for byte from the other channels, else None."""
    entry = rules.get(name)
    rebuilt = None if entry is None else _rebuilt(entry, channels, rules, (a.dtype, a.shape))
    if rebuilt is None:
        return None
    if np.ascontiguousarray(rebuilt).tobytes() != np.ascontiguousarray(a).tobytes():
        return None
    return {"rule": entry[0]}


def rebuilt_by_rule(
    name: str,
    where: str,
    rule_name: str,
    shape: tuple[int, ...],
    dtype: np.dtype,
    channels: Mapping[str, np.ndarray],
    rules: Rules,
) -> np.ndarray:
    """The channel the rule ``rule_name`` rebuilds, or a DatasetError saying why not."""
    entry = rules.get(name)
    if entry is None or entry[0] != rule_name:
        have = "no rule for it" if entry is None else f"the rule {entry[0]!r}"
        raise DatasetError(
            f"{where}: stored as the rule {rule_name!r}, and this LEVIATHAN has {have} for "
            "the sample's kind; read the file with the version that wrote it (or register "
            "the kind's sensor)"
        )
    rebuilt = _rebuilt(entry, channels, rules, (dtype, shape))
    if rebuilt is None:
        raise DatasetError(
            f"{where}: the rule {rule_name!r} cannot rebuild its {dtype} {shape} values from "
            "the sample's other channels; the file is damaged"
        )
    return rebuilt


def write_rule_support(group: h5py.Group, support: Mapping[str, np.ndarray]) -> None:
    """Stores ``support`` (arrays by name) in the sample ``group``'s ``rule_support`` group.

    Not through :func:`~leviathan.datasets._hdf5_layout._write_array`, on purpose: its
    chunks are whole rows, and the support's ``[m, 3]`` vertex and edge arrays compress
    to 4.2 MB per demo run in h5py's own chunking (one coordinate a chunk, which the
    shuffle filter groups better) against 6.3 MB in whole rows (measured on the demo:
    225 against 231 MB in all).
    """
    out = group.create_group(SUPPORT_GROUP, track_order=True)
    for name, value in support.items():
        a = np.ascontiguousarray(value)
        out.create_dataset(name, data=a, **(_GZIP if a.size else {}))


def read_rule_support(group: h5py.Group) -> dict[str, np.ndarray]:
    """The arrays of ``group``'s ``rule_support`` group; empty where it has none."""
    support = group.get(SUPPORT_GROUP)
    if support is None:
        return {}
    if not isinstance(support, h5py.Group) or not all(
        isinstance(d, h5py.Dataset) and d.dtype.kind in "iufb" for d in support.values()
    ):
        raise DatasetError(
            f"{group.name}/{SUPPORT_GROUP}: expected a group of numeric datasets; the file is "
            "damaged"
        )
    return {name: d[...] for name, d in support.items()}
