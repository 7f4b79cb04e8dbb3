"""Tests for leviathan.identity: the canonical encoding and the hashes built on it."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import os
import struct
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pydantic
import pytest
from reference_impls import reference_canonical_encode

from leviathan import identity
from leviathan._frozen import freeze
from leviathan.identity import (
    CONTENT_DOMAIN,
    DISPLAY_DOMAIN,
    QUIET_NAN_BITS,
    canonical_encode,
    canonicalize_floats,
    content_hash,
    display_hash,
)


def _u64(n: int) -> bytes:
    return struct.pack("<Q", n)


def _str(text: str) -> bytes:
    raw = text.encode("utf-8")
    return _u64(len(raw)) + raw


def _float64_from_bits(bits: int) -> np.float64:
    return np.array([bits], dtype=np.uint64).view(np.float64)[0]


class Beam(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")
    bearing_rad: float
    gains: tuple[float, ...]


class OtherBeam(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")
    bearing_rad: float
    gains: tuple[float, ...]


class Swath(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")
    beams: list[Beam]


@dataclasses.dataclass(frozen=True)
class Mount:
    name: str
    offset_m: tuple[float, float, float]


class Mode(enum.Enum):
    SURVEY = "survey"
    DOCKING = "docking"


class Transform:
    """A library-style type that defines its identity through ``__content__``."""

    def __init__(self, translation_m: list[float], *, cache: object = None) -> None:
        self.translation_m = np.asarray(translation_m, dtype=np.float64)
        self.cache = cache  # Not scientific content; must not affect the identity.

    def __content__(self) -> dict[str, object]:
        return {"translation_m": self.translation_m}


class Opaque:
    pass


# --- Known answers built by hand from the documented specification -----------------


def test_known_answer_mapping_of_scalars() -> None:
    value = {"b": [True, -0.0, "é"], "a": None, "n": -300}
    expected = (
        CONTENT_DOMAIN
        + b"\x08"
        + _u64(3)
        + _str("a")
        + b"\x00"
        + _str("b")
        + b"\x07"
        + _u64(3)
        + b"\x01\x01"
        + b"\x03"
        + struct.pack("<d", 0.0)
        + b"\x05"
        + _str("é")
        + _str("n")
        + b"\x02\x01"
        + _u64(2)
        + bytes([0x2C, 0x01])
    )
    assert canonical_encode(value) == expected
    assert content_hash(value) == hashlib.sha256(expected).hexdigest()


def test_known_answer_big_endian_array_with_nan() -> None:
    value = np.array([[1.5, np.nan]], dtype=">f8")
    expected = (
        CONTENT_DOMAIN
        + b"\x0a"
        + _str("<f8")
        + _u64(2)
        + _u64(1)
        + _u64(2)
        + _u64(16)
        + struct.pack("<d", 1.5)
        + struct.pack("<Q", QUIET_NAN_BITS)
    )
    assert content_hash(value) == hashlib.sha256(expected).hexdigest()


def test_known_answer_zero_int_and_fraction() -> None:
    value = (0, Fraction(-6, 4))
    expected = CONTENT_DOMAIN + b"\x07" + _u64(2) + b"\x02\x00" + _u64(0) + b"\x0b" + _str("-3/2")
    assert canonical_encode(value) == expected


# --- Float canonicalisation -------------------------------------------------------


def test_negative_zero_hashes_like_zero() -> None:
    assert content_hash(-0.0) == content_hash(0.0)


def test_negative_zero_array_hashes_like_zero_array() -> None:
    assert content_hash(np.array([-0.0, 1.0])) == content_hash(np.array([0.0, 1.0]))


def test_nan_payloads_hash_equal() -> None:
    signalling = _float64_from_bits(0x7FF0000000000001)
    negative_quiet = _float64_from_bits(0xFFF8000000000000)
    assert np.isnan(signalling) and np.isnan(negative_quiet)
    assert content_hash(signalling) == content_hash(negative_quiet) == content_hash(np.nan)


def test_nan_payloads_in_arrays_hash_equal() -> None:
    bits = np.array([0x7FF0000000000001, 0xFFF8000000000000, 0x7FF8DEADBEEF0000], np.uint64)
    assert content_hash(bits.view(np.float64)) == content_hash(np.full(3, np.nan))


def test_canonicalize_floats_sets_exact_bit_patterns() -> None:
    bits = np.array([0x7FF0000000000001, 0x8000000000000000, 0x3FF0000000000000], np.uint64)
    out = canonicalize_floats(bits.view(np.float64))
    assert out.dtype == np.float64 and out.shape == (3,)
    np.testing.assert_array_equal(
        out.view(np.uint64), np.array([QUIET_NAN_BITS, 0, 0x3FF0000000000000], np.uint64)
    )


def test_canonicalize_floats_float32_uses_float32_quiet_nan() -> None:
    bits = np.array([0xFFC00001, 0x80000000], dtype=np.uint32)
    out = canonicalize_floats(bits.view(np.float32))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.view(np.uint32), np.array([0x7FC00000, 0], np.uint32))


def test_canonicalize_floats_complex_parts() -> None:
    value = np.array([complex(-0.0, np.nan)], dtype=np.complex128)
    out = canonicalize_floats(value)
    assert out.dtype == np.complex128
    np.testing.assert_array_equal(out.view(np.uint64), np.array([0, QUIET_NAN_BITS], np.uint64))


def test_canonicalize_floats_leaves_input_untouched() -> None:
    value = np.array([-0.0, np.nan])
    before = value.view(np.uint64).copy()
    result = canonicalize_floats(value)
    assert result is not value
    np.testing.assert_array_equal(value.view(np.uint64), before)


def test_canonicalize_floats_refuses_non_array() -> None:
    with pytest.raises(TypeError, match=r"a must be a numpy.ndarray, got builtins.list"):
        canonicalize_floats([1.0])  # type: ignore[arg-type]


# --- Order independence -------------------------------------------------------------


def test_dict_insertion_order_is_irrelevant() -> None:
    assert content_hash({"x": 1, "y": [2, 3], "z": None}) == content_hash(
        {"z": None, "y": [2, 3], "x": 1}
    )


def test_set_iteration_order_is_irrelevant() -> None:
    rng = np.random.default_rng(7)
    words = [f"cell-{i}" for i in range(50)]
    shuffled = [words[i] for i in rng.permutation(len(words))]
    assert content_hash(set(words)) == content_hash(frozenset(shuffled))


# --- What changes the identity ----------------------------------------------------


def test_array_dtype_changes_hash() -> None:
    values = [[0.5, 1.0, 2.0], [4.0, 8.0, 16.0]]
    assert content_hash(np.array(values, np.float32)) != content_hash(np.array(values, np.float64))


def test_array_shape_changes_hash() -> None:
    data = np.arange(6, dtype=np.float64)
    assert content_hash(data.reshape(2, 3)) != content_hash(data.reshape(3, 2))


def test_bool_int_and_float_are_distinct() -> None:
    assert len({content_hash(True), content_hash(1), content_hash(1.0)}) == 3


def test_distinct_classes_with_same_fields_differ() -> None:
    assert content_hash(Beam(bearing_rad=0.1, gains=(1.0,))) != content_hash(
        OtherBeam(bearing_rad=0.1, gains=(1.0,))
    )


# --- What does not change it ------------------------------------------------------


def test_big_endian_array_equals_little_endian_array() -> None:
    values = np.linspace(-3.0, 3.0, 12).reshape(3, 4)
    assert content_hash(values.astype(">f8")) == content_hash(values.astype("<f8"))


def test_non_contiguous_view_hashes_as_c_order_copy() -> None:
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    view = base[::2, 1::3].T
    assert not view.flags.c_contiguous
    assert content_hash(view) == content_hash(np.ascontiguousarray(view))


def test_fortran_order_array_hashes_as_c_order_copy() -> None:
    values = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert content_hash(np.asfortranarray(values)) == content_hash(values)


def test_list_and_tuple_share_encoding() -> None:
    assert canonical_encode([1, "a", 2.5]) == canonical_encode((1, "a", 2.5))


def test_numpy_scalar_encodes_as_python_value() -> None:
    assert canonical_encode([np.float32(0.5), np.int64(-3), np.bool_(True)]) == canonical_encode(
        [0.5, -3, True]
    )


# --- Structured types ---------------------------------------------------------------


def test_pydantic_model_hashes_by_class_and_fields() -> None:
    swath = Swath(beams=[Beam(bearing_rad=0.1, gains=(1.0, 2.0))])
    dumped = swath.model_dump(mode="python")
    expected = (
        CONTENT_DOMAIN
        + b"\x0f"
        + _str(f"{Swath.__module__}.Swath")
        + canonical_encode(dumped)[len(CONTENT_DOMAIN) :]
    )
    assert canonical_encode(swath) == expected


def test_pydantic_model_field_change_changes_hash() -> None:
    a = Swath(beams=[Beam(bearing_rad=0.1, gains=(1.0, 2.0))])
    b = Swath(beams=[Beam(bearing_rad=0.1, gains=(1.0, 2.5))])
    assert content_hash(a) != content_hash(b)


def test_dataclass_hashes_by_class_and_fields() -> None:
    mount = Mount(name="sonar", offset_m=(1.0, 0.0, 0.2))
    expected = (
        CONTENT_DOMAIN
        + b"\x0e"
        + _str(f"{Mount.__module__}.Mount")
        + canonical_encode({"name": "sonar", "offset_m": [1.0, 0.0, 0.2]})[len(CONTENT_DOMAIN) :]
    )
    assert canonical_encode(mount) == expected


def test_enum_hashes_by_class_and_value() -> None:
    expected = CONTENT_DOMAIN + b"\x0d" + _str(f"{Mode.__module__}.Mode") + b"\x05" + _str("survey")
    assert canonical_encode(Mode.SURVEY) == expected


def test_content_hook_defines_identity() -> None:
    a = Transform([1.0, 2.0, -0.0], cache=object())
    b = Transform([1.0, 2.0, 0.0], cache="something else")
    assert content_hash(a) == content_hash(b)
    assert content_hash(a) != content_hash(Transform([1.0, 2.0, 3.0]))


def test_content_hook_encoding_carries_class_name() -> None:
    t = Transform([1.0, 2.0, 3.0])
    expected = (
        CONTENT_DOMAIN
        + b"\x10"
        + _str(f"{Transform.__module__}.Transform")
        + canonical_encode({"translation_m": t.translation_m})[len(CONTENT_DOMAIN) :]
    )
    assert canonical_encode(t) == expected


def test_decimal_precision_counts_and_negative_zero_does_not() -> None:
    assert content_hash(Decimal("1.0")) != content_hash(Decimal("1.00"))
    assert content_hash(Decimal("-0.0")) == content_hash(Decimal("0.0"))


# --- Errors ---------------------------------------------------------------------------


def test_non_str_key_raises_naming_it() -> None:
    with pytest.raises(TypeError, match=r"\$\['outer'\]: mapping key 3 has type builtins.int"):
        canonical_encode({"outer": {3: "x"}})


def test_unsupported_type_names_type_and_hook() -> None:
    with pytest.raises(TypeError, match=r"Opaque.*implement `__content__\(self\)`"):
        content_hash([Opaque()])


def test_object_array_refused() -> None:
    with pytest.raises(TypeError, match=r"dtype '\|O'"):
        content_hash(np.array([1, "a"], dtype=object))


def test_longdouble_array_refused() -> None:
    if np.dtype(np.longdouble).itemsize == 8:
        pytest.skip("longdouble is float64 on this platform")
    with pytest.raises(TypeError, match=r"convert it to float64"):
        content_hash(np.zeros(2, dtype=np.longdouble))


def test_reference_cycle_refused() -> None:
    loop: list[object] = [1]
    loop.append(loop)
    with pytest.raises(ValueError, match=r"\$\[1\]: the value contains a reference cycle"):
        content_hash(loop)


# --- Display products -----------------------------------------------------------------


def test_display_hash_differs_from_content_hash() -> None:
    png = b"\x89PNG\r\n\x1a\n fake preview"
    assert display_hash(png) != content_hash(png)


def test_display_hash_uses_display_domain() -> None:
    png = b"\x89PNG"
    expected = DISPLAY_DOMAIN + b"\x06" + _u64(4) + png
    assert display_hash(png) == hashlib.sha256(expected).hexdigest()


# --- Across processes and hash seeds ---------------------------------------------------


def _probe_words() -> set[str]:
    """A set of strings whose iteration order depends on the hash seed."""
    return {f"beam-{i}" for i in range(32)}


def _probe_object() -> dict[str, object]:
    """A value whose construction order depends on ``PYTHONHASHSEED``."""
    words = _probe_words()
    # Insertion order follows set iteration order, so it changes with the hash seed.
    gains = {word: len(word) * 0.25 for word in words}
    return {
        "gains": gains,
        "tags": frozenset(words),
        "ranges_m": np.linspace(0.5, 30.0, 7),
        "missing": float("nan"),
    }


def _run_probe(hash_seed: str) -> dict[str, object]:
    """The probe's hash and set order in another process (this file as the worker)."""
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker"],
        env=dict(os.environ, PYTHONHASHSEED=hash_seed),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(completed.stdout)


