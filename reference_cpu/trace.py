"""Reference tracing stage: nearest mesh hit of each ray, in plain numpy.

This module is the scientific authority for ray casting. The Warp backend
mirrors it function by function under the same names (``leviathan.kernels.trace``
for the per-ray functions, :func:`leviathan.kernels.nearest_hits` for the stage)
and must return bit-identical results, so the arithmetic below is written out element by
element in a fixed order; ``np.dot``, ``einsum``, ``@`` and reductions are not
used on this path (numpy never contracts ``a*b + c`` into an FMA).

Result of tracing one ray: the lexicographic minimum of ``(t, instance,
triangle)`` over every triangle the ray/triangle test accepts with
``0 < t <= t_max`` (the analytic sea surface is added afterwards by
:func:`leviathan.raycast.trace_rays`, on the host, for every backend). Because
the minimum is exact and box culling is conservative (padded boxes, see
:func:`leviathan.raycast.build_bvh`),
the result does not depend on traversal order: brute force, the BVH and the
GPU agree bit for bit.

Ray/triangle (Möller–Trumbore, two-sided, edges inclusive)::

    px = dy*e2z - dz*e2y ; py = dz*e2x - dx*e2z ; pz = dx*e2y - dy*e2x
    det = (e1x*px + e1y*py) + e1z*pz          # det == 0: parallel, miss
    inv = 1.0 / det
    sx = ox - v0x ; sy = oy - v0y ; sz = oz - v0z
    u = ((sx*px + sy*py) + sz*pz) * inv       # miss unless LO <= u <= HI
    qx = sy*e1z - sz*e1y ; qy = sz*e1x - sx*e1z ; qz = sx*e1y - sy*e1x
    v = ((dx*qx + dy*qy) + dz*qz) * inv       # miss unless v >= LO and u + v <= HI
    t = ((e2x*qx + e2y*qy) + e2z*qz) * inv    # miss unless 0 < t <= t_max

``LO = -2**-30`` and ``HI = 1 + 2**-30`` widen every triangle by a relative
2**-30 of its edges, so a ray aimed exactly at an edge or vertex shared by two
triangles cannot slip between them through rounding (both accept it, and the
exact tie rule picks one). The BVH pad (2**-24 of the scene scale) covers the
widening.

Ray/box (slab test on padded boxes; ``inv_d = 1/d``, or ``1e300`` where
``d == 0`` so an axis-parallel ray never makes ``0 * inf``)::

    t1 = (min - o) * inv_d ; t2 = (max - o) * inv_d         # per axis
    near = max(min(t1x,t2x), min(t1y,t2y), min(t1z,t2z))
    far  = min(max(t1x,t2x), max(t1y,t2y), max(t1z,t2z))
    pass = near <= far and far >= 0 and near <= t_best

A subnormal direction component still overflows ``1/d`` to infinity; with the
origin exactly on a box face its slab is then NaN, ``min``/``max`` (numpy's,
and the Warp kernels' ``smaller``/``larger``) propagate it and the box is
rejected. Such a ray runs a pad's width away from every triangle in the box,
so no hit is lost. Accept tests are written as ``lo <= u <= hi`` (not as
rejections), so a NaN barycentric or ``t`` never counts as a hit.
"""

from __future__ import annotations

import numpy as np

from leviathan._raycast_stages import (
    PreparedInstance,
    PreparedScene,
    TraceResult,
    check_rays,
    check_t_max,
)

__all__ = [
    "BARY_HI",
    "BARY_LO",
    "INV_DIR_ZERO",
    "intersect_ray_box",
    "intersect_ray_triangle",
    "inverse_directions",
    "nearest_hits",
    "nearest_hits_brute_force",
    "traverse_instance",
]

INV_DIR_ZERO = 1e300
BARY_LO = -(2.0**-30)
BARY_HI = 1.0 + 2.0**-30


def inverse_directions(directions: np.ndarray) -> np.ndarray:
    """Per-component ``1/d`` for the slab test, ``INV_DIR_ZERO`` where ``d == 0``."""
    d = np.asarray(directions, dtype=np.float64)
    with np.errstate(divide="ignore"):
        inv = 1.0 / d
    return np.where(d == 0.0, INV_DIR_ZERO, inv)


