"""Small samples stored as rows of their sensor's table (HDF5 format version 5).

A 100 Hz IMU writes 100 samples a second, each a handful of three-element
channels; as one HDF5 group each (with its channels' datasets and some thirty
attributes) a sample costs about a millisecond to write, and a reader wanting the
IMU's series opens thousands of groups. From version 5, a sample whose channels
are all small arrays (under :data:`~leviathan.datasets._hdf5_layout.COMPRESS_MIN_BYTES`
each, so never a sonar's cells), whose metadata and display are typed JSON without arrays, and which
has no rule support, is stored as one row of its sensor's ``rows`` group instead::

    /samples/<vehicle>/<sensor>/rows   attrs storage ("rows"), record_type, kind, sensor_id
        sample_index, time_ns, tick    int64 [N]
        content_hash                   S64 [N]
        metadata, display              typed JSON text [N]
        attributes                     JSON text [N]: the product's other record scalars
        channels/<name>                [N, *shape], the channel's exact dtype; attrs dtype
                                       and the channel's documentation, once

Every row of a table has the channel layout (names in order, dtypes, shapes) and the
record type, kind and sensor id of the table's first row; a sample that differs is
stored as its own group beside the table, as every sample was before. Rows are
appended at the end of each ``write`` call, one resize per column. A reader finds a
member's row by its sample index and rebuilds the record exactly as from a group.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import h5py
import numpy as np

from leviathan.datasets import typed_json
from leviathan.datasets._errors import DatasetError
from leviathan.datasets._hdf5_layout import (
    _HASH_DTYPE,
    COMPRESS_MIN_BYTES,
    _append,
    _attr,
    _item,
    _read_array,
    _set_attrs,
    resizable_column,
)
from leviathan.sensors import ChannelDoc

ROWS = "rows"
"""The name of a sensor's table of rows, beside its samples' groups."""

ROWS_FORMAT_VERSION = 5
"""The first format version that stores small samples as rows."""

_TEXT = h5py.string_dtype()
_STANDARD_ATTRIBUTES = ("kind", "sensor_id", "sample_index", "time_ns")
_INT_COLUMNS = ("sample_index", "time_ns", "tick")
_TEXT_COLUMNS = ("metadata", "display", "attributes")


class _NotPlain(Exception):
    """Raised by the array store of a row: a row's typed JSON holds no arrays."""


def _refuse_arrays(array: np.ndarray, keys: tuple[Any, ...]) -> str:
    raise _NotPlain


def as_row(sample: Any, kind: str, sensor_id: str, tick: int) -> dict[str, Any] | None:
    """The row ``sample`` is stored as, or None where it must be a group of its own: a
    channel of :data:`COMPRESS_MIN_BYTES` or more, empty, of text or not an array;
    metadata or display holding an array; rule support."""
    if getattr(sample, "rule_support", None):
        return None
    channels: dict[str, np.ndarray] = {}
    for name, value in sample.channels.items():
        if not isinstance(value, np.ndarray) or value.nbytes >= COMPRESS_MIN_BYTES:
            return None
        if value.dtype.kind not in "biufc" or value.size == 0:  # a chunk has no empty axis
            return None
        channels[name] = value
    try:
        metadata = typed_json.encode(sample.metadata, _refuse_arrays)
        display = typed_json.encode(sample.display, _refuse_arrays)
    except _NotPlain:
        return None
    attributes = dict(sample.record_attributes())
    if any(name not in attributes for name in _STANDARD_ATTRIBUTES):
        return None
    if attributes["kind"] != kind or attributes["sensor_id"] != sensor_id:
        return None
    extra = {k: v for k, v in attributes.items() if k not in _STANDARD_ATTRIBUTES}
    return {
        "layout": (
            type(sample).__content_type__,
            tuple((name, a.dtype.str, a.shape) for name, a in channels.items()),
        ),
        "channels": channels,
        "sample_index": int(attributes["sample_index"]),
        "time_ns": int(attributes["time_ns"]),
        "tick": int(tick),
        "content_hash": sample.content_hash.encode("ascii"),
        "metadata": metadata,
        "display": display,
        "attributes": json.dumps(extra, sort_keys=True),
    }


