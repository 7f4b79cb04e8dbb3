"""Warp tracing stage: nearest mesh hit of each ray, in float64 on the device.

Mirrors :mod:`leviathan.reference_cpu.trace` function by function, with the
same arithmetic in the same written order (see that module's docstring for
the formulas). The module compiles with ``fuse_fp=False`` (no FMA
contraction; CUDA gets ``--fmad=false``) and ``fast_math=False`` (IEEE
division, no reassociation), so every ``+``, ``-``, ``*`` and ``/`` below
rounds exactly as numpy's does. Constants are typed ``wp.float64`` module
constants: a bare literal in a kernel would be float32.

One launch traces every ray against one instance; each thread owns its rays'
slots in the ``best_*`` arrays (one ray on CUDA, a run of consecutive rays on
the CPU). Instances are launched in index order, so the culling bound
``best_t`` evolves exactly as the reference's per-instance loop lets it. No
atomics are used. Traversal is a stack walk that visits the nearer child
first and re-checks a popped node against the current best: traversal order
only changes how much is culled, never the answer, because the answer is the
exact lexicographic minimum of ``(t, instance, triangle)`` and the padded
boxes are conservative.

Single precision is deliberately not offered: float32 ray/triangle arithmetic
is not bit-identical across platforms, so exact dominance ties and the choice
of triangle at a shared edge would depend on the machine.
"""

from __future__ import annotations

import warp as wp

from leviathan._kernel_options import KERNEL_OPTIONS
from leviathan.reference_cpu.trace import BARY_HI as _BARY_HI
from leviathan.reference_cpu.trace import BARY_LO as _BARY_LO
from leviathan.reference_cpu.trace import INV_DIR_ZERO as _INV_DIR_ZERO

wp.set_module_options(KERNEL_OPTIONS)

__all__ = [
    "BARY_HI",
    "BARY_LO",
    "INV_DIR_ZERO",
    "STACK_CAPACITY",
    "box6d",
    "enters_instance",
    "intersect_ray_box",
    "intersect_ray_box_finite",
    "intersect_ray_triangle",
    "inverse_direction",
    "inverse_directions",
    "is_finite3",
    "larger",
    "larger_finite",
    "launch_inverse_directions",
    "launch_seed_sea_surface",
    "launch_trace_instance",
    "seed_sea_surface",
    "smaller",
    "smaller_finite",
    "trace_instance",
    "traverse_instance",
    "tri9d",
]

#: Traversal stack slots per thread. The nearer-child-first walk pushes at
#: most one node per inner level, so a BVH of depth D needs D slots. The
#: shared builder never goes deeper than 94: each Morton split lengthens the
#: common code prefix by at least one of its 63 bits, and ranges of equal
#: codes are halved (at most 31 levels for int32 triangle counts). A deeper,
#: hand-made BVH is refused on upload.
STACK_CAPACITY = 96

BARY_LO = wp.constant(wp.float64(_BARY_LO))
BARY_HI = wp.constant(wp.float64(_BARY_HI))
INV_DIR_ZERO = wp.constant(wp.float64(_INV_DIR_ZERO))
ZERO = wp.constant(wp.float64(0.0))
ONE = wp.constant(wp.float64(1.0))

_stack_nodes = wp.types.vector(length=STACK_CAPACITY, dtype=wp.int32)
#: A padded node box (min x, min y, min z, max x, max y, max z) [m], as one 48-byte record.
box6d = wp.types.vector(length=6, dtype=wp.float64)

#: One triangle's v0, e1, e2 [m] as one 72-byte record.
tri9d = wp.types.vector(length=9, dtype=wp.float64)
_stack_near = wp.types.vector(length=STACK_CAPACITY, dtype=wp.float64)


