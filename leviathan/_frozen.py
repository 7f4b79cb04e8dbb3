"""Deep freezing of product contents: arrays over immutable bytes, read-only mappings.

Every canonical product (a snapshot, a capture group, a sensor sample, a sonar
frame) is built from values that the caller, or the live World, may still hold
and change. :func:`freeze` copies such a value into a form that nobody can
change any more, so a product shares nothing mutable with anyone and its cached
``content_hash`` can never go stale:

* arrays become :func:`frozen_array` copies whose memory is an immutable
  ``bytes`` object, so ``setflags(write=True)`` raises on them and on every view
  of them (a read-only flag over writable memory could be lifted again);
* mappings become :class:`FrozenMapping`, which has no mutating methods and hands
  out a fresh view of each array it holds, so reassigning ``shape`` or ``dtype``
  on a returned array never changes the stored one;
* lists and tuples become tuples, sets become frozensets.

Freezing never changes a content hash: the canonical encoding
(:mod:`leviathan.identity`) writes lists and tuples alike, every mapping sorted
by key whatever its type, sets sorted by element, and arrays by dtype, shape and
bytes, all of which freezing preserves. Mapping order is preserved too.

Out of scope: deliberate pointer forgery (``ctypes.memmove``, a hand-made
``__array_interface__``), which can write any memory of the process. Arrays held
directly inside a sequence (no product does this) keep immutable memory, but a
tuple hands out the stored array itself, whose ``shape`` could be reassigned;
products keep their arrays in mappings.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = ["FrozenMapping", "freeze", "frozen_array"]

# Immutable leaves kept as they are. Exact types: looking a type up in a frozenset
# is the cheap test on the hot path (a World freezes an IMU sample per tick).
_SCALAR_TYPES = frozenset({type(None), bool, int, float, complex, str, bytes, Fraction, Decimal})
_SCALAR_BASES = (int, float, complex, str, bytes, Fraction, Decimal, enum.Enum)


class FrozenMapping(Mapping):
    """A read-only mapping that owns its entries and hands out fresh array views.

    It has no ``__setitem__``, ``__delitem__``, ``update``, ``pop`` or ``clear``
    (item assignment raises ``TypeError``, the methods ``AttributeError``) and
    refuses attribute assignment. Array values are returned as new views of the
    stored, immutable array, so no caller ever holds the stored array object
    (short of reaching into the private ``_items``).
    Build one with :func:`freeze`; it encodes exactly like a ``dict`` with the
    same entries.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[Any, Any] = MappingProxyType({})) -> None:
        """Wrap a frozen copy of ``items`` (the values are frozen with :func:`freeze`).

        Raises:
            TypeError: If ``items`` is not a mapping, or holds a value :func:`freeze`
                refuses.
        """
        if not isinstance(items, Mapping):
            raise TypeError(f"FrozenMapping: expected a mapping, got {type(items).__name__}")
        frozen = _freeze(items, ())
        object.__setattr__(self, "_items", frozen._items)

    @classmethod
    def _adopt(cls, items: dict[Any, Any]) -> FrozenMapping:
        """Wrap ``items``, whose values are already frozen and which nobody else holds."""
        mapping = object.__new__(cls)
        object.__setattr__(mapping, "_items", MappingProxyType(items))
        return mapping

    def __getitem__(self, key: Any) -> Any:
        value = self._items[key]
        if type(value) is np.ndarray:
            # A fresh header over the same immutable memory: reassigning its shape or
            # dtype cannot reach the stored array.
            return value.view()
        return value

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def stored_values(self) -> Iterator[Any]:
        """The values as stored, for a traversal that only reads them (sizes, types):
        no fresh array header per value, as ``values()`` through ``__getitem__`` makes."""
        return iter(self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __repr__(self) -> str:
        return f"FrozenMapping({dict(self._items)!r})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"FrozenMapping is read-only; cannot set attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"FrozenMapping is read-only; cannot delete attribute {name!r}")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Unpickled arrays are writable again; rebuilding through freeze re-freezes them.
        return (freeze, (dict(self.items()),))

    def __copy__(self) -> FrozenMapping:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenMapping:
        return self


def frozen_array(a: np.ndarray) -> np.ndarray:
    """Return a C-contiguous copy of ``a`` whose memory is an immutable ``bytes`` object.

    The result and every view of it are read-only for good: ``setflags(write=True)``
    raises ``ValueError`` because no array in its base chain owns writable memory.
    An array that is already frozen (read-only, C-contiguous, over ``bytes``) is not
    copied again; a new view of the same memory is returned, so the caller's array
    object and the result never share ``shape``/``dtype`` attributes.

    Args:
        a: Array of any shape (0-size included) and any dtype without Python objects.

    Returns:
        A read-only ``numpy.ndarray`` with ``a``'s dtype (byte order included), shape
        and element values.

    Raises:
        TypeError: If ``a`` is not exactly a ``numpy.ndarray`` (convert subclasses with
            ``numpy.asarray`` first) or its dtype holds Python objects.
    """
    if type(a) is not np.ndarray:
        raise TypeError(
            f"frozen_array: expected a numpy.ndarray, got {type(a).__name__}; "
            "convert it with numpy.asarray() first"
        )
    if _is_frozen(a):
        return a.view()
    if a.dtype.hasobject:
        raise TypeError(
            f"frozen_array: dtype {a.dtype} holds Python objects, which cannot be frozen; "
            "convert the elements to numbers or fixed-width strings first"
        )
    return np.ndarray(a.shape, dtype=a.dtype, buffer=a.tobytes())