def intersect_ray_triangle(o, d, v0, e1, e2, t_max):
    """Vectorised two-sided Möller–Trumbore in the fixed operation order.

    Args:
        o: Ray origins [m], float64 [n, 3].
        d: Unit ray directions, float64 [n, 3].
        v0, e1, e2: Triangle first vertex and edges [m], float64 [n, 3].
        t_max: Largest accepted ray parameter [m], scalar or float64 [n].

    Returns:
        ``(hit, t)``: bool [n] and float64 [n] (``t`` meaningful only where ``hit``).
    """
    ox, oy, oz = o[:, 0], o[:, 1], o[:, 2]
    dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
    e1x, e1y, e1z = e1[:, 0], e1[:, 1], e1[:, 2]
    e2x, e2y, e2z = e2[:, 0], e2[:, 1], e2[:, 2]
    px = dy * e2z - dz * e2y
    py = dz * e2x - dx * e2z
    pz = dx * e2y - dy * e2x
    det = (e1x * px + e1y * py) + e1z * pz
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = 1.0 / det
        sx = ox - v0[:, 0]
        sy = oy - v0[:, 1]
        sz = oz - v0[:, 2]
        u = ((sx * px + sy * py) + sz * pz) * inv
        qx = sy * e1z - sz * e1y
        qy = sz * e1x - sx * e1z
        qz = sx * e1y - sy * e1x
        v = ((dx * qx + dy * qy) + dz * qz) * inv
        t = ((e2x * qx + e2y * qy) + e2z * qz) * inv
        hit = (
            (det != 0.0)
            & (u >= BARY_LO)
            & (u <= BARY_HI)
            & (v >= BARY_LO)
            & ((u + v) <= BARY_HI)
            & (t > 0.0)
            & (t <= t_max)
        )
    return hit, t


def intersect_ray_box(o, inv_d, bounds, t_best):
    """Vectorised slab test against padded boxes.

    Args:
        o: Ray origins [m], float64 [n, 3].
        inv_d: Inverse directions from :func:`inverse_directions`, float64 [n, 3].
        bounds: Boxes (min xyz, max xyz) [m], float64 [n, 6].
        t_best: Current best hit parameter per ray [m], float64 [n].

    Returns:
        bool [n]: whether the box may hold a hit no farther than ``t_best``.
    """
    t1x = (bounds[:, 0] - o[:, 0]) * inv_d[:, 0]
    t2x = (bounds[:, 3] - o[:, 0]) * inv_d[:, 0]
    t1y = (bounds[:, 1] - o[:, 1]) * inv_d[:, 1]
    t2y = (bounds[:, 4] - o[:, 1]) * inv_d[:, 1]
    t1z = (bounds[:, 2] - o[:, 2]) * inv_d[:, 2]
    t2z = (bounds[:, 5] - o[:, 2]) * inv_d[:, 2]
    near = np.maximum(np.maximum(np.minimum(t1x, t2x), np.minimum(t1y, t2y)), np.minimum(t1z, t2z))
    far = np.minimum(np.minimum(np.maximum(t1x, t2x), np.maximum(t1y, t2y)), np.maximum(t1z, t2z))
    return (near <= far) & (far >= 0.0) & (near <= t_best)


def _merge_candidates(best_t, best_inst, best_tri, ray, t, inst, tri) -> None:
    """Merges candidate hits into the per-ray best, lexicographic on (t, instance, triangle)."""
    if ray.size == 0:
        return
    order = np.lexsort((tri, inst, t, ray))
    ray, t, inst, tri = ray[order], t[order], inst[order], tri[order]
    first = np.ones(ray.shape[0], dtype=bool)
    first[1:] = ray[1:] != ray[:-1]
    ray, t, inst, tri = ray[first], t[first], inst[first], tri[first]
    bt, bi, btr = best_t[ray], best_inst[ray], best_tri[ray]
    better = (t < bt) | ((t == bt) & ((bi < 0) | (inst < bi) | ((inst == bi) & (tri < btr))))
    ray = ray[better]
    best_t[ray] = t[better]
    best_inst[ray] = inst[better]
    best_tri[ray] = tri[better]


