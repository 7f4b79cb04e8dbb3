"""Argument checks, the one module of them: one definition per kind of argument.

Each check takes ``(name, value, ...)`` in this order, names the argument, the value
given and what is expected, and returns the value as the type it promises, so that
every module refusing, say, a non-finite length says so in the same words:

* :func:`integer_ns` — an integer number of nanoseconds (clock, schedules).
* :func:`exact_rational` — a user's number (seconds, hertz) read exactly.
* :func:`check_root_seed` — a root seed of keyed randomness, in ``[0, 2**64)``.
* :func:`check_seed` — an optional seed of a sensor's noise.
* :func:`check_finite` — a finite real number as a float, optionally bounded
  (lengths, depths, gains; ``unit`` names its unit in the message).
* :func:`check_positive` — a length (or other quantity) > 0.
* :func:`check_interval` — a ``(low, high)`` pair of finite reals, ``low <= high``.
* :func:`check_pair` — any two values given as one argument.
* :func:`check_vector` — a fixed number of finite reals, as a tuple of floats.
* :func:`float_array` — an array of finite reals as a new float64 array.
* :func:`check_count` — a count or index: an int (not a bool) at least some minimum.
* :func:`check_integer` — an int (not a bool), optionally within closed bounds.
* :func:`check_non_empty_str` — a name: a str that is not empty or blank.
* :func:`check_mapping` — a record's mapping field (channels, metadata), optionally str-keyed.
* :func:`check_keys` — a state mapping with exactly the expected keys.
* :func:`check_sample_identifiers` — the (sensor id, sample index, time) of a sample.
* :func:`tick_seconds` — a controller's ``(time_ns, dt_ns)`` and the step in seconds.
* :func:`is_integer` — the one test of "an integer, not a bool" behind them.
* :func:`is_real` — the one test of "a real number, not a bool".

:func:`refusals_at` puts a caller's field path in front of the refusals of what it calls.
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "SEED_LIMIT",
    "check_count",
    "check_finite",
    "check_integer",
    "check_interval",
    "check_keys",
    "check_mapping",
    "check_non_empty_str",
    "check_pair",
    "check_positive",
    "check_root_seed",
    "check_sample_identifiers",
    "check_seed",
    "check_vector",
    "exact_rational",
    "float_array",
    "integer_ns",
    "is_integer",
    "is_real",
    "refusals_at",
    "tick_seconds",
]

SEED_LIMIT = 2**64
"""Root seeds are unsigned 64-bit integers: ``0 <= seed < SEED_LIMIT``."""


def is_integer(value: Any) -> bool:
    """True for Python and NumPy integers, but not for bool (a flag is not a count)."""
    if type(value) is int:  # the common case, without the numbers.Integral ABC lookup
        return True
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
    if type(value) is int:
        # The common case (a clock's own ints, many per tick): the exact type test is
        # what the checks below conclude, without the numbers.Integral ABC lookup.
        return value
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


def _bounds(above: float | None, at_least: float | None, at_most: float | None) -> str:
    """The bounds of a number as a reader writes them: ``> 0``, ``>= 1``, ``in (0, 1]``."""
    low = f"{above:g}" if above is not None else None if at_least is None else f"{at_least:g}"
    if at_most is not None and low is not None:
        return f" in {'(' if above is not None else '['}{low}, {at_most:g}]"
    if at_most is not None:
        return f" <= {at_most:g}"
    if low is not None:
        return f" > {low}" if above is not None else f" >= {low}"
    return ""


def check_finite(
    name: str,
    value: Any,
    *,
    unit: str | None = None,
    above: float | None = None,
    at_least: float | None = None,
    at_most: float | None = None,
) -> float:
    """``value`` as a float, refusing bools, non-numbers, NaN, infinities and values out of bounds.

    Args:
        name: Argument name used in the error message.
        value: The value to check.
        unit: The value's unit, for the message (e.g. ``"m/s"``).
        above: Refuse values ``<= above``.
        at_least: Refuse values ``< at_least``.
        at_most: Refuse values ``> at_most``.

    Raises:
        TypeError: ``value`` is a bool or not a real number.
        ValueError: ``value`` is NaN, infinite or out of bounds.
    """
    units = f" [{unit}]" if unit else ""
    if not is_real(value):
        raise TypeError(
            f"{name}: expected a real number{units}, got {value!r} ({type(value).__name__})"
        )
    result = float(value)
    bounds = _bounds(above, at_least, at_most)
    if (
        not math.isfinite(result)
        or (above is not None and not result > above)
        or (at_least is not None and not result >= at_least)
        or (at_most is not None and not result <= at_most)
    ):
        raise ValueError(f"{name}: expected a finite number{bounds}{units}, got {value!r}")
    return result


def check_positive(name: str, value: Any, *, unit: str = "m") -> float:
    """A finite real ``> 0`` as a float (a length in metres unless ``unit`` says otherwise)."""
    return check_finite(name, value, unit=unit, above=0.0)


def check_interval(
    name: str, value: Any, *, above: float | None = None, at_least: float | None = None
) -> tuple[float, float]:
    """A ``(low, high)`` pair of finite reals with ``low <= high``, both within the bound.

    Args:
        name: Argument name used in the error message.
        value: A tuple or list of two numbers.
        above: Refuse ``low <= above``.
        at_least: Refuse ``low < at_least``.

    Raises:
        TypeError: An end is a bool or not a real number.
        ValueError: ``value`` is not two numbers, an end is not finite, ``low > high``
            or ``low`` is out of bounds.
    """
    bound = _bounds(above, at_least, None)
    expected = "a (low, high) pair of finite reals with low <= high"
    if bound:
        expected += f", both{bound}"
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    if not all(is_real(end) for end in value):
        raise TypeError(f"{name}: expected {expected}, got {value!r}")
    low, high = float(value[0]), float(value[1])
    if (
        not (math.isfinite(low) and math.isfinite(high))
        or low > high
        or (above is not None and not low > above)
        or (at_least is not None and not low >= at_least)
    ):
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return low, high


def check_pair(name: str, value: Any) -> tuple[Any, Any]:
    """The two items of ``value`` (anything of length 2 but a string), unchecked themselves."""
    if isinstance(value, str | bytes) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name}: expected a pair of two values, got {value!r}")
    return value[0], value[1]


def check_vector(
    name: str, value: Any, length: int, *, positive: bool = False
) -> tuple[float, ...]:
    """``length`` finite reals (each ``> 0`` if ``positive``) as a tuple of floats.

    Raises:
        TypeError: ``value`` is not a sequence or array, or an item is not a real number.
        ValueError: The length differs, or an item is not finite (or not positive).
    """
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{name}: expected a sequence of {length} numbers, got {value!r}")
    items = list(value)
    if len(items) != length:
        raise ValueError(f"{name}: expected {length} numbers, got {len(items)} ({value!r})")
    if positive:
        return tuple(check_positive(f"{name}[{k}]", v) for k, v in enumerate(items))
    return tuple(check_finite(f"{name}[{k}]", v) for k, v in enumerate(items))


def float_array(name: str, value: Any, expected: str) -> np.ndarray:
    """``value`` as a new float64 array, refusing non-numeric and non-finite input.

    Args:
        name: Argument name used in the error message.
        value: Array-like of ints or floats.
        expected: What ``value`` should be, for the message (e.g. ``"(3,)"``).

    Raises:
        ValueError: ``value`` is ragged, holds anything but ints and floats (bools and
            strings included), or holds NaN or an infinity.
    """
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged nested lists
        raise ValueError(
            f"{name}: expected an array of real numbers with shape {expected}, got {value!r}"
        ) from error
    if raw.dtype.kind not in "iuf":
        raise ValueError(
            f"{name}: expected real numbers (int or float) with shape {expected}, "
            f"got dtype {raw.dtype} from {value!r}"
        )
    array = raw.astype(np.float64, copy=True)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: expected finite numbers, got {array.tolist()!r}")
    return array


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


def check_integer(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """Refuses a value that is not an int (Python or NumPy, not bool) in ``[low, high]``.

    Args:
        name: Argument name used in the error message.
        value: The value to check.
        low: The smallest value accepted (``None``: no bound).
        high: The largest value accepted (``None``: no bound).

    Returns:
        ``int(value)``.

    Raises:
        TypeError: ``value`` is a bool or not an integer.
        ValueError: ``value`` is outside ``[low, high]``.
    """
    if low is None and high is None:
        expected = "an integer"
    elif high is None:
        expected = f"an integer >= {low}"
    elif low is None:
        expected = f"an integer <= {high}"
    else:
        expected = f"an integer in [{low}, {high}]"
    if not is_integer(value):
        raise TypeError(f"{name}: expected {expected}, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return int(value)


def check_non_empty_str(name: str, value: Any) -> str:
    """A name: a str that is neither empty nor only blanks; returned unchanged.

    Raises:
        TypeError: ``value`` is not a str.
        ValueError: ``value`` is empty or blank.
    """
    if not isinstance(value, str):
        raise TypeError(
            f"{name}: expected a non-empty str, got {value!r} of type {type(value).__name__}"
        )
    if not value.strip():
        raise ValueError(f"{name}: expected a non-empty str, got {value!r}")
    return value


def check_mapping(name: str, value: Any, *, string_keys: bool = False) -> None:
    """Raises TypeError naming ``name`` unless ``value`` is a mapping (str-keyed if asked)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name}: expected a mapping, got {type(value).__name__}")
    bad = [key for key in value if not isinstance(key, str)] if string_keys else []
    if bad:
        raise TypeError(f"{name}: keys must be strings, got {bad!r}")


