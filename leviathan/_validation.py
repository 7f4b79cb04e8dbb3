"""Argument checks shared by every canonical sensor product (sonar, DVL, IMU, camera)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_sample_identifiers", "check_seed"]


def check_sample_identifiers(sensor_id: Any, sample_index: Any, time_ns: Any) -> None:
    """Refuse malformed sample identifiers with a message that says what is expected."""
    if not isinstance(sensor_id, str) or not sensor_id:
        raise ValueError(
            f"sensor_id: expected a non-empty string like 'vehicle/sensor', got {sensor_id!r}"
        )
    if isinstance(sample_index, bool) or not isinstance(sample_index, int | np.integer):
        raise TypeError(f"sample_index: expected an int >= 0, got {sample_index!r}")
    if sample_index < 0:
        raise ValueError(f"sample_index: expected an int >= 0, got {sample_index!r}")
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
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected an integer in [0, 2**64) or None, got {seed!r}")
