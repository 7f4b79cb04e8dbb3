"""The BVH build compiled: Warp CPU kernels that make :func:`build_bvh`'s exact arrays.

:func:`leviathan.raycast.build_bvh` (numpy, level by level) stays the
definition; :func:`build_arrays` makes the same arrays with the same
operations in compiled code, which is what ``build_bvh`` runs by default when
Warp's CPU kernels load here (``tests/_raycast_stages/test_bvh_build_compiled.py``
compares the two bit for bit):

1. ``morton_codes``: one thread per triangle, the same float64 operations in
   the same order as :func:`leviathan._raycast_stages.bvh._morton_codes_of_columns`
   (``(min + max) * 0.5``, ``floor((c - lo) * scale)``, clipped, interleaved);
   the module compiles with ``fuse_fp=False``, so nothing is contracted.
2. ``stable_order``: one thread; an LSD radix sort (eight 8-bit passes), which
   is stable, so equal codes keep ascending triangle order as numpy's stable
   argsort does.
3. ``build_tree``: one thread; ranges split top-down in depth-first preorder
   with the reference's split rule (the highest differing bit of a range's
   first and last code, the middle where they are equal). Allocating each
   node's two children when the node is visited gives exactly the reference's
   depth-first, sibling-paired numbering (a left child's whole subtree before
   its right sibling's pair).
4. ``fit_boxes``: one thread; nodes in descending order (children have larger
   ids), leaf boxes the min/max of their triangles' boxes, inner ones of their
   children's, then padded by ``pad``. Min and max are exact whatever the
   order; where ``-0.0`` and ``0.0`` meet, the padded bound is ``∓pad`` either
   way, so it is the reference's.

Inputs must be finite (``build_bvh`` builds others with numpy).
"""

from __future__ import annotations

import numpy as np
import warp as wp

from leviathan._kernel_options import KERNEL_OPTIONS

wp.set_module_options(KERNEL_OPTIONS)

__all__ = ["STACK_CAPACITY", "build_arrays", "load"]

STACK_CAPACITY = 512
"""Ranges pending in ``build_tree`` at most (a tree is at most 63 + log2(n) deep)."""

_MORTON_MAX = float((1 << 21) - 1)


@wp.struct
class TriangleBounds:
    """Each triangle's axis-aligned box: ``tri_min`` and ``tri_max``, float64 [n, 3]."""

    tri_min: wp.array2d(dtype=wp.float64)
    tri_max: wp.array2d(dtype=wp.float64)


@wp.struct
class KeyedOrder:
    """One buffer of the radix sort: Morton ``keys`` and the triangle ``order`` they carry."""

    keys: wp.array(dtype=wp.uint64)
    order: wp.array(dtype=wp.int32)


@wp.struct
class Tree:
    """The nodes: ``node_child[n]`` the two children (-1, -1 for a leaf) and
    ``node_range[n]`` the first slot and count of the node's triangles, int32 [nodes, 2]."""

    node_child: wp.array2d(dtype=wp.int32)
    node_range: wp.array2d(dtype=wp.int32)


@wp.func
def spread_bits(v: wp.uint64) -> wp.uint64:
    x = v & wp.uint64(0x1FFFFF)
    x = (x | (x << wp.uint64(32))) & wp.uint64(0x1F00000000FFFF)
    x = (x | (x << wp.uint64(16))) & wp.uint64(0x1F0000FF0000FF)
    x = (x | (x << wp.uint64(8))) & wp.uint64(0x100F00F00F00F00F)
    x = (x | (x << wp.uint64(4))) & wp.uint64(0x10C30C30C30C30C3)
    x = (x | (x << wp.uint64(2))) & wp.uint64(0x1249249249249249)
    return x


@wp.func
def quantise(c: wp.float64, lo: wp.float64, scale: wp.float64) -> wp.uint64:
    q = wp.floor((c - lo) * scale)
    q = wp.min(wp.max(q, wp.float64(0.0)), wp.float64(_MORTON_MAX))
    return wp.uint64(q)


@wp.kernel
def morton_codes(
    bounds: TriangleBounds,
    lo: wp.array(dtype=wp.float64),
    scale: wp.array(dtype=wp.float64),
    codes: wp.array(dtype=wp.uint64),
):
    i = wp.tid()
    half = wp.float64(0.5)
    cx = (bounds.tri_min[i, 0] + bounds.tri_max[i, 0]) * half
    cy = (bounds.tri_min[i, 1] + bounds.tri_max[i, 1]) * half
    cz = (bounds.tri_min[i, 2] + bounds.tri_max[i, 2]) * half
    codes[i] = (
        (spread_bits(quantise(cx, lo[0], scale[0])) << wp.uint64(2))
        | (spread_bits(quantise(cy, lo[1], scale[1])) << wp.uint64(1))
        | spread_bits(quantise(cz, lo[2], scale[2]))
    )


