"""Content identity: a versioned canonical byte encoding and the hashes built on it.

A canonical product (a snapshot, a measurement, a perception frame) is identified by
the SHA-256 of its *scientific content*. This module defines exactly which bytes that
content is, so that two equivalent values always produce the same identity and anyone
can recompute it from this specification alone.

Nothing outside the value enters the encoding: no wall-clock time, no ``id()``, no
``PYTHONHASHSEED``, no dict insertion order and no set iteration order.

Encoding, version 1
-------------------

A top-level encoding is a domain prefix followed by the encoding of one value::

    canonical_encode(obj) = b"LEVIATHAN-CONTENT-v1\\0" + enc(obj)

Every ``enc(value)`` starts with a one-byte type tag. ``u64`` is an unsigned 64-bit
little-endian integer; ``str(s)`` means ``u64(len(utf8(s))) + utf8(s)`` (no tag);
``name(T)`` is ``str(tag(T))``, with ``tag(T)`` the type's pinned type tag (see *Type tags*
below).

====  =======================  =====================================================================
Tag   Value                    Payload after the tag
====  =======================  =====================================================================
0x00  ``None``                 nothing
0x01  ``bool``                 one byte: 0x00 (False) or 0x01 (True)
0x02  ``int``                  sign byte (0x00 for >= 0, 0x01 for < 0), ``u64(n)``, then the ``n``
                               bytes of ``abs(value)`` little-endian, minimal length (so zero has
                               ``n`` = 0)
0x03  ``float``                8 bytes little-endian IEEE binary64 after canonicalisation (-0.0
                               becomes 0.0; every NaN becomes 0x7FF8000000000000)
0x04  ``complex``              the real part then the imaginary part, each 8 bytes as for 0x03
0x05  ``str``                  ``str(value)``
0x06  ``bytes``/``bytearray``  ``u64(len)`` then the bytes
0x07  ``list``/``tuple``       ``u64(count)`` then ``enc(item)`` for each item in order
0x08  ``Mapping``              ``u64(count)`` then, sorted by the key's UTF-8 bytes, ``str(key) +
                               enc(value)`` for each entry; keys must be ``str``
0x09  ``set``/``frozenset``    ``u64(count)`` then the ``enc(element)`` byte strings sorted bytewise
0x0A  ``numpy.ndarray``        ``str(dtype)`` with ``dtype`` the little-endian dtype string
                               (``'<f8'``, ``'|u1'``, ``'<U3'``), ``u64(ndim)``, ``u64(dim)`` per
                               axis, ``u64(nbytes)``, then the C-order little-endian element bytes
                               after canonicalisation: floats and complex parts get -0 -> 0 and NaN
                               -> the width's quiet NaN (0x7FF8000000000000, 0x7FC00000, 0x7E00);
                               booleans are exactly 0x00/0x01
0x0B  ``fractions.Fraction``   ``str("numerator/denominator")`` in lowest terms
0x0C  ``decimal.Decimal``      ``str(str(value))``, so precision counts (``1.0 != 1.00``); a
                               negative zero is written without its sign and every NaN as ``"NaN"``
0x0D  ``enum.Enum``            ``name(type)`` then ``enc(member.value)``
0x0E  dataclass instance       ``name(type)`` then the fields as a 0x08 mapping ``{field.name:
                               getattr(obj, field.name)}`` over ``dataclasses.fields``
0x0F  pydantic ``BaseModel``   ``name(type)`` then ``enc(obj.model_dump(mode="python"))``
0x10  ``__content__()`` hook   ``name(type)`` then ``enc(obj.__content__())``
====  =======================  =====================================================================

Choices worth knowing:

* **Lists and tuples share tag 0x07.** Identity is about content, not container kind:
  a tuple field survives a JSON or ``model_dump`` round trip only as a list, and its
  identity must survive too.
* **Sets are encoded, not refused**, sorted by their elements' encodings, so iteration
  order (which depends on ``PYTHONHASHSEED`` for strings) never matters.
* **NumPy scalars are encoded as their Python value** (``x.item()``): ``np.float32(0.5)``
  and ``0.5`` have the same identity. Scalars usually appear incidentally (a reduction
  stored in a field), and whether some code path called ``float()`` must not change an
  identity. Arrays, by contrast, keep their dtype and shape: a float32 and a float64
  array of the same values are different content.
* **Array dtypes** accepted are bool, signed and unsigned integers, float16/32/64,
  complex64/128 and fixed-width ``U``/``S`` strings. ``object``, datetime, structured
  and extended-precision (``longdouble``) arrays are refused: their bytes are either
  pointers or platform-dependent.
* **Dispatch order** is: ``None``, the ``__content__`` hook, ``Enum``, NumPy scalar,
  ``bool``, ``int``, ``float``, ``complex``, ``str``, ``bytes``, ``Fraction``,
  ``Decimal``, ``ndarray``, list/tuple, mapping, set, pydantic model, dataclass. An
  explicit hook therefore wins over every structural rule.

Library types (a transform, a scene, a sonar frame) define their identity by
implementing ``__content__(self)`` and returning an encodable value, usually a dict of
their scientific fields.

Type tags
~~~~~~~~~

Enums, dataclasses, pydantic models and ``__content__`` classes carry a type name in their
encoding, so that two classes with the same fields stay different content. That name is
pinned, not derived from where the code lives::

    tag(T) = T.__dict__["__content_type__"]      # the class's own pinned tag
           | T.__module__ + "." + T.__qualname__  # fallback, only outside LEVIATHAN

* **Every LEVIATHAN type pins its tag** as a class attribute, one line after the class
  docstring: ``__content_type__ = "leviathan.sonar.frame.SonarFrame"``. The strings are
  the module paths the classes had when the tags were introduced, so every identity
  computed before then is unchanged; moving or renaming a class or its module changes no
  hash, because the tag string stays as written.
* **The tag is read from the class's own** ``__dict__`` **and never inherited**: a
  subclass is a different type and must not silently borrow its parent's identity.
* **A class whose** ``__module__`` **is** ``leviathan`` **or starts with** ``leviathan.``
  **and has no tag of its own is refused** with a ``TypeError`` naming it. Adding a
  hashed type to the library therefore means choosing its tag once.
* **Other classes (user code, tests) fall back to** ``module.QualName``. Their identity
  does depend on where they live: moving such a class, or running its script as
  ``__main__`` rather than importing it, changes its hashes. Pin a tag to avoid that.
* A tag must be a non-empty ``str``; anything else is refused with a ``TypeError``.
* The attribute is a dunder name on purpose: pydantic ignores it (it is neither a field
  nor a private attribute, so ``model_dump`` and ``model_json_schema`` do not see it) and
  ``Enum`` does not make it a member.

Display products
----------------

Display products (an sRGB preview, PNG bytes of a sonar fan) are hashed with
:func:`display_hash`, which uses the domain prefix ``b"LEVIATHAN-DISPLAY-v1\\0"``.
The two prefixes make the SHA-256 inputs of the two hashes disjoint, so a display hash
never equals a content hash. Rule: a display product never enters scientific identity;
do not pass display bytes or display hashes into an object hashed with
:func:`content_hash`.

Longer than 500 lines because this docstring is the normative specification of the
encoding (about 120 lines) and it stays beside the one encoder that implements it, byte for
byte, so that a reader can check the two against each other in one file.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import math
import struct
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import pydantic

from leviathan._frozen import FrozenMapping

__all__ = [
    "CONTENT_DOMAIN",
    "DISPLAY_DOMAIN",
    "ENCODING_VERSION",
    "QUIET_NAN_BITS",
    "TYPE_TAG_ATTRIBUTE",
    "canonical_encode",
    "canonicalize_floats",
    "content_hash",
    "content_hash_property",
    "display_hash",
]

ENCODING_VERSION = 1
"""Version of the canonical encoding; it is spelled into both domain prefixes."""

CONTENT_DOMAIN = b"LEVIATHAN-CONTENT-v1\0"
"""Prefix of every top-level scientific encoding."""

DISPLAY_DOMAIN = b"LEVIATHAN-DISPLAY-v1\0"
"""Prefix of every display-product encoding; never used for scientific identity."""

QUIET_NAN_BITS = 0x7FF8000000000000
"""The single float64 bit pattern every NaN is canonicalised to; it means "missing"."""

TYPE_TAG_ATTRIBUTE = "__content_type__"
"""Name of the class attribute holding a type's pinned type tag (see *Type tags*)."""

