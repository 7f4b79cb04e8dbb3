"""The one lossless typed-JSON codec: the dataset files' metadata and the service's wire.

Plain JSON cannot tell ``1`` from ``1.0``, has no NaN, infinities or ``-0.0``,
and no arrays with a dtype. Sample metadata and the World's records hold all of
these, and their content hashes must survive a file or a network round trip, so
both the dataset writers (:mod:`leviathan.datasets.typed_json`) and the service
wire (:mod:`leviathan.wire`) write JSON in which every value says what it is:

==================================  =============================================================
JSON                                value
==================================  =============================================================
``null``, ``true``, ``false``       ``None``, ``True``, ``False``
a string                            ``str``
an integer number                   ``int`` (any size; floats are never written as bare numbers)
an array                            a sequence, read back as a ``tuple``
``{"$float": "<repr>"}``            ``float``, Python's ``repr`` (``"0.1"``, ``"nan"``, ``"inf"``,
                                    ``"-inf"``, ``"-0.0"``), exact for every binary64
``{"$complex": ["<re>", "<im>"]}``  ``complex``, each part as for ``$float``
``{"$bytes": "<base64>"}``          ``bytes``
``{"$fraction": "n/d"}``            ``fractions.Fraction``
``{"$decimal": "<str>"}``           ``decimal.Decimal`` (precision kept)
``{"$set": [...]}``                 ``frozenset`` (elements sorted by their encoding)
``{"$scalar": ["<dtype>", v]}``     a NumPy scalar of that dtype (``"<f4"``), ``v`` its value
``{"$array": "<name>"}``            a NumPy array stored outside the text, under ``name``
``{"$ndarray": {"dtype", "shape",   a NumPy array inside the text: ``data`` is its C-order
"data"}}``                          little-endian bytes in base64 (read back read-only)
``{"$transform": {"rotation",       a :class:`~leviathan.frames.Transform` (two ``$ndarray``),
"translation"}}``                   rebuilt through its validating constructor
``{"$record": {"type", "fields"}}`` a dataclass record of an allowed type, by its pinned
                                    ``__content_type__`` tag, rebuilt through its constructor
any other object                    a mapping with ``str`` keys, order kept; a key that
                                    starts with ``$`` is written with one more ``$`` in front
==================================  =============================================================

An object is a tagged value exactly when it has one key, and that key starts
with a single ``$``. Version 1 of this encoding (:data:`TYPED_JSON_VERSION`,
recorded in every dataset file) is the table without its last three rows; the
dataset writers still write exactly version 1 (arrays go to a ``store``
callback, and metadata holds no transforms or records), so their files are
byte for byte what they were. ``$ndarray``, ``$transform`` and ``$record``
travel only on the service wire; a version-1 reader refuses them by name
("unknown tag"), it never misreads them.

Arrays are handed to a ``store`` callback when one is given (the HDF5 writer
makes each a dataset with its exact dtype and shape and writes its name), and
written inline as ``$ndarray`` otherwise; ``decode`` asks a ``load`` callback
for a ``$array`` by name. Transforms and records are accepted only when the
caller passes the allowed record types (``records=``), so nothing from a file
or the network ever chooses code to run. Enum members are refused: rebuilding
one would mean importing its class by name. Nesting is limited to
:data:`MAX_DEPTH` levels both ways.

Nothing here does canonical arithmetic; it moves bytes. Longer than 500 lines because
the encoder and the decoder of one grammar belong side by side, tag by tag, with the
grammar's table above them.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from leviathan._frozen import FrozenMapping

__all__ = [
    "MAX_DEPTH",
    "TYPED_JSON_VERSION",
    "ArrayLoad",
    "ArrayStore",
    "TypedJSONError",
    "dumps",
    "from_json",
    "loads",
    "to_json",
]

TYPED_JSON_VERSION = "leviathan.typed-json.v1"
"""Name and version of the encoding the dataset files use (see the module docstring)."""

MAX_DEPTH = 64
"""Deepest nesting of containers in a value or a text [-] (a leaf one level deeper is refused)."""

ArrayStore = Callable[[np.ndarray, tuple[Any, ...]], str]
"""``store(array, keys) -> name``: keeps ``array`` (found under ``keys``) and names it."""

ArrayLoad = Callable[[str], np.ndarray]
"""``load(name) -> array``: the array a ``store`` call named ``name``."""

_TAGS = (
    "$float",
    "$complex",
    "$bytes",
    "$fraction",
    "$decimal",
    "$set",
    "$scalar",
    "$array",
    "$ndarray",
    "$transform",
    "$record",
)
_ARRAY_KINDS = "biufcUS"


class TypedJSONError(TypeError, ValueError):
    """A value that cannot be encoded, or a text that is malformed.

    Both a ``TypeError`` (an unsupported value) and a ``ValueError`` (bad input),
    so either ``except`` clause catches it. The message starts with the path of
    the value at fault, e.g. ``$['spec']['limits'][2]: ...``.
    """


def _path(keys: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{key!r}]" for key in keys)


class _Failure(Exception):
    """Carries a message up the recursion while the path is collected."""

    def __init__(self, message: str, *keys: Any) -> None:
        super().__init__(message)
        self.message = message
        self.keys = list(keys)


# --------------------------------------------------------------------------- encode


def to_json(
    value: Any,
    *,
    store: ArrayStore | None = None,
    inline_arrays: bool = True,
    records: Mapping[str, type] | None = None,
) -> Any:
    """The JSON tree (dicts, lists, str, int, bool, None) of a value (see the module).

    Args:
        value: ``None``, bool, int, float, complex, str, bytes, ``Fraction``,
            ``Decimal``, NumPy scalars and arrays, lists, tuples, sets and
            ``str``-keyed mappings of those, nested; with ``records``, also
            :class:`~leviathan.frames.Transform` and dataclass records whose pinned
            tag maps to their type there.
        store: Called for each array as ``store(array, keys)`` with the chain of
            keys and indices leading to it; returns the name to write. Without
            it, arrays are written inline (``$ndarray``).
        inline_arrays: Whether an array may be written inline when there is no
            ``store``; ``False`` refuses it (the dataset writers always store them).
        records: Allowed record types by pinned type tag (``None``: none, and no
            transforms either).

    Raises:
        TypedJSONError: For any other type, a non-``str`` mapping key or nesting
            deeper than :data:`MAX_DEPTH`, naming the value's path.
    """
    if store is None and not inline_arrays:
        store = _refuse_array
    try:
        return _encode(value, 0, store, records, ())
    except _Failure as failure:
        raise TypedJSONError(f"{_path(tuple(reversed(failure.keys)))}: {failure.message}") from None


def dumps(
    value: Any,
    *,
    store: ArrayStore | None = None,
    inline_arrays: bool = True,
    records: Mapping[str, type] | None = None,
) -> str:
    """:func:`to_json` as JSON text (ASCII, no NaN literals: every float is tagged)."""
    tree = to_json(value, store=store, inline_arrays=inline_arrays, records=records)
    return json.dumps(tree, ensure_ascii=True, allow_nan=False)


def _refuse_array(array: np.ndarray, keys: tuple[Any, ...]) -> str:
    raise _Failure("arrays need a store callback")


def _float_text(x: float) -> str:
    return repr(float(x))


def _encode(
    value: Any,
    depth: int,
    store: ArrayStore | None,
    records: Mapping[str, type] | None,
    keys: tuple[Any, ...],
) -> Any:
    if depth > MAX_DEPTH:
        raise _Failure(f"nested deeper than {MAX_DEPTH} levels")
    # Exact types first (what metadata and records hold most); the general chain
    # below runs ABC isinstance checks per node, which cost more than the encoding.
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return {"$float": repr(value)}
    if kind is tuple or kind is list:
        return [_item(item, i, depth, store, records, keys) for i, item in enumerate(value)]
    if kind is dict or kind is FrozenMapping:
        return _encode_mapping(value, depth, store, records, keys)
    # Order matters below: enums and NumPy scalars before int/float (IntEnum is an
    # int, np.float64 a float), bool before int.
    if isinstance(value, enum.Enum):
        raise _Failure(f"enum member {value!r} cannot be stored; store its value instead")
    if isinstance(value, np.ndarray):
        if store is not None:
            return {"$array": store(value, keys)}
        return {"$ndarray": _inline_array(value)}
    if isinstance(value, np.generic):
        dtype = value.dtype
        size = dtype.itemsize
        # Extended precision (longdouble) is platform-dependent and has no exact text.
        if (
            dtype.kind not in _ARRAY_KINDS
            or (dtype.kind == "f" and size > 8)
            or (dtype.kind == "c" and size > 16)
        ):
            raise _Failure(
                f"NumPy scalar of dtype {dtype.str!r} cannot be stored; convert it to a "
                "Python number"
            )
        return {"$scalar": [dtype.str, _encode(value.item(), depth, store, records, keys)]}
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return {"$float": _float_text(value)}
    if isinstance(value, complex):
        return {"$complex": [_float_text(value.real), _float_text(value.imag)]}
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes | bytearray):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Fraction):
        return {"$fraction": f"{value.numerator}/{value.denominator}"}
    if isinstance(value, Decimal):
        return {"$decimal": str(value)}
    if isinstance(value, list | tuple):
        return [_item(item, i, depth, store, records, keys) for i, item in enumerate(value)]
    if isinstance(value, set | frozenset):
        # Sorted by encoding so the text does not depend on set iteration order.
        items = [_item(item, "{element}", depth, store, records, keys) for item in value]
        return {"$set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
    if isinstance(value, Mapping):
        return _encode_mapping(value, depth, store, records, keys)
    if records is not None:
        from leviathan.frames import Transform

        if isinstance(value, Transform):
            return {
                "$transform": {
                    "rotation": {"$ndarray": _inline_array(value.rotation)},
                    "translation": {"$ndarray": _inline_array(value.translation)},
                }
            }
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return _encode_record(value, depth, store, records, keys)
    raise _Failure(
        f"cannot store a value of type {type(value).__name__}; supported are None, bool, int, "
        "float, complex, str, bytes, Fraction, Decimal, NumPy scalars and arrays, and lists, "
        "tuples, sets and str-keyed mappings of those"
        + ("" if records is None else ", transforms and the allowed records")
    )


def _item(
    item: Any,
    key: Any,
    depth: int,
    store: ArrayStore | None,
    records: Mapping[str, type] | None,
    keys: tuple[Any, ...],
) -> Any:
    kind = type(item)
    if depth < MAX_DEPTH and (kind is str or kind is int or kind is bool or item is None):
        return item
    try:
        return _encode(item, depth + 1, store, records, (*keys, key) if store else keys)
    except _Failure as failure:
        failure.keys.append(key)
        raise


def _encode_mapping(
    value: Mapping[Any, Any],
    depth: int,
    store: ArrayStore | None,
    records: Mapping[str, type] | None,
    keys: tuple[Any, ...],
) -> dict[str, Any]:
    out = {}
    for key, item in value.items():
        if type(key) is not str:
            raise _Failure(
                f"mapping key {key!r} has type {type(key).__name__}; only str keys can be stored"
            )
        out["$" + key if key[:1] == "$" else key] = _item(item, key, depth, store, records, keys)
    return out


def _inline_array(array: np.ndarray) -> dict[str, Any]:
    if array.dtype.kind not in _ARRAY_KINDS:
        raise _Failure(f"arrays of dtype {array.dtype} cannot be stored")
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    data = np.ascontiguousarray(little).tobytes(order="C")
    return {
        "dtype": little.dtype.str,
        "shape": list(array.shape),
        "data": base64.b64encode(data).decode("ascii"),
    }


@cache
def _init_fields(cls: type) -> tuple[str, ...]:
    """The constructor fields of a record type, in declaration order."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


