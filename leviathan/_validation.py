"""Argument checks shared across LEVIATHAN: one definition per kind of argument.

Each check names the argument, the value given and what is expected, so that
every module refusing, say, a non-integer time says so in the same words:

* :func:`integer_ns` — an integer number of nanoseconds (clock, schedules).
* :func:`exact_rational` — a user's number (seconds, hertz) read exactly.
* :func:`check_root_seed` — a root seed of keyed randomness, in ``[0, 2**64)``.
* :func:`check_seed` — an optional seed of a sensor's noise.
* :func:`check_finite` — a finite real number (lengths, depths, gains), as a float.
* :func:`check_count` — a count or index: an int (not a bool) at least some minimum.
* :func:`check_integer` — an int (not a bool) within closed bounds.
* :func:`check_mapping` — a record's mapping field (channels, metadata), optionally str-keyed.
* :func:`check_sample_identifiers` — the (sensor id, sample index, time) of a sample.
* :func:`is_integer` — the one test of "an integer, not a bool" behind them.
* :func:`is_real` — the one test of "a real number, not a bool".
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "SEED_LIMIT",
    "check_count",
    "check_finite",
    "check_integer",
    "check_mapping",
    "check_root_seed",
    "check_sample_identifiers",
    "check_seed",
    "exact_rational",
    "integer_ns",
    "is_integer",
    "is_real",
]

SEED_LIMIT = 2**64
"""Root seeds are unsigned 64-bit integers: ``0 <= seed < SEED_LIMIT``."""


def is_integer(value: Any) -> bool:
    """True for Python and NumPy integers, but not for bool (a flag is not a count)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def is_real(value: Any) -> bool:
    """True for Python and NumPy ints and floats (and Fractions), but not for bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def integer_ns(name: str, value: Any, *, python_int_only: bool = False) -> int:
    """``value`` as an ``int`` of nanoseconds, refusing bool and non-integers.

    Args:
        name: Argument name used in the error message.
        value: The value to check.
        python_int_only: Refuse NumPy integers too (for values stored as given
            in a hashed record, where an ``np.int64`` would encode differently).

    Returns:
        ``int(value)``.

    Raises:
        TypeError: ``value`` is a bool or not an integer.
    """
    accepted = int if python_int_only else numbers.Integral
    if isinstance(value, bool) or not isinstance(value, accepted):
        raise TypeError(
            f"{name} must be an int of nanoseconds, got {type(value).__name__} {value!r}; "
            "convert seconds with seconds_to_ns()"
        )
    return int(value)


def exact_rational(name: str, value: Any, unit: str) -> Fraction:
    """Reads an int, str, Decimal, Fraction or float as an exact rational number.

    A float is read through its shortest decimal representation
    (``repr(0.02) == '0.02'``), which is the number the user wrote, rather than
    through its binary value (0.0200000000000000004163...).

    Args:
        name: Argument name used in error messages.
        value: The value to convert.
        unit: Unit of ``value`` for error messages, e.g. ``"s"``.

    Raises:
        TypeError: For bool and for unsupported types.
        ValueError: For non-finite values and unparsable strings.
    """
    if isinstance(value, bool):
        raise TypeError(
            f"{name} must be a number of {unit} (int, str, Decimal, Fraction or float), "
            f"got bool {value!r}"
        )
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float):
        # float.__repr__ also covers float subclasses such as numpy.float64,
        # whose own repr is 'np.float64(...)'.
        text = float.__repr__(value)
        decimal = Decimal(text)
    elif isinstance(value, Decimal):
        decimal = value
    elif isinstance(value, str):
        try:
            decimal = Decimal(value.strip())
        except InvalidOperation as error:
            raise ValueError(
                f"{name} must be a decimal number of {unit}, got the string {value!r}"
            ) from error
    else:
        raise TypeError(
            f"{name} must be a number of {unit} (int, str, Decimal, Fraction or float), "
            f"got {type(value).__name__} {value!r}"
        )
    if not decimal.is_finite():
        raise ValueError(f"{name} must be finite, got {value!r}")
    return Fraction(decimal)


def check_root_seed(name: str, value: Any, *, python_int_only: bool = False) -> int:
    """Refuses a root seed that is not an integer in ``[0, 2**64)``; returns it as an ``int``.

    Args:
        name: Argument name used in the error message.
        value: The value to check.
        python_int_only: Refuse NumPy integers too (for values kept as given in
            a JSON or USD record, which cannot hold an ``np.uint64``).

    Raises:
        TypeError: ``value`` is a bool or not an integer.
        ValueError: ``value`` is outside ``[0, 2**64)``.
    """
    if not is_integer(value) or (python_int_only and not isinstance(value, int)):
        raise TypeError(f"{name} must be an int, got {value!r} of type {type(value).__name__}")
    if not 0 <= value < SEED_LIMIT:
        raise ValueError(f"{name} must satisfy 0 <= {name} < 2**64, got {value}")
    return int(value)


def check_finite(name: str, value: Any) -> float:
    """``value`` as a float, refusing bools, non-numbers, NaN and infinities.

    Args:
        name: Argument name used in the error message.
        value: The value to check.

    Raises:
        TypeError: ``value`` is a bool or not a real number.
        ValueError: ``value`` is NaN or infinite.
    """
    if not is_real(value):
        raise TypeError(f"{name}: expected a real number, got {value!r} ({type(value).__name__})")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    return result


def check_count(name: str, value: Any, *, minimum: int) -> int:
    """Refuses a count that is not an int (Python or NumPy, not bool) ``>= minimum``.

    Args:
        name: Argument name used in the error message.
        value: The value to check.
        minimum: The smallest count accepted.

    Returns:
        ``int(value)``.

    Raises:
        TypeError: ``value`` is a bool or not an integer.
        ValueError: ``value`` is below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name}: expected an int >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {value!r}")
    return int(value)