def check_keys(name: str, value: Any, keys: tuple[str, ...]) -> None:
    """Refuses anything but a mapping with exactly ``keys`` (a controller's state, say)."""
    if not isinstance(value, Mapping) or set(value) != set(keys):
        given = sorted(value) if isinstance(value, Mapping) else type(value).__name__
        raise ValueError(
            f"{name} must be a dict with exactly the keys {sorted(keys)!r} "
            f"(start from initial_state()), got {given!r}"
        )


def tick_seconds(time_ns: Any, dt_ns: Any) -> float:
    """Checks a step's ``time_ns`` and ``dt_ns`` (ints of ns, ``dt_ns > 0``); returns ``dt`` [s]."""
    for name, value in (("time_ns", time_ns), ("dt_ns", dt_ns)):
        if not is_integer(value):
            raise TypeError(f"{name} must be an int of nanoseconds, got {value!r}")
    if dt_ns <= 0:
        raise ValueError(f"dt_ns must be a positive number of nanoseconds, got {dt_ns}")
    return int(dt_ns) / 1_000_000_000


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


@contextlib.contextmanager
def refusals_at(where: str) -> Iterator[None]:
    """Prefixes a refusal raised in the block (a ``TypeError`` or ``ValueError``, re-raised
    as its own type) with ``where``, the field path the caller's document spells with its
    separator (``"vehicles[0]."``, ``"objects[2]: "``)."""
    try:
        yield
    except (TypeError, ValueError) as error:
        raise type(error)(f"{where}{error}") from None