def _encode_record(
    record: Any,
    depth: int,
    store: ArrayStore | None,
    records: Mapping[str, type],
    keys: tuple[Any, ...],
) -> dict[str, Any]:
    cls = type(record)
    tag = cls.__dict__.get("__content_type__")
    if records.get(tag) is not cls:
        raise _Failure(f"{cls.__name__} is not an allowed record type")
    fields = {
        name: _item(getattr(record, name), name, depth, store, records, keys)
        for name in _init_fields(cls)
    }
    return {"$record": {"type": tag, "fields": fields}}


# --------------------------------------------------------------------------- decode


def from_json(
    data: Any,
    *,
    load: ArrayLoad | None = None,
    records: Mapping[str, type] | None = None,
) -> Any:
    """Inverse of :func:`to_json`: mappings as ``dict`` (order kept), sequences as ``tuple``.

    Args:
        data: A JSON tree as :func:`json.loads` gives it.
        load: Returns the array stored under a name; needed for ``$array``.
        records: Allowed record types by pinned type tag (``None``: ``$record`` and
            ``$transform`` are refused).

    Raises:
        TypedJSONError: A bare float, an unknown or malformed tag, a record type
            not allowed, or nesting deeper than :data:`MAX_DEPTH`, naming the path.
    """
    try:
        return _decode(data, 0, load, records)
    except _Failure as failure:
        raise TypedJSONError(
            f"typed JSON {_path(tuple(reversed(failure.keys)))}: {failure.message}"
        ) from None


