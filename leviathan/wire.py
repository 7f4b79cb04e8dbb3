"""What crosses the wire between ``leviathan serve`` and its clients, losslessly.

Shared by the service (:mod:`leviathan.service`) and the Python client
(:mod:`leviathan.client`), and importable without either: it needs no web
framework, so a client process never loads FastAPI or uvicorn. A record rebuilt
on the client has the ``content_hash`` the World computed on the server.

* **Values** (:func:`encode_value` / :func:`decode_value`): the one typed-JSON
  codec (:mod:`leviathan._typed_json`, the encoding the dataset files use),
  with arrays inline (``{"$ndarray": {dtype, shape, data}}``) and transforms
  (``{"$transform": ...}``) and records allowed. Every float is tagged
  (``{"$float": "0.1"}``), so a JSON reader in any language tells 1 from 1.0.
* **Records** (:func:`encode_record` / :func:`decode_record`): the immutable
  dataclass records a World returns (capture groups and their samples,
  snapshots, track records, vehicle states, body kinematics), as ``{"$record":
  {"type": <pinned type tag>, "fields": {...}}}``. A record is rebuilt through
  its own public constructor, and only types on an allow list
  (:func:`record_types`) are ever built: nothing from the wire chooses code to run.

Nothing here does canonical arithmetic; it moves bytes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from leviathan._typed_json import TypedJSONError, from_json, to_json

__all__ = [
    "WireError",
    "decode_record",
    "decode_value",
    "encode_record",
    "encode_value",
    "record_types",
]


class WireError(TypedJSONError):
    """A value or record cannot be encoded, or an encoded one is malformed."""


@cache
def record_types() -> Mapping[str, type]:
    """The record types :func:`decode_record` may build, by pinned type tag.

    The World's records, :class:`~leviathan.dynamics.VehicleState`, every
    dataclass with a pinned tag that :mod:`leviathan.sensors` exports, and the
    product type of every registered sensor kind (the sample types a capture group
    may hold: :class:`~leviathan.sonar.SonarFrame`,
    :class:`~leviathan.side_scan.SideScanLine`, ...).
    """
    import leviathan.sensors
    from leviathan.dynamics import VehicleState
    from leviathan.world import CaptureGroup, VehicleTrackRecord, WorldSnapshot

    types: dict[str, type] = {}
    candidates: list[Any] = [CaptureGroup, VehicleTrackRecord, WorldSnapshot, VehicleState]
    candidates.extend(getattr(leviathan.sensors, n) for n in leviathan.sensors.__all__)
    candidates.extend(leviathan.sensors.product_types())
    for cls in candidates:
        tag = cls.__dict__.get("__content_type__") if isinstance(cls, type) else None
        if isinstance(tag, str) and dataclasses.is_dataclass(cls):
            types[tag] = cls
    return MappingProxyType(types)


def encode_value(value: Any) -> Any:
    """The JSON tree of a content tree (see the module docstring).

    Args:
        value: ``None``, bool, int, float, complex, str, bytes, lists and tuples,
            sets, str-keyed mappings, NumPy arrays and scalars, ``Fraction``,
            ``Decimal``, a :class:`~leviathan.frames.Transform`, or a record of
            one of :func:`record_types` — nested, at most 64 levels.

    Raises:
        WireError: For any other type, naming it and where it is.
    """
    try:
        return to_json(value, records=record_types())
    except TypedJSONError as error:
        raise WireError(f"value: {error}") from None


def decode_value(data: Any) -> Any:
    """Inverse of :func:`encode_value`: mappings as ``dict``, sequences as ``tuple``,
    arrays read-only.

    Raises:
        WireError: If ``data`` is malformed (an unknown tag, a bad array, a record
            type that is not allowed, a bare float).
    """
    try:
        return from_json(data, records=record_types())
    except TypedJSONError as error:
        raise WireError(f"value: {error}") from None


def encode_record(record: Any) -> dict[str, Any]:
    """The wire form of a dataclass record: its pinned tag and its constructor fields.

    Raises:
        WireError: If the record's type is not one of :func:`record_types`.
    """
    cls = type(record)
    if record_types().get(cls.__dict__.get("__content_type__")) is not cls:
        raise WireError(f"record: {cls.__name__} is not a record type the service sends")
    return encode_value(record)


def decode_record(data: Mapping[str, Any]) -> Any:
    """Rebuilds a record through its constructor (which validates and freezes it).

    Raises:
        WireError: If ``data`` is not a record, its type is not allowed, or its
            fields do not fit the constructor.
    """
    if not isinstance(data, Mapping) or set(data) != {"$record"}:
        raise WireError("record: expected a {'$record': {type, fields}} object")
    return decode_value(data)
