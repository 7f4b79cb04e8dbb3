"""The shared argument predicates of ``leviathan._validation``: integers and reals, never bools."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from leviathan._validation import check_finite, is_integer, is_real

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
