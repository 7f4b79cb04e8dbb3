"""The CPU tracing kernel with its BVH walk written as a native C++ snippet.

:func:`trace_instance_cpu` is :func:`leviathan.kernels.trace.trace_instance` with
:func:`~leviathan.kernels.trace.traverse_instance` replaced by :func:`walk_native`, the
same walk in C++ (``wp.func_native``): the same slab and Möller–Trumbore arithmetic in
the same written order, the same visiting order (nearer child first, ties left), the
same pop test and the same lexicographic ``(t, instance, triangle)`` tie rule, over the
same uploaded arrays read through their raw pointers. The snippet is compiled in this
module, whose options are the trace module's (``fuse_fp=False``: no contraction;
``fast_math=False``), so it rounds exactly as the Warp-language walk does. The tests
compare the two kernels bit for bit on rays reaching both slab tests (finite and
overflowing inverse directions) and the CPU trace against the reference.

Why: Warp's generated C++ for the walk spends about a fifth of its time on array
indexing (each access reloads its stride and wraps a negative index) and on copies of
loop-carried values; the snippet reads contiguous rows directly. Measured on 65,536 rays
of the bench sonar over a 10**6-triangle seabed, one thread, same run: 600-626 ns/ray
with the Warp-language walk, 466-488 with this one. CUDA keeps the Warp-language
kernel (one ray per thread; not measured here): the backend launches this one on the
CPU through :func:`leviathan.kernels.trace.launch_trace_instance`'s ``kernel``.
"""

from __future__ import annotations

import warp as wp

from leviathan._kernel_options import KERNEL_OPTIONS
from leviathan.kernels.trace import (
    BARY_HI,
    BARY_LO,
    STACK_CAPACITY,
    _InstanceBvh,
    box6d,
    enters_instance,
    tri9d,
)

wp.set_module_options(KERNEL_OPTIONS)

__all__ = ["trace_instance_cpu", "walk_native"]