@wp.struct
class _InstanceBvh:
    """One uploaded instance's BVH and leaf triangles, as the kernels see them.

    The fields are the arrays :mod:`leviathan.kernels.backend` uploads per instance,
    by the same names (the reference passes the ``PreparedInstance`` the same way):
    ``node_box[n]`` the padded box of node ``n``; ``node_child[n]`` its left child (the
    right one is ``left + 1``) or -1 for a leaf; ``node_range[n]`` a leaf's first slot
    and count in ``tri_data``, where the leaf triangles are stored contiguously in leaf
    order (``tri_data[k]`` is triangle ``tri_id[k]`` of the instance mesh).
    """

    node_box: wp.array(dtype=box6d)
    node_child: wp.array(dtype=wp.int32)
    node_range: wp.array(dtype=wp.vec2i)
    tri_data: wp.array(dtype=tri9d)
    tri_id: wp.array(dtype=wp.int32)


@wp.func(inline=True)
def smaller(a: wp.float64, b: wp.float64) -> wp.float64:
    """``numpy.minimum(a, b)``: the smaller value, or a NaN operand (``a`` first)."""
    return wp.where(a != a, a, wp.where(b < a, b, wp.where(b != b, b, a)))


@wp.func(inline=True)
def larger(a: wp.float64, b: wp.float64) -> wp.float64:
    """``numpy.maximum(a, b)``: the larger value, or a NaN operand (``a`` first)."""
    return wp.where(a != a, a, wp.where(b > a, b, wp.where(b != b, b, a)))


@wp.func(inline=True)
def smaller_finite(a: wp.float64, b: wp.float64) -> wp.float64:
    """:func:`smaller` for operands that are never NaN: one compare and a select."""
    return wp.where(b < a, b, a)


@wp.func(inline=True)
def larger_finite(a: wp.float64, b: wp.float64) -> wp.float64:
    """:func:`larger` for operands that are never NaN: one compare and a select."""
    return wp.where(b > a, b, a)


@wp.func(inline=True)
def inverse_direction(d: wp.vec3d) -> wp.vec3d:
    """Per-component ``1/d``, ``INV_DIR_ZERO`` where ``d == 0`` (as ``inverse_directions``)."""
    ix = INV_DIR_ZERO
    iy = INV_DIR_ZERO
    iz = INV_DIR_ZERO
    if d[0] != ZERO:
        ix = ONE / d[0]
    if d[1] != ZERO:
        iy = ONE / d[1]
    if d[2] != ZERO:
        iz = ONE / d[2]
    return wp.vec3d(ix, iy, iz)


@wp.func(inline=True)
def _slabs(o: wp.vec3d, inv_d: wp.vec3d, box: box6d):
    """Ray distances ``(t1x, t2x, t1y, t2y, t1z, t2z)`` to a box's min and max face planes.

    ``(face - o) * inv_d`` per axis, in the reference's order; both slab tests start here.
    """
    t1x = (box[0] - o[0]) * inv_d[0]
    t2x = (box[3] - o[0]) * inv_d[0]
    t1y = (box[1] - o[1]) * inv_d[1]
    t2y = (box[4] - o[1]) * inv_d[1]
    t1z = (box[2] - o[2]) * inv_d[2]
    t2z = (box[5] - o[2]) * inv_d[2]
    return t1x, t2x, t1y, t2y, t1z, t2z


@wp.func(inline=True)
def intersect_ray_box(o: wp.vec3d, inv_d: wp.vec3d, box: box6d, t_best: wp.float64):
    """Slab test on a padded box; returns ``(pass, near)`` (reference: ``intersect_ray_box``).

    A slab is NaN (0 x inf) only when a direction component is subnormal, so
    its inverse overflows, and the origin lies on a box face. Like numpy's
    ``minimum``/``maximum``, :func:`smaller`/:func:`larger` then propagate the
    NaN and the test fails. (``wp.min``/``wp.max`` follow C ``fmin``/``fmax``
    and would drop it.)
    """
    t1x, t2x, t1y, t2y, t1z, t2z = _slabs(o, inv_d, box)
    near = larger(larger(smaller(t1x, t2x), smaller(t1y, t2y)), smaller(t1z, t2z))
    far = smaller(smaller(larger(t1x, t2x), larger(t1y, t2y)), larger(t1z, t2z))
    return (near <= far) and (far >= ZERO) and (near <= t_best), near