# Classes in this package must pin their tag; the module path is a fallback for others.
_PACKAGE = "leviathan"

_TAG_NONE = b"\x00"
_TAG_BOOL = b"\x01"
_TAG_INT = b"\x02"
_TAG_FLOAT = b"\x03"
_TAG_COMPLEX = b"\x04"
_TAG_STR = b"\x05"
_TAG_BYTES = b"\x06"
_TAG_SEQUENCE = b"\x07"
_TAG_MAPPING = b"\x08"
_TAG_SET = b"\x09"
_TAG_NDARRAY = b"\x0a"
_TAG_FRACTION = b"\x0b"
_TAG_DECIMAL = b"\x0c"
_TAG_ENUM = b"\x0d"
_TAG_DATACLASS = b"\x0e"
_TAG_PYDANTIC = b"\x0f"
_TAG_CONTENT_HOOK = b"\x10"

# Quiet NaN bit pattern per float width: sign clear, quiet bit set, zero payload.
_QUIET_NAN_BITS_BY_ITEMSIZE = {2: 0x7E00, 4: 0x7FC00000, 8: QUIET_NAN_BITS}
_ARRAY_KINDS = frozenset("biufcUS")

_U64 = struct.Struct("<Q")
_F64 = struct.Struct("<d")
_SMALL_ARRAY = 64
_CHECK_BLOCK = 1 << 15


