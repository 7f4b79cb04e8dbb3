"""The lossless HDF5 dataset: every channel of every sample, the tracks and the documents.

:class:`Hdf5Writer` streams a World's capture groups and its vehicles'
ground-truth tracks into one HDF5 file; :func:`read_hdf5` rebuilds the records,
one capture group at a time, and checks that each has the content hash stored
with it. Nothing is dropped or converted: every channel keeps its dtype and
shape (the complete per-cell sonar ground truth included), metadata is stored
as typed JSON (:mod:`leviathan.datasets.typed_json`) with its arrays as
datasets, so the content hash of a rebuilt record equals the original's.

Layout (format ``leviathan.dataset.hdf5``, version 1)::

    /                                  attrs: format, format_version, tier ("canonical"),
                                       leviathan_version, content_encoding_version,
                                       metadata_encoding, manifest (JSON), provenance (JSON)
    /vehicles/<vehicle>                attrs: spec (JSON of model_dump(mode="json")),
                                       spec_type, content_hash
    /vehicles/<vehicle>/sensors/<s>    attrs: kind, sensor_id; dataset T_body_sensor [4, 4]
    /tracks/<vehicle>/<field>          ticks, times_ns, position_ned_m, attitude_q,
                                       velocity_body: one row per committed tick; attrs
                                       content_hash (of the VehicleTrackRecord)
    /capture_groups/<column>           tick, time_ns, content_hash, member_start,
                                       member_count: one row per capture group
    /capture_groups/members/<column>   sensor_id, sample_index, content_hash: one row per
                                       member, rows member_start .. +member_count of a group
    /samples/<vehicle>/<sensor>/<n>    one group per sample, n its sample index (8 digits);
                                       attrs record_type, kind, sensor_id, sample_index,
                                       time_ns, tick, content_hash, metadata (typed JSON),
                                       backend and device (sonar frames)
        channels/<name>                every channel, exact dtype and shape
        metadata_arrays/<name>         arrays the metadata references ({"$array": name})
        display/<name>                 display products (not part of the content hash);
                                       attr display (typed JSON of the display mapping)

Every stored array has the attribute ``dtype`` (NumPy's dtype string, byte order
included); channels, display products, tracks and capture-group columns also
carry ``units``, ``frame``, ``axes``, ``description`` and ``sentinel`` from
:data:`~leviathan.datasets.channels.CHANNEL_DOCS`. Unicode and byte-string
arrays are stored as their code units (``uint32`` / ``uint8`` with one more
axis) and read back through ``dtype``. Text attributes are variable-length
UTF-8 strings, integer attributes int64.

Arrays of at least :data:`COMPRESS_MIN_BYTES` are chunked along their first
axis in chunks of about :data:`CHUNK_TARGET_BYTES` and compressed with gzip
level 1 behind the shuffle filter (a survey sonar frame: 40 MB of channels,
2.9 MB on disk, 0.17 s to write on one core); smaller ones are stored
contiguously.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from leviathan._files import atomic_path, check_output_path
from leviathan.datasets import typed_json
from leviathan.datasets.channels import CHANNEL_DOCS, ChannelDoc
from leviathan.datasets.errors import DatasetError, DatasetIntegrityError
from leviathan.identity import ENCODING_VERSION, content_hash, display_hash
from leviathan.world import CaptureGroup, VehicleTrackRecord

__all__ = [
    "CHUNK_TARGET_BYTES",
    "COMPRESS_MIN_BYTES",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "DatasetError",
    "DatasetIntegrityError",
    "Hdf5Dataset",
    "Hdf5Writer",
    "read_hdf5",
]

FORMAT_NAME = "leviathan.dataset.hdf5"
"""The root attribute ``format`` of every file this module writes."""

FORMAT_VERSION = 1
"""The root attribute ``format_version``; the reader accepts exactly this version."""

TIER = "canonical"
"""The root attribute ``tier``: this file holds the records themselves, losslessly."""

COMPRESS_MIN_BYTES = 4096
"""Arrays of at least this many bytes are chunked and compressed; smaller ones are not."""

CHUNK_TARGET_BYTES = 1 << 20
"""Approximate chunk size [bytes]: whole rows (first axis) up to about 1 MiB."""

SUFFIXES = (".h5", ".hdf5")
"""File name endings the writer accepts."""

_SAMPLE_NAME_DIGITS = 8
_SONAR_KIND = "imaging_sonar"
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
    group: h5py.Group, name: str, value: Any, *, doc: ChannelDoc | None = None
) -> h5py.Dataset:
    """One dataset holding ``value`` exactly, with its ``dtype`` (and ``doc``) attributes."""
    a = np.asarray(value)
    stored = _stored_form(a)
    options: dict[str, Any] = {}
    if stored.ndim and stored.size and stored.nbytes >= COMPRESS_MIN_BYTES:
        options = {"chunks": _chunks(stored.shape, stored.dtype.itemsize), **_GZIP}
    dataset = group.create_dataset(name, data=stored, track_times=False, **options)
    _set_attrs(dataset, {"dtype": a.dtype.str, **({} if doc is None else doc._asdict())})
    return dataset


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


# --------------------------------------------------------------------------- writer


class _Aborted(Exception):
    """Thrown into the atomic-file context to discard the temporary file."""


class Hdf5Writer:
    """Streams capture groups and ground-truth tracks into a lossless HDF5 dataset.

    The file is written to a temporary sibling and renamed over ``path`` by
    :meth:`close`; :meth:`abort`, any refused input and any error while writing
    remove it, leaving ``path`` as it was. As a context manager, an exception
    in the block aborts and a normal exit closes.

    Args:
        path: The ``.h5`` / ``.hdf5`` file to write.
        vehicles: Vehicle name in the World -> its :class:`~leviathan.specs.VehicleSpec`;
            only their sensors' samples and tracks are accepted.
        manifest: The run's manifest, plain JSON data (stored at the root; :meth:`close`
            may replace it).

    Raises:
        DatasetError: A wrong suffix, a vehicle name that cannot be a group name, a
            manifest that is not plain JSON data.
        TypeError: ``vehicles`` does not map names to ``VehicleSpec`` documents.
        OSError: ``path`` cannot be written.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        vehicles: Mapping[str, Any],
        manifest: Mapping[str, Any],
    ) -> None:
        from leviathan.specs import VehicleSpec

        target = Path(path)
        if target.suffix.lower() not in SUFFIXES:
            raise DatasetError(
                f"path: expected a file ending in {' or '.join(SUFFIXES)}, got {str(path)!r}"
            )
        self._path = check_output_path(target)
        if not isinstance(vehicles, Mapping) or not vehicles:
            raise TypeError(
                f"vehicles: expected a non-empty mapping name -> VehicleSpec, got {vehicles!r}"
            )
        self._kinds: dict[str, str] = {}  # sensor id -> sensor kind
        for name, spec in vehicles.items():
            if not _valid_name(name):
                raise DatasetError(
                    f"vehicles: vehicle name {name!r} cannot name an HDF5 group; expected a "
                    "non-empty name without '/' that is not '.' or '..'"
                )
            if not isinstance(spec, VehicleSpec):
                raise TypeError(
                    f"vehicles[{name!r}]: expected a leviathan.specs.VehicleSpec, got "
                    f"{type(spec).__name__}"
                )
            for sensor in spec.sensors:
                self._kinds[f"{name}/{sensor.name}"] = sensor.kind
        self._manifest = _plain_json(manifest, "manifest")
        self._vehicles = dict(vehicles)
        self._last: tuple[int, int] | None = None  # (tick, time_ns) of the last group written
        self._next_track_tick: dict[str, int | None] = dict.fromkeys(vehicles)
        self._group_count = 0
        self._member_count = 0
        self._closed = False
        self._stack = contextlib.ExitStack()
        tmp = self._stack.enter_context(atomic_path(self._path))
        try:
            self._file = h5py.File(tmp, "w", track_order=True)
            self._write_static()
        except BaseException:
            self.abort()
            raise

    # ------------------------------------------------------------------ static content

    def _write_static(self) -> None:
        from leviathan import __version__

        f = self._file
        f.attrs["format"] = FORMAT_NAME
        f.attrs["format_version"] = FORMAT_VERSION
        f.attrs["tier"] = TIER
        f.attrs["leviathan_version"] = __version__
        f.attrs["content_encoding_version"] = ENCODING_VERSION
        f.attrs["metadata_encoding"] = typed_json.TYPED_JSON_VERSION
        vehicles = f.create_group("vehicles", track_order=True)
        tracks = f.create_group("tracks", track_order=True)
        f.create_group("samples", track_order=True)
        for name, spec in self._vehicles.items():
            g = vehicles.create_group(name)
            g.attrs["spec"] = json.dumps(spec.model_dump(mode="json"), allow_nan=False)
            g.attrs["spec_type"] = type(spec).__content_type__
            g.attrs["content_hash"] = content_hash(spec)
            sensors = g.create_group("sensors", track_order=True)
            for sensor in spec.sensors:
                s = sensors.create_group(sensor.name)
                s.attrs["kind"] = sensor.kind
                s.attrs["sensor_id"] = f"{name}/{sensor.name}"
                _write_array(
                    s,
                    "T_body_sensor",
                    sensor.mount.transform().matrix,
                    doc=CHANNEL_DOCS[("vehicle_sensor", "T_body_sensor")],
                )
            track = tracks.create_group(name, track_order=True)
            for field in _TRACK_FIELDS:
                width = {"position_ned_m": 3, "attitude_q": 4, "velocity_body": 6}.get(field)
                self._resizable(
                    track, field, "track", np.int64 if width is None else np.float64, width
                )
        columns = f.create_group("capture_groups", track_order=True)
        members = columns.create_group("members", track_order=True)
        for column in _GROUP_COLUMNS:
            dtype = _HASH_DTYPE if column == "content_hash" else np.int64
            self._resizable(columns, column, "capture_group", dtype)
        for column in _MEMBER_COLUMNS:
            dtype = {
                "sensor_id": h5py.string_dtype(),
                "content_hash": _HASH_DTYPE,
                "sample_index": np.int64,
            }[column]
            self._resizable(members, column, "capture_group/member", dtype)

    @staticmethod
    def _resizable(
        group: h5py.Group, name: str, kind: str, dtype: Any, width: int | None = None
    ) -> None:
        shape = (0,) if width is None else (0, width)
        # Compressing a variable-length column would only compress its heap pointers.
        options = {} if np.dtype(dtype).kind == "O" else _GZIP
        dataset = group.create_dataset(
            name,
            shape=shape,
            maxshape=(None, *shape[1:]),
            chunks=(_TRACK_ROWS_PER_CHUNK, *shape[1:]),
            dtype=dtype,
            track_times=False,
            **options,
        )
        is_text = np.dtype(dtype).kind == "O"
        dtype_text = "variable-length UTF-8 string" if is_text else np.dtype(dtype).str
        _set_attrs(dataset, {"dtype": dtype_text, **CHANNEL_DOCS[(kind, name)]._asdict()})

    # ------------------------------------------------------------------ streaming

    def write(self, groups: Sequence[CaptureGroup], tracks: Sequence[VehicleTrackRecord]) -> None:
        """Appends capture groups and each vehicle's next track rows.

        Args:
            groups: Capture groups in time order, each after every group written before.
            tracks: At most one :class:`~leviathan.world.VehicleTrackRecord` per declared
                vehicle, its rows consecutive ticks continuing that vehicle's last row.

        Raises:
            DatasetError: A group out of order, a sample of an undeclared sensor or of
                another kind than declared, a sample written before, a track of an
                undeclared vehicle or not continuing its rows. The writer is aborted:
                no file is left and ``path`` keeps what it held.
            TypeError: ``groups`` or ``tracks`` hold something else.
        """
        self._check_open("write")
        try:
            groups = tuple(groups)
            tracks = tuple(tracks)
            self._check_groups(groups)
            self._check_tracks(tracks)
            self._write_groups(groups)
            for track in tracks:
                self._append_track(track)
        except BaseException:
            self.abort()
            raise

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise DatasetError(f"{what}: this Hdf5Writer is closed (or aborted)")

    def _check_groups(self, groups: tuple[Any, ...]) -> None:
        from leviathan.sonar import SonarFrame

        last = self._last
        names: set[str] = set()
        for i, group in enumerate(groups):
            if not isinstance(group, CaptureGroup):
                raise TypeError(f"groups[{i}]: expected a CaptureGroup, got {type(group).__name__}")
            if last is not None and (group.tick <= last[0] or group.time_ns <= last[1]):
                raise DatasetError(
                    f"groups[{i}]: capture group at tick {group.tick} ({group.time_ns} ns) is not "
                    f"after the last one written (tick {last[0]}, {last[1]} ns); write groups "
                    "once each, in time order"
                )
            last = (group.tick, group.time_ns)
            for sensor_id, sample in group.samples.items():
                where = f"groups[{i}].samples[{sensor_id!r}]"
                kind = self._kinds.get(sensor_id)
                if kind is None:
                    raise DatasetError(
                        f"{where}: unknown sensor id {sensor_id!r}; the declared vehicles have "
                        f"{', '.join(sorted(self._kinds)) or 'no sensors'}"
                    )
                sample_kind = _SONAR_KIND if isinstance(sample, SonarFrame) else sample.kind
                if sample_kind != kind or sample.sensor_id != sensor_id:
                    raise DatasetError(
                        f"{where}: a {sample_kind} sample from {sample.sensor_id!r}; expected a "
                        f"{kind} sample from {sensor_id!r} as declared"
                    )
                name = f"samples/{sensor_id}/{sample.sample_index:0{_SAMPLE_NAME_DIGITS}d}"
                if name in self._file or name in names:
                    raise DatasetError(
                        f"{where}: sample {sample.sample_index} of {sensor_id!r} is already "
                        f"written (/{name}); a sample index occurs once per sensor"
                    )
                names.add(name)

    def _check_tracks(self, tracks: tuple[Any, ...]) -> None:
        seen = set()
        for i, track in enumerate(tracks):
            if not isinstance(track, VehicleTrackRecord):
                raise TypeError(
                    f"tracks[{i}]: expected a VehicleTrackRecord, got {type(track).__name__}"
                )
            if track.name not in self._vehicles:
                raise DatasetError(
                    f"tracks[{i}].name: vehicle {track.name!r} was not declared; declared: "
                    f"{', '.join(self._vehicles)}"
                )
            if track.name in seen:
                raise DatasetError(
                    f"tracks[{i}].name: a second track of {track.name!r} in one call"
                )
            seen.add(track.name)
            if not len(track):
                continue
            ticks = track.ticks
            expected = self._next_track_tick[track.name]
            if expected is not None and int(ticks[0]) != expected:
                raise DatasetError(
                    f"tracks[{i}].ticks[0]: {track.name!r} rows start at tick {int(ticks[0])}; "
                    f"expected tick {expected}, right after the last row written"
                )
            if np.any(np.diff(ticks) != 1) or np.any(np.diff(track.times_ns) <= 0):
                raise DatasetError(
                    f"tracks[{i}].ticks: {track.name!r} rows are not consecutive ticks at "
                    "increasing times"
                )

    def _write_groups(self, groups: tuple[CaptureGroup, ...]) -> None:
        # The table rows of one call are appended together: one resize per column.
        rows: dict[str, list[Any]] = {c: [] for c in _GROUP_COLUMNS}
        members: dict[str, list[Any]] = {c: [] for c in _MEMBER_COLUMNS}
        for group in groups:
            rows["tick"].append(group.tick)
            rows["time_ns"].append(group.time_ns)
            rows["content_hash"].append(group.content_hash.encode("ascii"))
            rows["member_start"].append(self._member_count)
            rows["member_count"].append(len(group.samples))
            for sensor_id, sample in group.samples.items():
                self._write_sample(sensor_id, sample, group.tick)
                members["sensor_id"].append(sensor_id)
                members["sample_index"].append(sample.sample_index)
                members["content_hash"].append(sample.content_hash.encode("ascii"))
            self._member_count += len(group.samples)
            self._group_count += 1
            self._last = (group.tick, group.time_ns)
        table = self._file["capture_groups"]
        for column, values in rows.items():
            _append(table[column], values)
        for column, values in members.items():
            _append(table["members"][column], values)

    def _write_sample(self, sensor_id: str, sample: Any, tick: int) -> None:
        from leviathan.sonar import SonarFrame

        is_sonar = isinstance(sample, SonarFrame)
        kind = _SONAR_KIND if is_sonar else sample.kind
        parent = self._file["samples"].require_group(sensor_id)
        g = parent.create_group(f"{sample.sample_index:0{_SAMPLE_NAME_DIGITS}d}", track_order=True)
        attrs: dict[str, str | int] = {
            "record_type": type(sample).__content_type__,
            "kind": kind,
            "sensor_id": sensor_id,
            "sample_index": int(sample.sample_index),
            "time_ns": int(sample.time_ns),
            "tick": int(tick),
            "content_hash": sample.content_hash,
        }
        if is_sonar:
            attrs.update(backend=sample.backend, device=sample.device)
        attrs["metadata"] = typed_json.encode(
            sample.metadata, _metadata_store(g, "metadata_arrays")
        )
        _set_attrs(g, attrs)
        channels = g.create_group("channels", track_order=True)
        for name, array in sample.channels.items():
            doc = CHANNEL_DOCS.get((kind, name))
            if doc is None:
                raise DatasetError(
                    f"{sensor_id}: channel {name!r} of kind {kind!r} has no entry in "
                    "leviathan.datasets.channels.CHANNEL_DOCS; add its units, frame, meaning"
                )
            _write_array(channels, name, array, doc=doc)
        display = g.create_group("display", track_order=True)
        _set_attrs(
            display, {"display": typed_json.encode(sample.display, _metadata_store(g, "display"))}
        )
        for name, dataset in display.items():
            doc = CHANNEL_DOCS.get((f"{kind}/display", name))
            attrs = {} if doc is None else doc._asdict()
            _set_attrs(dataset, {**attrs, "display_hash": display_hash(_read_array(dataset))})

    def _append_track(self, track: VehicleTrackRecord) -> None:
        if not len(track):
            return
        group = self._file["tracks"][track.name]
        for field in _TRACK_FIELDS:
            _append(group[field], getattr(track, field))
        self._next_track_tick[track.name] = int(track.ticks[-1]) + 1

    # ------------------------------------------------------------------ finishing

    def close(self, *, manifest: Mapping[str, Any] | None = None) -> Path:
        """Finalises the file and renames it into place.

        Args:
            manifest: Replaces the manifest given at construction (e.g. with the run
                hash, known only at the end); plain JSON data.

        Returns:
            The written file's path.

        Raises:
            DatasetError: The writer is closed already, or ``manifest`` is not plain
                JSON data (the writer is aborted).
        """
        self._check_open("close")
        try:
            if manifest is not None:
                self._manifest = _plain_json(manifest, "manifest")
            f = self._file
            for name in self._vehicles:
                group = f["tracks"][name]
                track = _read_track(group, name)
                group.attrs["content_hash"] = content_hash(track)
            f.attrs["manifest"] = json.dumps(self._manifest, allow_nan=False)
            f.attrs["provenance"] = json.dumps(self._provenance())
            f.attrs["capture_group_count"] = self._group_count
            f.attrs["sample_count"] = self._member_count
            f.close()
            self._closed = True
            self._stack.close()  # fsync and rename into place
        except BaseException:
            self.abort()
            raise
        return self._path

    def _provenance(self) -> dict[str, Any]:
        from leviathan import __version__

        return {
            "writer": "leviathan.datasets.hdf5.Hdf5Writer",
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
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
            "capture_group_count": self._group_count,
            "sample_count": self._member_count,
        }

    def abort(self) -> None:
        """Discards the temporary file; ``path`` is left as it was. Safe to call twice."""
        self._closed = True
        file = getattr(self, "_file", None)
        if file is not None:
            with contextlib.suppress(Exception):
                file.close()
        # Leaving the atomic context with an exception removes the temporary file.
        self._stack.__exit__(_Aborted, _Aborted(), None)

    def __enter__(self) -> Hdf5Writer:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.abort()
        elif not self._closed:
            self.close()