def loads(
    text: str | bytes,
    *,
    load: ArrayLoad | None = None,
    records: Mapping[str, type] | None = None,
) -> Any:
    """:func:`from_json` of JSON text.

    Raises:
        TypedJSONError: The text is not valid JSON, or as :func:`from_json`.
    """
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise TypedJSONError(f"typed JSON: not valid JSON ({error})") from None
    return from_json(raw, load=load, records=records)


def _decode(
    raw: Any, depth: int, load: ArrayLoad | None, records: Mapping[str, type] | None
) -> Any:
    if depth > MAX_DEPTH:
        raise _Failure(f"nested deeper than {MAX_DEPTH} levels")
    kind = type(raw)
    if kind is str or kind is int or kind is bool or raw is None:
        return raw
    if kind is list:
        return tuple(_child(item, i, depth, load, records) for i, item in enumerate(raw))
    if kind is float:
        raise _Failure(f"bare number {raw!r}; floats are written as $float")
    if kind is not dict:
        raise _Failure(f"unexpected JSON value of type {kind.__name__}")
    if len(raw) == 1:
        ((key, payload),) = raw.items()
        if key[:1] == "$" and key[:2] != "$$":
            return _tagged(key, payload, depth, load, records)
    return {
        (key[1:] if key[:1] == "$" else key): _child(item, key, depth, load, records)
        for key, item in raw.items()
    }


