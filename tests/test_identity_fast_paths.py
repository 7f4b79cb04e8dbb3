"""The encoder's fast paths write the bytes the specification prescribes.

``leviathan.identity`` dispatches exact builtin types and frozen mappings before its
general rules, writes float items of a sequence in place, checks small float arrays on
Python floats and large ones block by block, and joins short parts before hashing. A
plain encoder written here from the module docstring (for the types products are made
of) is compared with it on seeded random values, and the error paths are checked to
name the same locations as before.
"""

from __future__ import annotations

import hashlib
import math
import struct
from typing import Any

import numpy as np
import pytest

from leviathan._frozen import freeze
from leviathan.identity import CONTENT_DOMAIN, canonical_encode, canonicalize_floats, content_hash


def _u64(n: int) -> bytes:
    return struct.pack("<Q", n)


def _text(text: str) -> bytes:
    data = text.encode("utf-8")
    return _u64(len(data)) + data


def _plain(value: Any) -> bytes:
    """enc(value) for None, bool, int, float, str, lists, tuples, str-keyed mappings, arrays."""
    if value is None:
        return b"\x00"
    if isinstance(value, bool):
        return b"\x01" + (b"\x01" if value else b"\x00")
    if isinstance(value, int):
        magnitude = abs(value).to_bytes((abs(value).bit_length() + 7) // 8, "little")
        return b"\x02" + (b"\x01" if value < 0 else b"\x00") + _u64(len(magnitude)) + magnitude
    if isinstance(value, float):
        if math.isnan(value):
            return b"\x03" + _u64(0x7FF8000000000000)
        return b"\x03" + struct.pack("<d", 0.0 if value == 0.0 else value)
    if isinstance(value, str):
        return b"\x05" + _text(value)
    if isinstance(value, list | tuple):
        return b"\x07" + _u64(len(value)) + b"".join(_plain(v) for v in value)
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
        if data.dtype.kind == "f":
            data = np.where(np.isnan(data), np.nan, data + 0.0).astype(data.dtype)
        header = _text(data.dtype.str) + _u64(data.ndim) + b"".join(_u64(d) for d in data.shape)
        return b"\x0a" + header + _u64(data.nbytes) + data.tobytes()
    entries = sorted((k.encode("utf-8"), v) for k, v in value.items())
    body = b"".join(_u64(len(k)) + k + _plain(v) for k, v in entries)
    return b"\x08" + _u64(len(entries)) + body


def _random_value(rng: np.random.Generator, depth: int = 0) -> Any:
    choice = int(rng.integers(0, 10 if depth < 3 else 6))
    if choice == 0:
        return float(rng.choice([0.0, -0.0, math.nan, math.inf, -1.5, 1e-300]))
    if choice == 1:
        return float(rng.standard_normal())
    if choice == 2:
        return int(rng.integers(-(2**62), 2**62)) * int(rng.integers(1, 4))
    if choice == 3:
        return str(rng.choice(["", "a", "ü", "survey/imu", "x" * 50]))
    if choice == 4:
        return [None, True, False][int(rng.integers(0, 3))]
    if choice == 5:
        size = int(rng.integers(0, 700))
        values = rng.standard_normal(size)
        values[rng.random(size) < 0.05] = -0.0
        values[rng.random(size) < 0.05] = np.nan
        return values.astype(rng.choice([np.float64, np.float32]))
    if choice in (6, 7):
        items = [_random_value(rng, depth + 1) for _ in range(int(rng.integers(0, 6)))]
        return items if choice == 6 else tuple(items)
    return {f"k{int(rng.integers(0, 99))}": _random_value(rng, depth + 1) for _ in range(4)}


def test_encoding_equals_the_plain_encoder_on_random_values() -> None:
    rng = np.random.default_rng(20261201)
    for _ in range(400):
        value = _random_value(rng)
        expected = CONTENT_DOMAIN + _plain(value)
        assert canonical_encode(value) == expected
        assert canonical_encode(freeze(value)) == expected
        assert content_hash(value) == hashlib.sha256(expected).hexdigest()


@pytest.mark.parametrize("position", [0, 1, (1 << 15) - 1, 1 << 15, 3 * (1 << 15) + 17])
@pytest.mark.parametrize("special", [-0.0, math.nan, -math.nan])
def test_a_large_array_is_canonicalised_wherever_its_special_value_sits(
    position: int, special: float
) -> None:
    values = np.linspace(1.0, 2.0, 4 * (1 << 15))
    values[position] = special
    clean = canonicalize_floats(values)
    assert content_hash(values) == content_hash(clean)
    assert canonical_encode(values) == CONTENT_DOMAIN + _plain(values)


def test_float16_and_complex_arrays_with_negative_zero_hash_like_positive_zero() -> None:
    half = np.array([1.0, -0.0] * 100, dtype=np.float16)
    assert content_hash(half) == content_hash(np.abs(half))
    parts = np.array([complex(1.0, -0.0), complex(-0.0, 2.0)] * 50)
    assert content_hash(parts) == content_hash(np.array([complex(1.0, 0.0), 2j] * 50))


def test_hash_of_large_and_small_parts_equals_hash_of_the_encoding() -> None:
    value = {"a": np.arange(5000.0), "b": [1.0, "x", 2], "c": np.ones(3)}
    assert content_hash(value) == hashlib.sha256(canonical_encode(value)).hexdigest()


def test_errors_still_name_the_location() -> None:
    with pytest.raises(TypeError, match=r"^\$\['a'\]\[1\]\['b'\]: cannot encode"):
        canonical_encode({"a": [1.0, {"b": object()}]})
    dates = np.array(["2026-12-01"], dtype="datetime64[D]")
    with pytest.raises(TypeError, match=r"^\$\[0\]\['k'\]\[2\]: numpy array of dtype"):
        canonical_encode((freeze({"k": [1.0, 2.0, dates]}),))
    with pytest.raises(ValueError, match=r"^\$\['s'\]: string .* cannot be encoded as UTF-8"):
        canonical_encode({"s": "\ud800"})
    looped: list[Any] = [1.0]
    looped.append({"again": looped})
    with pytest.raises(ValueError, match=r"^\$\[1\]\['again'\]: the value contains a reference"):
        canonical_encode(looped)