@wp.func
def counting_pass(
    src: KeyedOrder,
    dst: KeyedOrder,
    counts: wp.array(dtype=wp.int32),
    n: wp.int32,
    shift: wp.uint64,
):
    # One stable counting-sort pass on the byte at ``shift``, src -> dst.
    for d in range(256):
        counts[d] = 0
    for i in range(n):
        d = wp.int32((src.keys[i] >> shift) & wp.uint64(255))
        counts[d] = counts[d] + 1
    total = wp.int32(0)
    for d in range(256):
        c = counts[d]
        counts[d] = total
        total = total + c
    for i in range(n):
        d = wp.int32((src.keys[i] >> shift) & wp.uint64(255))
        j = counts[d]
        counts[d] = j + 1
        dst.keys[j] = src.keys[i]
        dst.order[j] = src.order[i]


@wp.kernel
def stable_order(
    codes: wp.array(dtype=wp.uint64),
    a: KeyedOrder,
    b: KeyedOrder,
    counts: wp.array(dtype=wp.int32),
):
    # Eight stable counting passes, least significant byte first, a -> b -> a: the
    # result ends in a.
    n = codes.shape[0]
    for i in range(n):
        a.keys[i] = codes[i]
        a.order[i] = i
    for p in range(4):
        low = wp.uint64(16 * p)
        counting_pass(a, b, counts, n, low)
        counting_pass(b, a, counts, n, low + wp.uint64(8))


@wp.func
def highest_bit(x: wp.uint64) -> wp.uint64:
    h = wp.uint64(0)
    v = x
    while v > wp.uint64(1):
        v = v >> wp.uint64(1)
        h = h + wp.uint64(1)
    return h


@wp.func
def lower_bound(codes: wp.array(dtype=wp.uint64), a: wp.int32, b: wp.int32, key: wp.uint64):
    lo = a
    hi = b
    while lo < hi:
        mid = lo + (hi - lo) // wp.int32(2)
        if codes[mid] < key:
            lo = mid + wp.int32(1)
        else:
            hi = mid
    return lo


@wp.kernel
def build_tree(
    codes: wp.array(dtype=wp.uint64),
    leaf_size: wp.int32,
    tree: Tree,
    stack: wp.array2d(dtype=wp.int32),
    result: wp.array(dtype=wp.int32),
):
    # result[0]: node count; result[1]: 1 if the stack overflowed.
    top = wp.int32(0)
    stack[0, 0] = wp.int32(0)
    stack[0, 1] = wp.int32(0)
    stack[0, 2] = codes.shape[0]
    top = wp.int32(1)
    next_id = wp.int32(1)
    while top > wp.int32(0):
        top = top - wp.int32(1)
        node = stack[top, 0]
        a = stack[top, 1]
        b = stack[top, 2]
        tree.node_range[node, 0] = wp.int32(a)
        tree.node_range[node, 1] = wp.int32(b - a)
        if b - a > leaf_size:
            ca = codes[a]
            cb = codes[b - wp.int32(1)]
            diff = ca ^ cb
            pos = (a + b) // wp.int32(2)
            if diff != wp.uint64(0):
                h = highest_bit(diff)
                split_code = ((ca >> h) | wp.uint64(1)) << h
                pos = lower_bound(codes, a, b, split_code)
            pos = wp.min(wp.max(pos, a + wp.int32(1)), b - wp.int32(1))
            left = next_id
            next_id = next_id + wp.int32(2)
            tree.node_child[node, 0] = wp.int32(left)
            tree.node_child[node, 1] = wp.int32(left + wp.int32(1))
            if top + wp.int32(2) > wp.int32(stack.shape[0]):
                result[1] = wp.int32(1)
                return
            stack[top, 0] = left + wp.int32(1)
            stack[top, 1] = pos
            stack[top, 2] = b
            stack[top + wp.int32(1), 0] = left
            stack[top + wp.int32(1), 1] = a
            stack[top + wp.int32(1), 2] = pos
            top = top + wp.int32(2)
        else:
            tree.node_child[node, 0] = wp.int32(-1)
            tree.node_child[node, 1] = wp.int32(-1)
    result[0] = next_id