def canonical_encode(obj: Any) -> bytes:
    """Return the canonical, versioned byte encoding of ``obj``.

    The format is specified in this module's docstring; the result always starts with
    :data:`CONTENT_DOMAIN`.

    Args:
        obj: The value to encode: ``None``, ``bool``, ``int``, ``float``, ``complex``,
            ``str``, ``bytes``, lists, tuples, str-keyed mappings, sets, NumPy arrays and
            scalars, ``Fraction``, ``Decimal``, enums, dataclasses, pydantic models, or
            any object implementing ``__content__()``, nested arbitrarily.

    Returns:
        The canonical bytes.

    Raises:
        TypeError: If ``obj`` contains a value of an unsupported type, a mapping with a
            non-``str`` key, or an array of an unsupported dtype.
        ValueError: If ``obj`` contains a reference cycle or a string that is not valid
            Unicode (lone surrogates).
    """
    return CONTENT_DOMAIN + _encode_body(obj)


def content_hash(obj: Any) -> str:
    """Return the scientific identity of ``obj``: hex SHA-256 of its canonical encoding.

    Args:
        obj: Any value accepted by :func:`canonical_encode`.

    Returns:
        A 64-character lowercase hexadecimal digest.
    """
    return _digest(CONTENT_DOMAIN, obj)


def content_hash_property(doc: str) -> cached_property:
    """A class's ``content_hash`` attribute: :func:`content_hash` of the instance, computed
    once and kept (the classes are immutable), documented by ``doc``.

    Write ``content_hash = content_hash_property("SHA-256 of …")`` in the class body; the
    class needs an instance ``__dict__`` (a frozen dataclass without slots has one).
    """

    def hashed(self: Any) -> str:
        return content_hash(self)

    hashed.__name__ = hashed.__qualname__ = "content_hash"
    hashed.__doc__ = doc
    return cached_property(hashed)


def _digest(domain: bytes, obj: Any) -> str:
    # Feed the encoded parts to SHA-256 one by one: large arrays are hashed from
    # their buffers without first being joined into one bytes object.
    h = hashlib.sha256(domain)
    small: list[bytes | memoryview] = []
    for part in _encode_parts(obj):
        if len(part) < _JOIN_BELOW:
            small.append(part)
            continue
        if small:
            h.update(b"".join(small))
            small.clear()
        h.update(part)
    if small:
        h.update(b"".join(small))
    return h.hexdigest()


# Encoded parts shorter than this are joined before hashing (one update call instead of
# dozens); longer ones, array payloads, are hashed from their buffers without a copy.
_JOIN_BELOW = 4096


def display_hash(obj: Any) -> str:
    """Return the identity of a display product (preview image, PNG bytes).

    The value is encoded exactly as by :func:`canonical_encode` but behind
    :data:`DISPLAY_DOMAIN` instead of :data:`CONTENT_DOMAIN`, so a display hash never
    coincides with a content hash. Display products never enter scientific identity.

    Args:
        obj: Any value accepted by :func:`canonical_encode`, typically ``bytes``.

    Returns:
        A 64-character lowercase hexadecimal digest.
    """
    return _digest(DISPLAY_DOMAIN, obj)


def canonicalize_floats(a: np.ndarray) -> np.ndarray:
    """Return a C-ordered copy of ``a`` with its floats canonicalised.

    Negative zero becomes positive zero and every NaN (any sign, any payload, quiet or
    signalling) becomes the dtype's single quiet NaN (0x7FF8000000000000 for float64,
    0x7FC00000 for float32, 0x7E00 for float16). Complex arrays are canonicalised in
    their real and imaginary parts. Dtype, byte order and shape are preserved; arrays of
    other dtypes are returned as an unchanged copy.

    Args:
        a: The array to canonicalise. It is never modified.

    Returns:
        A new array.

    Raises:
        TypeError: If ``a`` is not a ``numpy.ndarray`` or is a float or complex array of
            extended precision (``longdouble``).
    """
    if not isinstance(a, np.ndarray):
        raise TypeError(
            f"canonicalize_floats: a must be a numpy.ndarray, got {_type_name(type(a))}; "
            "wrap it with numpy.asarray() first"
        )
    out = np.array(a, copy=True, order="C")
    if out.dtype.kind == "c":
        part_dtype = np.dtype(f"f{out.dtype.itemsize // 2}").newbyteorder(out.dtype.byteorder)
        _canonicalize_floats_in_place(out.view(part_dtype), where="a")
    elif out.dtype.kind == "f":
        _canonicalize_floats_in_place(out, where="a")
    return out


