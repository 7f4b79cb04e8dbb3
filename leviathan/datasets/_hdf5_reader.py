"""Reading the HDF5 dataset back: records rebuilt and checked against their hashes.

The layout is documented in :mod:`leviathan.datasets.hdf5`, whose public
:func:`~leviathan.datasets.hdf5.read_hdf5` and
:class:`~leviathan.datasets.hdf5.Hdf5Dataset` live here.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from leviathan.datasets import typed_json
from leviathan.datasets._errors import DatasetError, DatasetIntegrityError
from leviathan.datasets._hdf5_layout import (
    _GROUP_COLUMNS,
    _SAMPLE_NAME_DIGITS,
    _TRACK_FIELDS,
    FORMAT_NAME,
    READABLE_FORMAT_VERSIONS,
    _attr,
    _item,
    _metadata_load,
    _read_array,
)
from leviathan.datasets._hdf5_rows import ROWS, RowsReader
from leviathan.datasets._hdf5_rules import channel_rules, read_rule_support
from leviathan.datasets._hdf5_sparse_read import _read_channels
from leviathan.identity import content_hash, display_hash
from leviathan.world import CaptureGroup, VehicleTrackRecord


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
            tables: dict[str, RowsReader | None] = {}  # each sensor's rows, read once a pass
            for row in range(self._count):
                start = int(table["member_start"][row])
                samples = {}
                for m in range(start, start + int(table["member_count"][row])):
                    sensor_id = str(sensor_ids[m])
                    where, sample, stored = self._member(
                        samples_root, tables, sensor_id, int(indices[m])
                    )
                    self._check(where, stored, sample.content_hash)
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

    def _member(
        self,
        samples_root: h5py.Group,
        tables: dict[str, RowsReader | None],
        sensor_id: str,
        index: int,
    ) -> tuple[str, Any, str]:
        """``(where, sample, stored hash)`` of a member: its own group, or its row in the
        sensor's table (format version 5)."""
        name = f"{sensor_id}/{index:0{_SAMPLE_NAME_DIGITS}d}"
        if name not in samples_root:
            if sensor_id not in tables:
                table = samples_root.get(f"{sensor_id}/{ROWS}")
                tables[sensor_id] = None if table is None else RowsReader(table)
            rows = tables[sensor_id]
            at = None if rows is None else rows.row_of(index)
            if rows is not None and at is not None:
                where = f"{rows.name}[{at}]"
                sample = _rebuilt(where, _build, where, rows.record_type, **rows.record(at))
                return where, sample, rows.content_hash(at)
        group = _item(samples_root, name)
        sample = _rebuilt(group.name, _read_sample, group, self._check)
        return group.name, sample, _attr(group, "content_hash", str)


def _read_sample(group: h5py.Group, check: Callable[[str, str, str], None]) -> Any:
    """The product stored in ``group``, rebuilt by its class; display hashes go to ``check``."""
    record_type = _attr(group, "record_type", str)
    _product_class(group.name, record_type)
    metadata = _decode(group, "metadata", "metadata_arrays")
    display_group = _item(group, "display")
    display = _decode(display_group, "display", "display", owner=group)
    for dataset in display_group.values():
        stored = _attr(dataset, "display_hash", str)
        check(dataset.name, stored, display_hash(_read_array(dataset)))
    support = read_rule_support(group)
    rules = channel_rules(_attr(group, "kind", str), metadata, support)
    channels = _read_channels(_item(group, "channels"), rules)
    attributes = {
        name: value.decode() if isinstance(value, bytes) else value
        for name, value in group.attrs.items()
        if name not in ("metadata", "record_type", "tick", "content_hash")
    }
    attributes = {
        name: int(value) if isinstance(value, np.integer) else value
        for name, value in attributes.items()
    }
    # Only a product with rule support (a fan product) takes it back.
    extra = {"rule_support": support} if support else {}
    return _build(
        group.name,
        record_type,
        channels=channels,
        metadata=metadata,
        display=display,
        attributes=attributes,
        **extra,
    )


def _product_class(where: str, record_type: str) -> Any:
    """The registered product class of ``record_type``, or a DatasetError naming them."""
    from leviathan.sensors import product_types

    classes = {cls.__content_type__: cls for cls in product_types()}
    cls = classes.get(record_type)
    if cls is None:
        raise DatasetError(
            f"{where}: record_type {record_type!r} is not the product of a registered "
            f"sensor kind ({', '.join(sorted(classes))}); register its kind before reading"
        )
    return cls


def _build(where: str, record_type: str, **record: Any) -> Any:
    """The product ``record_type``'s ``from_record(**record)``."""
    try:
        return _product_class(where, record_type).from_record(**record)
    except KeyError as error:
        raise DatasetError(
            f"{where}: attribute {error.args[0]!r} is missing; the file is incomplete or not "
            "written by leviathan.datasets.hdf5"
        ) from None


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
        if type(version) is not int or version not in READABLE_FORMAT_VERSIONS:
            raise DatasetError(
                f"{path}: format_version is {version!r}; this reader reads versions "
                f"{', '.join(map(str, READABLE_FORMAT_VERSIONS))} (use the LEVIATHAN version "
                "that wrote it, "
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
