"""A typed JSON encoding of JSON-like metadata that round-trips every value exactly.

Plain JSON cannot tell ``1`` from ``1.0``, has no NaN, infinities or ``-0.0``,
and no arrays with a dtype. Sample metadata holds all of these, and their
content hash must survive a file round trip, so the dataset writers store it as
JSON text in which every value says what it is (version 1):

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
``{"$set": [...]}``                 ``frozenset``
``{"$scalar": ["<dtype>", v]}``     a NumPy scalar of that dtype (``"<f4"``), ``v`` its value
``{"$array": "<name>"}``            a NumPy array stored outside the text, under ``name``
any other object                    a mapping with ``str`` keys, order kept; a key that
                                    starts with ``$`` is written with one more ``$`` in front
==================================  =============================================================

An object is a tagged value exactly when it has one key, and that key starts
with a single ``$``. Arrays are handed to a ``store`` callback that keeps them
elsewhere (the HDF5 writer makes each one a dataset with its exact dtype and
shape) and returns the name written in the text; ``decode`` asks a ``load``
callback for them by that name.

Enum members are refused: rebuilding one would mean importing its class by name.
"""

from __future__ import annotations

import base64
import enum
import json
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["TYPED_JSON_VERSION", "decode", "encode"]

TYPED_JSON_VERSION = "leviathan.typed-json.v1"
"""Name and version of this encoding, recorded next to every text that uses it."""

ArrayStore = Callable[[np.ndarray, tuple[Any, ...]], str]
"""``store(array, keys) -> name``: keeps ``array`` (found under ``keys``) and names it."""

ArrayLoad = Callable[[str], np.ndarray]
"""``load(name) -> array``: the array a ``store`` call named ``name``."""

_TAGS = ("$float", "$complex", "$bytes", "$fraction", "$decimal", "$set", "$scalar", "$array")


def encode(value: Any, store: ArrayStore | None = None) -> str:
    """Encodes a JSON-like value as typed JSON text.

    Args:
        value: ``None``, bool, int, float, complex, str, bytes, ``Fraction``,
            ``Decimal``, NumPy scalars and arrays, and lists, tuples, sets and
            ``str``-keyed mappings of those, nested arbitrarily.
        store: Called for each array as ``store(array, keys)`` with the chain of
            keys and indices leading to it; returns the name to write. Without
            it, arrays are refused.

    Returns:
        The JSON text (ASCII, no NaN literals: every float is tagged).

    Raises:
        TypeError: A value of another type (an enum member, an object), a
            mapping key that is not a ``str``, or an array without ``store``; the
            message gives the value's path, e.g. ``$['spec']['limits'][2]``.
    """
    return json.dumps(_to_json(value, (), store), ensure_ascii=True, allow_nan=False)