def _canonicalize_floats_in_place(a: np.ndarray, *, where: str) -> None:
    """Canonicalise a contiguous real float array in place through an integer view."""
    nan_bits = _QUIET_NAN_BITS_BY_ITEMSIZE.get(a.dtype.itemsize)
    if nan_bits is None:
        raise TypeError(
            f"{where}: float dtype {a.dtype.str!r} ({a.dtype.itemsize * 8}-bit) has no "
            "canonical encoding because extended precision is platform-dependent; "
            "convert it to float64 first"
        )
    nan_mask = np.isnan(a)
    zero_mask = a == 0
    bits = a.view(np.dtype(f"u{a.dtype.itemsize}").newbyteorder(a.dtype.byteorder))
    # Writing through the integer view sets exact bit patterns; assigning a float NaN
    # would leave the pattern to the hardware's conversion rules.
    bits[nan_mask] = nan_bits
    bits[zero_mask] = 0


def _encode_parts(obj: Any) -> list[bytes | memoryview]:
    """The encoding of ``obj`` (without the domain prefix) as a list of byte chunks.

    :func:`_encode_fast` writes the bytes first; where it meets anything it would not
    encode (an error of any kind), the value is encoded again by :func:`_encode_into`,
    which raises the error naming the value's location.
    """
    parts: list[bytes | memoryview] = []
    try:
        _encode_fast(obj, parts, 0)
    except Exception:
        parts = []
        _encode_into(obj, parts, path="$", active=set())
    return parts


# --------------------------------------------------------------------------- fast path

# The fast path writes the same bytes as _encode_into for the values a product is made
# of (floats, ints, strs, str-keyed dicts and FrozenMappings, lists, tuples, None,
# bools, arrays and __content__ objects), without the location bookkeeping: a mapping
# key's chunk and a class's hook prefix are computed once, small float64 arrays are
# written from their bytes, and a float or str value is one chunk with its key. Any
# other value is handed to _encode_into; containers nested deeper than _FAST_DEPTH too
# (so a reference cycle ends there, in _encode_into's error). A small FrozenMapping met
# a second time is kept with its encoding (at most _FROZEN_LIMIT of them, each of at
# most _FROZEN_BYTES), as are the short keys' chunks (at most _KEY_CHUNKS_LIMIT).
_FAST_DEPTH = 64
_KEY_CHUNKS: dict[str, tuple[bytes, bytes]] = {}
_KEY_CHUNKS_LIMIT = 1 << 14
_SHORT_TEXT = 64
_HOOK_PREFIXES: dict[type, tuple[Any, bytes]] = {}
_FROZEN_ENCODINGS: dict[int, tuple[FrozenMapping, bytes]] = {}
_FROZEN_SEEN: dict[int, FrozenMapping] = {}
_FROZEN_LIMIT = 1024
_FROZEN_PARTS = 256
_FROZEN_BYTES = 4096
_F8_ARRAY_PREFIX = _TAG_NDARRAY + _U64.pack(3) + b"<f8"  # tag and str("<f8"), as _encode_array
_BOOL_CHUNKS = {False: _TAG_BOOL + b"\x00", True: _TAG_BOOL + b"\x01"}


def _key_chunk(key: str) -> tuple[bytes, bytes]:
    """``(utf8(key), str(key))`` of a mapping key; cached for keys of up to
    :data:`_SHORT_TEXT` characters (they recur in every sample)."""
    chunk = _KEY_CHUNKS.get(key)
    if chunk is None:
        encoded = key.encode("utf-8")  # a lone surrogate raises: _encode_into names it
        chunk = (encoded, _U64.pack(len(encoded)) + encoded)
        if len(key) <= _SHORT_TEXT:
            if len(_KEY_CHUNKS) >= _KEY_CHUNKS_LIMIT:
                _KEY_CHUNKS.clear()
            _KEY_CHUNKS[key] = chunk
    return chunk


def _hook_prefix(cls: type) -> bytes:
    """Tag 0x10 and ``name(cls)``: what precedes a ``__content__`` object's content.

    Kept per class with the pinned tag it was made from (a tag set or changed later is
    seen); a name read from the module path is not kept, as it follows ``__module__``.
    """
    tag = cls.__dict__.get(TYPE_TAG_ATTRIBUTE)
    kept = _HOOK_PREFIXES.get(cls)
    if kept is not None and kept[0] is tag:
        return kept[1]
    prefix = _TAG_CONTENT_HOOK + _str_payload(_pinned_type_name(cls, path="$"), path="$")
    if tag is not None:
        _HOOK_PREFIXES[cls] = (tag, prefix)
    return prefix


def _sort_key(entry: tuple[bytes, bytes, Any]) -> bytes:
    return entry[0]


def _encode_fast_mapping(items: Any, out: list[Any], depth: int) -> bool:
    """Append a tag-0x08 mapping of ``items`` (entries sorted by the keys' UTF-8 bytes);
    whether its bytes are the fast path's alone (see :func:`_encode_fast`)."""
    entries = []
    for key, value in items:
        if type(key) is not str:
            raise TypeError("a mapping key that is not a str")
        encoded, chunk = _key_chunk(key)
        entries.append((encoded, chunk, value))
    entries.sort(key=_sort_key)
    out.append(_TAG_MAPPING + _U64.pack(len(entries)))
    alone = True
    for _, chunk, value in entries:
        value_kind = type(value)
        if value_kind is float:
            out.append(chunk + _TAG_FLOAT + _float_payload(value))
        elif value_kind is str:
            out.append(chunk + _TAG_STR + _key_chunk(value)[1])
        else:
            out.append(chunk)
            alone = _encode_fast(value, out, depth + 1) and alone
    return alone


