"""``leviathan._validation``, the one argument-check module: predicates and checks, never bools."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from leviathan._validation import (
    check_count,
    check_finite,
    check_integer,
    check_interval,
    check_keys,
    check_non_empty_str,
    check_pair,
    check_positive,
    check_vector,
    float_array,
    is_integer,
    is_real,
    tick_seconds,
)

INTEGERS = [0, -3, 2**70, np.int8(1), np.int64(-5), np.uint64(2**64 - 1)]
REALS_ONLY = [0.5, float("inf"), float("nan"), np.float32(1.5), np.float64(2.0), Fraction(1, 3)]
FLAGS = [True, False, np.True_, np.False_]
OTHERS = [None, "1", b"1", Decimal("1"), 1j, [1], np.array(1), np.array([1.0])]


@pytest.mark.parametrize("value", INTEGERS)
def test_integers_are_integers_and_reals(value: object) -> None:
    assert is_integer(value) is True
    assert is_real(value) is True


@pytest.mark.parametrize("value", REALS_ONLY)
def test_floats_and_fractions_are_reals_but_not_integers(value: object) -> None:
    assert is_real(value) is True
    assert is_integer(value) is False


@pytest.mark.parametrize("value", FLAGS, ids=repr)
def test_a_bool_is_neither_a_count_nor_a_number(value: object) -> None:
    assert is_integer(value) is False
    assert is_real(value) is False


@pytest.mark.parametrize("value", OTHERS, ids=repr)
def test_strings_decimals_complex_and_arrays_are_neither(value: object) -> None:
    assert is_integer(value) is False
    assert is_real(value) is False


@pytest.mark.parametrize("value", [0, -2, np.int64(3), 0.25, np.float32(1.5), Fraction(1, 4)])
def test_check_finite_returns_a_float_of_the_same_value(value: object) -> None:
    result = check_finite("depth_m", value)
    assert type(result) is float and result == float(value)


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        (True, TypeError, r"depth_m: expected a real number, got True \(bool\)"),
        ("1.0", TypeError, r"depth_m: expected a real number, got '1\.0' \(str\)"),
        (None, TypeError, r"depth_m: expected a real number, got None"),
        (float("nan"), ValueError, r"depth_m: expected a finite number, got nan"),
        (-np.inf, ValueError, r"depth_m: expected a finite number"),
    ],
)
def test_check_finite_refuses_non_numbers_and_non_finite_values(
    value: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        check_finite("depth_m", value)


@pytest.mark.parametrize(
    ("bounds", "accepted", "refused", "says"),
    [
        ({"above": 0.0}, [1e-300, 3], [0.0, -1.0], "> 0"),
        ({"at_least": 0.0}, [0.0, 2.5], [-1e-300], ">= 0"),
        ({"at_most": 1.0}, [1.0, -7.0], [1.5], "<= 1"),
        ({"above": 0.0, "at_most": 1.0}, [1.0, 0.5], [0.0, 1.0000001], r"in \(0, 1\]"),
        ({"at_least": -1.0, "at_most": 1.0}, [-1.0, 1.0], [-1.5], r"in \[-1, 1\]"),
    ],
)
def test_check_finite_bounds_are_stated_and_enforced(
    bounds: dict, accepted: list, refused: list, says: str
) -> None:
    for value in accepted:
        assert check_finite("gain", value, **bounds) == float(value)
    for value in refused:
        with pytest.raises(ValueError, match=rf"gain: expected a finite number {says} \[-\], got"):
            check_finite("gain", value, unit="-", **bounds)


def test_check_positive_is_a_length_unless_told_otherwise() -> None:
    assert check_positive("radius_m", 2) == 2.0
    with pytest.raises(ValueError, match=r"radius_m: expected a finite number > 0 \[m\], got 0"):
        check_positive("radius_m", 0)
    with pytest.raises(ValueError, match=r"rho: expected a finite number > 0 \[kg/m³\]"):
        check_positive("rho", -1.0, unit="kg/m³")
    with pytest.raises(TypeError, match=r"radius_m: expected a real number \[m\], got True"):
        check_positive("radius_m", True)


def test_check_interval_returns_floats_and_refuses_bad_pairs() -> None:
    assert check_interval("scale", [1, 2.5], above=0.0) == (1.0, 2.5)
    assert check_interval("speed", (0.0, 0.0), at_least=0.0) == (0.0, 0.0)
    for bad in [(2.0, 1.0), (0.0, 1.0), (float("nan"), 1.0), (1.0,), 1.0]:
        with pytest.raises(ValueError, match=r"scale: expected a \(low, high\) pair .* both > 0"):
            check_interval("scale", bad, above=0.0)
    with pytest.raises(TypeError, match="scale: expected a"):
        check_interval("scale", ("1", 2.0))


def test_check_pair_and_check_vector() -> None:
    assert check_pair("size_m", np.array([1.0, 2.0])) == (1.0, 2.0)
    for bad in ["ab", 3, (1, 2, 3)]:
        with pytest.raises(TypeError, match="size_m: expected a pair of two values"):
            check_pair("size_m", bad)
    assert check_vector("center", np.array([1, 2, 3]), 3) == (1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match=r"center: expected 3 numbers, got 2"):
        check_vector("center", (1.0, 2.0), 3)
    with pytest.raises(ValueError, match=r"size_m\[1\]: expected a finite number > 0"):
        check_vector("size_m", (1.0, 0.0), 2, positive=True)
    with pytest.raises(TypeError, match="center: expected a sequence of 3 numbers"):
        check_vector("center", "123", 3)


def test_float_array_is_a_fresh_float64_copy_of_finite_reals() -> None:
    given = np.array([[1, 2, 3]], dtype=np.int32)
    array = float_array("points", given, "(N, 3)")
    assert array.dtype == np.float64 and array.shape == (1, 3)
    np.testing.assert_array_equal(array, [[1.0, 2.0, 3.0]])
    assert not np.shares_memory(array, given)
    for bad, says in [
        ([1.0, float("inf")], "points: expected finite numbers"),
        ([True, False], "points: expected real numbers"),
        (["1"], "points: expected real numbers"),
        ([[1.0], [1.0, 2.0]], "points: expected an array of real numbers with shape"),
    ]:
        with pytest.raises(ValueError, match=says):
            float_array("points", bad, "(N, 3)")


def test_check_integer_and_check_count() -> None:
    assert check_integer("tick", np.int64(4)) == 4
    assert check_integer("width_px", 16, low=16, high=4096) == 16
    with pytest.raises(TypeError, match="tick: expected an integer, got True"):
        check_integer("tick", True)
    with pytest.raises(ValueError, match=r"width_px: expected an integer in \[16, 4096\], got 8"):
        check_integer("width_px", 8, low=16, high=4096)
    with pytest.raises(ValueError, match="steps: expected an integer >= 0, got -1"):
        check_integer("steps", -1, low=0)
    assert check_count("num_envs", np.int32(3), minimum=1) == 3
    with pytest.raises(TypeError, match=r"num_envs: expected an int >= 1, got 2\.0"):
        check_count("num_envs", 2.0, minimum=1)


def test_check_non_empty_str_refuses_other_types_empty_and_blank_names() -> None:
    assert check_non_empty_str("effect", "speckle") == "speckle"
    with pytest.raises(TypeError, match="effect: expected a non-empty str, got 7 of type int"):
        check_non_empty_str("effect", 7)
    for blank in ["", "  "]:
        with pytest.raises(ValueError, match="effect: expected a non-empty str"):
            check_non_empty_str("effect", blank)


def test_check_keys_and_tick_seconds() -> None:
    check_keys("controller_state", {"a": 1, "b": 2}, ("b", "a"))
    with pytest.raises(ValueError, match=r"exactly the keys \['a', 'b'\].*got \['a'\]"):
        check_keys("controller_state", {"a": 1}, ("a", "b"))
    assert tick_seconds(0, 20_000_000) == 0.02
    with pytest.raises(TypeError, match="dt_ns must be an int of nanoseconds"):
        tick_seconds(0, 0.02)
    with pytest.raises(ValueError, match="dt_ns must be a positive number of nanoseconds"):
        tick_seconds(0, 0)


def test_argument_checks_live_in_one_module() -> None:
    # The one argument-check module is leviathan._validation; no package keeps its own.
    root = Path(__file__).resolve().parents[1]
    copies = sorted(
        str(path.relative_to(root))
        for folder in ("leviathan", "kernels", "reference_cpu", "usd")
        for path in (root / folder).rglob("*.py")
        if "check" in path.stem and path.stem != "_validation"
    )
    assert copies == []
