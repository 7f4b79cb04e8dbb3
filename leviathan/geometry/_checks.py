"""Argument checks shared by the mesh generators: finite reals, lengths, counts, vectors."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from leviathan._validation import is_integer


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _finite(value: Any, name: str) -> float:
    if not _is_real(value):
        raise TypeError(f"{name}: expected a real number, got {value!r} ({type(value).__name__})")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name}: expected a finite number, got {result!r}")
    return result


def _positive(value: Any, name: str) -> float:
    result = _finite(value, name)
    if not result > 0.0:
        raise ValueError(f"{name}: expected a positive length in metres, got {result!r}")
    return result


def _count(value: Any, name: str, minimum: int) -> int:
    if not is_integer(value):
        raise TypeError(f"{name}: expected an int >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {int(value)}")
    return int(value)


def _vector(value: Any, name: str, length: int, *, positive: bool = False) -> tuple[float, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{name}: expected a sequence of {length} numbers, got {value!r}")
    items = list(value)
    if len(items) != length:
        raise ValueError(f"{name}: expected {length} numbers, got {len(items)} ({value!r})")
    check = _positive if positive else _finite
    return tuple(check(v, f"{name}[{k}]") for k, v in enumerate(items))