@pytest.mark.parametrize("hash_seed", ["0", "1", "12345"])
def test_hash_is_identical_in_subprocess_under_hash_seed(hash_seed: str) -> None:
    in_process = content_hash(_probe_object())
    assert _run_probe(hash_seed)["hash"] == in_process


def test_probe_set_order_really_varies_with_hash_seed() -> None:
    orders = {tuple(_run_probe(seed)["order"]) for seed in ("0", "1", "12345")}
    assert len(orders) > 1


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    print(json.dumps({"hash": content_hash(_probe_object()), "order": list(_probe_words())}))


# --------------------------------------------------------------------------- fast paths
# The encoder dispatches exact builtin types and frozen mappings before its general
# rules, writes float items of a sequence in place, checks small float arrays on Python
# floats and large ones block by block, and joins short parts before hashing. The plain
# encoder written from the module docstring (reference_canonical_encode in
# tests/reference_impls.py) is compared with it on seeded random values, and the error
# paths are checked to name the same locations.


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


def test_encoding_equals_the_reference_encoder_on_random_values() -> None:
    rng = np.random.default_rng(20261201)
    for _ in range(400):
        value = _random_value(rng)
        expected = CONTENT_DOMAIN + reference_canonical_encode(value)
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
    assert canonical_encode(values) == CONTENT_DOMAIN + reference_canonical_encode(values)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex128])
