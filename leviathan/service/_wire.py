"""What crosses the wire between the service and its clients, losslessly.

Two things are defined here, shared by the server (:mod:`leviathan.service`) and the
Python client (:mod:`leviathan.client`), so that a record rebuilt on the client has
the same ``content_hash`` as the one the World returned on the server:

* **Values** (:func:`encode_value` / :func:`decode_value`): a JSON form of the
  content trees records hold (mappings, sequences, numbers, strings, bytes, NumPy
  arrays). Plain JSON cannot carry every one of them exactly, so a few are tagged
  objects ``{"$t": ...}``: arrays as ``{"$t": "ndarray", "dtype", "shape", "data"}``
  (``data`` the C-order little-endian bytes in base64), non-finite floats as
  ``{"$t": "float", "value": "nan" | "inf" | "-inf"}``, bytes, ``Fraction`` and
  ``Decimal``, a :class:`~leviathan.frames.Transform` as
  ``{"$t": "transform", "rotation", "translation"}`` (two tagged arrays, rebuilt
  through its validating constructor), and a mapping that itself has a ``"$t"`` key
  as ``{"$t": "map"}``.
  Finite floats are written in Python's shortest round-trip form, so they come back
  bit for bit; NumPy scalars are written as their Python value, exactly as
  :mod:`leviathan.identity` hashes them.
* **Records** (:func:`encode_record` / :func:`decode_record`): the immutable dataclass
  records a World returns (capture groups and their samples, snapshots, track
  records, vehicle states), as ``{"$t": "record", "type": <pinned type tag>, "fields":
  {...}}``. A record is rebuilt through its own public constructor, and only types on
  an allow list are ever built (nothing from the wire chooses code to run): the World's
  record types, :class:`~leviathan.dynamics.VehicleState`, and the sample types
  exported by :mod:`leviathan.sensors` and :mod:`leviathan.sonar`.

Nothing here does canonical arithmetic; it moves bytes.
"""

from __future__ import annotations

import base64
import dataclasses
import math
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from leviathan._frozen import FrozenMapping
from leviathan.frames import Transform

__all__ = [
    "WireError",
    "decode_record",
    "decode_value",
    "encode_record",
    "encode_value",
    "record_types",
]

_TAG = "$t"
_MAX_DEPTH = 64
# Types sent and received as they are (finite floats too, checked apart).
_PLAIN = frozenset({str, int, bool, type(None)})
_JSON_PLAIN = frozenset({str, int, float, bool, type(None)})


class WireError(ValueError):
    """A value or record cannot be encoded, or an encoded one is malformed."""


def encode_value(value: Any, *, _depth: int = 0) -> Any:
    """The JSON-safe form of a content tree (see the module docstring).

    Args:
        value: ``None``, bool, int, float, str, bytes, lists and tuples, str-keyed
            mappings, NumPy arrays and scalars, ``Fraction``, ``Decimal``, or a
            dataclass record of one of :func:`record_types` — nested.

    Raises:
        WireError: For any other type, naming it.
    """
    if _depth > _MAX_DEPTH:
        raise WireError(f"value: nested deeper than {_MAX_DEPTH} levels")
    # Exact-type fast paths for what records hold most (a sample's metadata is a
    # tree of frozen mappings, tuples and floats): the general chain below runs
    # ABC isinstance checks per node, which cost more than the encoding itself.
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float and math.isfinite(value):
        return value
    if kind is tuple or kind is list:
        if _depth < _MAX_DEPTH:  # (a leaf one level deeper would be too deep)
            return [
                item
                if (t := type(item)) in _PLAIN or (t is float and math.isfinite(item))
                else encode_value(item, _depth=_depth + 1)
                for item in value
            ]
        return [encode_value(item, _depth=_depth + 1) for item in value]
    if kind is FrozenMapping or kind is dict:
        return _encode_mapping(value, _depth)
    if kind is np.ndarray:
        return _encode_array(value)
    if isinstance(value, np.generic) and not isinstance(value, np.ndarray):
        value = value.item()
        if isinstance(value, bool | str | int) or value is None:
            return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        return {_TAG: "float", "value": "nan" if math.isnan(value) else repr(value)}
    if isinstance(value, bytes | bytearray):
        return {_TAG: "bytes", "data": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Fraction):
        return {_TAG: "fraction", "value": f"{value.numerator}/{value.denominator}"}
    if isinstance(value, Decimal):
        return {_TAG: "decimal", "value": str(value)}
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, Transform):
        return {
            _TAG: "transform",
            "rotation": _encode_array(value.rotation),
            "translation": _encode_array(value.translation),
        }
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode_record(value, _depth=_depth)
    if isinstance(value, Mapping):
        return _encode_mapping(value, _depth)
    if isinstance(value, list | tuple):
        return [encode_value(item, _depth=_depth + 1) for item in value]
    raise WireError(
        f"value: cannot send a {type(value).__name__} over the wire; expected JSON-like "
        "content (mappings, sequences, numbers, strings, bytes, NumPy arrays) or a record"
    )


