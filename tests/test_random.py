"""Tests for leviathan.random: keyed, counter-based randomness."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from reference_impls import (
    reference_derive_key,
    reference_draws,
    reference_philox4x32_10,
    reference_uniform,
)

from leviathan.identity import content_hash
from leviathan.random import (
    _SMALL_DRAW,
    KeyedRandom,
    RandomEffectRecord,
    _derive_key,
    _philox4x32_10,
    _small_uniforms,
    _uniform_from_words,
    _uniform_stream,
    _uniform_stream_pair,
    _validate_index,
    exponential,
    normal,
    uniform,
)

Draw = Callable[..., np.ndarray]

N = 200_000
# Asymptotic Kolmogorov critical value for alpha ~= 0.001 is 1.95 / sqrt(n).
KS_CRITICAL = 1.95 / math.sqrt(N)
# |r| for independent samples has standard deviation ~1/sqrt(n); 5 sigma is ~6e-7 false
# alarm and the draws are seeded, so a pass is reproducible.
CORRELATION_BOUND = 5.0 / math.sqrt(N)
KEY = (20240601, "sonar/front", 17, "speckle")
INDEX = np.arange(N, dtype=np.int64)


def _ks_statistic(samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray]) -> float:
    x = np.sort(samples)
    f = cdf(x)
    n = x.size
    upper = np.arange(1, n + 1) / n - f
    lower = f - np.arange(0, n) / n
    return float(max(upper.max(), lower.max()))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


# --- Philox known answers (Random123 kat_vectors) ----------------------------------


@pytest.mark.parametrize(
    ("counter", "key", "expected"),
    [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        (
            (0xFFFFFFFF,) * 4,
            (0xFFFFFFFF, 0xFFFFFFFF),
            (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD),
        ),
        (
            (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
            (0xA4093822, 0x299F31D0),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
        ),
    ],
)
def test_philox_matches_random123_known_answers(
    counter: tuple[int, ...], key: tuple[int, int], expected: tuple[int, ...]
) -> None:
    words = _philox4x32_10(tuple(np.array([c], dtype=np.uint64) for c in counter), key)
    assert all(w.dtype == np.uint64 and w.shape == (1,) for w in words)
    assert tuple(int(w[0]) for w in words) == expected


def test_uniform_matches_plain_python_reference() -> None:
    index = np.array([0, 1, 2**32 - 1, 2**32, 2**40 + 7, 2**63 - 1], dtype=np.int64)
    got = uniform(*KEY, index)
    expected = np.array([reference_uniform(*KEY, int(i)) for i in index])
    np.testing.assert_array_equal(got, expected)


def test_key_derivation_follows_spec() -> None:
    assert _derive_key(*KEY) == reference_derive_key(*KEY)


# --- Range ---------------------------------------------------------------------------


def test_uniform_conversion_of_zero_words_is_positive() -> None:
    u = _uniform_from_words(np.uint64(0), np.uint64(0))
    assert u == 2.0**-53 and u > 0.0


def test_uniform_conversion_of_all_ones_words_is_below_one() -> None:
    u = _uniform_from_words(np.uint64(0xFFFFFFFF), np.uint64(0xFFFFFFFF))
    assert u == 1.0 - 2.0**-53 and u < 1.0


def test_uniform_draws_lie_strictly_inside_unit_interval() -> None:
    u = uniform(*KEY, INDEX)
    assert u.dtype == np.float64 and u.shape == (N,)
    assert u.min() > 0.0 and u.max() < 1.0


# --- Determinism ---------------------------------------------------------------------


@pytest.mark.parametrize("draw", [uniform, exponential, normal])
def test_same_key_gives_identical_arrays(draw: Draw) -> None:
    np.testing.assert_array_equal(draw(*KEY, INDEX[:1000]), draw(*KEY, INDEX[:1000]))


@pytest.mark.parametrize("draw", [uniform, exponential, normal])
def test_subset_drawn_alone_equals_slice_of_batch(draw: Draw) -> None:
    batch = draw(*KEY, INDEX[:5000])
    subset = np.random.default_rng(3).choice(5000, size=37, replace=False)
    np.testing.assert_array_equal(draw(*KEY, subset), batch[subset])


@pytest.mark.parametrize("draw", [uniform, exponential, normal])
def test_single_scalar_index_equals_batch_element(draw: Draw) -> None:
    batch = draw(*KEY, INDEX[:100])
    single = draw(*KEY, 42)
    assert single.shape == ()
    assert single == batch[42]


def test_high_index_word_enters_the_counter() -> None:
    a, b = uniform(*KEY, np.array([5, 5 + 2**32], dtype=np.uint64))
    assert a != b


# --- Independence of streams ---------------------------------------------------------


@pytest.mark.parametrize(
    "other_key",
    [
        (20240602, "sonar/front", 17, "speckle"),
        (20240601, "sonar/rear", 17, "speckle"),
        (20240601, "sonar/front", 18, "speckle"),
        (20240601, "sonar/front", 17, "range_jitter"),
    ],
    ids=["seed", "sensor", "sample", "effect"],
)
def test_changed_key_component_gives_uncorrelated_stream(
    other_key: tuple[int, str, int, str],
) -> None:
    a = uniform(*KEY, INDEX)
    b = uniform(*other_key, INDEX)
    assert np.count_nonzero(a == b) == 0
    assert abs(np.corrcoef(a, b)[0, 1]) < CORRELATION_BOUND


def test_normal_streams_zero_and_one_are_uncorrelated() -> None:
    # Box–Muller needs independent u0 and u1; check the raw stream-0/stream-1 uniforms.
    key = _derive_key(*KEY)
    idx = _validate_index(INDEX)
    u0 = _uniform_stream(key, idx, 0)
    u1 = _uniform_stream(key, idx, 1)
    assert abs(np.corrcoef(u0, u1)[0, 1]) < CORRELATION_BOUND


def test_adjacent_seeds_are_uncorrelated() -> None:
    seed = KEY[0]
    a = uniform(seed, *KEY[1:], INDEX)
    b = uniform(seed + 1, *KEY[1:], INDEX)
    assert abs(np.corrcoef(a, b)[0, 1]) < CORRELATION_BOUND


def test_adjacent_seeds_fill_2d_bins_uniformly() -> None:
    seed = KEY[0]
    a = uniform(seed, *KEY[1:], INDEX)
    b = uniform(seed + 1, *KEY[1:], INDEX)
    counts, _, _ = np.histogram2d(a, b, bins=10, range=[[0.0, 1.0], [0.0, 1.0]])
    expected = N / 100.0
    chi_square = float(((counts - expected) ** 2 / expected).sum())
    # Chi-square quantile at 0.999 for 99 degrees of freedom is 148.2.
    assert chi_square < 148.2


# --- Distributions -------------------------------------------------------------------


def test_uniform_passes_kolmogorov_smirnov() -> None:
    assert _ks_statistic(uniform(*KEY, INDEX), lambda x: x) < KS_CRITICAL


def test_exponential_passes_kolmogorov_smirnov() -> None:
    d = _ks_statistic(exponential(*KEY, INDEX), lambda x: -np.expm1(-x))
    assert d < KS_CRITICAL


def test_normal_passes_kolmogorov_smirnov() -> None:
    assert _ks_statistic(normal(*KEY, INDEX), _normal_cdf) < KS_CRITICAL


def test_normal_mean_and_variance() -> None:
    z = normal(*KEY, INDEX)
    # Standard errors: mean 1/sqrt(n) ~ 2.2e-3, variance sqrt(2/n) ~ 3.2e-3; 5 sigma.
    assert abs(z.mean()) < 5.0 / math.sqrt(N)
    assert abs(z.var() - 1.0) < 5.0 * math.sqrt(2.0 / N)


def test_exponential_is_positive_and_finite() -> None:
    e = exponential(*KEY, INDEX)
    assert np.all(np.isfinite(e)) and e.min() > 0.0


# --- Shapes --------------------------------------------------------------------------


@pytest.mark.parametrize("draw", [uniform, exponential, normal])
def test_two_dimensional_index_preserves_shape(draw: Draw) -> None:
    index = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = draw(*KEY, index)
    assert out.dtype == np.float64 and out.shape == (3, 4)
    np.testing.assert_array_equal(out.ravel(), draw(*KEY, index.ravel()))


def test_empty_index_gives_empty_array() -> None:
    out = uniform(*KEY, np.zeros((0, 3), dtype=np.int64))
    assert out.dtype == np.float64 and out.shape == (0, 3)


# --- KeyedRandom ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "draw"),
    [("uniform", uniform), ("exponential", exponential), ("normal", normal)],
)
def test_keyed_random_matches_functions(method: str, draw: Draw) -> None:
    bound = KeyedRandom(root_seed=KEY[0], sensor_id=KEY[1], sample_index=KEY[2])
    np.testing.assert_array_equal(
        getattr(bound, method)(KEY[3], INDEX[:64]), draw(*KEY, INDEX[:64])
    )


def test_keyed_random_validates_at_construction() -> None:
    with pytest.raises(ValueError, match=r"sensor_id: expected a non-empty str"):
        KeyedRandom(root_seed=1, sensor_id="", sample_index=0)


# --- Argument errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "error", "pattern"),
    [
        ((-1, "s", 0, "e", [0]), ValueError, r"root_seed must satisfy 0 <= root_seed < 2\*\*64"),
        ((2**64, "s", 0, "e", [0]), ValueError, r"got 18446744073709551616"),
        ((1.0, "s", 0, "e", [0]), TypeError, r"root_seed must be an int, got 1.0 of type float"),
        ((True, "s", 0, "e", [0]), TypeError, r"root_seed must be an int, got True"),
        ((1, "", 0, "e", [0]), ValueError, r"sensor_id: expected a non-empty str"),
        ((1, 7, 0, "e", [0]), TypeError, r"sensor_id: expected a non-empty str, got 7 of type int"),
        ((1, "s", -2, "e", [0]), ValueError, r"sample_index must be >= 0, got -2"),
        ((1, "s", "0", "e", [0]), TypeError, r"sample_index must be an int, got '0'"),
        ((1, "s", 0, "", [0]), ValueError, r"effect: expected a non-empty str"),
        ((1, "s", 0, "e", [0.5]), TypeError, r"index must have an integer dtype, got dtype '<f8'"),
        (
            (1, "s", 0, "e", [True]),
            TypeError,
            r"index must have an integer dtype, got dtype '\|b1'",
        ),
        ((1, "s", 0, "e", [3, -4]), ValueError, r"0 <= index < 2\*\*63, got -4"),
        (
            (1, "s", 0, "e", np.array([2**63], dtype=np.uint64)),
            ValueError,
            r"0 <= index < 2\*\*63, got 9223372036854775808",
        ),
    ],
)
def test_invalid_arguments_raise_clear_errors(
    args: tuple[object, ...], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        uniform(*args)


def test_numpy_integer_seed_is_accepted_and_equal_to_int() -> None:
    np.testing.assert_array_equal(
        uniform(np.uint64(KEY[0]), *KEY[1:], INDEX[:8]), uniform(*KEY, INDEX[:8])
    )


# --- RandomEffectRecord -------------------------------------------------------------


def test_record_not_drawn_refuses_a_seed() -> None:
    with pytest.raises(ValueError, match=r"root_seed must be None when drawn is False"):
        RandomEffectRecord(effect="speckle", drawn=False, root_seed=3, distribution="normal")


def test_record_drawn_requires_a_seed() -> None:
    with pytest.raises(TypeError, match=r"root_seed must be an int, got None"):
        RandomEffectRecord(effect="speckle", drawn=True, root_seed=None, distribution="normal")


def test_record_seed_enters_identity_when_drawn() -> None:
    a = RandomEffectRecord(effect="speckle", drawn=True, root_seed=1, distribution="normal")
    b = RandomEffectRecord(effect="speckle", drawn=True, root_seed=2, distribution="normal")
    assert content_hash(a) != content_hash(b)


def test_record_content_omits_seed_and_algorithm_when_not_drawn() -> None:
    record = RandomEffectRecord(
        effect="speckle", drawn=False, root_seed=None, distribution="normal"
    )
    assert record.__content__() == {
        "effect": "speckle",
        "drawn": False,
        "distribution": "normal",
        "root_seed": None,
        "algorithm": None,
    }


# --- Fast paths ---------------------------------------------------------------------
# Small draws run on Python ints with every counter in one integer (_small_uniforms),
# Philox keys come from a cached SHA-256 prefix (_key_words), and a normal draw runs
# both streams in one Philox pass. Each is compared with the plain computations of
# tests/reference_impls.py over many keys and indices; those are pinned to the spec and
# the Random123 known answers above.


def _many_keys(count: int) -> list[tuple[int, str, int, str]]:
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


def test_key_words_equal_the_reference_over_many_keys() -> None:
    for key in _many_keys(300):
        assert _derive_key(*key) == reference_derive_key(*key)


def test_key_words_accept_numpy_integers_like_python_ints() -> None:
    seed, sensor, n, effect = _many_keys(1)[0]
    assert _derive_key(np.uint64(seed), sensor, np.int64(n), effect) == reference_derive_key(
        seed, sensor, n, effect
    )


def test_in_place_philox_equals_the_reference_on_random_counters() -> None:
    rng = np.random.default_rng(3)
    counters = rng.integers(0, 2**32, size=(4, 257), dtype=np.uint64)
    key = (int(rng.integers(0, 2**32)), int(rng.integers(0, 2**32)))
    words = _philox4x32_10(tuple(counters), key)
    assert all(w.dtype == np.uint64 and w.shape == (257,) for w in words)
    for j in range(257):
        expected = reference_philox4x32_10(tuple(int(c[j]) for c in counters), key)
        assert tuple(int(w[j]) for w in words) == expected


def test_philox_broadcasts_counter_words_of_different_shapes() -> None:
    index = np.arange(5, dtype=np.uint64)
    words = _philox4x32_10((index, np.zeros(1, np.uint64), np.uint64(1), 0), (7, 9))
    for j in range(5):
        assert tuple(int(w[j]) for w in words) == reference_philox4x32_10((j, 0, 1, 0), (7, 9))


@pytest.mark.parametrize("pair", [False, True])
def test_small_uniforms_equal_the_numpy_stream_over_many_keys(pair: bool) -> None:
    rng = np.random.default_rng(11)
    for key in _many_keys(120):
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
    words = _derive_key(*_many_keys(1)[0])
    index = _validate_index(_indices(rng, 1000).reshape(10, 100))
    u0, u1 = _uniform_stream_pair(words, index)
    assert u0.shape == u1.shape == (10, 100)
    np.testing.assert_array_equal(u0, _uniform_stream(words, index, 0))
    np.testing.assert_array_equal(u1, _uniform_stream(words, index, 1))


@pytest.mark.parametrize("size", [0, 1, 3, _SMALL_DRAW - 1, _SMALL_DRAW, 100])
def test_public_draws_equal_the_reference_draws(size: int) -> None:
    rng = np.random.default_rng(size)
    for key in _many_keys(40):
        index = _indices(rng, size)
        plain = reference_draws(key, index)
        for name, draw in (("uniform", uniform), ("exponential", exponential), ("normal", normal)):
            got = draw(*key, index)
            assert got.dtype == np.float64 and got.shape == index.shape
            np.testing.assert_array_equal(got, plain[name])


@pytest.mark.parametrize("index", [np.int64(5), np.arange(12, dtype=np.uint32).reshape(3, 4)])
def test_small_draws_keep_the_index_shape(index: np.ndarray) -> None:
    key = _many_keys(1)[0]
    plain = reference_draws(key, np.asarray(index))
    for name, draw in (("uniform", uniform), ("exponential", exponential), ("normal", normal)):
        got = draw(*key, index)
        assert type(got) is np.ndarray and got.shape == np.shape(index)
        np.testing.assert_array_equal(got, plain[name])


def test_small_index_range_is_still_checked() -> None:
    with pytest.raises(ValueError, match="0 <= index < 2\\*\\*63"):
        uniform(*_many_keys(1)[0], np.array([1, -1]))