@pytest.mark.parametrize("odd_bits", ["signalling", "payload", "negative"])
def test_one_odd_nan_among_canonical_ones_is_canonicalised(dtype: Any, odd_bits: str) -> None:
    # Arrays whose NaNs are all the quiet NaN are hashed from their own buffer; one NaN
    # of another bit pattern (a later block, beside thousands of quiet ones) still
    # makes the encoding canonicalise the copy.
    values = np.linspace(1.0, 2.0, 5 * (1 << 15)).astype(dtype)
    values[::3] = np.nan
    part = values.view(np.float64 if dtype == np.complex128 else dtype)
    size = part.dtype.itemsize
    bits = part.view(f"<u{size}")
    quiet = {2: 0x7E00, 4: 0x7FC00000, 8: QUIET_NAN_BITS}[size]
    odd = {
        "signalling": quiet ^ (1 << (8 * size - 13 if size == 8 else 8 * size - 10)) | 1,
        "payload": quiet | 5,
        "negative": quiet | (1 << (8 * size - 1)),
    }[odd_bits]
    assert np.isnan(np.array([odd], dtype=f"<u{size}").view(part.dtype))[0]
    assert not identity._needs_canonicalizing(values)  # quiet NaNs only: no copy needed
    bits[4 * (1 << 15) + 7] = odd
    assert identity._needs_canonicalizing(values)
    clean = canonicalize_floats(values)
    assert np.count_nonzero(clean.view(f"<u{size}") == odd) == 0
    assert canonical_encode(values) == canonical_encode(clean)
    if dtype != np.complex128:  # the reference encoder has no complex arrays
        assert canonical_encode(values) == CONTENT_DOMAIN + reference_canonical_encode(values)


