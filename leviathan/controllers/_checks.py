"""Argument checks shared by the controllers and the survey patterns."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan._validation import is_integer, is_real
from leviathan.time import NS_PER_SECOND


def _real(name: str, value: Any, unit: str, *, minimum: float | None = None) -> float:
    if not is_real(value):
        raise TypeError(f"{name} must be a real number [{unit}], got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite [{unit}], got {value!r}")
    if minimum is not None and not result > minimum:
        raise ValueError(f"{name} must be > {minimum:g} [{unit}], got {value!r}")
    return result


def _non_negative(name: str, value: Any, unit: str) -> float:
    result = _real(name, value, unit)
    if result < 0.0:
        raise ValueError(f"{name} must be >= 0 [{unit}], got {value!r}")
    return result


def _float_array(name: str, value: Any, expected: str) -> np.ndarray:
    """``value`` as a new float64 array; ``expected`` is what ``name`` must be, for the error."""
    try:
        return np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be {expected}, got {value!r}") from error


def _dt_seconds(time_ns: Any, dt_ns: Any) -> float:
    for name, value in (("time_ns", time_ns), ("dt_ns", dt_ns)):
        if not is_integer(value):
            raise TypeError(f"{name} must be an int of nanoseconds, got {value!r}")
    if dt_ns <= 0:
        raise ValueError(f"dt_ns must be a positive number of nanoseconds, got {dt_ns}")
    return int(dt_ns) / NS_PER_SECOND


def _require_keys(name: str, state: Any, keys: tuple[str, ...]) -> None:
    if not isinstance(state, Mapping) or set(state) != set(keys):
        given = sorted(state) if isinstance(state, Mapping) else type(state).__name__
        raise ValueError(
            f"{name} must be a dict with exactly the keys {sorted(keys)!r} "
            f"(start from initial_state()), got {given!r}"
        )
