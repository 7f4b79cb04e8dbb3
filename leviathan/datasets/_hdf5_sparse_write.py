"""Writing a sample's channels in the HDF5 dataset's sparse, coded and ruled forms.

The forms are chosen, and each checked byte for byte against the channel, by
:mod:`leviathan.datasets._hdf5_sparse`; :mod:`leviathan.datasets._hdf5_sparse_read`
rebuilds them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import h5py
import numpy as np

from leviathan.datasets._hdf5_layout import _set_attrs, _write_array, write_pending
from leviathan.datasets._hdf5_rules import RULE, Rules
from leviathan.datasets._hdf5_sparse import (
    CELL_COUNT_CHANNEL,
    _Cells,
    _choose_forms,
    _occupied_cells,
)
from leviathan.sensors import ChannelDoc


def _write_channels(
    group: h5py.Group,
    channels: Mapping[str, Any],
    docs: Mapping[str, ChannelDoc],
    *,
    version: int,
    rules: Rules | None = None,
    pending: list[Any] | None = None,
) -> set[str]:
    """A sample's channels in format ``version``: from 2 over its cells sparse where
    :func:`_sparse_channel` allows; from 3 also as codes into a table of their values
    where that pays, and a channel one of ``rules`` rebuilds exactly as that rule.

    With ``pending``, compressed channels' chunks are left there, filtering on the
    compression pool, for the caller's :func:`write_pending`; without, they are written
    before this returns. Returns the names of the channels stored as their rule."""
    coded = version >= 3
    rules = rules if coded else None
    arrays = {name: np.asarray(value) for name, value in channels.items()}
    occupied = _occupied_cells(arrays) if version >= 2 else None
    cells = None if occupied is None else _Cells(np.asarray(arrays[CELL_COUNT_CHANNEL]))
    forms: dict[str, Any] = {}
    if cells is not None:
        _choose_forms(forms, arrays, cells, coded=coded, rules=rules or {})
    if pending is None:
        pending = []
        _write_forms(group, arrays, forms, docs, pending)
        write_pending(pending)
    else:
        _write_forms(group, arrays, forms, docs, pending)
    return {name for name, form in forms.items() if form is not None and form[0] == RULE}


def _write_forms(
    group: h5py.Group,
    arrays: Mapping[str, np.ndarray],
    forms: Mapping[str, Any],
    docs: Mapping[str, ChannelDoc],
    pending: list[Any],
) -> None:
    """Each of ``arrays`` as a dataset of ``group`` in its chosen form (None: dense)."""
    for name, a in arrays.items():
        form = forms.get(name)
        if form is None:
            _write_array(group, name, a, doc=docs[name], pending=pending)
            continue
        storage, fill, values, source, table = form
        stored = np.zeros(0, dtype=a.dtype) if values is None else values
        # A coded channel's dataset holds its codes; its dtype attribute names the channel's.
        dtype_attr = None if table is None else a.dtype.str
        dataset = _write_array(
            group, name, stored, doc=docs[name], dtype_attr=dtype_attr, pending=pending
        )
        _set_attrs(
            dataset,
            {
                "storage": storage,
                "shape": json.dumps(list(a.shape)),
                **({} if fill is None else {"fill": _fill_hex(fill)}),
                **{f"source_{key}": value for key, value in source.items()},
            },
        )
        if table is not None:
            # In the channel's dtype, little-endian, as the fill is written.
            dataset.attrs.create("table", table.astype(table.dtype.newbyteorder("<")))


def _fill_hex(fill: np.ndarray) -> str:
    return fill.astype(fill.dtype.newbyteorder("<")).tobytes().hex()
