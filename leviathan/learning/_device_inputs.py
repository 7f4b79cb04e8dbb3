"""The learning tier's inputs as its kernels take them: Warp arrays, a vehicle, a seed.

Conversions rather than plain argument checks (those are in :mod:`leviathan._validation`,
the one module of them): each turns a user's input into the device array, vehicle
document or uint32 base seed the batched kernels need, refusing it with the argument
named when it cannot. They need Warp, which :mod:`leviathan._validation` never imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import warp as wp

from leviathan._validation import is_integer
from leviathan.catalogue import get_vehicle
from leviathan.learning._env_kernels import int_mask
from leviathan.specs import VehicleSpec

__all__ = ["base_seed", "device_array", "reset_mask_option", "vehicle_spec"]


def device_array(
    name: str,
    value: Any,
    dtypes: tuple[Any, ...],
    shape: tuple[int, ...],
    device: str,
    what: str,
) -> wp.array:
    """``value`` as a Warp array of one of ``dtypes`` and ``shape`` on ``device``.

    NumPy input is copied to the device (a convenience); a Warp array must already
    match, so that the hot path never copies silently.
    """
    if isinstance(value, np.ndarray):
        if value.shape[: len(shape)] != shape:
            raise ValueError(f"{name}: expected {what}, got a NumPy array of shape {value.shape}")
        return wp.array(value, dtype=dtypes[0], device=device)
    if not isinstance(value, wp.array):
        raise TypeError(f"{name}: expected {what} (a Warp array), got {type(value).__name__}")
    if value.dtype not in dtypes or tuple(value.shape) != shape:
        names = " or ".join(getattr(d, "__name__", str(d)) for d in dtypes)
        raise ValueError(
            f"{name}: expected {what} ({names}, shape {shape}), got dtype "
            f"{getattr(value.dtype, '__name__', value.dtype)} shape {tuple(value.shape)}"
        )
    if str(value.device) != device:
        raise ValueError(
            f"{name}: expected an array on {device!r}, got one on {str(value.device)!r}; "
            "create it with device=vehicles.device"
        )
    return value


def vehicle_spec(value: Any) -> VehicleSpec:
    """A vehicle document from a ``VehicleSpec`` or a catalogue name."""
    if isinstance(value, VehicleSpec):
        return value
    if isinstance(value, str):
        try:
            return get_vehicle(value)
        except KeyError as error:
            raise ValueError(f"vehicle: {error.args[0]}") from None
    raise TypeError(f"vehicle: expected a catalogue name or a VehicleSpec, got {value!r}")


def base_seed(seed: Any) -> int:
    """A Gymnasium seed (int >= 0) as the uint32 base seed of the keyed draws."""
    if not is_integer(seed) or seed < 0:
        raise ValueError(f"seed: expected None or an int >= 0, got {seed!r}")
    # SeedSequence spreads any size of integer over 32 bits, the same way everywhere.
    return int(np.random.SeedSequence(int(seed)).generate_state(1, dtype=np.uint32)[0])


def reset_mask_option(options: Any, n: int, device: str) -> wp.array | None:
    """The (n,) int32 mask of ``options["reset_mask"]`` on ``device``; None: reset every env."""
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise TypeError(f"options: expected a dict or None, got {type(options).__name__}")
    unknown = sorted(set(options) - {"reset_mask"})
    if unknown:
        raise ValueError(f"options: unknown keys {unknown}; the only option is 'reset_mask'")
    if "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    if isinstance(mask, np.ndarray):
        if mask.dtype != np.bool_ or mask.shape != (n,):
            raise ValueError(
                f"options['reset_mask']: expected a ({n},) bool array, got dtype "
                f"{mask.dtype} shape {mask.shape}"
            )
        if not mask.any():
            raise ValueError("options['reset_mask']: expected at least one True, got none")
        return wp.array(mask.astype(np.int32), dtype=wp.int32, device=device)
    if isinstance(mask, wp.array):
        if mask.dtype not in (wp.bool, wp.int32) or tuple(mask.shape) != (n,):
            raise ValueError(
                f"options['reset_mask']: expected a ({n},) bool or int32 Warp array, got "
                f"dtype {getattr(mask.dtype, '__name__', mask.dtype)} shape {mask.shape}"
            )
        if str(mask.device) != device:
            raise ValueError(
                f"options['reset_mask']: expected an array on {device!r}, got one "
                f"on {str(mask.device)!r}"
            )
        return int_mask(mask)
    raise TypeError(
        f"options['reset_mask']: expected a ({n},) bool NumPy array, got {type(mask).__name__}"
    )
