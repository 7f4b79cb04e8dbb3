"""What every tracing backend takes and returns: checked rays and the :class:`TraceResult`.

Both backends (:func:`leviathan.reference_cpu.trace.nearest_hits` and
:func:`leviathan.kernels.nearest_hits`) check their inputs with
:func:`check_rays` and :func:`check_t_max`, so they refuse the same inputs with
the same messages, and return the same :class:`TraceResult`, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TraceResult", "check_rays", "check_t_max"]


@dataclass(frozen=True, eq=False)
class TraceResult:
    """Nearest hit per ray.

    Attributes:
        t: Ray parameter of the hit [m] (the slant range, directions being unit),
            float64 [ray_count]; ``inf`` where nothing was hit within ``t_max``.
        instance: Instance index, int32 [ray_count]; -1 where nothing was hit.
        triangle: Triangle index within the instance mesh, int32 [ray_count]; -1 where
            nothing was hit, 0 for the sea surface.
    """

    __content_type__ = "leviathan.reference_cpu.trace.TraceResult"

    t: np.ndarray
    instance: np.ndarray
    triangle: np.ndarray


def check_rays(origins: np.ndarray, directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rays as C-contiguous float64 arrays, refused unless shaped and finite.

    Args:
        origins: Ray origins in world NED [m], shape [ray_count, 3].
        directions: Unit ray directions in world NED, shape [ray_count, 3].

    Returns:
        ``(origins, directions)``, float64 [ray_count, 3] each (the same values).

    Raises:
        ValueError: For a shape other than [ray_count, 3], directions shaped unlike
            the origins, or a non-finite component.
    """
    o = np.ascontiguousarray(origins, dtype=np.float64)
    d = np.ascontiguousarray(directions, dtype=np.float64)
    if o.ndim != 2 or o.shape[1] != 3:
        raise ValueError(f"origins: expected shape [ray_count, 3], got {o.shape}")
    if d.shape != o.shape:
        raise ValueError(f"directions: expected shape {o.shape} like origins, got {d.shape}")
    if not (np.all(np.isfinite(o)) and np.all(np.isfinite(d))):
        raise ValueError("origins/directions: every ray must be finite")
    return o, d


def check_t_max(t_max: float) -> float:
    """The largest ray parameter of interest [m] as a float: positive, ``inf`` allowed.

    Raises:
        TypeError: If ``t_max`` is not a number.
        ValueError: If it is not positive (or is NaN).
    """
    try:
        value = float(t_max)
    except (TypeError, ValueError):
        raise TypeError(f"t_max: expected a number of metres, got {t_max!r}") from None
    if not value > 0.0:
        raise ValueError(f"t_max: expected a positive range [m] (inf allowed), got {t_max!r}")
    return value