def test_float16_and_complex_arrays_with_negative_zero_hash_like_positive_zero() -> None:
    half = np.array([1.0, -0.0] * 100, dtype=np.float16)
    assert content_hash(half) == content_hash(np.abs(half))
    parts = np.array([complex(1.0, -0.0), complex(-0.0, 2.0)] * 50)
    assert content_hash(parts) == content_hash(np.array([complex(1.0, 0.0), 2j] * 50))


def test_hash_of_large_and_small_parts_equals_hash_of_the_encoding() -> None:
    value = {"a": np.arange(5000.0), "b": [1.0, "x", 2], "c": np.ones(3)}
    assert content_hash(value) == hashlib.sha256(canonical_encode(value)).hexdigest()


def test_encoding_errors_name_the_location() -> None:
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


# The fast path (identity._encode_fast) writes the bytes first and hands anything else
# to the general encoder (identity._encode_into), which also encodes whatever the fast
# path refuses, naming the location of its error. The two are compared on seeded
# random values of every kind the encoder takes, nested in each other.


def _odd_float64(rng: np.random.Generator) -> np.ndarray:
    """A small float64 array with odd NaN payloads, -0.0, subnormals and infinities."""
    size = int(rng.integers(0, 70))
    values = rng.standard_normal(size)
    bits = values.view("<u8")
    for pattern in (0x7FF0000000000001, 0xFFF8000000000000, 0x8000000000000000, 1):
        bits[rng.random(size) < 0.05] = pattern
    values[rng.random(size) < 0.05] = np.inf
    if rng.random() < 0.3:
        values = values.astype(">f8")  # big-endian: the general path
    if rng.random() < 0.3 and size > 2:
        values = values[::2]  # not contiguous
    return values