# The walk of traverse_instance, line for line; SMALLER/LARGER are kernels.trace's
# smaller/larger (NaN-propagating, ``a`` first), their _FINITE forms smaller_finite and
# larger_finite, chosen per ray by ``finite`` as traverse_instance's finite_inv does.
_WALK = r"""
#define LEV_SMALLER_FINITE(a, b) ((b) < (a) ? (b) : (a))
#define LEV_LARGER_FINITE(a, b) ((b) > (a) ? (b) : (a))
#define LEV_SMALLER(a, b) ((a) != (a) ? (a) : ((b) < (a) ? (b) : ((b) != (b) ? (b) : (a))))
#define LEV_LARGER(a, b) ((a) != (a) ? (a) : ((b) > (a) ? (b) : ((b) != (b) ? (b) : (a))))
const double* boxes = (const double*)node_box.data;
const int* child = (const int*)node_child.data;
const int* ranges = (const int*)node_range.data;
const double* tris = (const double*)tri_data.data;
const int* ids = (const int*)tri_id.data;
const double ox = o[0], oy = o[1], oz = o[2];
const double dx = d[0], dy = d[1], dz = d[2];
const double ix = inv_d[0], iy = inv_d[1], iz = inv_d[2];
double bt = best_t.data[r];
int bi = best_instance.data[r];
int btr = best_triangle.data[r];
int stack[STACK_CAPACITY];
double stack_near[STACK_CAPACITY];
int top = 0;
int node = 0;
bool visit = true;
while (visit) {
    const int left = child[node];
    if (left < 0) {
        // Leaf: intersect_ray_triangle on each of its triangles, then the tie rule.
        const int first = ranges[2 * node];
        const int end = first + ranges[2 * node + 1];
        for (int k = first; k < end; ++k) {
            const double* tri = tris + 9 * (long long)k;
            const double px = dy * tri[8] - dz * tri[7];
            const double py = dz * tri[6] - dx * tri[8];
            const double pz = dx * tri[7] - dy * tri[6];
            const double det = (tri[3] * px + tri[4] * py) + tri[5] * pz;
            if (det == 0.0) continue;
            const double inv = 1.0 / det;
            const double sx = ox - tri[0];
            const double sy = oy - tri[1];
            const double sz = oz - tri[2];
            const double u = ((sx * px + sy * py) + sz * pz) * inv;
            if (!(u >= bary_lo && u <= bary_hi)) continue;
            const double qx = sy * tri[5] - sz * tri[4];
            const double qy = sz * tri[3] - sx * tri[5];
            const double qz = sx * tri[4] - sy * tri[3];
            const double v = ((dx * qx + dy * qy) + dz * qz) * inv;
            if (!(v >= bary_lo && (u + v) <= bary_hi)) continue;
            const double t = ((tri[6] * qx + tri[7] * qy) + tri[8] * qz) * inv;
            if (!((t > 0.0) && (t <= t_max))) continue;
            const int id = ids[k];
            bool better = t < bt;
            if (t == bt) {
                if (bi < 0 || instance_index < bi) better = true;
                else if (instance_index == bi && id < btr) better = true;
            }
            if (better) { bt = t; bi = instance_index; btr = id; }
        }
        visit = false;
    } else {
        // Inner node: intersect_ray_box(_finite) on both children, nearer first.
        const double* bl = boxes + 6 * (long long)left;
        const double* br = bl + 6;
        const double lx1 = (bl[0] - ox) * ix, lx2 = (bl[3] - ox) * ix;
        const double ly1 = (bl[1] - oy) * iy, ly2 = (bl[4] - oy) * iy;
        const double lz1 = (bl[2] - oz) * iz, lz2 = (bl[5] - oz) * iz;
        const double rx1 = (br[0] - ox) * ix, rx2 = (br[3] - ox) * ix;
        const double ry1 = (br[1] - oy) * iy, ry2 = (br[4] - oy) * iy;
        const double rz1 = (br[2] - oz) * iz, rz2 = (br[5] - oz) * iz;
        double near_l, far_l, near_r, far_r;
        if (finite) {
            near_l = LEV_LARGER_FINITE(LEV_LARGER_FINITE(LEV_SMALLER_FINITE(lx1, lx2),
                LEV_SMALLER_FINITE(ly1, ly2)), LEV_SMALLER_FINITE(lz1, lz2));
            far_l = LEV_SMALLER_FINITE(LEV_SMALLER_FINITE(LEV_LARGER_FINITE(lx1, lx2),
                LEV_LARGER_FINITE(ly1, ly2)), LEV_LARGER_FINITE(lz1, lz2));
            near_r = LEV_LARGER_FINITE(LEV_LARGER_FINITE(LEV_SMALLER_FINITE(rx1, rx2),
                LEV_SMALLER_FINITE(ry1, ry2)), LEV_SMALLER_FINITE(rz1, rz2));
            far_r = LEV_SMALLER_FINITE(LEV_SMALLER_FINITE(LEV_LARGER_FINITE(rx1, rx2),
                LEV_LARGER_FINITE(ry1, ry2)), LEV_LARGER_FINITE(rz1, rz2));
        } else {
            near_l = LEV_LARGER(LEV_LARGER(LEV_SMALLER(lx1, lx2), LEV_SMALLER(ly1, ly2)),
                LEV_SMALLER(lz1, lz2));
            far_l = LEV_SMALLER(LEV_SMALLER(LEV_LARGER(lx1, lx2), LEV_LARGER(ly1, ly2)),
                LEV_LARGER(lz1, lz2));
            near_r = LEV_LARGER(LEV_LARGER(LEV_SMALLER(rx1, rx2), LEV_SMALLER(ry1, ry2)),
                LEV_SMALLER(rz1, rz2));
            far_r = LEV_SMALLER(LEV_SMALLER(LEV_LARGER(rx1, rx2), LEV_LARGER(ry1, ry2)),
                LEV_LARGER(rz1, rz2));
        }
        const bool hit_l = (near_l <= far_l) && (far_l >= 0.0) && (near_l <= bt);
        const bool hit_r = (near_r <= far_r) && (far_r >= 0.0) && (near_r <= bt);
        if (hit_l && hit_r) {
            if (near_r < near_l) { stack[top] = left; stack_near[top] = near_l; node = left + 1; }
            else { stack[top] = left + 1; stack_near[top] = near_r; node = left; }
            ++top;
        } else if (hit_l) {
            node = left;
        } else if (hit_r) {
            node = left + 1;
        } else {
            visit = false;
        }
    }
    // Pop the next pending node whose box can still hold a hit no farther than bt.
    while (!visit && top > 0) {
        --top;
        if (stack_near[top] <= bt) { node = stack[top]; visit = true; }
    }
}
best_t.data[r] = bt;
best_instance.data[r] = bi;
best_triangle.data[r] = btr;
#undef LEV_SMALLER_FINITE
#undef LEV_LARGER_FINITE
#undef LEV_SMALLER
#undef LEV_LARGER
""".replace("STACK_CAPACITY", str(STACK_CAPACITY))


@wp.func_native(_WALK)
def walk_native(
    o: wp.vec3d,
    d: wp.vec3d,
    inv_d: wp.vec3d,
    finite: bool,
    t_max: wp.float64,
    bary_lo: wp.float64,
    bary_hi: wp.float64,
    instance_index: wp.int32,
    node_box: wp.array(dtype=box6d),
    node_child: wp.array(dtype=wp.int32),
    node_range: wp.array(dtype=wp.vec2i),
    tri_data: wp.array(dtype=tri9d),
    tri_id: wp.array(dtype=wp.int32),
    r: wp.int32,
    best_t: wp.array(dtype=wp.float64),
    best_instance: wp.array(dtype=wp.int32),
    best_triangle: wp.array(dtype=wp.int32),
):
    """:func:`leviathan.kernels.trace.traverse_instance` for ray ``r``, in C++: merges the
    instance's nearest hit into the ray's ``best_*`` slots (the uploaded arrays are
    contiguous, as :func:`leviathan.kernels.backend` makes them)."""
    ...


@wp.kernel
def trace_instance_cpu(
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
    """:func:`leviathan.kernels.trace.trace_instance` with the walk of :func:`walk_native`."""
    first = wp.tid() * rays_per_thread
    last = wp.min(first + rays_per_thread, ray_count)
    for r in range(first, last):
        o = origins[r]
        inv_d = inv_directions[r]
        visit, finite_inv = enters_instance(o, inv_d, bvh.node_box[0], best_t[r])
        if visit:
            walk_native(
                o,
                directions[r],
                inv_d,
                finite_inv,
                t_max,
                BARY_LO,
                BARY_HI,
                instance_index,
                bvh.node_box,
                bvh.node_child,
                bvh.node_range,
                bvh.tri_data,
                bvh.tri_id,
                r,
                best_t,
                best_instance,
                best_triangle,
            )