@wp.kernel
def fit_boxes(
    bounds: TriangleBounds,
    order: wp.array(dtype=wp.int32),
    tree: Tree,
    pad: wp.float64,
    box: wp.array2d(dtype=wp.float64),
    node_bounds: wp.array2d(dtype=wp.float64),
):
    # box holds the unpadded bounds; node_bounds the padded ones, one row per node.
    node_count = box.shape[0]
    for r in range(node_count):
        node = node_count - 1 - r
        left = tree.node_child[node, 0]
        x0 = wp.float64(0.0)
        y0 = wp.float64(0.0)
        z0 = wp.float64(0.0)
        x1 = wp.float64(0.0)
        y1 = wp.float64(0.0)
        z1 = wp.float64(0.0)
        if left < 0:
            start = tree.node_range[node, 0]
            t = order[start]
            x0 = bounds.tri_min[t, 0]
            y0 = bounds.tri_min[t, 1]
            z0 = bounds.tri_min[t, 2]
            x1 = bounds.tri_max[t, 0]
            y1 = bounds.tri_max[t, 1]
            z1 = bounds.tri_max[t, 2]
            for j in range(1, tree.node_range[node, 1]):
                t = order[start + j]
                x0 = wp.min(x0, bounds.tri_min[t, 0])
                y0 = wp.min(y0, bounds.tri_min[t, 1])
                z0 = wp.min(z0, bounds.tri_min[t, 2])
                x1 = wp.max(x1, bounds.tri_max[t, 0])
                y1 = wp.max(y1, bounds.tri_max[t, 1])
                z1 = wp.max(z1, bounds.tri_max[t, 2])
        else:
            right = tree.node_child[node, 1]
            x0 = wp.min(box[left, 0], box[right, 0])
            y0 = wp.min(box[left, 1], box[right, 1])
            z0 = wp.min(box[left, 2], box[right, 2])
            x1 = wp.max(box[left, 3], box[right, 3])
            y1 = wp.max(box[left, 4], box[right, 4])
            z1 = wp.max(box[left, 5], box[right, 5])
        box[node, 0] = x0
        box[node, 1] = y0
        box[node, 2] = z0
        box[node, 3] = x1
        box[node, 4] = y1
        box[node, 5] = z1
        node_bounds[node, 0] = x0 - pad
        node_bounds[node, 1] = y0 - pad
        node_bounds[node, 2] = z0 - pad
        node_bounds[node, 3] = x1 + pad
        node_bounds[node, 4] = y1 + pad
        node_bounds[node, 5] = z1 + pad


_loaded: list[bool] = []


def load() -> None:
    """Compiles (or loads from Warp's kernel cache) these kernels for the CPU, once."""
    if _loaded:
        return
    from leviathan._warp_output import init_warp, quiet_warp

    init_warp()
    with quiet_warp():
        wp.load_module(__name__, device="cpu")
    _loaded.append(True)


def build_arrays(
    tri_min: np.ndarray,
    tri_max: np.ndarray,
    lo: np.ndarray,
    scale: np.ndarray,
    pad: float,
    leaf_size: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(node_bounds, node_child, node_range, tri_order)`` of the tree, on the CPU.

    ``lo``, ``scale`` and ``pad`` are the reference's own host values (exact
    reductions of the input), so the kernels only repeat its per-element work.
    """
    load()
    n = int(tri_min.shape[0])
    cpu = "cpu"
    triangles = TriangleBounds()
    triangles.tri_min = wp.array(tri_min, dtype=wp.float64, device=cpu)
    triangles.tri_max = wp.array(tri_max, dtype=wp.float64, device=cpu)
    codes = wp.empty(n, dtype=wp.uint64, device=cpu)
    wp.launch(
        morton_codes,
        dim=n,
        inputs=[
            triangles,
            wp.array(lo, dtype=wp.float64, device=cpu),
            wp.array(scale, dtype=wp.float64, device=cpu),
            codes,
        ],
        device=cpu,
    )
    a, b = KeyedOrder(), KeyedOrder()
    for buffer in (a, b):
        buffer.keys = wp.empty(n, dtype=wp.uint64, device=cpu)
        buffer.order = wp.empty(n, dtype=wp.int32, device=cpu)
    counts = wp.empty(256, dtype=wp.int32, device=cpu)
    wp.launch(stable_order, dim=1, inputs=[codes, a, b, counts], device=cpu)
    capacity = max(2 * n - 1, 1)
    tree = Tree()
    tree.node_child = wp.empty((capacity, 2), dtype=wp.int32, device=cpu)
    tree.node_range = wp.empty((capacity, 2), dtype=wp.int32, device=cpu)
    stack = wp.empty((STACK_CAPACITY, 3), dtype=wp.int32, device=cpu)
    result = wp.zeros(2, dtype=wp.int32, device=cpu)
    wp.launch(
        build_tree,
        dim=1,
        inputs=[a.keys, wp.int32(leaf_size), tree, stack, result],
        device=cpu,
    )
    node_count, overflow = (int(v) for v in result.numpy())
    if overflow:
        raise RuntimeError(
            f"BVH build: more than {STACK_CAPACITY} pending ranges; the tree is deeper than a "
            "63-bit Morton tree can be"
        )
    box = wp.empty((node_count, 6), dtype=wp.float64, device=cpu)
    bounds = wp.empty((node_count, 6), dtype=wp.float64, device=cpu)
    wp.launch(
        fit_boxes,
        dim=1,
        inputs=[triangles, a.order, tree, wp.float64(pad), box, bounds],
        device=cpu,
    )
    return (
        np.ascontiguousarray(bounds.numpy()),
        np.ascontiguousarray(tree.node_child.numpy()[:node_count]),
        np.ascontiguousarray(tree.node_range.numpy()[:node_count]),
        np.ascontiguousarray(a.order.numpy()),
    )