class SensorRows:
    """The rows of one sensor: those written and those waiting for :meth:`flush`."""

    def __init__(
        self, parent: h5py.Group, kind: str, sensor_id: str, docs: Mapping[str, ChannelDoc]
    ) -> None:
        self._parent = parent
        self._kind = kind
        self._sensor_id = sensor_id
        self._docs = dict(docs)
        self._layout: tuple[Any, ...] | None = None
        self._waiting: list[dict[str, Any]] = []

    def accepts(self, row: Mapping[str, Any]) -> bool:
        """Whether ``row`` has this table's layout (the first row's, or any before one)."""
        return self._layout is None or row["layout"] == self._layout

    def add(self, row: dict[str, Any]) -> None:
        if self._layout is None:
            self._layout = row["layout"]
        self._waiting.append(row)

    def flush(self) -> None:
        """Appends the waiting rows to the table (made with the first rows)."""
        if not self._waiting:
            return
        rows, self._waiting = self._waiting, []
        table = self._parent.get(ROWS)
        if table is None:
            table = self._create(rows[0])
        for column in _INT_COLUMNS:
            _append(table[column], [row[column] for row in rows])
        _append(table["content_hash"], [row["content_hash"] for row in rows])
        for column in _TEXT_COLUMNS:
            _append(table[column], [row[column] for row in rows])
        channels = table["channels"]
        for name, _, _ in rows[0]["layout"][1]:
            _append(channels[name], np.stack([row["channels"][name] for row in rows]))

    def _create(self, first: Mapping[str, Any]) -> h5py.Group:
        table = self._parent.create_group(ROWS, track_order=True)
        record_type, layout = first["layout"]
        _set_attrs(
            table,
            {
                "storage": ROWS,
                "record_type": record_type,
                "kind": self._kind,
                "sensor_id": self._sensor_id,
            },
        )
        for column in _INT_COLUMNS:
            resizable_column(table, column, np.int64, ())
        resizable_column(table, "content_hash", _HASH_DTYPE, ())
        for column in _TEXT_COLUMNS:
            resizable_column(table, column, _TEXT, ())
        channels = table.create_group("channels", track_order=True)
        for name, dtype, shape in layout:
            dataset = resizable_column(channels, name, np.dtype(dtype), shape)
            _set_attrs(dataset, {"dtype": dtype, **self._docs[name]._asdict()})
        return table


class RowsReader:
    """A sensor's table read once per pass: the record of a sample index, rebuilt."""

    def __init__(self, table: h5py.Group) -> None:
        self.name = table.name
        if not isinstance(table, h5py.Group):
            raise DatasetError(f"{table.name}: expected a group of columns; the file is damaged")
        if _attr(table, "storage", str) != ROWS:
            raise DatasetError(f"{table.name}: attribute 'storage' is not {ROWS!r}")
        self.record_type = _attr(table, "record_type", str)
        self.kind = _attr(table, "kind", str)
        self.sensor_id = _attr(table, "sensor_id", str)
        self._ints = {c: _item(table, c)[...] for c in _INT_COLUMNS}
        self._hashes = _item(table, "content_hash")[...]
        self._texts = {c: _item(table, c).asstr()[...] for c in _TEXT_COLUMNS}
        self._channels = {name: _read_array(d) for name, d in _item(table, "channels").items()}
        count = self._ints["sample_index"].shape[0]
        columns = [*self._ints.values(), self._hashes, *self._texts.values()]
        if any(c.shape[:1] != (count,) for c in [*columns, *self._channels.values()]):
            raise DatasetError(f"{table.name}: its columns differ in length; the file is damaged")
        self._order = np.argsort(self._ints["sample_index"], kind="stable")

    def row_of(self, sample_index: int) -> int | None:
        """The row of ``sample_index``, or None where the table has none."""
        indices = self._ints["sample_index"]
        at = int(np.searchsorted(indices[self._order], sample_index))
        if at < indices.shape[0] and int(indices[self._order[at]]) == sample_index:
            return int(self._order[at])
        return None

    def content_hash(self, row: int) -> str:
        return self._hashes[row].decode("ascii")

    def record(self, row: int) -> dict[str, Any]:
        """``channels``, ``metadata``, ``display`` and ``attributes`` of ``row``, as a
        product's ``from_record`` takes them."""
        where = f"{self.name}[{row}]"
        try:
            metadata = typed_json.decode(self._texts["metadata"][row], _no_arrays(where))
            display = typed_json.decode(self._texts["display"][row], _no_arrays(where))
            extra = json.loads(self._texts["attributes"][row])
        except ValueError as error:
            raise DatasetError(f"{where}: {error}") from None
        if not isinstance(extra, dict):
            raise DatasetError(f"{where}: attributes is not a JSON object; the file is damaged")
        attributes = {
            "kind": self.kind,
            "sensor_id": self.sensor_id,
            "sample_index": int(self._ints["sample_index"][row]),
            "time_ns": int(self._ints["time_ns"][row]),
            **extra,
        }
        channels = {
            name: a[row : row + 1].reshape(a.shape[1:]).copy()  # an array, also of shape ()
            for name, a in self._channels.items()
        }
        return {
            "channels": channels,
            "metadata": metadata,
            "display": display,
            "attributes": attributes,
        }


def _no_arrays(where: str) -> typed_json.ArrayLoad:
    def load(name: str) -> np.ndarray:
        raise DatasetError(f"{where}: a row's typed JSON names array {name!r}; rows hold none")

    return load
