"""Argument checks of the mesh generators: positive lengths and vectors (the finite-real and
count checks every package shares are in :mod:`leviathan._validation`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from leviathan._validation import check_finite


def _positive(value: Any, name: str) -> float:
    result = check_finite(name, value)
    if not result > 0.0:
        raise ValueError(f"{name}: expected a positive length in metres, got {result!r}")
    return result


def _vector(value: Any, name: str, length: int, *, positive: bool = False) -> tuple[float, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{name}: expected a sequence of {length} numbers, got {value!r}")
    items = list(value)
    if len(items) != length:
        raise ValueError(f"{name}: expected {length} numbers, got {len(items)} ({value!r})")
    if positive:
        return tuple(_positive(v, f"{name}[{k}]") for k, v in enumerate(items))
    return tuple(check_finite(f"{name}[{k}]", v) for k, v in enumerate(items))
