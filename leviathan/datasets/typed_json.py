"""The typed JSON the dataset writers store metadata in: :mod:`leviathan._typed_json`, version 1.

Sample metadata holds ints and floats that plain JSON cannot tell apart, NaN,
``-0.0``, NumPy scalars and arrays, and its content hash must survive a file
round trip, so the writers store it as the one typed-JSON encoding LEVIATHAN
uses everywhere (the service wire too): every float tagged ``{"$float":
"<repr>"}``, and every array kept outside the text (the HDF5 writer makes each
one a dataset with its exact dtype and shape) and referenced by name,
``{"$array": "<name>"}``. The grammar is documented once, in
:mod:`leviathan._typed_json`; the files record :data:`TYPED_JSON_VERSION`
beside every text. Files write only version-1 tags (no inline arrays, no
transforms or records), so they read back with any version-1 reader.
"""

from __future__ import annotations

from typing import Any

from leviathan._typed_json import TYPED_JSON_VERSION, ArrayLoad, ArrayStore, dumps, loads

__all__ = ["TYPED_JSON_VERSION", "ArrayLoad", "ArrayStore", "decode", "encode"]


def encode(value: Any, store: ArrayStore | None = None) -> str:
    """Encodes a JSON-like value as typed JSON text (version 1).

    Args:
        value: ``None``, bool, int, float, complex, str, bytes, ``Fraction``,
            ``Decimal``, NumPy scalars and arrays, and lists, tuples, sets and
            ``str``-keyed mappings of those, nested (at most 64 levels).
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
    return dumps(value, store=store, inline_arrays=False)


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
    return loads(text, load=load)