def check_integer(name: str, value: Any, *, low: int, high: int) -> int:
    """Refuses a value that is not an int (Python or NumPy, not bool) in ``[low, high]``.

    Args:
        name: Argument name used in the error message.
        value: The value to check.
        low: The smallest value accepted.
        high: The largest value accepted.

    Returns:
        ``int(value)``.

    Raises:
        TypeError: ``value`` is a bool or not an integer.
        ValueError: ``value`` is outside ``[low, high]``.
    """
    if not is_integer(value):
        raise TypeError(f"{name}: expected an integer in [{low}, {high}], got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name}: expected an integer in [{low}, {high}], got {value!r}")
    return int(value)


def check_mapping(name: str, value: Any, *, string_keys: bool = False) -> None:
    """Raises TypeError naming ``name`` unless ``value`` is a mapping (str-keyed if asked)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name}: expected a mapping, got {type(value).__name__}")
    bad = [key for key in value if not isinstance(key, str)] if string_keys else []
    if bad:
        raise TypeError(f"{name}: keys must be strings, got {bad!r}")


def check_sample_identifiers(sensor_id: Any, sample_index: Any, time_ns: Any) -> None:
    """Refuse malformed sample identifiers with a message that says what is expected."""
    if not isinstance(sensor_id, str) or not sensor_id:
        raise ValueError(
            f"sensor_id: expected a non-empty string like 'vehicle/sensor', got {sensor_id!r}"
        )
    check_count("sample_index", sample_index, minimum=0)
    if isinstance(time_ns, bool) or not isinstance(time_ns, int | np.integer):
        raise TypeError(f"time_ns: expected an integer number of nanoseconds, got {time_ns!r}")


def check_seed(seed: Any, *, needed_by: str | None) -> None:
    """Validate ``seed``; ``needed_by`` names the noise that requires one (or ``None``)."""
    if seed is None:
        if needed_by is not None:
            raise ValueError(
                f"seed: {needed_by} is drawn from keyed randomness, so a root seed is "
                "required; pass seed=<int in [0, 2**64)> or set the noise std to 0"
            )
        return
    if not is_integer(seed) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed: expected an integer in [0, 2**64) or None, got {seed!r}")
