"""Reading the channels of a sample stored by :mod:`leviathan.datasets._hdf5_sparse`.

Plain sparse and coded channels are rebuilt first, then the channels derived from
them, then the sensor kind's rules (given every channel no rule names), then the
derived channels whose source is a ruled one: the order the writer checked them in.
"""

from __future__ import annotations

import json
import math

import h5py
import numpy as np

from leviathan.datasets._errors import DatasetError
from leviathan.datasets._hdf5_layout import _attr, _read_array
from leviathan.datasets._hdf5_rules import RULE, Rules, rebuilt_by_rule
from leviathan.datasets._hdf5_sparse import (
    _UNCODED,
    CELL_COUNT_CHANNEL,
    QUOTIENT,
    SLOT0,
    _Cells,
    _dense_channel,
    _occupied_cells,
)

__all__ = ["_read_channels"]


def _read_channels(group: h5py.Group, rules: Rules | None = None) -> dict[str, np.ndarray]:
    """A sample's channels, sparse and derived ones rebuilt dense (as
    :func:`leviathan.datasets._hdf5_sparse_write._write_channels` stored them)."""
    datasets = dict(group.items())
    channels: dict[str, np.ndarray] = {}
    for name, dataset in datasets.items():
        if "storage" not in dataset.attrs:
            channels[name] = _read_array(dataset)
    stored = {name: d for name, d in datasets.items() if name not in channels}
    if not stored:
        return channels
    counts = channels.get(CELL_COUNT_CHANNEL)
    if _occupied_cells(channels) is None or counts is None:
        where = next(iter(stored.values())).name
        raise DatasetError(
            f"{where}: stored sparse, but the sample has no dense 2-D integer "
            f"{CELL_COUNT_CHANNEL!r} channel to give its cells; the file is damaged"
        )
    cells = _Cells(counts)
    # Plain sparse channels first, derived ones from them, then the kind's rules (given
    # every channel no rule names).
    storages = {name: _attr(d, "storage", str) for name, d in stored.items()}
    ruled = [name for name in stored if storages[name] == RULE]
    derived = [name for name in stored if storages[name] in (SLOT0, QUOTIENT)]
    plain = [name for name in stored if name not in ruled and name not in derived]
    # A derived channel whose source is ruled comes after the rules (as written).
    late = [name for name in derived if set(_sources(stored[name]).values()) & set(ruled)]
    early = [name for name in derived if name not in late]
    for name in plain + early:
        _rebuild_stored(name, stored[name], storages[name], cells, channels)
    for a in channels.values():
        a.setflags(write=False)  # what the rules are given cannot change while they run
    for name in ruled:
        dataset = stored[name]
        shape = tuple(json.loads(_attr(dataset, "shape", str)))
        dtype = np.dtype(_attr(dataset, "dtype", str))
        rule_name = _attr(dataset, "source_rule", str)
        args = (name, dataset.name, rule_name, shape, dtype, channels, rules or {})
        channels[name] = rebuilt_by_rule(*args)
    for name in late:
        _rebuild_stored(name, stored[name], storages[name], cells, channels)
    return {name: channels[name] for name in datasets}


def _sources(dataset: h5py.Dataset) -> dict[str, str]:
    """A stored channel's ``source_*`` attributes, without the prefix."""
    return {
        key[len("source_") :]: _attr(dataset, key, str)
        for key in dataset.attrs
        if key.startswith("source_")
    }


def _rebuild_stored(
    name: str, dataset: h5py.Dataset, storage: str, cells: _Cells, channels: dict[str, np.ndarray]
) -> None:
    """Rebuilds the sparse, coded or derived channel ``name`` into ``channels``."""
    where = dataset.name
    # A coded channel's dataset holds its codes; its dtype attribute is the channel's.
    values = dataset[...] if storage in _UNCODED else _read_array(dataset)
    shape = tuple(json.loads(_attr(dataset, "shape", str)))
    fill_hex = _attr(dataset, "fill", str)
    try:
        fill_bytes = bytes.fromhex(fill_hex)
    except ValueError:
        raise DatasetError(f"{where}: attribute 'fill' is not hex ({fill_hex[:40]!r})") from None
    trailing = shape[2:]
    table = _read_table(dataset) if storage in _UNCODED else None
    dtype = values.dtype if table is None else table.dtype
    if shape[:2] != cells.shape or len(fill_bytes) != dtype.itemsize * math.prod(trailing):
        raise DatasetError(
            f"{where}: shape {shape} and a {len(fill_bytes)}-byte fill do not fit the "
            f"{cells.shape} cells of {dtype} values; the file is damaged"
        )
    little = dtype.newbyteorder("<")
    fill = np.frombuffer(fill_bytes, dtype=little).astype(dtype).reshape(trailing)
    source = _sources(dataset)
    channels[name] = _dense_channel(
        storage,
        fill,
        values,
        cells,
        where,
        source=source,
        channels={n: v for n, v in channels.items() if n != name},
        table=table,
    )


def _read_table(dataset: h5py.Dataset) -> np.ndarray:
    """A coded channel's ``table`` attribute, in the machine's byte order."""
    table = dataset.attrs.get("table")
    if not isinstance(table, np.ndarray) or table.ndim != 1 or table.dtype.kind not in "iuf":
        raise DatasetError(
            f"{dataset.name}: a coded channel needs a 1-D numeric 'table' attribute, got "
            f"{type(table).__name__}; the file is damaged"
        )
    dtype = np.dtype(_attr(dataset, "dtype", str))
    if table.dtype.newbyteorder("<") != dtype.newbyteorder("<"):
        raise DatasetError(
            f"{dataset.name}: a table of {table.dtype} values for a channel of {dtype}; the "
            "file is damaged"
        )
    return table.astype(dtype)