def _any_value(rng: np.random.Generator, depth: int = 0) -> Any:
    leaves: list[Any] = [
        lambda: _random_value(rng, 3),
        lambda: _odd_float64(rng),
        lambda: np.float64(rng.standard_normal()),
        lambda: np.int32(rng.integers(-100, 100)),
        lambda: Mode.SURVEY,
        lambda: Fraction(int(rng.integers(1, 9)), 7),
        lambda: Decimal("-0.0"),
        lambda: b"\x00bytes",
        lambda: complex(1.0, -0.0),
        lambda: Mount("m", (1.0, -0.0, math.nan)),
        lambda: Beam(bearing_rad=0.5, gains=(1.0, 2.0)),
        lambda: frozenset({1.0, "a"}),
        lambda: "long text " * int(rng.integers(5, 12)),
        lambda: Transform([1.0, -0.0, 2.5]),
        lambda: np.arange(int(rng.integers(0, 80)), dtype=np.int64).reshape(-1, 1),
        lambda: np.array([True, False]),
    ]
    if depth >= 3 or rng.random() < 0.4:
        return leaves[int(rng.integers(0, len(leaves)))]()
    choice = int(rng.integers(0, 4))
    if choice == 0:
        return [_any_value(rng, depth + 1) for _ in range(int(rng.integers(0, 5)))]
    if choice == 1:
        return tuple(_any_value(rng, depth + 1) for _ in range(int(rng.integers(0, 5))))
    keys = ["a", "é", "z", "Z", "", "ü/ß", f"k{int(rng.integers(0, 9))}", "b" * 70]
    value = {str(rng.choice(keys)): _any_value(rng, depth + 1) for _ in range(4)}
    if choice == 2:
        try:
            return freeze(value)
        except TypeError:  # it holds a dataclass, a model or an object with a hook
            pass
    return value


def _general_encoding(value: Any) -> bytes:
    parts: list[Any] = []
    identity._encode_into(value, parts, path="$", active=set())
    return b"".join(bytes(part) for part in parts)


def test_the_fast_path_writes_what_the_general_encoder_writes() -> None:
    rng = np.random.default_rng(20261203)
    for _ in range(600):
        value = _any_value(rng)
        expected = _general_encoding(value)
        for _ in range(2):  # the second time, small frozen parts come from the kept ones
            fast: list[Any] = []
            identity._encode_fast(value, fast, 0)
            assert b"".join(bytes(part) for part in fast) == expected
        assert content_hash(value) == hashlib.sha256(CONTENT_DOMAIN + expected).hexdigest()