def _encode_fast(obj: Any, out: list[Any], depth: int) -> bool:
    """Append the encoding of ``obj`` to ``out``, as :func:`_encode_into` would.

    Returns whether the fast path wrote every byte itself (nothing went through
    :func:`_encode_into`, which may read a type's name from its module path): only
    such a FrozenMapping's encoding is kept.
    """
    kind = type(obj)
    if kind is float:
        out.append(_TAG_FLOAT + _float_payload(obj))
    elif kind is str:
        out.append(_TAG_STR + _key_chunk(obj)[1])
    elif kind is int:
        out.append(_int_encoding(obj))
    elif depth > _FAST_DEPTH:
        _encode_into(obj, out, path="$", active=set())
        return False
    elif kind is FrozenMapping:
        # Deeply immutable, so its encoding never changes: a small one (a spec, a
        # mount, a noise record that every sample of a sensor shares) is kept, with
        # the object itself so that its id is not reused while kept.
        # A mapping is kept the second time it is met: most are met once (a sample's
        # own metadata, a decoded record), and those cost one entry in _FROZEN_SEEN.
        key = id(obj)
        kept = _FROZEN_ENCODINGS.get(key)
        if kept is not None and kept[0] is obj:
            out.append(kept[1])
            return True
        start = len(out)
        if not _encode_fast_mapping(obj._items.items(), out, depth):
            return False
        piece = out[start:]
        if len(piece) > _FROZEN_PARTS or sum(map(len, piece)) > _FROZEN_BYTES:
            return True  # too large to keep: never remembered either
        if _FROZEN_SEEN.get(key) is not obj:
            if len(_FROZEN_SEEN) >= _FROZEN_LIMIT:
                _FROZEN_SEEN.clear()
            _FROZEN_SEEN[key] = obj
            return True
        encoded = b"".join(piece)
        del out[start:]
        out.append(encoded)
        if len(_FROZEN_ENCODINGS) >= _FROZEN_LIMIT:
            _FROZEN_ENCODINGS.clear()
        _FROZEN_ENCODINGS[key] = (obj, encoded)
    elif kind is dict:
        return _encode_fast_mapping(obj.items(), out, depth)
    elif kind is list or kind is tuple:
        out.append(_TAG_SEQUENCE + _U64.pack(len(obj)))
        alone = True
        for item in obj:
            if type(item) is float:
                out.append(_TAG_FLOAT + _float_payload(item))
            else:
                alone = _encode_fast(item, out, depth + 1) and alone
        return alone
    elif obj is None:
        out.append(_TAG_NONE)
    elif kind is bool:
        out.append(_BOOL_CHUNKS[obj])
    elif kind is np.ndarray:
        if obj.dtype.str == "<f8" and obj.size <= _SMALL_ARRAY and not _needs_canonicalizing(obj):
            # Canonical already: its C-order bytes are the payload, as _encode_array writes.
            out.append(
                _F8_ARRAY_PREFIX
                + _U64.pack(obj.ndim)
                + b"".join(_U64.pack(dim) for dim in obj.shape)
                + _U64.pack(obj.size * 8)
                + obj.tobytes()
            )
        else:
            _encode_array(obj, out, path="$")
    elif getattr(kind, "__content__", None) is not None:
        content = obj.__content__()
        if content is obj:
            raise TypeError("__content__() returned the object itself")
        out.append(_hook_prefix(kind))
        return _encode_fast(content, out, depth + 1) and TYPE_TAG_ATTRIBUTE in kind.__dict__
    else:
        _encode_into(obj, out, path="$", active=set())
        return False
    return True


def _encode_body(obj: Any) -> bytes:
    """Encode ``obj`` without the domain prefix."""
    return b"".join(_encode_parts(obj))