def decode(text: str, load: ArrayLoad | None = None) -> Any:
    """Decodes typed JSON text written by :func:`encode`.

    Args:
        text: The JSON text.
        load: Returns the array stored under a name; needed if the text
            references arrays.

    Returns:
        The value: mappings as ``dict`` (order kept), sequences as ``tuple``.

    Raises:
        ValueError: The text is not valid JSON or a tagged value is malformed.
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"typed JSON: not valid JSON ({error})") from None
    return _from_json(raw, "$", load)


def _path(keys: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{key!r}]" for key in keys)


def _float_text(x: float) -> str:
    return repr(float(x))


def _to_json(value: Any, keys: tuple[Any, ...], store: ArrayStore | None) -> Any:
    # Order matters: bool before int (bool is an int), NumPy scalars and enums
    # before float/int (np.float64 is a float, IntEnum an int).
    if value is None or type(value) is str:
        return value
    if isinstance(value, enum.Enum):
        raise TypeError(
            f"{_path(keys)}: enum member {value!r} cannot be stored; store its value instead"
        )
    if isinstance(value, np.ndarray):
        if store is None:
            raise TypeError(f"{_path(keys)}: arrays need a store callback")
        return {"$array": store(value, keys)}
    if isinstance(value, np.generic):
        kind, size = value.dtype.kind, value.dtype.itemsize
        # Extended precision (longdouble) is platform-dependent and has no exact text.
        if kind not in "biufcUS" or (kind == "f" and size > 8) or (kind == "c" and size > 16):
            raise TypeError(
                f"{_path(keys)}: NumPy scalar of dtype {value.dtype.str!r} cannot be stored; "
                "convert it to a Python number"
            )
        return {"$scalar": [value.dtype.str, _to_json(value.item(), keys, store)]}
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
        return [_to_json(item, (*keys, i), store) for i, item in enumerate(value)]
    if isinstance(value, set | frozenset):
        # Sorted by encoding so the text does not depend on set iteration order.
        items = [_to_json(item, (*keys, "{element}"), store) for item in value]
        return {"$set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(
                    f"{_path(keys)}: mapping key {key!r} has type {type(key).__name__}; "
                    "only str keys can be stored"
                )
            out["$" + key if key.startswith("$") else key] = _to_json(item, (*keys, key), store)
        return out
    raise TypeError(
        f"{_path(keys)}: cannot store a value of type {type(value).__name__}; supported are "
        "None, bool, int, float, complex, str, bytes, Fraction, Decimal, NumPy scalars and "
        "arrays, and lists, tuples, sets and str-keyed mappings of those"
    )


def _parse_float(text: Any, where: str) -> float:
    if not isinstance(text, str):
        raise ValueError(f"typed JSON {where}: expected a float's repr text, got {text!r}")
    try:
        x = float(text)
    except ValueError:
        raise ValueError(f"typed JSON {where}: {text!r} is not a float's repr") from None
    if math.isnan(x) and text != "nan":
        raise ValueError(f"typed JSON {where}: {text!r} is not a float's repr")
    return x


def _from_json(raw: Any, where: str, load: ArrayLoad | None) -> Any:
    if raw is None or isinstance(raw, bool | str):
        return raw
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        raise ValueError(f"typed JSON {where}: bare number {raw!r}; floats are written as $float")
    if isinstance(raw, list):
        return tuple(_from_json(item, f"{where}[{i}]", load) for i, item in enumerate(raw))
    if not isinstance(raw, dict):  # pragma: no cover - json.loads yields nothing else
        raise ValueError(f"typed JSON {where}: unexpected value {raw!r}")
    if len(raw) == 1:
        ((key, payload),) = raw.items()
        if key.startswith("$") and not key.startswith("$$"):
            return _tagged(key, payload, where, load)
    return {
        (key[1:] if key.startswith("$") else key): _from_json(item, f"{where}[{key!r}]", load)
        for key, item in raw.items()
    }


def _tagged(tag: str, payload: Any, where: str, load: ArrayLoad | None) -> Any:
    if tag == "$float":
        return _parse_float(payload, where)
    if tag == "$complex":
        if not isinstance(payload, list) or len(payload) != 2:
            raise ValueError(f"typed JSON {where}: $complex expects [re, im], got {payload!r}")
        return complex(_parse_float(payload[0], where), _parse_float(payload[1], where))
    if tag == "$bytes":
        try:
            return base64.b64decode(payload, validate=True)
        except (TypeError, ValueError):
            raise ValueError(
                f"typed JSON {where}: $bytes expects base64, got {payload!r}"
            ) from None
    if tag == "$fraction":
        try:
            return Fraction(payload)
        except (TypeError, ValueError, ZeroDivisionError):
            raise ValueError(
                f"typed JSON {where}: $fraction expects 'n/d', got {payload!r}"
            ) from None
    if tag == "$decimal":
        if not isinstance(payload, str):
            raise ValueError(f"typed JSON {where}: $decimal expects a string, got {payload!r}")
        return Decimal(payload)
    if tag == "$set":
        if not isinstance(payload, list):
            raise ValueError(f"typed JSON {where}: $set expects a list, got {payload!r}")
        return frozenset(_from_json(item, f"{where}{{element}}", load) for item in payload)
    if tag == "$scalar":
        if not isinstance(payload, list) or len(payload) != 2 or not isinstance(payload[0], str):
            raise ValueError(f"typed JSON {where}: $scalar expects [dtype, value], got {payload!r}")
        try:
            dtype = np.dtype(payload[0])
        except TypeError:
            raise ValueError(f"typed JSON {where}: unknown dtype {payload[0]!r}") from None
        return dtype.type(_from_json(payload[1], where, load))
    if tag == "$array":
        if load is None:
            raise ValueError(f"typed JSON {where}: references array {payload!r} but no loader")
        if not isinstance(payload, str):
            raise ValueError(f"typed JSON {where}: $array expects a name, got {payload!r}")
        return load(payload)
    raise ValueError(f"typed JSON {where}: unknown tag {tag!r}; known tags: {', '.join(_TAGS)}")