def test_the_fast_path_hands_deep_nesting_and_odd_types_to_the_general_encoder() -> None:
    deep: Any = 1.0
    for level in range(3 * identity._FAST_DEPTH):
        deep = [deep] if level % 2 else {"d": deep}
    assert canonical_encode(deep) == CONTENT_DOMAIN + _general_encoding(deep)

    class Key(str):
        pass

    class Table(dict):
        pass

    odd = {"t": Table({"b": 1.0, "a": 2}), Key("k"): [1.5, Key("v")]}
    assert canonical_encode(odd) == CONTENT_DOMAIN + _general_encoding(odd)
    assert canonical_encode({"a": 1.0, "b": 2}) == canonical_encode({"b": 2, "a": 1.0})


def test_the_key_cache_is_bounded_and_changes_nothing() -> None:
    keys = [f"key{i}" for i in range(identity._KEY_CHUNKS_LIMIT + 10)]
    value = {key: float(i) for i, key in enumerate(keys)}
    assert canonical_encode(value) == CONTENT_DOMAIN + _general_encoding(value)
    assert len(identity._KEY_CHUNKS) <= identity._KEY_CHUNKS_LIMIT
    assert canonical_encode(value) == CONTENT_DOMAIN + _general_encoding(value)


def test_a_small_frozen_mapping_is_encoded_once_and_kept_with_itself() -> None:
    shared = freeze({"std": 0.01, "mount": {"rpy_deg": (0.0, -0.0, 90.0)}})
    first = canonical_encode({"spec": shared, "n": 1})
    assert id(shared) not in identity._FROZEN_ENCODINGS  # met once: not kept
    assert canonical_encode({"spec": shared, "n": 1}) == first
    kept = identity._FROZEN_ENCODINGS[id(shared)]  # met twice: kept
    assert kept[0] is shared
    assert kept[1] in first
    assert canonical_encode({"spec": shared, "n": 1}) == first
    assert canonical_encode({"spec": freeze({"std": 0.02}), "n": 1}) != first
    # An array's payload is never copied into a kept encoding.
    large = freeze({"values": np.arange(5000.0)})
    for _ in range(2):
        canonical_encode(large)
    assert id(large) not in identity._FROZEN_ENCODINGS
    assert id(large) not in identity._FROZEN_SEEN  # nor held alive for a second meeting
    many = [freeze({"i": i}) for i in range(identity._FROZEN_LIMIT + 5)]
    for _ in range(2):
        for i, mapping in enumerate(many):
            assert canonical_encode(mapping) == CONTENT_DOMAIN + _general_encoding({"i": i})
    assert len(identity._FROZEN_ENCODINGS) <= identity._FROZEN_LIMIT
    assert len(identity._FROZEN_SEEN) <= identity._FROZEN_LIMIT


def test_a_frozen_mapping_the_general_encoder_helped_to_write_is_not_kept() -> None:
    # An unpinned enum's name is read from its module path, which may change; a
    # mapping holding one is encoded afresh each time.
    record = freeze({"mode": Mode.SURVEY, "x": 1.0})
    for _ in range(2):
        assert canonical_encode(record) == CONTENT_DOMAIN + _general_encoding(record)
    assert id(record) not in identity._FROZEN_ENCODINGS


def test_content_hash_property_hashes_the_instance_once_under_its_own_doc() -> None:
    calls = []

    @dataclasses.dataclass(frozen=True, eq=False)
    class Record:
        value: float

        def __content__(self) -> dict:
            calls.append(self.value)
            return {"value": self.value}

        content_hash = identity.content_hash_property("SHA-256 of the record.")

    record = Record(-0.0)
    first = record.content_hash
    assert calls == [-0.0]
    assert record.content_hash == first and calls == [-0.0]  # kept, not hashed again
    assert first == content_hash(Record(0.0)) != Record(1.0).content_hash
    assert Record.content_hash.__doc__ == "SHA-256 of the record."
    assert Record.content_hash.attrname == "content_hash"