def _encode_into(obj: Any, out: list[bytes], *, path: str, active: set[int]) -> None:
    """Append the encoding of ``obj`` to ``out``.

    ``path`` locates ``obj`` inside the top-level value for error messages; ``active``
    holds the ``id()`` of the containers being encoded, only to detect reference cycles
    (ids never enter the bytes).
    """
    kind = type(obj)
    # Exact builtin and container types first (none has a __content__ hook, so the
    # dispatch order below gives them the same encoding): a product is mostly these.
    if kind is float:
        out.append(_TAG_FLOAT + _float_payload(obj))
        return
    if kind is str:
        out.append(_TAG_STR + _str_payload(obj, path=path))
        return
    if kind is int:
        out.append(_int_encoding(obj))
        return
    if kind is dict or kind is FrozenMapping:
        _encode_mapping_entered(obj, out, path=path, active=active)
        return
    if kind is list or kind is tuple:
        _encode_sequence(obj, out, path=path, active=active)
        return

    if obj is None:
        out.append(_TAG_NONE)
        return

    hook = getattr(type(obj), "__content__", None)
    if hook is not None:
        with _entered(obj, path, active):
            content = obj.__content__()
            if content is obj:
                raise TypeError(
                    f"{path}: {_type_name(type(obj))}.__content__() returned the object "
                    "itself; it must return a plain encodable value such as a dict of "
                    "the object's scientific fields"
                )
            out.append(_TAG_CONTENT_HOOK)
            out.append(_str_payload(_pinned_type_name(type(obj), path=path), path=path))
            _encode_into(content, out, path=_Path(path, ".__content__()"), active=active)
        return

    if isinstance(obj, enum.Enum):
        out.append(_TAG_ENUM)
        out.append(_str_payload(_pinned_type_name(type(obj), path=path), path=path))
        _encode_into(obj.value, out, path=_Path(path, ".value"), active=active)
        return

    if isinstance(obj, np.generic):
        _encode_into(_numpy_scalar_to_python(obj, path=path), out, path=path, active=active)
        return

    if isinstance(obj, bool):
        out.append(_TAG_BOOL)
        out.append(b"\x01" if obj else b"\x00")
        return

    if isinstance(obj, int):
        out.append(_int_encoding(obj))
        return

    if isinstance(obj, float):
        out.append(_TAG_FLOAT)
        out.append(_float_payload(obj))
        return

    if isinstance(obj, complex):
        out.append(_TAG_COMPLEX)
        out.append(_float_payload(obj.real))
        out.append(_float_payload(obj.imag))
        return

    if isinstance(obj, str):
        out.append(_TAG_STR)
        out.append(_str_payload(obj, path=path))
        return

    if isinstance(obj, bytes | bytearray):
        out.append(_TAG_BYTES)
        out.append(_U64.pack(len(obj)))
        out.append(bytes(obj))
        return

    if isinstance(obj, Fraction):
        out.append(_TAG_FRACTION)
        out.append(_str_payload(f"{obj.numerator}/{obj.denominator}", path=path))
        return

    if isinstance(obj, Decimal):
        if obj.is_nan():
            text = "NaN"
        elif obj.is_zero():
            text = str(obj.copy_abs())
        else:
            text = str(obj)
        out.append(_TAG_DECIMAL)
        out.append(_str_payload(text, path=path))
        return

    if isinstance(obj, np.ndarray):
        _encode_array(obj, out, path=path)
        return

    if isinstance(obj, list | tuple):
        _encode_sequence(obj, out, path=path, active=active)
        return

    if isinstance(obj, Mapping):
        _encode_mapping_entered(obj, out, path=path, active=active)
        return

    if isinstance(obj, set | frozenset):
        with _entered(obj, path, active):
            encoded = []
            for element in obj:
                parts: list[bytes] = []
                _encode_into(element, parts, path=_Path(path, "{element}"), active=active)
                encoded.append(b"".join(parts))
            encoded.sort()
            out.append(_TAG_SET)
            out.append(_U64.pack(len(encoded)))
            out.extend(encoded)
        return

    if isinstance(obj, pydantic.BaseModel):
        with _entered(obj, path, active):
            out.append(_TAG_PYDANTIC)
            out.append(_str_payload(_pinned_type_name(type(obj), path=path), path=path))
            _encode_into(obj.model_dump(mode="python"), out, path=path, active=active)
        return

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        with _entered(obj, path, active):
            out.append(_TAG_DATACLASS)
            out.append(_str_payload(_pinned_type_name(type(obj), path=path), path=path))
            fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
            _encode_mapping(fields, out, path=path, active=active)
        return

    raise TypeError(
        f"{path}: cannot encode a value of type {_type_name(type(obj))} for content "
        "identity; supported are None, bool, int, float, complex, str, bytes, list, "
        "tuple, str-keyed dict, set, numpy arrays and scalars, Fraction, Decimal, Enum, "
        "dataclasses and pydantic models. To make this type hashable, implement "
        "`__content__(self)` returning an encodable value (e.g. a dict of its "
        "scientific fields)"
    )