def _child(
    item: Any, key: Any, depth: int, load: ArrayLoad | None, records: Mapping[str, type] | None
) -> Any:
    kind = type(item)
    if depth < MAX_DEPTH and (kind is str or kind is int or kind is bool or item is None):
        return item
    try:
        return _decode(item, depth + 1, load, records)
    except _Failure as failure:
        failure.keys.append(key)
        raise


def _parse_float(text: Any) -> float:
    if not isinstance(text, str):
        raise _Failure(f"expected a float's repr text, got {text!r}")
    try:
        x = float(text)
    except ValueError:
        raise _Failure(f"{text!r} is not a float's repr") from None
    if math.isnan(x) and text != "nan":
        raise _Failure(f"{text!r} is not a float's repr")
    return x


def _base64(payload: Any, tag: str) -> bytes:
    try:
        return base64.b64decode(payload, validate=True)
    except (TypeError, ValueError):
        raise _Failure(f"{tag} expects base64 text, got {str(payload)[:40]!r}") from None


def _tagged(
    tag: str, payload: Any, depth: int, load: ArrayLoad | None, records: Mapping[str, type] | None
) -> Any:
    if tag == "$float":
        return _parse_float(payload)
    if tag == "$complex":
        if not isinstance(payload, list) or len(payload) != 2:
            raise _Failure(f"$complex expects [re, im], got {payload!r}")
        return complex(_parse_float(payload[0]), _parse_float(payload[1]))
    if tag == "$bytes":
        return _base64(payload, tag)
    if tag == "$fraction":
        try:
            return Fraction(payload)
        except (TypeError, ValueError, ZeroDivisionError):
            raise _Failure(f"$fraction expects 'n/d', got {payload!r}") from None
    if tag == "$decimal":
        if not isinstance(payload, str):
            raise _Failure(f"$decimal expects a string, got {payload!r}")
        try:
            return Decimal(payload)
        except ArithmeticError:
            raise _Failure(f"$decimal expects a decimal number, got {payload!r}") from None
    if tag == "$set":
        if not isinstance(payload, list):
            raise _Failure(f"$set expects a list, got {payload!r}")
        return frozenset(_child(item, "{element}", depth, load, records) for item in payload)
    if tag == "$scalar":
        if not isinstance(payload, list) or len(payload) != 2 or not isinstance(payload[0], str):
            raise _Failure(f"$scalar expects [dtype, value], got {payload!r}")
        try:
            dtype = np.dtype(payload[0])
        except TypeError:
            raise _Failure(f"unknown dtype {payload[0]!r}") from None
        if dtype.kind not in _ARRAY_KINDS:
            raise _Failure(f"scalars of dtype {dtype} are not accepted")
        try:
            return dtype.type(_decode(payload[1], depth + 1, load, records))
        except (TypeError, ValueError, OverflowError) as error:
            raise _Failure(f"$scalar of dtype {dtype.str}: {error}") from None
    if tag == "$array":
        if load is None:
            raise _Failure(f"references array {payload!r} but no loader was given")
        if not isinstance(payload, str):
            raise _Failure(f"$array expects a name, got {payload!r}")
        return load(payload)
    if tag == "$ndarray":
        return _decode_array(payload)
    if tag in ("$transform", "$record") and records is not None:
        if tag == "$transform":
            return _decode_transform(payload)
        return _decode_record(payload, depth, load, records)
    raise _Failure(f"unknown tag {tag!r}; known tags: {', '.join(_TAGS)}")