def _is_frozen(a: np.ndarray) -> bool:
    """Whether ``a`` is read-only, C-contiguous and its memory is a ``bytes`` object."""
    if a.flags.writeable or not a.flags.c_contiguous:
        return False
    base = a.base
    while type(base) is np.ndarray:
        if base.flags.writeable:
            return False
        base = base.base
    return type(base) is bytes


def freeze(value: Any) -> Any:
    """Return a deep, immutable copy of a JSON-like value that shares nothing mutable.

    Mappings become :class:`FrozenMapping` (order kept), lists and tuples become
    tuples, sets become frozensets, bytearrays become bytes and arrays become
    :func:`frozen_array` copies. Immutable leaves (``None``, bool, int, float,
    complex, str, bytes, ``Fraction``, ``Decimal``, enum members, NumPy scalars) are
    kept. Already-frozen parts are reused, not copied. Cost is linear in the number
    of values; ``content_hash(freeze(v)) == content_hash(v)`` for every encodable
    ``v``.

    Args:
        value: The value to freeze.

    Returns:
        The frozen value.

    Raises:
        TypeError: If ``value`` holds an object of another type (which could be
            mutable), or a mapping key that is not an immutable scalar; the message
            names the path of the offending part, e.g. ``$['spec']['limits'][2]``.
    """
    if type(value) in _SCALAR_TYPES:
        return value
    return _freeze(value, ())


def _freeze(value: Any, path: tuple[Any, ...]) -> Any:
    """Freeze a non-leaf ``value`` found at ``path`` (a chain of ``(parent, key)`` pairs)."""
    kind = type(value)
    # Exact-type shortcuts for what products are made of (dicts with str keys, lists of
    # numbers, frozen parts): the same results as the general rules below, without a
    # call per leaf or the abstract-base-class checks.
    if kind is FrozenMapping:
        return value
    if kind is dict:
        items = {}
        for key, item in value.items():
            if type(key) is not str:
                return _freeze_mapping(value, path)
            items[key] = item if type(item) in _SCALAR_TYPES else _freeze(item, (path, key))
        return FrozenMapping._adopt(items)
    if (kind is list or kind is tuple) and _SCALAR_TYPES.issuperset(map(type, value)):
        return value if kind is tuple else tuple(value)
    return _freeze_general(value, path)


def _freeze_mapping(value: Mapping[Any, Any], path: tuple[Any, ...]) -> FrozenMapping:
    items = {}
    for key, item in value.items():
        if type(key) not in _SCALAR_TYPES and not isinstance(key, _SCALAR_BASES):
            raise TypeError(
                f"{_format_path(path)}: mapping key {key!r} has type "
                f"{type(key).__name__}; keys must be immutable scalars (str for content "
                "identity)"
            )
        items[key] = item if type(item) in _SCALAR_TYPES else _freeze(item, (path, key))
    return FrozenMapping._adopt(items)


def _freeze_general(value: Any, path: tuple[Any, ...]) -> Any:
    """:func:`_freeze` for every type, by the rules in :func:`freeze`'s docstring."""
    if isinstance(value, FrozenMapping):
        return value
    if isinstance(value, Mapping):
        return _freeze_mapping(value, path)
    if type(value) is np.ndarray:
        if value.dtype.hasobject:
            raise TypeError(
                f"{_format_path(path)}: array of dtype {value.dtype} holds Python objects, "
                "which cannot be frozen; convert the elements to numbers or strings"
            )
        return frozen_array(value)
    if isinstance(value, list | tuple):
        frozen = [
            item if type(item) in _SCALAR_TYPES else _freeze(item, (path, i))
            for i, item in enumerate(value)
        ]
        if type(value) is tuple and all(f is v for f, v in zip(frozen, value, strict=True)):
            return value
        return tuple(frozen)
    if isinstance(value, set | frozenset):
        frozen_set = frozenset(
            item if type(item) in _SCALAR_TYPES else _freeze(item, (path, "{element}"))
            for item in value
        )
        return value if type(value) is frozenset and frozen_set == value else frozen_set
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, np.generic):
        if isinstance(value, np.void):
            # A structured scalar can be a writable view into another array's memory.
            raise TypeError(
                f"{_format_path(path)}: numpy.void scalar {value!r} may share memory with "
                "an array; convert it to a tuple of Python values first"
            )
        return value
    if isinstance(value, _SCALAR_BASES):
        return value
    raise TypeError(
        f"{_format_path(path)}: cannot freeze a value of type {type(value).__name__}; "
        "products hold only None, bool, int, float, complex, str, bytes, Fraction, "
        "Decimal, enum members, numpy arrays and scalars, and mappings, lists, tuples "
        "and sets of those. Convert it to such a value (e.g. obj.to_dict())"
    )


def _format_path(path: tuple[Any, ...]) -> str:
    """Render a ``(parent, key)`` chain as ``$['a'][0]``, only when an error is raised."""
    keys = []
    while path:
        path, key = path
        keys.append(key)
    return "$" + "".join(f"[{key!r}]" for key in reversed(keys))