def _int_encoding(value: int) -> bytes:
    """Tag 0x02: sign byte, ``u64(n)`` and the ``n`` little-endian bytes of ``abs(value)``."""
    magnitude = abs(value)
    payload = magnitude.to_bytes((magnitude.bit_length() + 7) // 8, "little")
    return _TAG_INT + (b"\x01" if value < 0 else b"\x00") + _U64.pack(len(payload)) + payload


def _encode_sequence(obj: Any, out: list[bytes], *, path: Any, active: set[int]) -> None:
    """Append a tag-0x07 list/tuple; float items are written in place, without a call each."""
    key = id(obj)
    if key in active:
        _entered(obj, path, active).__enter__()  # raises the cycle error
    active.add(key)
    try:
        out.append(_TAG_SEQUENCE + _U64.pack(len(obj)))
        for i, item in enumerate(obj):
            if type(item) is float:
                out.append(_TAG_FLOAT + _float_payload(item))
            else:
                _encode_into(item, out, path=_Path(path, i, _INDEX), active=active)
    finally:
        active.discard(key)


def _encode_mapping_entered(
    obj: Mapping[Any, Any], out: list[bytes], *, path: Any, active: set[int]
) -> None:
    """:func:`_encode_mapping` with the reference-cycle check around it."""
    key = id(obj)
    if key in active:
        _entered(obj, path, active).__enter__()  # raises the cycle error
    active.add(key)
    try:
        _encode_mapping(obj, out, path=path, active=active)
    finally:
        active.discard(key)


_KEY = 0
_INDEX = 1


class _Path:
    """Where a value sits in the top-level value, rendered only for an error message.

    ``str()`` gives the same text as the f-strings it replaces (``$['a'][0].value``);
    building the text eagerly for every value cost more than encoding it.
    """

    __slots__ = ("_form", "_parent", "_step")

    def __init__(self, parent: Any, step: Any, form: int | None = None) -> None:
        self._parent = parent
        self._step = step
        self._form = form

    def __str__(self) -> str:
        pieces = []
        node: Any = self
        while type(node) is _Path:
            if node._form == _KEY:
                pieces.append(f"[{node._step!r}]")
            elif node._form == _INDEX:
                pieces.append(f"[{node._step}]")
            else:
                pieces.append(node._step)
            node = node._parent
        return str(node) + "".join(reversed(pieces))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class _entered:
    """Context manager marking a container as being encoded, to detect cycles."""

    def __init__(self, obj: Any, path: str, active: set[int]) -> None:
        self._key = id(obj)
        self._path = path
        self._active = active

    def __enter__(self) -> None:
        if self._key in self._active:
            raise ValueError(
                f"{self._path}: the value contains a reference cycle; content identity "
                "needs a finite tree of values"
            )
        self._active.add(self._key)

    def __exit__(self, *exc_info: object) -> None:
        self._active.discard(self._key)


def _encode_mapping(
    obj: Mapping[Any, Any], out: list[bytes], *, path: str, active: set[int]
) -> None:
    """Append a tag-0x08 mapping: entries sorted by the keys' UTF-8 bytes."""
    entries = []
    # A FrozenMapping's own entries: its public items() makes a fresh view per array.
    items = obj._items.items() if type(obj) is FrozenMapping else obj.items()
    for key, value in items:
        if not isinstance(key, str):
            raise TypeError(
                f"{path}: mapping key {key!r} has type {_type_name(type(key))}; content "
                "identity requires str keys, so convert the key to a string"
            )
        try:
            key_bytes = key.encode("utf-8")
        except UnicodeEncodeError:
            key_bytes = _utf8(key, path=_Path(path, key, _KEY))  # raises, naming the key
        entries.append((key_bytes, key, value))
    entries.sort(key=lambda entry: entry[0])
    out.append(_TAG_MAPPING + _U64.pack(len(entries)))
    for key_bytes, key, value in entries:
        out.append(_U64.pack(len(key_bytes)) + key_bytes)
        if type(value) is float:
            out.append(_TAG_FLOAT + _float_payload(value))
        else:
            _encode_into(value, out, path=_Path(path, key, _KEY), active=active)


def _encode_array(a: np.ndarray, out: list[bytes], *, path: str) -> None:
    """Append a tag-0x0A array: little-endian dtype, shape, canonical C-order bytes."""
    kind = a.dtype.kind
    if kind not in _ARRAY_KINDS:
        raise TypeError(
            f"{path}: numpy array of dtype {a.dtype.str!r} (kind {kind!r}) has no "
            "canonical encoding; supported are bool, integer, float16/32/64, complex and "
            "fixed-width U/S string arrays. Convert object arrays element by element "
            "into lists or a supported dtype"
        )
    little = a.dtype.newbyteorder("<")
    # astype into the explicit little-endian dtype byte-swaps big-endian input, and the
    # C-order copy makes strided views hash like their contiguous equivalents.
    data = np.ascontiguousarray(np.asarray(a, dtype=little))
    if kind in "fc":
        part_size = data.dtype.itemsize // (2 if kind == "c" else 1)
        # Extended precision goes through canonicalize_floats, which refuses it.
        if part_size not in _QUIET_NAN_BITS_BY_ITEMSIZE or _needs_canonicalizing(data):
            data = canonicalize_floats(data)
    elif kind == "b":
        data = (data.view(np.uint8) != 0).astype(np.uint8)
    # A read-only view of the contiguous buffer: no copy of large arrays.
    payload = memoryview(data).cast("B") if data.size else b""
    out.append(_TAG_NDARRAY)
    out.append(_str_payload(little.str, path=path))
    out.append(_U64.pack(a.ndim))
    out.extend(_U64.pack(dim) for dim in a.shape)
    out.append(_U64.pack(len(payload)))
    out.append(payload)


def _needs_canonicalizing(data: np.ndarray) -> bool:
    """Whether a float/complex array holds a NaN other than the quiet NaN, or a negative zero.

    An array whose NaNs all have the one canonical bit pattern already is canonical
    (a sonar frame's empty cells, written so by its kernels): it is hashed from its
    own buffer, without a canonical copy.
    """
    if data.dtype.kind == "f" and data.size <= _SMALL_ARRAY:
        # Python floats keep the sign of zero and NaN; cheaper than numpy on a few elements.
        return any(
            v != v or (v == 0.0 and math.copysign(1.0, v) < 0.0) for v in data.ravel().tolist()
        )
    parts = (data.real, data.imag) if data.dtype.kind == "c" else (data,)
    for part in parts:
        flat = part.reshape(-1)
        # -0.0 has exactly one bit pattern, the sign bit alone: one integer comparison.
        itemsize = flat.dtype.itemsize
        bits = flat.view(np.dtype(f"u{itemsize}").newbyteorder(flat.dtype.byteorder))
        negative_zero = 1 << (8 * itemsize - 1)
        quiet = _QUIET_NAN_BITS_BY_ITEMSIZE[itemsize]
        # Block by block, so the boolean temporaries stay in cache on large arrays.
        for start in range(0, flat.size, _CHECK_BLOCK):
            stop = start + _CHECK_BLOCK
            block = bits[start:stop]
            if (block == negative_zero).any():
                return True
            # Every element with the quiet pattern is a NaN: the NaNs are all quiet
            # exactly when the two counts agree (no gather of the NaNs needed).
            nans = np.count_nonzero(np.isnan(flat[start:stop]))
            if nans and nans != np.count_nonzero(block == quiet):
                return True
    return False


def _numpy_scalar_to_python(x: np.generic, *, path: str) -> Any:
    """Return the Python value a NumPy scalar is encoded as."""
    kind = x.dtype.kind
    if kind not in _ARRAY_KINDS:
        raise TypeError(
            f"{path}: numpy scalar of type {_type_name(type(x))} (dtype {x.dtype.str!r}) "
            "has no canonical encoding; convert it to a Python bool, int, float, complex "
            "or str first"
        )
    if (kind == "f" and x.dtype.itemsize > 8) or (kind == "c" and x.dtype.itemsize > 16):
        raise TypeError(
            f"{path}: numpy scalar of dtype {x.dtype.str!r} is extended precision, which is "
            "platform-dependent; convert it to float64 first"
        )
    return x.item()


def _float_payload(value: float) -> bytes:
    """Return the 8 canonical little-endian bytes of a binary64 value."""
    if value != value:
        return _U64.pack(QUIET_NAN_BITS)
    if value == 0.0:
        return _F64.pack(0.0)
    return _F64.pack(value)


def _utf8(text: str, *, path: str) -> bytes:
    """Encode ``text`` as UTF-8, naming the location when it is not valid Unicode."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{path}: string {text!r} cannot be encoded as UTF-8 ({error.reason}); "
            "content identity needs valid Unicode text"
        ) from None


def _str_payload(text: str, *, path: str) -> bytes:
    """Return ``u64(len) + utf8`` for ``text``."""
    encoded = _utf8(text, path=path)
    return _U64.pack(len(encoded)) + encoded


def _type_name(cls: type) -> str:
    """Return the fully qualified name of ``cls`` where it lives now (for messages)."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _pinned_type_name(cls: type, *, path: str) -> str:
    """Return ``tag(cls)``, the type name that enters the encoding (see *Type tags*)."""
    # Read the class's own namespace, not getattr: a subclass is a different type and
    # must not inherit its parent's identity.
    tag = cls.__dict__.get(TYPE_TAG_ATTRIBUTE)
    if tag is not None:
        if not isinstance(tag, str) or not tag:
            raise TypeError(
                f"{path}: {_type_name(cls)}.{TYPE_TAG_ATTRIBUTE} is {tag!r}; a pinned type "
                "tag must be a non-empty str, e.g. the class's module path when the tag "
                "was introduced"
            )
        return tag
    module = cls.__module__
    if module == _PACKAGE or module.startswith(_PACKAGE + "."):
        raise TypeError(
            f"{path}: {_type_name(cls)} is a LEVIATHAN type hashed by its type name but "
            f"has no pinned type tag of its own ({TYPE_TAG_ATTRIBUTE} is not set on the "
            "class itself; a parent's tag is not inherited). Add the line "
            f'`{TYPE_TAG_ATTRIBUTE} = "{_type_name(cls)}"` right after the class '
            "docstring and list the class in tests/test_identity_tags.py"
        )
    return _type_name(cls)