@wp.func(inline=True)
def intersect_ray_box_finite(o: wp.vec3d, inv_d: wp.vec3d, box: box6d, t_best: wp.float64):
    """:func:`intersect_ray_box` for a ray whose ``inv_d`` is finite (no slab can be NaN).

    Same products in the same order; the NaN checks of the min/max are
    dropped, which is exact when no operand can be NaN. This is the hot path.
    """
    t1x, t2x, t1y, t2y, t1z, t2z = _slabs(o, inv_d, box)
    near = larger_finite(
        larger_finite(smaller_finite(t1x, t2x), smaller_finite(t1y, t2y)),
        smaller_finite(t1z, t2z),
    )
    far = smaller_finite(
        smaller_finite(larger_finite(t1x, t2x), larger_finite(t1y, t2y)),
        larger_finite(t1z, t2z),
    )
    return (near <= far) and (far >= ZERO) and (near <= t_best), near


@wp.func(inline=True)
def is_finite3(v: wp.vec3d) -> bool:
    """Whether no component of ``v`` is infinite or NaN."""
    big = wp.float64(1.7976931348623157e308)
    return wp.abs(v[0]) <= big and wp.abs(v[1]) <= big and wp.abs(v[2]) <= big


@wp.func(inline=True)
def intersect_ray_triangle(o: wp.vec3d, d: wp.vec3d, tri: tri9d, t_max: wp.float64):
    """Two-sided Möller–Trumbore; returns ``(hit, t)`` (reference: ``intersect_ray_triangle``).

    ``tri`` holds v0 (0..2), e1 (3..5) and e2 (6..8).
    """
    px = d[1] * tri[8] - d[2] * tri[7]
    py = d[2] * tri[6] - d[0] * tri[8]
    pz = d[0] * tri[7] - d[1] * tri[6]
    det = (tri[3] * px + tri[4] * py) + tri[5] * pz
    if det == ZERO:
        return False, ZERO
    inv = ONE / det
    sx = o[0] - tri[0]
    sy = o[1] - tri[1]
    sz = o[2] - tri[2]
    u = ((sx * px + sy * py) + sz * pz) * inv
    # Conditions written as the reference's accept tests, so a NaN rejects.
    if not (u >= BARY_LO and u <= BARY_HI):
        return False, ZERO
    qx = sy * tri[5] - sz * tri[4]
    qy = sz * tri[3] - sx * tri[5]
    qz = sx * tri[4] - sy * tri[3]
    v = ((d[0] * qx + d[1] * qy) + d[2] * qz) * inv
    if not (v >= BARY_LO and (u + v) <= BARY_HI):
        return False, ZERO
    t = ((tri[6] * qx + tri[7] * qy) + tri[8] * qz) * inv
    return (t > ZERO) and (t <= t_max), t


