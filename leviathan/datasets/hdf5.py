"""The lossless HDF5 dataset: every channel of every sample, the tracks and the documents.

:class:`Hdf5Writer` streams a World's capture groups and its vehicles'
ground-truth tracks into one HDF5 file; :func:`read_hdf5` rebuilds the records,
one capture group at a time, and checks that each has the content hash stored
with it. Nothing is dropped or converted: every channel keeps its dtype and
shape (the complete per-cell sonar ground truth included), metadata is stored
as typed JSON (:mod:`leviathan.datasets.typed_json`) with its arrays as
datasets, so the content hash of a rebuilt record equals the original's.

Layout (format ``leviathan.dataset.hdf5``, version 5; versions 1 to 4 are read too)::

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
        channels/<name>                every channel, exact dtype and shape; version 2: over
                                       cells sparse (leviathan.datasets._hdf5_sparse), 3:
                                       few-valued ones as codes into a table, and those a
                                       kind's rule rebuilds as the rule (._hdf5_rules)
        rule_support/<name>            version 4: the product's rule support, where some
                                       channel is stored as a rule (._hdf5_rules)
        metadata_arrays/<name>         arrays the metadata references ({"$array": name})
        display/<name>                 display products (not part of the content hash);
                                       attr display (typed JSON of the display mapping)
    /samples/<vehicle>/<sensor>/rows   version 5: the sensor's small samples (an IMU's,
                                       a pressure sensor's), one row each: sample_index,
                                       time_ns, tick, content_hash, metadata, display,
                                       attributes and channels/<name> [N, *shape]
                                       (leviathan.datasets._hdf5_rows); a sample that
                                       does not fit the table is a group as above

Every stored array has the attribute ``dtype`` (NumPy's dtype string, byte order
included); channels, display products, tracks and capture-group columns also carry
``units``, ``frame``, ``axes``, ``description`` and ``sentinel`` from
:data:`~leviathan.datasets.channels.CHANNEL_DOCS`. Unicode and byte-string arrays are
stored as their code units (``uint32`` / ``uint8`` with one more axis) and read back
through ``dtype``. Text attributes are variable-length UTF-8 strings, integer ones int64.

Arrays of at least :data:`COMPRESS_MIN_BYTES` are chunked along their first axis in
chunks of about :data:`CHUNK_TARGET_BYTES` and compressed with gzip level 1 behind the
shuffle filter; smaller ones are stored contiguously.

The writer is here; the layout and the reader sit beside it, their names exported here.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from leviathan._files import atomic_path, check_output_path
from leviathan.datasets import typed_json
from leviathan.datasets._errors import DatasetError
from leviathan.datasets._hdf5_input import check_groups
from leviathan.datasets._hdf5_layout import (
    _GROUP_COLUMNS,
    _HASH_DTYPE,
    _MEMBER_COLUMNS,
    _SAMPLE_NAME_DIGITS,
    _TRACK_FIELDS,
    CHUNK_TARGET_BYTES,
    COMPRESS_MIN_BYTES,
    FORMAT_NAME,
    FORMAT_VERSION,
    READABLE_FORMAT_VERSIONS,
    SUFFIXES,
    TIER,
    _append,
    _metadata_store,
    _plain_json,
    _provenance,
    _read_array,
    _set_attrs,
    _valid_name,
    _write_array,
    resizable_column,
    write_pending,
)
from leviathan.datasets._hdf5_reader import Hdf5Dataset, _read_track, read_hdf5
from leviathan.datasets._hdf5_rows import ROWS_FORMAT_VERSION, SensorRows, as_row
from leviathan.datasets._hdf5_rules import channel_rules, write_rule_support
from leviathan.datasets._hdf5_sparse import _checked_version
from leviathan.datasets._hdf5_sparse_write import _write_channels
from leviathan.datasets._writer import _Aborted, _ClosesOnExit, check_track_rows
from leviathan.datasets.channels import CHANNEL_DOCS, sample_channel_doc
from leviathan.identity import ENCODING_VERSION, content_hash, display_hash
from leviathan.sensors import sensor_declarations
from leviathan.world import CaptureGroup, VehicleTrackRecord

__all__ = [
    "CHUNK_TARGET_BYTES",
    "COMPRESS_MIN_BYTES",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "READABLE_FORMAT_VERSIONS",
    "Hdf5Dataset",
    "Hdf5Writer",
    "read_hdf5",
]


class Hdf5Writer(_ClosesOnExit):
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
        format_version: :data:`FORMAT_VERSION` (small samples as rows of their
            sensor's table, channels over cells sparse, few-valued ones as codes into a
            table, ruled ones as their rule with the product's rule support), 4 (the
            same with every sample a group), 3 (the same without rule support), 2
            (sparse, no codes or rules) or 1 (every channel dense): what readers of
            that version read.

    Raises:
        DatasetError: A wrong suffix, a vehicle name that cannot be a group name, a
            manifest that is not plain JSON data, a format version not in
            :data:`READABLE_FORMAT_VERSIONS`.
        TypeError: ``vehicles`` does not map names to ``VehicleSpec`` documents.
        OSError: ``path`` cannot be written.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        vehicles: Mapping[str, Any],
        manifest: Mapping[str, Any],
        format_version: int = FORMAT_VERSION,
    ) -> None:
        from leviathan.specs import VehicleSpec

        self._format_version = _checked_version(format_version)

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
        self._last_rows: dict[str, tuple[int, int]] = {}  # vehicle -> its last (tick, time_ns)
        self._group_count = 0
        self._member_count = 0
        # Chunks filtering on the compression pool, written by the end of each write().
        self._pending: list[Any] = []
        # Version 5: each sensor's table of small samples (._hdf5_rows), appended per write().
        self._rows: dict[str, SensorRows] = {}
        self._written: set[tuple[str, int]] = set()  # (sensor id, sample index) written
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
        f.attrs["format_version"] = self._format_version
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
        dataset = resizable_column(group, name, dtype, () if width is None else (width,))
        is_text = np.dtype(dtype).kind == "O"
        dtype_text = "variable-length UTF-8 string" if is_text else np.dtype(dtype).str
        _set_attrs(dataset, {"dtype": dtype_text, **CHANNEL_DOCS[(kind, name)]._asdict()})

    # ------------------------------------------------------------------ streaming

    def write(self, groups: Sequence[CaptureGroup], tracks: Sequence[VehicleTrackRecord]) -> None:
        """Appends capture groups and each vehicle's next track rows.

        Args:
            groups: Capture groups in time order, each after every group written before.
            tracks: At most one :class:`~leviathan.world.VehicleTrackRecord` per declared
                vehicle, its rows consecutive ticks at increasing times continuing that
                vehicle's last row.

        Raises:
            DatasetError: A group out of order, a sample of an undeclared sensor or of
                another kind than declared, a sample written before, a track of an
                undeclared vehicle or not continuing its rows. The writer is aborted:
                no file is left and ``path`` keeps what it held.
            TypeError: ``groups`` or ``tracks`` hold something else.
        """
        with self._open_or_abort("write"):
            groups = tuple(groups)
            tracks = tuple(tracks)
            check_groups(groups, self._last, self._kinds, self._written)
            check_track_rows(tracks, self._vehicles, self._last_rows)
            self._write_groups(groups)
            for track in tracks:
                self._append_track(track)

    def _write_groups(self, groups: tuple[CaptureGroup, ...]) -> None:
        # The table rows of one call are appended together: one resize per column.
        # The channels' chunks compress on the pool behind the samples that follow, and
        # are all written before this returns (on an error, the writer aborts).
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
        write_pending(self._pending)
        for sensor_rows in self._rows.values():
            sensor_rows.flush()
        table = self._file["capture_groups"]
        for column, values in rows.items():
            _append(table[column], values)
        for column, values in members.items():
            _append(table["members"][column], values)

    def _write_sample(self, sensor_id: str, sample: Any, tick: int) -> None:
        kind = self._kinds[sensor_id]
        self._written.add((sensor_id, sample.sample_index))
        if self._format_version >= ROWS_FORMAT_VERSION and self._as_row(
            kind, sensor_id, sample, tick
        ):
            return
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
        # The product's own scalars (its ids, the tracer that made it), what from_record takes.
        attrs.update(sample.record_attributes())
        attrs["metadata"] = typed_json.encode(
            sample.metadata, _metadata_store(g, "metadata_arrays")
        )
        _set_attrs(g, attrs)
        channels = g.create_group("channels", track_order=True)
        docs = {name: sample_channel_doc(kind, name) for name in sample.channels}
        support = getattr(sample, "rule_support", {}) if self._format_version >= 4 else {}
        rules = channel_rules(kind, sample.metadata, support)
        ruled = _write_channels(
            channels,
            sample.channels,
            docs,
            version=self._format_version,
            rules=rules,
            pending=self._pending,
        )
        if ruled and support:
            write_rule_support(g, support)
        display = g.create_group("display", track_order=True)
        _set_attrs(
            display, {"display": typed_json.encode(sample.display, _metadata_store(g, "display"))}
        )
        for name, dataset in display.items():
            doc = sensor_declarations(kind).display_channels.get(name)
            attrs = {} if doc is None else doc._asdict()
            _set_attrs(dataset, {**attrs, "display_hash": display_hash(_read_array(dataset))})

    def _as_row(self, kind: str, sensor_id: str, sample: Any, tick: int) -> bool:
        """Adds ``sample`` to its sensor's rows where it fits them (._hdf5_rows)."""
        row = as_row(sample, kind, sensor_id, tick)
        if row is None:
            return False
        rows = self._rows.get(sensor_id)
        if rows is None:
            docs = {name: sample_channel_doc(kind, name) for name in sample.channels}
            parent = self._file["samples"].require_group(sensor_id)
            rows = self._rows[sensor_id] = SensorRows(parent, kind, sensor_id, docs)
        if not rows.accepts(row):
            return False
        rows.add(row)
        return True

    def _append_track(self, track: VehicleTrackRecord) -> None:
        if not len(track):
            return
        group = self._file["tracks"][track.name]
        for field in _TRACK_FIELDS:
            _append(group[field], getattr(track, field))
        self._last_rows[track.name] = (int(track.ticks[-1]), int(track.times_ns[-1]))

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
        with self._open_or_abort("close"):
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
        return self._path

    def _provenance(self) -> dict[str, Any]:
        return _provenance(self._format_version, self._group_count, self._member_count)

    def abort(self) -> None:
        """Discards the temporary file; ``path`` is left as it was. Safe to call twice."""
        self._closed = True
        getattr(self, "_pending", []).clear()  # chunks still filtering are not written
        file = getattr(self, "_file", None)
        if file is not None:
            with contextlib.suppress(Exception):
                file.close()
        # Leaving the atomic context with an exception removes the temporary file.
        self._stack.__exit__(_Aborted, _Aborted(), None)
