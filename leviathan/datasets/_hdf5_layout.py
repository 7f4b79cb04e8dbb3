"""The HDF5 dataset's layout: its constants and how one array or attribute is stored.

Shared by the writer (:mod:`leviathan.datasets.hdf5`) and the reader
(:mod:`leviathan.datasets._hdf5_reader`), so that what is written and what is
read back are defined once; the layout itself is documented in
:mod:`leviathan.datasets.hdf5`.
"""

from __future__ import annotations

import functools
import math
import sys
import zlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import h5py
import numpy as np

from leviathan._cores import usable_cores
from leviathan.datasets import typed_json
from leviathan.datasets._errors import DatasetError
from leviathan.identity import ENCODING_VERSION
from leviathan.sensors import ChannelDoc

FORMAT_NAME = "leviathan.dataset.hdf5"
"""The root attribute ``format`` of every file the HDF5 dataset writer makes."""

FORMAT_VERSION = 5
"""The root attribute ``format_version`` of the files written now.

Version 2 stores the channels of a sample with cells sparsely (see
:mod:`leviathan.datasets._hdf5_sparse`); version 3 also stores values with few
distinct bit patterns as codes into a table of them, and channels their kind's rules
rebuild as the rule; version 4 also stores a product's rule support beside its
channels, so that rules that need it apply (:mod:`leviathan.datasets._hdf5_rules`);
version 5 also stores small samples (an IMU's, a pressure sensor's) as rows of their
sensor's table (:mod:`leviathan.datasets._hdf5_rows`); version 1 stored every channel
dense.
"""

READABLE_FORMAT_VERSIONS = (1, 2, 3, 4, 5)
"""The format versions the reader accepts (a version-1 file has no sparse channels, a
version-2 file no coded ones, a version-3 file no rule support, a version-4 file no
rows)."""

TIER = "canonical"
"""The root attribute ``tier``: this file holds the records themselves, losslessly."""

COMPRESS_MIN_BYTES = 4096
"""Arrays of at least this many bytes are chunked and compressed; smaller ones are not."""

CHUNK_TARGET_BYTES = 1 << 20
"""Approximate chunk size [bytes]: whole rows (first axis) up to about 1 MiB."""

SUFFIXES = (".h5", ".hdf5")
"""File name endings the writer accepts."""

_SAMPLE_NAME_DIGITS = 8
_TRACK_FIELDS = ("ticks", "times_ns", "position_ned_m", "attitude_q", "velocity_body")
_TRACK_ROWS_PER_CHUNK = 1024
_GROUP_COLUMNS = ("tick", "time_ns", "content_hash", "member_start", "member_count")
_MEMBER_COLUMNS = ("sensor_id", "sample_index", "content_hash")
_HASH_DTYPE = np.dtype("S64")
_GZIP = {"compression": "gzip", "compression_opts": 1, "shuffle": True}


# --------------------------------------------------------------------------- attributes

_TEXT = h5py.string_dtype()
_TEXT_FILE_TYPE = h5py.h5t.py_create(_TEXT, logical=True)
_TEXT_MEMORY_TYPE = h5py.h5t.py_create(_TEXT)
_SCALAR_SPACE = h5py.h5s.create(h5py.h5s.SCALAR)


def _set_attrs(obj: h5py.HLObject, values: Mapping[str, str | int]) -> None:
    """Creates text and integer attributes on an object that does not have them yet.

    The same attributes ``obj.attrs[name] = value`` would make, through the
    low-level API: the high-level path checks for and replaces an existing
    attribute and guesses the type every time, which doubles the cost of a
    sample's thirty-odd attributes (about 2 s of the survey demo's export).
    """
    for name, value in values.items():
        if isinstance(value, str):
            data = np.array(value, dtype=_TEXT)
            file_type, memory_type = _TEXT_FILE_TYPE, _TEXT_MEMORY_TYPE
        else:
            data = np.array(value, dtype=np.int64)
            file_type, memory_type = h5py.h5t.STD_I64LE, h5py.h5t.NATIVE_INT64
        attribute = h5py.h5a.create(obj.id, name.encode(), file_type, _SCALAR_SPACE)
        try:
            attribute.write(data, mtype=memory_type)
        finally:
            attribute.close()


def resizable_column(
    group: h5py.Group, name: str, dtype: Any, row_shape: tuple[int, ...] = ()
) -> h5py.Dataset:
    """An empty dataset of rows of ``row_shape`` that grows along its first axis (by
    :func:`_append`): chunks of whole rows, compressed unless variable-length."""
    # Compressing a variable-length column would only compress its heap pointers.
    options = {} if np.dtype(dtype).kind == "O" else _GZIP
    return group.create_dataset(
        name,
        shape=(0, *row_shape),
        maxshape=(None, *row_shape),
        chunks=(_TRACK_ROWS_PER_CHUNK, *row_shape),
        dtype=dtype,
        track_times=False,
        **options,
    )


# --------------------------------------------------------------------------- arrays


