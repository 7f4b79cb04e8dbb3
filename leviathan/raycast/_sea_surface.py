"""The analytic sea surface, added on the host after the reference's mesh search.

The sea surface is the plane ``z = 0`` of world NED (instance
``scene.sea_surface_instance``, triangle 0). No BVH holds it: after the reference's
nearest mesh hit, :func:`combine_with_sea_surface` lets the plane win where it is
strictly nearer; the Warp backend starts each ray from the same plane hit instead
(:func:`leviathan.kernels.trace.seed_sea_surface`), which its tie rule makes the same
answer. :func:`leviathan.raycast.trace_rays` is the one place that composes the two.
"""

from __future__ import annotations

import numpy as np

from leviathan._raycast_stages import TraceResult

__all__ = ["combine_with_sea_surface", "intersect_sea_surface"]


def intersect_sea_surface(
    o: np.ndarray, d: np.ndarray, t_max: float
) -> tuple[np.ndarray, np.ndarray]:
    """Ray parameter of the plane ``z = 0``: ``t = (0 - oz) / dz``.

    Args:
        o: Ray origins in world NED [m], float64 [n, 3].
        d: Unit ray directions in world NED, float64 [n, 3].
        t_max: Largest accepted ray parameter [m].

    Returns:
        ``(hit, t)``: hit where ``dz != 0`` and ``0 < t <= t_max``; bool [n], float64 [n].
    """
    dz = d[:, 2]
    # dz = 0 gives an infinity or a NaN (no hit), a subnormal dz may overflow to inf.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = (0.0 - o[:, 2]) / dz
    hit = (dz != 0.0) & (t > 0.0) & (t <= t_max)
    return hit, t


def combine_with_sea_surface(
    meshes: TraceResult,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    t_max: float,
    sea_surface_instance: int,
) -> TraceResult:
    """Adds the analytic sea surface: it wins only when strictly nearer than the mesh hit.

    Args:
        meshes: Nearest mesh hit per ray (a backend's ``nearest_hits``).
        origins: The traced ray origins in world NED [m], float64 [n, 3].
        directions: The traced unit directions in world NED, float64 [n, 3].
        t_max: Largest accepted ray parameter [m].
        sea_surface_instance: Instance index the sea surface reports.
    """
    hit, ts = intersect_sea_surface(origins, directions, t_max)
    take = hit & ((meshes.instance < 0) | (ts < meshes.t))
    return TraceResult(
        t=np.where(take, ts, meshes.t),
        instance=np.where(take, np.int32(sea_surface_instance), meshes.instance).astype(np.int32),
        triangle=np.where(take, np.int32(0), meshes.triangle).astype(np.int32),
    )