def _decode_array(payload: Any) -> np.ndarray:
    if not isinstance(payload, dict) or set(payload) != {"dtype", "shape", "data"}:
        raise _Failure("$ndarray expects {dtype, shape, data}")
    try:
        dtype = np.dtype(payload["dtype"])
    except TypeError:
        raise _Failure(f"unknown dtype {payload['dtype']!r}") from None
    if dtype.kind not in _ARRAY_KINDS:
        raise _Failure(f"arrays of dtype {dtype} are not accepted")
    shape = payload["shape"]
    if not isinstance(shape, list) or not all(
        type(n) is int and n >= 0 for n in shape
    ):  # (bool is no int here: type(True) is bool)
        raise _Failure(f"$ndarray shape must be a list of non-negative ints, got {shape!r}")
    data = _base64(payload["data"], "$ndarray")
    if len(shape) > MAX_DEPTH or math.prod(shape) * dtype.itemsize != len(data):
        raise _Failure(f"$ndarray of shape {shape} and dtype {dtype.str} does not fit its data")
    return np.frombuffer(data, dtype=dtype).reshape(shape)  # over immutable bytes: read-only


def _decode_transform(payload: Any) -> Any:
    from leviathan.frames import Transform

    if not isinstance(payload, dict) or set(payload) != {"rotation", "translation"}:
        raise _Failure("$transform expects {rotation, translation}")
    parts = []
    for name in ("rotation", "translation"):
        part = payload[name]
        if not isinstance(part, dict) or set(part) != {"$ndarray"}:
            raise _Failure(f"$transform's {name} must be an $ndarray")
        parts.append(_decode_array(part["$ndarray"]))
    try:
        return Transform(*parts)
    except (TypeError, ValueError) as error:
        raise _Failure(f"$transform refused: {error}") from None


def _decode_record(
    payload: Any, depth: int, load: ArrayLoad | None, records: Mapping[str, type]
) -> Any:
    if not isinstance(payload, dict) or set(payload) != {"type", "fields"}:
        raise _Failure("$record expects {type, fields}")
    tag = payload["type"]
    cls = records.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise _Failure(f"record type {tag!r} is not one that is accepted")
    fields = payload["fields"]
    if not isinstance(fields, dict):
        raise _Failure(f"record {tag} has no fields object")
    unknown = set(fields).difference(_init_fields(cls))
    if unknown:
        raise _Failure(f"record {tag} has no fields {sorted(unknown)}")
    kwargs = {name: _child(value, name, depth, load, records) for name, value in fields.items()}
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        raise _Failure(f"record {tag} refused its fields: {error}") from None