def _append(dataset: h5py.Dataset, rows: Any) -> None:
    """Appends ``rows`` along the first axis of a resizable dataset."""
    data = np.asarray(rows, dtype=object if dataset.dtype.kind == "O" else dataset.dtype)
    if not len(data):
        return
    start = dataset.shape[0]
    dataset.resize(start + len(data), axis=0)
    dataset[start:] = data


# --------------------------------------------------------------------------- reader


def _rebuilt(where: str, build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``build(...)``; its refusal of what the file holds becomes a DatasetError at ``where``."""
    try:
        return build(*args, **kwargs)
    except DatasetError:
        raise
    except (TypeError, ValueError) as error:
        raise DatasetError(f"{where}: the stored record cannot be rebuilt: {error}") from error


def _read_track(group: h5py.Group, name: str) -> VehicleTrackRecord:
    fields = {field: _item(group, field)[...] for field in _TRACK_FIELDS}
    return _rebuilt(group.name, VehicleTrackRecord, name=name, **fields)


class Hdf5Dataset:
    """A LEVIATHAN HDF5 dataset opened by :func:`read_hdf5`.

    The documents, tracks and manifest are read when it is opened; capture groups
    are read one at a time by :meth:`groups`, which opens the file again for each
    pass (no file handle is held in between).

    Attributes:
        path: The file.
        manifest: The run's manifest (plain JSON data).
        provenance: What wrote the file (library versions, compression, counts).
        vehicles: Vehicle name -> :class:`~leviathan.specs.VehicleSpec`.
        tracks: Vehicle name -> :class:`~leviathan.world.VehicleTrackRecord` of every
            row written.
        verify: Whether records are checked against their stored content hashes.
    """

    def __init__(self, path: Path, *, verify: bool) -> None:
        from leviathan.specs import VehicleSpec

        self.path = path
        self.verify = verify
        with _open(path) as f:
            self.manifest = _json_attr(f, "manifest")
            self.provenance = _json_attr(f, "provenance")
            self._count = _attr(f, "capture_group_count", int)
            self.vehicles: dict[str, Any] = {}
            self.tracks: dict[str, VehicleTrackRecord] = {}
            for name, group in _item(f, "vehicles").items():
                document = _json_attr(group, "spec")
                spec = _rebuilt(group.name, VehicleSpec.model_validate, document)
                self._check(group.name, _attr(group, "content_hash", str), content_hash(spec))
                self.vehicles[name] = spec
            tracks = _item(f, "tracks")
            for name in self.vehicles:
                group = _item(tracks, name)
                track = _read_track(group, name)
                self._check(group.name, _attr(group, "content_hash", str), content_hash(track))
                self.tracks[name] = track

    def __len__(self) -> int:
        """Number of capture groups."""
        return self._count

    def __repr__(self) -> str:
        return f"Hdf5Dataset({str(self.path)!r}, {self._count} capture groups)"

    def _check(self, where: str, expected: str, found: str) -> None:
        if self.verify and expected != found:
            raise DatasetIntegrityError(
                f"{self.path}:{where}: content hash {found[:16]}… of the record read back "
                f"differs from the stored {expected[:16]}…; the file was changed or damaged",
                where=where,
                expected=expected,
                found=found,
            )

    def groups(self) -> Iterator[CaptureGroup]:
        """Capture groups in time order, rebuilt from the file one at a time.

        Yields:
            :class:`~leviathan.world.CaptureGroup` of :class:`~leviathan.sensors.SensorSample`
            and :class:`~leviathan.sonar.SonarFrame` records.

        Raises:
            DatasetIntegrityError: With ``verify``, a sample or group whose content hash
                differs from the stored one (the error names it).
            DatasetError: A part of the file is missing.
        """
        with _open(self.path) as f:
            columns = _item(f, "capture_groups")
            table = {c: _item(columns, c)[...] for c in _GROUP_COLUMNS}
            members = _item(columns, "members")
            sensor_ids = _item(members, "sensor_id").asstr()[...]
            indices = _item(members, "sample_index")[...]
            hashes = _item(members, "content_hash")[...]
            samples_root = _item(f, "samples")
            if len(table["tick"]) != self._count:
                raise DatasetError(
                    f"{self.path}:/capture_groups: {len(table['tick'])} rows, expected "
                    f"{self._count} (capture_group_count)"
                )
            for row in range(self._count):
                start = int(table["member_start"][row])
                samples = {}
                for m in range(start, start + int(table["member_count"][row])):
                    sensor_id = str(sensor_ids[m])
                    group = _item(
                        samples_root, f"{sensor_id}/{int(indices[m]):0{_SAMPLE_NAME_DIGITS}d}"
                    )
                    sample = _rebuilt(group.name, _read_sample, group, self._check)
                    stored = _attr(group, "content_hash", str)
                    self._check(group.name, stored, sample.content_hash)
                    self._check(f"{columns.name}/members[{m}]", hashes[m].decode(), stored)
                    samples[sensor_id] = sample
                capture = CaptureGroup(
                    tick=int(table["tick"][row]),
                    time_ns=int(table["time_ns"][row]),
                    samples=samples,
                )
                expected = table["content_hash"][row].decode()
                self._check(f"{columns.name}[{row}]", expected, capture.content_hash)
                yield capture


def _read_sample(group: h5py.Group, check: Callable[[str, str, str], None]) -> Any:
    """The SensorSample or SonarFrame stored in ``group``; display hashes go to ``check``."""
    from leviathan.sensors import SensorSample
    from leviathan.sonar import SonarFrame

    record_type = _attr(group, "record_type", str)
    metadata = _decode(group, "metadata", "metadata_arrays")
    display_group = _item(group, "display")
    display = _decode(display_group, "display", "display", owner=group)
    for dataset in display_group.values():
        stored = _attr(dataset, "display_hash", str)
        check(dataset.name, stored, display_hash(_read_array(dataset)))
    channels = {name: _read_array(d) for name, d in _item(group, "channels").items()}
    if record_type == SonarFrame.__content_type__:
        return SonarFrame(
            channels=channels,
            metadata=metadata,
            backend=_attr(group, "backend", str),
            device=_attr(group, "device", str),
            display=display,
        )
    if record_type == SensorSample.__content_type__:
        return SensorSample(
            kind=_attr(group, "kind", str),
            sensor_id=_attr(group, "sensor_id", str),
            sample_index=_attr(group, "sample_index", int),
            time_ns=_attr(group, "time_ns", int),
            channels=channels,
            metadata=metadata,
            display=display,
        )
    raise DatasetError(
        f"{group.name}: record_type {record_type!r} is not one this reader rebuilds "
        f"({SensorSample.__content_type__}, {SonarFrame.__content_type__})"
    )


def _decode(obj: h5py.HLObject, attr: str, folder: str, *, owner: h5py.Group | None = None) -> Any:
    owner = obj if owner is None else owner
    try:
        return typed_json.decode(_attr(obj, attr, str), _metadata_load(owner, folder))
    except ValueError as error:
        if isinstance(error, DatasetError):
            raise
        raise DatasetError(f"{obj.name}: attribute {attr!r}: {error}") from None


def _json_attr(obj: h5py.HLObject, name: str) -> Any:
    text = _attr(obj, name, str)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise DatasetError(f"{obj.name}: attribute {name!r} is not valid JSON ({error})") from None


@contextlib.contextmanager
def _open(path: Path) -> Iterator[h5py.File]:
    """Opens ``path`` read-only after checking it is a dataset of this format and version."""
    if not path.is_file():
        raise FileNotFoundError(2, "no such dataset file", str(path))
    try:
        f = h5py.File(path, "r")
    except OSError as error:
        raise DatasetError(
            f"{path}: not an HDF5 file, so not a LEVIATHAN dataset ({error})"
        ) from None
    with f:
        fmt = f.attrs.get("format")
        if fmt != FORMAT_NAME:
            raise DatasetError(
                f"{path}: not a LEVIATHAN dataset (root attribute format is {fmt!r}, expected "
                f"{FORMAT_NAME!r})"
            )
        version = f.attrs.get("format_version")
        if isinstance(version, np.integer):
            version = int(version)
        if type(version) is not int or version != FORMAT_VERSION:
            raise DatasetError(
                f"{path}: format_version is {version!r}; this reader reads version "
                f"{FORMAT_VERSION} only (use the LEVIATHAN version that wrote it, "
                f"{f.attrs.get('leviathan_version')!r})"
            )
        yield f


def read_hdf5(path: str | os.PathLike[str], *, verify: bool = True) -> Hdf5Dataset:
    """Opens a LEVIATHAN HDF5 dataset written by :class:`Hdf5Writer`.

    Args:
        path: The ``.h5`` file.
        verify: Check every rebuilt record (vehicle documents and tracks now, samples
            and capture groups as :meth:`Hdf5Dataset.groups` yields them) against its
            stored content hash.

    Returns:
        The dataset: ``manifest``, ``vehicles``, ``tracks``, ``len()`` and ``groups()``.

    Raises:
        FileNotFoundError: There is no file at ``path``.
        DatasetError: The file is not a LEVIATHAN dataset, has another format version,
            or is incomplete.
        DatasetIntegrityError: With ``verify``, a document or track differs from its
            stored content hash.
    """
    if not isinstance(verify, bool):
        raise TypeError(f"verify: expected a bool, got {verify!r}")
    return Hdf5Dataset(Path(path), verify=verify)