@wp.func(inline=True)
def traverse_instance(
    o: wp.vec3d,
    d: wp.vec3d,
    inv_d: wp.vec3d,
    finite_inv: bool,
    t_max: wp.float64,
    instance_index: wp.int32,
    bvh: _InstanceBvh,
    bt: wp.float64,
    bi: wp.int32,
    btr: wp.int32,
):
    """Walks one instance's BVH from its root; returns the updated ``(t, instance, triangle)``."""
    stack = _stack_nodes()
    stack_near = _stack_near()
    top = int(0)
    visit = bool(True)
    node = int(0)
    while visit:
        left = bvh.node_child[node]
        if left < 0:
            span = bvh.node_range[node]
            for k in range(span[0], span[0] + span[1]):
                hit, t = intersect_ray_triangle(o, d, bvh.tri_data[k], t_max)
                if hit:
                    tri = bvh.tri_id[k]
                    # Exact tie rule: lexicographic (t, instance, triangle).
                    better = t < bt
                    if t == bt:
                        if bi < 0 or instance_index < bi:
                            better = True
                        elif instance_index == bi and tri < btr:
                            better = True
                    if better:
                        bt = t
                        bi = instance_index
                        btr = tri
            visit = False
        else:
            right = left + 1
            box_l = bvh.node_box[left]
            box_r = bvh.node_box[right]
            hit_l = bool(False)
            hit_r = bool(False)
            near_l = ZERO
            near_r = ZERO
            if finite_inv:
                hit_l, near_l = intersect_ray_box_finite(o, inv_d, box_l, bt)
                hit_r, near_r = intersect_ray_box_finite(o, inv_d, box_r, bt)
            else:
                hit_l, near_l = intersect_ray_box(o, inv_d, box_l, bt)
                hit_r, near_r = intersect_ray_box(o, inv_d, box_r, bt)
            if hit_l and hit_r:
                # Nearer child first (ties: left first); the other waits on the stack.
                if near_r < near_l:
                    stack[top] = left
                    stack_near[top] = near_l
                    node = right
                else:
                    stack[top] = right
                    stack_near[top] = near_r
                    node = left
                top += 1
            elif hit_l:
                node = left
            elif hit_r:
                node = right
            else:
                visit = False
        # Pop the next pending node whose box can still hold a hit no farther than bt.
        while (not visit) and top > 0:
            top -= 1
            if stack_near[top] <= bt:
                node = stack[top]
                visit = True
    return bt, bi, btr


@wp.func(inline=True)
def enters_instance(o: wp.vec3d, inv_d: wp.vec3d, root: box6d, t_best: wp.float64):
    """Instance culling: whether the ray passes the instance's root box (its padded
    bounds), and whether its ``inv_d`` is finite, which picks the slab test here and in
    the walk (:func:`intersect_ray_box_finite` where no slab can be NaN)."""
    finite_inv = is_finite3(inv_d)
    visit = bool(False)
    if finite_inv:
        visit, _near = intersect_ray_box_finite(o, inv_d, root, t_best)
    else:
        visit, _near = intersect_ray_box(o, inv_d, root, t_best)
    return visit, finite_inv


@wp.kernel
def inverse_directions(directions: wp.array(dtype=wp.vec3d), inv_d: wp.array(dtype=wp.vec3d)):
    """Per-ray :func:`inverse_direction`, computed once per trace."""
    r = wp.tid()
    inv_d[r] = inverse_direction(directions[r])


@wp.kernel
def seed_sea_surface(
    origins: wp.array(dtype=wp.vec3d),
    directions: wp.array(dtype=wp.vec3d),
    t_max: wp.float64,
    sea_surface_instance: wp.int32,
    best_t: wp.array(dtype=wp.float64),
    best_instance: wp.array(dtype=wp.int32),
    best_triangle: wp.array(dtype=wp.int32),
    ray_count: wp.int32,
    rays_per_thread: wp.int32,
):
    """Makes the sea surface each ray's first candidate, before any mesh is traced.

    The plane ``z = 0`` as :func:`leviathan.raycast.intersect_sea_surface` tests it,
    ``t = (0 - oz) / dz``, a hit where ``dz != 0`` and ``0 < t <= t_max``: a hit
    becomes the ray's best ``(t, sea_surface_instance, 0)``. The sea surface's index
    is the scene's last, so under the traversal's lexicographic ``(t, instance,
    triangle)`` rule a mesh hit replaces it exactly where
    ``raycast._sea_surface.combine_with_sea_surface`` keeps the mesh: at a nearer or
    equal ``t``. Thread ``i`` owns the same run of rays as in :func:`trace_instance`.
    """
    first = wp.tid() * rays_per_thread
    last = wp.min(first + rays_per_thread, ray_count)
    for r in range(first, last):
        dz = directions[r][2]
        if dz != ZERO:
            t = (ZERO - origins[r][2]) / dz
            if t > ZERO and t <= t_max:
                best_t[r] = t
                best_instance[r] = sea_surface_instance
                best_triangle[r] = 0


