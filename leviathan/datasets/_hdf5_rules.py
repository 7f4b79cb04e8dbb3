"""Channels a sensor kind rebuilds from a sample's other channels, stored as the rule.

A kind may declare ``channel_rules`` (:class:`leviathan.sensors.SensorKind`): channel
name -> ``rule(channels, metadata)``. From format version 3 the HDF5 writer stores
such a channel as its rule alone (``storage = "rule"``, ``source_rule`` the rule's
qualified name) where the rule, given the sample's channels that no rule of the kind
names and its metadata, rebuilds the channel byte for byte; otherwise as any other
channel. The reader runs the same rule after every other channel is rebuilt, so
``verify`` re-hashes what it rebuilt. The imaging sonar's primary hit point is the
one such channel today (:mod:`leviathan.sonar._rebuild`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from leviathan.datasets._errors import DatasetError
from leviathan.sensors import sensor_declarations

__all__ = ["RULE", "channel_rules", "rebuilt_by_rule", "ruled_source"]

RULE = "rule"
"""The ``storage`` attribute of a channel stored as its kind's rule."""

Rules = Mapping[str, tuple[str, Callable[[Mapping[str, np.ndarray]], Any]]]
"""Channel name -> (the rule's qualified name, the rule bound to the sample's metadata)."""


def channel_rules(kind: str, metadata: Mapping[str, Any]) -> dict[str, tuple[str, Callable]]:
    """The channel rules of ``kind`` bound to one sample's ``metadata`` (none for a kind
    that is not registered here)."""
    try:
        rules = sensor_declarations(kind).channel_rules
    except LookupError:
        return {}
    return {
        name: (f"{rule.__module__}.{rule.__qualname__}", functools.partial(rule, metadata=metadata))
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