def traverse_instance(
    prep: PreparedInstance,
    instance_index: int,
    o: np.ndarray,
    d: np.ndarray,
    inv_d: np.ndarray,
    rays: np.ndarray,
    t_max: float,
    best_t: np.ndarray,
    best_inst: np.ndarray,
    best_tri: np.ndarray,
) -> None:
    """Breadth-first wavefront traversal of one instance's BVH for the given rays.

    Merges each ray's candidates into ``best_*`` in place (the Warp twin,
    ``leviathan.kernels.trace.traverse_instance``, walks one ray at a time).
    """
    bvh = prep.bvh
    node_bounds, node_child, node_range, tri_order = (
        bvh.node_bounds,
        bvh.node_child,
        bvh.node_range,
        bvh.tri_order,
    )
    pair_ray = rays
    pair_node = np.zeros(rays.shape[0], dtype=np.int64)
    while pair_ray.size:
        keep = intersect_ray_box(
            o[pair_ray], inv_d[pair_ray], node_bounds[pair_node], best_t[pair_ray]
        )
        pair_ray = pair_ray[keep]
        pair_node = pair_node[keep]
        left = node_child[pair_node, 0]
        is_leaf = left < 0
        if np.any(is_leaf):
            leaf_ray = pair_ray[is_leaf]
            leaf_node = pair_node[is_leaf]
            first = node_range[leaf_node, 0].astype(np.int64)
            count = node_range[leaf_node, 1].astype(np.int64)
            total = int(count.sum())
            owner = np.repeat(np.arange(leaf_ray.shape[0]), count)
            offset = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
            tri = tri_order[first[owner] + offset].astype(np.int64)
            ray = leaf_ray[owner]
            hit, t = intersect_ray_triangle(
                o[ray], d[ray], prep.v0[tri], prep.e1[tri], prep.e2[tri], t_max
            )
            ray, t, tri = ray[hit], t[hit], tri[hit]
            inst = np.full(ray.shape[0], instance_index, dtype=np.int64)
            _merge_candidates(best_t, best_inst, best_tri, ray, t, inst, tri)
        inner = ~is_leaf
        if not np.any(inner):
            break
        inner_ray = pair_ray[inner]
        inner_node = pair_node[inner]
        pair_ray = np.concatenate([inner_ray, inner_ray])
        pair_node = np.concatenate([node_child[inner_node, 0], node_child[inner_node, 1]]).astype(
            np.int64
        )


def nearest_hits(
    prepared: PreparedScene, origins: np.ndarray, directions: np.ndarray, *, t_max: float
) -> TraceResult:
    """Nearest mesh hit per ray (instance culling, then BVH traversal).

    This is the stage the Warp backend accelerates (its twin is
    :func:`leviathan.kernels.nearest_hits`); it ignores the sea surface. Call it
    through :func:`leviathan.raycast.trace_rays` or :func:`~leviathan.raycast.trace_meshes`.

    Args:
        prepared: Prepared scene (:func:`leviathan.raycast.prepare_scene`).
        origins: Ray origins in world NED [m], float64 [ray_count, 3].
        directions: Unit ray directions in world NED, float64 [ray_count, 3].
        t_max: Largest ray parameter of interest [m]; farther hits are ignored.
    """
    o, d = check_rays(origins, directions)
    t_max = check_t_max(t_max)
    n = o.shape[0]
    inv_d = inverse_directions(d)
    best_t = np.full(n, float(t_max), dtype=np.float64)
    best_inst = np.full(n, -1, dtype=np.int64)
    best_tri = np.full(n, -1, dtype=np.int64)
    all_rays = np.arange(n, dtype=np.int64)
    for k, prep in enumerate(prepared.instances):
        # Instance culling: only rays whose padded instance box is reachable.
        bounds = np.broadcast_to(prep.bounds, (n, 6))
        rays = all_rays[intersect_ray_box(o, inv_d, bounds, best_t)]
        if rays.size:
            traverse_instance(prep, k, o, d, inv_d, rays, t_max, best_t, best_inst, best_tri)
    t = np.where(best_inst >= 0, best_t, np.inf)
    return TraceResult(t=t, instance=best_inst.astype(np.int32), triangle=best_tri.astype(np.int32))


def nearest_hits_brute_force(
    prepared: PreparedScene, origins: np.ndarray, directions: np.ndarray, *, t_max: float
) -> TraceResult:
    """Every ray against every triangle (tests only; meshes only, no sea surface)."""
    o, d = check_rays(origins, directions)
    n = o.shape[0]
    best_t = np.full(n, float(t_max), dtype=np.float64)
    best_inst = np.full(n, -1, dtype=np.int64)
    best_tri = np.full(n, -1, dtype=np.int64)
    for k, prep in enumerate(prepared.instances):
        m = prep.triangle_count
        for start in range(0, m, 256):
            tri = np.arange(start, min(start + 256, m), dtype=np.int64)
            ray = np.repeat(np.arange(n, dtype=np.int64), tri.shape[0])
            tt = np.tile(tri, n)
            hit, t = intersect_ray_triangle(
                o[ray], d[ray], prep.v0[tt], prep.e1[tt], prep.e2[tt], t_max
            )
            ray, t, tt = ray[hit], t[hit], tt[hit]
            _merge_candidates(best_t, best_inst, best_tri, ray, t, np.full(ray.shape[0], k), tt)
    t = np.where(best_inst >= 0, best_t, np.inf)
    return TraceResult(t=t, instance=best_inst.astype(np.int32), triangle=best_tri.astype(np.int32))