def _encode_mapping(value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    items = {}
    for key, item in value.items():
        if type(key) is not str and not isinstance(key, str):
            raise WireError(f"value: mapping keys must be str, got {key!r}")
        if depth < _MAX_DEPTH and (
            (t := type(item)) in _PLAIN or (t is float and math.isfinite(item))
        ):
            items[key] = item
        else:
            items[key] = encode_value(item, _depth=depth + 1)
    if _TAG in items:
        return {_TAG: "map", "items": items}
    return items


def _encode_array(array: np.ndarray) -> dict[str, Any]:
    if array.dtype.kind not in "biufcUS":
        raise WireError(f"value: arrays of dtype {array.dtype} cannot be sent")
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    data = np.ascontiguousarray(little).tobytes(order="C")
    return {
        _TAG: "ndarray",
        "dtype": little.dtype.str,
        "shape": list(array.shape),
        "data": base64.b64encode(data).decode("ascii"),
    }


def decode_value(data: Any, *, _depth: int = 0) -> Any:
    """Inverse of :func:`encode_value`; arrays come back read-only.

    Raises:
        WireError: If ``data`` is malformed (an unknown tag, a bad array, a record type
            that is not allowed).
    """
    if _depth > _MAX_DEPTH:
        raise WireError(f"value: nested deeper than {_MAX_DEPTH} levels")
    # Exact-type fast paths first: this is what json.loads gives for all but
    # the tagged objects.
    kind = type(data)
    if kind is str or kind is float or kind is int or kind is bool or data is None:
        return data
    if _depth < _MAX_DEPTH:  # plain leaves are taken as they are, without a call
        if kind is list:
            return [
                item if type(item) in _JSON_PLAIN else decode_value(item, _depth=_depth + 1)
                for item in data
            ]
        if kind is dict and _TAG not in data:
            return {
                k: v if type(v) in _JSON_PLAIN else decode_value(v, _depth=_depth + 1)
                for k, v in data.items()
            }
    if isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return [decode_value(item, _depth=_depth + 1) for item in data]
    if not isinstance(data, dict):
        raise WireError(f"value: unexpected JSON type {type(data).__name__}")
    tag = data.get(_TAG)
    if tag is None:
        return {k: decode_value(v, _depth=_depth + 1) for k, v in data.items()}
    try:
        if tag == "map":
            return {k: decode_value(v, _depth=_depth + 1) for k, v in data["items"].items()}
        if tag == "float":
            return float(data["value"])
        if tag == "bytes":
            return base64.b64decode(data["data"], validate=True)
        if tag == "fraction":
            return Fraction(data["value"])
        if tag == "decimal":
            return Decimal(data["value"])
        if tag == "ndarray":
            dtype = np.dtype(data["dtype"])
            if dtype.kind not in "biufcUS":
                raise WireError(f"value: arrays of dtype {dtype} are not accepted")
            shape = tuple(int(n) for n in data["shape"])
            array = np.frombuffer(base64.b64decode(data["data"], validate=True), dtype=dtype)
            return array.reshape(shape)  # over immutable bytes: read-only
        if tag == "transform":
            rotation = decode_value(data["rotation"], _depth=_depth + 1)
            translation = decode_value(data["translation"], _depth=_depth + 1)
            if not isinstance(rotation, np.ndarray) or not isinstance(translation, np.ndarray):
                raise WireError("value: a transform's rotation and translation must be arrays")
            return Transform(rotation, translation)
        if tag == "record":
            return decode_record(data, _depth=_depth)
    except WireError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise WireError(f"value: malformed {tag!r} object: {error}") from None
    raise WireError(f"value: unknown tag {tag!r}")


@cache
def record_types() -> dict[str, type]:
    """The record types :func:`decode_record` may build, by pinned type tag.

    The World's records, :class:`~leviathan.dynamics.VehicleState`, and every
    dataclass with a pinned tag that :mod:`leviathan.sensors` and :mod:`leviathan.sonar`
    export (the sample types a capture group may hold).
    """
    import leviathan.sensors
    import leviathan.sonar
    from leviathan.dynamics import VehicleState
    from leviathan.world import CaptureGroup, VehicleTrackRecord, WorldSnapshot

    types: dict[str, type] = {}
    candidates: list[Any] = [CaptureGroup, VehicleTrackRecord, WorldSnapshot, VehicleState]
    for module in (leviathan.sensors, leviathan.sonar):
        candidates.extend(getattr(module, name) for name in getattr(module, "__all__", ()))
    for cls in candidates:
        tag = cls.__dict__.get("__content_type__") if isinstance(cls, type) else None
        if isinstance(tag, str) and dataclasses.is_dataclass(cls):
            types[tag] = cls
    return types


@cache
def _init_fields(cls: type) -> tuple[str, ...]:
    """The constructor fields of a record type, in declaration order."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


def encode_record(record: Any, *, _depth: int = 0) -> dict[str, Any]:
    """The wire form of a dataclass record: its pinned tag and its constructor fields.

    Raises:
        WireError: If the record's type is not one of :func:`record_types`.
    """
    cls = type(record)
    tag = cls.__dict__.get("__content_type__")
    if record_types().get(tag) is not cls:
        raise WireError(f"record: {cls.__name__} is not a record type the service sends")
    fields = {
        name: encode_value(getattr(record, name), _depth=_depth + 1) for name in _init_fields(cls)
    }
    return {_TAG: "record", "type": tag, "fields": fields}


def decode_record(data: Mapping[str, Any], *, _depth: int = 0) -> Any:
    """Rebuilds a record through its constructor (which validates and freezes it).

    Raises:
        WireError: If the type is not allowed or the fields do not fit its constructor.
    """
    tag = data.get("type") if isinstance(data, Mapping) else None
    cls = record_types().get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise WireError(f"record: type {tag!r} is not one the client accepts")
    fields = data.get("fields")
    if not isinstance(fields, Mapping):
        raise WireError(f"record: {tag} has no fields object")
    unknown = set(fields).difference(_init_fields(cls))
    if unknown:
        raise WireError(f"record: {tag} has no fields {sorted(unknown)}")
    kwargs = {k: decode_value(v, _depth=_depth + 1) for k, v in fields.items()}
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        raise WireError(f"record: {tag} refused its fields: {error}") from None