def _chunks(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Whole rows along the first axis, about CHUNK_TARGET_BYTES per chunk."""
    row_bytes = itemsize * math.prod(shape[1:])
    rows = max(1, min(shape[0], CHUNK_TARGET_BYTES // max(row_bytes, 1)))
    return (rows, *shape[1:])


def _stored_form(a: np.ndarray) -> np.ndarray:
    """The array HDF5 holds for ``a``: itself, or the code units of a string array."""
    kind = a.dtype.kind
    if kind in "biufc":
        return a
    if kind in "US":
        width = 4 if kind == "U" else 1
        count = a.dtype.itemsize // width
        little = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
        return little.view(f"<u{width}").reshape(*a.shape, count)
    raise TypeError(
        f"dtype {a.dtype.str!r} cannot be stored; expected bool, int, float, complex, U, S"
    )


def _write_array(
    group: h5py.Group,
    name: str,
    value: Any,
    *,
    doc: ChannelDoc | None = None,
    dtype_attr: str | None = None,
    pending: list[Any] | None = None,
) -> h5py.Dataset:
    """One dataset holding ``value`` exactly, with its ``dtype`` (and ``doc``) attributes.

    ``dtype_attr`` replaces the ``dtype`` attribute where the dataset holds another
    form of the channel (a coded channel's codes: the attribute names the channel's).

    An array of at least :data:`COMPRESS_MIN_BYTES` is chunked by whole rows and
    stored with HDF5's shuffle and deflate (level 1) filters; its chunks are
    filtered here on a pool of threads (zlib releases the GIL) and written with
    ``write_direct_chunk``, the same bytes HDF5's own filters write (a test compares
    them), so a file is read by any HDF5 reader as before. With ``pending``, the chunks
    are filtered behind the caller, who writes them with :func:`write_pending` (the
    writer goes on to its next array meanwhile).
    """
    a = np.asarray(value)
    stored = _stored_form(a)
    if stored.ndim and stored.size and stored.nbytes >= COMPRESS_MIN_BYTES:
        chunks = _chunks(stored.shape, stored.dtype.itemsize)
        dataset = group.create_dataset(
            name,
            shape=stored.shape,
            dtype=stored.dtype,
            chunks=chunks,
            track_times=False,
            **_GZIP,
        )
        _write_chunks(dataset, stored, chunks[0], pending)
    else:
        dataset = group.create_dataset(name, data=stored, track_times=False)
    dtype = a.dtype.str if dtype_attr is None else dtype_attr
    _set_attrs(dataset, {"dtype": dtype, **({} if doc is None else doc._asdict())})
    return dataset


def _filtered_chunk(rows: np.ndarray, chunk_rows: int) -> bytes:
    """One chunk as HDF5's shuffle + deflate(1) filters store it, from its rows.

    A chunk at the end of the first axis is padded with zeros to the full chunk
    (HDF5 stores whole chunks; the padding is never read).
    """
    if rows.shape[0] < chunk_rows:
        full = np.zeros((chunk_rows, *rows.shape[1:]), dtype=rows.dtype)
        full[: rows.shape[0]] = rows
        rows = full
    raw = np.ascontiguousarray(rows).reshape(-1).view(np.uint8)
    size = rows.dtype.itemsize
    shuffled = raw.reshape(-1, size).T.tobytes() if size > 1 else raw.tobytes()
    return zlib.compress(shuffled, 1)


def _write_chunks(
    dataset: h5py.Dataset, stored: np.ndarray, chunk_rows: int, pending: list[Any] | None = None
) -> None:
    """Writes ``stored`` into the chunked, filtered ``dataset`` chunk by chunk (with
    ``pending``: leaves the filtered chunks to :func:`write_pending`)."""
    starts = range(0, stored.shape[0], chunk_rows)
    parts = [stored[start : start + chunk_rows] for start in starts]
    if pending is not None:
        pool = _compress_pool()
        futures = [pool.submit(_filtered_chunk, rows, chunk_rows) for rows in parts]
        pending.append((dataset, starts, futures))
        return
    if len(parts) > 1:
        compressed = list(
            _compress_pool().map(lambda rows: _filtered_chunk(rows, chunk_rows), parts)
        )
    else:
        compressed = [_filtered_chunk(parts[0], chunk_rows)]
    _put_chunks(dataset, starts, compressed)


def _put_chunks(dataset: h5py.Dataset, starts: range, compressed: list[bytes]) -> None:
    zeros = (0,) * (len(dataset.shape) - 1)
    for start, data in zip(starts, compressed, strict=True):
        dataset.id.write_direct_chunk((start, *zeros), data, 0)


def write_pending(pending: list[Any]) -> None:
    """Writes the chunks :func:`_write_array` left in ``pending``, in the order their
    arrays were given, once each is filtered; empties ``pending``."""
    while pending:
        dataset, starts, futures = pending.pop(0)
        _put_chunks(dataset, starts, [future.result() for future in futures])


@functools.lru_cache(maxsize=1)
def _compress_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=usable_cores(), thread_name_prefix="leviathan-hdf5")


def _read_array(dataset: h5py.Dataset) -> np.ndarray:
    """The array :func:`_write_array` stored, with its exact dtype and shape."""
    dtype = np.dtype(_attr(dataset, "dtype", str))
    raw = dataset[...]
    if dtype.kind in "US":
        width = 4 if dtype.kind == "U" else 1
        units = np.ascontiguousarray(raw, dtype=f"<u{width}")
        little = units.view(dtype.newbyteorder("<")).reshape(raw.shape[:-1])
        return little.astype(dtype)
    if raw.dtype != dtype:
        raw = raw.astype(dtype)
    return raw


def _attr(obj: h5py.HLObject, name: str, kind: type) -> Any:
    """A required attribute as a Python ``str`` or ``int``; a typed error if absent."""
    try:
        value = obj.attrs[name]
    except KeyError:
        raise DatasetError(
            f"{obj.name}: attribute {name!r} is missing; the file is incomplete or not written "
            "by leviathan.datasets.hdf5"
        ) from None
    if kind is int and isinstance(value, np.integer | int) and not isinstance(value, bool):
        return int(value)
    if kind is str and isinstance(value, str):
        return value
    raise DatasetError(f"{obj.name}: attribute {name!r} is {value!r}, expected a {kind.__name__}")


def _item(group: h5py.Group, name: str) -> Any:
    """``group[name]``, or a typed error naming the missing path."""
    try:
        return group[name]
    except KeyError:
        raise DatasetError(
            f"{group.name.rstrip('/')}/{name}: missing from the file; it is incomplete or not "
            "written by leviathan.datasets.hdf5"
        ) from None


def _valid_name(name: Any) -> bool:
    return isinstance(name, str) and bool(name) and "/" not in name and name not in (".", "..")


def _metadata_store(group: h5py.Group, folder: str) -> typed_json.ArrayStore:
    """A typed-JSON array store that writes each array as a dataset in ``group/folder``."""

    def store(array: np.ndarray, keys: tuple[Any, ...]) -> str:
        arrays = group.require_group(folder)
        top = keys[0] if len(keys) == 1 else None
        # Arrays directly under a key keep its name (bearing_rad, preview_srgb).
        name = top if _valid_name(top) and top not in arrays else f"array_{len(arrays)}"
        while name in arrays:
            name = f"{name}_"
        dataset = _write_array(arrays, name, array)
        _set_attrs(dataset, {"json_path": "$" + "".join(f"[{k!r}]" for k in keys)})
        return name

    return store


def _metadata_load(group: h5py.Group, folder: str) -> typed_json.ArrayLoad:
    def load(name: str) -> np.ndarray:
        return _read_array(_item(_item(group, folder), name))

    return load


def _plain_json(value: Any, where: str) -> Any:
    """``value`` as plain JSON data (dicts, lists), refusing what JSON would change."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        if not math.isfinite(value):
            raise DatasetError(f"{where}: {value!r} cannot be written as plain JSON; use a string")
        return value
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise DatasetError(f"{where}: key {key!r} is not a str; JSON keys are strings")
            out[key] = _plain_json(item, f"{where}[{key!r}]")
        return out
    if isinstance(value, list | tuple):
        return [_plain_json(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise DatasetError(
        f"{where}: {type(value).__name__} value {value!r} is not JSON data; expected None, bool, "
        "int, float, str, lists and str-keyed mappings"
    )


def _append(dataset: h5py.Dataset, rows: Any) -> None:
    """Appends ``rows`` along the first axis of a resizable dataset."""
    data = np.asarray(rows, dtype=object if dataset.dtype.kind == "O" else dataset.dtype)
    if not len(data):
        return
    start = dataset.shape[0]
    dataset.resize(start + len(data), axis=0)
    dataset[start:] = data


def _provenance(format_version: int, group_count: int, member_count: int) -> dict[str, Any]:
    """The root ``provenance`` attribute: what wrote the file, with what, and its counts."""
    from leviathan import __version__

    return {
        "writer": "leviathan.datasets.hdf5.Hdf5Writer",
        "format": FORMAT_NAME,
        "format_version": format_version,
        "leviathan_version": __version__,
        "content_encoding_version": ENCODING_VERSION,
        "metadata_encoding": typed_json.TYPED_JSON_VERSION,
        "h5py_version": h5py.__version__,
        "hdf5_version": h5py.version.hdf5_version,
        "numpy_version": np.__version__,
        "python_version": ".".join(str(v) for v in sys.version_info[:3]),
        "compression": {
            "filter": "gzip",
            "level": _GZIP["compression_opts"],
            "shuffle": True,
            "min_bytes": COMPRESS_MIN_BYTES,
            "chunk_target_bytes": CHUNK_TARGET_BYTES,
        },
        "capture_group_count": group_count,
        "sample_count": member_count,
    }