@wp.kernel
def trace_instance(
    origins: wp.array(dtype=wp.vec3d),
    directions: wp.array(dtype=wp.vec3d),
    inv_directions: wp.array(dtype=wp.vec3d),
    t_max: wp.float64,
    instance_index: wp.int32,
    bvh: _InstanceBvh,
    best_t: wp.array(dtype=wp.float64),
    best_instance: wp.array(dtype=wp.int32),
    best_triangle: wp.array(dtype=wp.int32),
    ray_count: wp.int32,
    rays_per_thread: wp.int32,
):
    """Merges one instance's nearest hit into each ray's best.

    Thread ``i`` owns rays ``[i * rays_per_thread, (i + 1) * rays_per_thread)``
    and only their slots: 1 ray per thread on CUDA; on the CPU, where every
    thread pays a fixed entry cost, a run of consecutive rays. ``bvh`` is the
    instance's :class:`_InstanceBvh`.
    """
    first = wp.tid() * rays_per_thread
    last = wp.min(first + rays_per_thread, ray_count)
    for r in range(first, last):
        o = origins[r]
        inv_d = inv_directions[r]
        bt = best_t[r]
        visit, finite_inv = enters_instance(o, inv_d, bvh.node_box[0], bt)
        if visit:
            bi = best_instance[r]
            btr = best_triangle[r]
            bt, bi, btr = traverse_instance(
                o,
                directions[r],
                inv_d,
                finite_inv,
                t_max,
                instance_index,
                bvh,
                bt,
                bi,
                btr,
            )
            best_t[r] = bt
            best_instance[r] = bi
            best_triangle[r] = btr


def launch_inverse_directions(
    *, directions: wp.array, inv_directions: wp.array, device: str
) -> None:
    """Launches :func:`inverse_directions` over every ray."""
    wp.launch(
        inverse_directions,
        dim=directions.shape[0],
        inputs=[directions, inv_directions],
        device=device,
    )


def launch_seed_sea_surface(
    *,
    origins: wp.array,
    directions: wp.array,
    t_max: float,
    sea_surface_instance: int,
    best_t: wp.array,
    best_instance: wp.array,
    best_triangle: wp.array,
    rays_per_thread: int,
    device: str,
) -> None:
    """Launches :func:`seed_sea_surface` over every ray (before the instances)."""
    _launch_runs(
        seed_sea_surface,
        origins.shape[0],
        rays_per_thread,
        [origins, directions, wp.float64(t_max), wp.int32(sea_surface_instance)],
        [best_t, best_instance, best_triangle],
        device,
    )


def launch_trace_instance(
    *,
    origins: wp.array,
    directions: wp.array,
    inv_directions: wp.array,
    t_max: float,
    instance_index: int,
    arrays: dict[str, wp.array],
    best_t: wp.array,
    best_instance: wp.array,
    best_triangle: wp.array,
    rays_per_thread: int,
    device: str,
    kernel: wp.Kernel | None = None,
) -> None:
    """Launches :func:`trace_instance` over every ray for one uploaded instance.

    ``arrays`` holds the instance's uploaded arrays by :class:`_InstanceBvh`'s field names;
    ``kernel`` is another kernel of ``trace_instance``'s parameters to launch instead (the
    CPU's :func:`leviathan.kernels.trace_native.trace_instance_cpu`).
    """
    bvh = _InstanceBvh()
    for name in _InstanceBvh.vars:
        setattr(bvh, name, arrays[name])
    _launch_runs(
        trace_instance if kernel is None else kernel,
        origins.shape[0],
        rays_per_thread,
        [origins, directions, inv_directions, wp.float64(t_max), wp.int32(instance_index), bvh],
        [best_t, best_instance, best_triangle],
        device,
    )


def _launch_runs(kernel, ray_count: int, rays_per_thread: int, inputs, best, device: str) -> None:
    """Launches a kernel whose threads own runs of ``rays_per_thread`` rays: its ``inputs``,
    the ``best`` arrays, then the ray count and the run length, as its parameters end."""
    wp.launch(
        kernel,
        dim=(ray_count + rays_per_thread - 1) // rays_per_thread,
        inputs=[*inputs, *best, wp.int32(ray_count), wp.int32(rays_per_thread)],
        device=device,
    )
