"""The fast paths of leviathan.random give the straightforward results bit for bit.

Small draws run on Python ints with every counter in one integer (``_small_uniforms``),
Philox keys come from a cached SHA-256 prefix (``_key_words``), and a normal draw runs
both streams in one Philox pass. Each is compared here with the plain computation over
many keys and indices; the plain computations are themselves pinned to the spec and the
Random123 known answers in ``tests/test_random.py``.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from leviathan.identity import canonical_encode
from leviathan.random import (
    _SMALL_DRAW,
    ALGORITHM,
    _derive_key,
    _libm,
    _philox4x32_10,
    _small_uniforms,
    _uniform_stream,
    _uniform_stream_pair,
    _validate_index,
    exponential,
    normal,
    uniform,
)

MASK32 = 0xFFFFFFFF


def _derive_key_reference(seed: int, sensor_id: str, n: int, effect: str) -> tuple[int, int]:
    """Step 1 as written: SHA-256 of the key tuple through the general encoder."""
    digest = hashlib.sha256(canonical_encode((ALGORITHM, int(seed), sensor_id, int(n), effect)))
    words = digest.digest()
    return int.from_bytes(words[0:4], "little"), int.from_bytes(words[4:8], "little")


def _plain_philox(counter: tuple[int, int, int, int], key: tuple[int, int]) -> tuple[int, ...]:
    """Philox4x32-10 on Python ints, one counter, written from the module docstring."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_index in range(10):
        if round_index:
            k0 = (k0 + 0x9E3779B9) & MASK32
            k1 = (k1 + 0xBB67AE85) & MASK32
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32
    return c0, c1, c2, c3


def _keys(count: int) -> list[tuple[int, str, int, str]]:
    rng = np.random.default_rng(20261201)
    names = ["survey/imu", "a/b", "rov/dvl", "ü/sensör", "x" * 300]
    return [
        (
            int(rng.integers(0, 2**63)) * int(rng.integers(1, 3)),
            names[i % len(names)],
            int(rng.integers(0, 2**62)) if i % 3 else i,
            ["imu_accel", "imu_gyro", "speckle", "e"][i % 4],
        )
        for i in range(count)
    ]


def _indices(rng: np.random.Generator, size: int) -> np.ndarray:
    high = 2**63 if rng.random() < 0.5 else 2**34
    return rng.integers(0, high, size=size, dtype=np.int64)


def test_fast_key_words_equal_the_general_encoder_over_many_keys() -> None:
    for key in _keys(300):
        assert _derive_key(*key) == _derive_key_reference(*key)


def test_key_words_accept_numpy_integers_like_python_ints() -> None:
    seed, sensor, n, effect = _keys(1)[0]
    assert _derive_key(np.uint64(seed), sensor, np.int64(n), effect) == _derive_key_reference(
        seed, sensor, n, effect
    )


def test_in_place_philox_equals_plain_python_on_random_counters() -> None:
    rng = np.random.default_rng(3)
    counters = rng.integers(0, 2**32, size=(4, 257), dtype=np.uint64)
    key = (int(rng.integers(0, 2**32)), int(rng.integers(0, 2**32)))
    words = _philox4x32_10(tuple(counters), key)
    assert all(w.dtype == np.uint64 and w.shape == (257,) for w in words)
    for j in range(257):
        expected = _plain_philox(tuple(int(c[j]) for c in counters), key)
        assert tuple(int(w[j]) for w in words) == expected


def test_philox_broadcasts_counter_words_of_different_shapes() -> None:
    index = np.arange(5, dtype=np.uint64)
    words = _philox4x32_10((index, np.zeros(1, np.uint64), np.uint64(1), 0), (7, 9))
    for j in range(5):
        assert tuple(int(w[j]) for w in words) == _plain_philox((j, 0, 1, 0), (7, 9))


@pytest.mark.parametrize("pair", [False, True])
def test_small_uniforms_equal_the_numpy_stream_over_many_keys(pair: bool) -> None:
    rng = np.random.default_rng(11)
    for key in _keys(120):
        words = _derive_key(*key)
        index = _validate_index(_indices(rng, int(rng.integers(0, 2 * _SMALL_DRAW))))
        got = _small_uniforms(words, index, pair=pair)
        first = _uniform_stream(words, index, 0).tolist()
        assert [u for u, _ in got] == first
        if pair:
            assert [u for _, u in got] == _uniform_stream(words, index, 1).tolist()
        else:
            assert all(v == 0.0 for _, v in got)


def test_paired_numpy_streams_equal_two_single_stream_passes() -> None:
    rng = np.random.default_rng(5)
    words = _derive_key(*_keys(1)[0])
    index = _validate_index(_indices(rng, 1000).reshape(10, 100))
    u0, u1 = _uniform_stream_pair(words, index)
    assert u0.shape == u1.shape == (10, 100)
    np.testing.assert_array_equal(u0, _uniform_stream(words, index, 0))
    np.testing.assert_array_equal(u1, _uniform_stream(words, index, 1))


def _plain_draws(key: tuple[int, str, int, str], index: np.ndarray) -> dict[str, np.ndarray]:
    """The three distributions through the numpy streams and _libm only (no fast path)."""
    words = _derive_key_reference(*key)
    idx = _validate_index(index)
    u0 = _uniform_stream(words, idx, 0)
    u1 = _uniform_stream(words, idx, 1)
    return {
        "uniform": u0,
        "exponential": -_libm(math.log, u0),
        "normal": np.sqrt(-2.0 * _libm(math.log, u0)) * _libm(math.cos, 2.0 * np.pi * u1),
    }


@pytest.mark.parametrize("size", [0, 1, 3, _SMALL_DRAW - 1, _SMALL_DRAW, 100])
def test_public_draws_equal_the_plain_computation(size: int) -> None:
    rng = np.random.default_rng(size)
    for key in _keys(40):
        index = _indices(rng, size)
        plain = _plain_draws(key, index)
        for name, draw in (("uniform", uniform), ("exponential", exponential), ("normal", normal)):
            got = draw(*key, index)
            assert got.dtype == np.float64 and got.shape == index.shape
            np.testing.assert_array_equal(got, plain[name])


@pytest.mark.parametrize("index", [np.int64(5), np.arange(12, dtype=np.uint32).reshape(3, 4)])
def test_small_draws_keep_the_index_shape(index: np.ndarray) -> None:
    key = _keys(1)[0]
    plain = _plain_draws(key, np.asarray(index))
    for name, draw in (("uniform", uniform), ("exponential", exponential), ("normal", normal)):
        got = draw(*key, index)
        assert type(got) is np.ndarray and got.shape == np.shape(index)
        np.testing.assert_array_equal(got, plain[name])


def test_small_index_range_is_still_checked() -> None:
    with pytest.raises(ValueError, match="0 <= index < 2\\*\\*63"):
        uniform(*_keys(1)[0], np.array([1, -1]))
