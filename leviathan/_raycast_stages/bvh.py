"""Deterministic bounding-volume hierarchy over world-space triangles (numpy).

Part of scene preparation. The BVH is built on the host and shared by every backend: the reference
traverses these exact arrays in numpy and the Warp backend uploads them
unchanged. Identical input gives identical arrays, whatever the run.

Build (a linear BVH, Karras 2012 style, vectorised level by level):

1. Triangle centroids are quantised to 21 bits per axis over a cube with
   the instance's largest extent (the same cell size on every axis, so a
   flat seabed is split along its length and breadth, not its thin depth)
   and interleaved into 63-bit Morton codes.
2. Triangles are ordered by a *stable* sort of their codes, so equal codes
   keep ascending triangle order.
3. A node covering sorted range ``[a, b)`` with more than ``leaf_size``
   triangles splits where its first and last codes first differ (the highest
   differing bit); ranges whose codes are all equal split at the middle.
4. Leaf boxes are the exact min/max of their triangles' vertices; inner boxes
   are the exact min/max of their children. Every box is then padded outward
   by ``pad = 2**-24 * (1 + max|coordinate of the instance|)``.
5. Nodes are renumbered depth-first, two siblings at a time: the root is 0,
   a node's two children sit side by side (``right = left + 1``), and a left
   child's whole subtree is stored before its right sibling's. A ray that
   descends one subtree then reads memory that lies close together.

Padding keeps culling conservative: a box test can never reject a ray whose
nearest hit (as computed by the ray/triangle arithmetic) lies in that box,
because the ray/box and ray/triangle rounding errors are many orders of
magnitude below the pad for any ray origin within the scene's scale.

Node layout (all arrays C-contiguous):

* ``node_bounds``: float64 [node_count, 6] = (min x, min y, min z, max x, max y, max z), padded.
* ``node_child``: int32 [node_count, 2]: left and right child, or (-1, -1) for a leaf.
* ``node_range``: int32 [node_count, 2]: first position in ``tri_order`` and triangle count.
* ``tri_order``: int32 [triangle_count]: triangle index (into the instance mesh) at each
  leaf position; leaves cover contiguous runs of it.

Node 0 is the root; children always have larger indices than their parent.

Refit (:func:`refit_bvh`): a moving rigid mesh (a vehicle hull) keeps the tree
built once from its object-local triangles and gets new boxes at each pose:
step 4 and the pad over its world triangles, with the same ``tri_order``,
``node_child`` and ``node_range``. Only the boxes change, so the result of a
trace is the same as over a freshly built tree (see below).
The node order and the tree shape only decide how much culling saves: the
traced result is the exact nearest hit whatever the tree (see
:mod:`leviathan.reference_cpu.trace`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leviathan._fallback import usable_once

__all__ = [
    "BVH_PAD_RELATIVE",
    "COMPILED_MIN_TRIANGLES",
    "DEFAULT_LEAF_SIZE",
    "Bvh",
    "build_bvh",
    "morton_codes",
    "refit_bvh",
]

DEFAULT_LEAF_SIZE = 4
BVH_PAD_RELATIVE = 2.0**-24
_MORTON_BITS = 21


@dataclass(frozen=True, eq=False)
class Bvh:
    """Flat BVH arrays for one instance (see module docstring for the layout)."""

    __content_type__ = "leviathan.reference_cpu.bvh.Bvh"

    node_bounds: np.ndarray
    node_child: np.ndarray
    node_range: np.ndarray
    tri_order: np.ndarray
    pad: float
    leaf_size: int

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.node_child.shape[0])

    @property
    def depth(self) -> int:
        """Maximum root-to-leaf depth (root has depth 0)."""
        frontier = np.zeros(1, dtype=np.int64)
        depth = 0
        while True:
            left = self.node_child[frontier, 0]
            left = left[left >= 0].astype(np.int64)
            if left.size == 0:
                return depth
            frontier = np.concatenate([left, left + 1])
            depth += 1


def _spread_bits(x: np.ndarray) -> np.ndarray:
    """Spreads the low 21 bits of ``x`` so there are two zero bits between each."""
    x = x.astype(np.uint64) & np.uint64(0x1FFFFF)
    x = (x | (x << np.uint64(32))) & np.uint64(0x1F00000000FFFF)
    x = (x | (x << np.uint64(16))) & np.uint64(0x1F0000FF0000FF)
    x = (x | (x << np.uint64(8))) & np.uint64(0x100F00F00F00F00F)
    x = (x | (x << np.uint64(4))) & np.uint64(0x10C30C30C30C30C3)
    x = (x | (x << np.uint64(2))) & np.uint64(0x1249249249249249)
    return x


def morton_codes(points: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """63-bit Morton codes of ``points`` quantised over the box ``[lo, hi]``.

    Args:
        points: Points [m], shape [n, 3].
        lo: Box minimum, shape [3].
        hi: Box maximum, shape [3].

    Returns:
        uint64 codes, shape [n].
    """
    extent = hi - lo
    scale = np.where(
        extent > 0.0, float((1 << _MORTON_BITS) - 1) / np.where(extent > 0, extent, 1.0), 0.0
    )
    q = np.floor((points - lo) * scale)
    q = np.clip(q, 0.0, float((1 << _MORTON_BITS) - 1)).astype(np.uint64)
    return (
        (_spread_bits(q[:, 0]) << np.uint64(2))
        | (_spread_bits(q[:, 1]) << np.uint64(1))
        | _spread_bits(q[:, 2])
    )


def _morton_scale(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Quantisation scale per axis over the box ``[lo, hi]`` (0 where it is flat)."""
    extent = hi - lo
    return np.where(
        extent > 0.0, float((1 << _MORTON_BITS) - 1) / np.where(extent > 0, extent, 1.0), 0.0
    )


def _morton_codes_of_columns(
    columns: list[np.ndarray], lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    """:func:`morton_codes` of points given as three [n] coordinate columns (same codes)."""
    scale = _morton_scale(lo, hi)
    codes = np.zeros(columns[0].shape[0], dtype=np.uint64)
    for a, shift in ((0, 2), (1, 1), (2, 0)):
        q = np.floor((columns[a] - lo[a]) * scale[a])
        q = np.clip(q, 0.0, float((1 << _MORTON_BITS) - 1)).astype(np.uint64)
        codes |= _spread_bits(q) << np.uint64(shift)
    return codes


def _highest_bit(x: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each positive uint64 (vectorised, exact)."""
    x = x.astype(np.uint64)
    h = np.zeros(x.shape, dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        s = np.uint64(shift)
        big = (x >> s) != 0
        x = np.where(big, x >> s, x)
        h += np.where(big, shift, 0)
    return h


def _depth_first_ids(node_child: np.ndarray, levels: list[np.ndarray]) -> np.ndarray:
    """Depth-first, sibling-paired numbering of a BVH given level by level (root first).

    A node whose children's pair starts at ``c`` puts its left child at ``c``
    and its right child at ``c + 1``; the left child's own pair then starts
    at ``c + 2`` and the right child's after the left child's whole subtree.
    """
    node_count = node_child.shape[0]
    left = node_child[:, 0].astype(np.int64)
    size = np.ones(node_count, dtype=np.int64)
    for ids in reversed(levels):
        inner = ids[left[ids] >= 0]
        size[inner] = 1 + size[left[inner]] + size[left[inner] + 1]
    new_id = np.zeros(node_count, dtype=np.int64)
    pair_start = np.zeros(node_count, dtype=np.int64)
    pair_start[0] = 1
    for ids in levels:
        inner = ids[left[ids] >= 0]
        lc = left[inner]
        start = pair_start[inner]
        new_id[lc] = start
        new_id[lc + 1] = start + 1
        pair_start[lc] = start + 2
        pair_start[lc + 1] = start + 2 + (size[lc] - 1)
    return new_id


def _depth_first(
    node_child: np.ndarray, starts: list[np.ndarray], firsts_of_level: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Depth-first renumbering (step 5) of the level-order tree of :func:`_split_levels`.

    Returns:
        ``old_id``, the level-order id of each node in depth-first order, int64
        [node_count], and ``node_child`` in that order with depth-first ids (-1 where a
        leaf), int32 [node_count, 2].
    """
    levels = [np.arange(f, f + st.shape[0]) for f, st in zip(firsts_of_level, starts, strict=True)]
    new_id = _depth_first_ids(node_child, levels)
    old_id = np.empty_like(new_id)
    old_id[new_id] = np.arange(new_id.shape[0], dtype=np.int64)
    child_old = node_child[old_id].astype(np.int64)
    child = np.where(child_old >= 0, new_id[np.maximum(child_old, 0)], -1).astype(np.int32)
    return old_id, child


def _split_levels(codes: np.ndarray, leaf_size: int) -> tuple[list, list, list, list]:
    """Level-by-level split of the sorted Morton ``codes``' ranges into ranges of at most
    ``leaf_size``. Each level's nodes are numbered consecutively after the previous level's,
    children in pairs.

    Returns:
        ``(starts, ends, child_parts, firsts_of_level)``, lists with one entry per level:
        the int64 arrays of each node's first and end index into ``codes`` and of its two
        children (-1 for a leaf), and the number of the level's first node.
    """
    starts = [np.array([0], dtype=np.int64)]
    ends = [np.array([codes.shape[0]], dtype=np.int64)]
    firsts_of_level = [0]
    child_parts = []
    total = 1
    while True:
        a, b = starts[-1], ends[-1]
        split = (b - a) > leaf_size
        child = np.full((a.shape[0], 2), -1, dtype=np.int64)
        if not np.any(split):
            child_parts.append(child)
            break
        sa, sb = a[split], b[split]
        ca, cb = codes[sa], codes[sb - 1]
        diff = ca ^ cb
        mid = (sa + sb) // 2
        has_diff = diff != 0
        h = _highest_bit(np.where(has_diff, diff, np.uint64(1)))
        prefix = (ca >> h.astype(np.uint64)) | np.uint64(1)
        split_code = prefix << h.astype(np.uint64)
        pos = np.searchsorted(codes, split_code, side="left").astype(np.int64)
        pos = np.where(has_diff, pos, mid)
        # Guard: a Morton split always lies strictly inside the range.
        pos = np.clip(pos, sa + 1, sb - 1)
        k = np.arange(sa.shape[0], dtype=np.int64)
        left_ids = total + 2 * k
        child[split, 0] = left_ids
        child[split, 1] = left_ids + 1
        child_parts.append(child)
        new_starts = np.empty(2 * sa.shape[0], dtype=np.int64)
        new_ends = np.empty(2 * sa.shape[0], dtype=np.int64)
        new_starts[0::2], new_ends[0::2] = sa, pos
        new_starts[1::2], new_ends[1::2] = pos, sb
        firsts_of_level.append(total)
        total += new_starts.shape[0]
        starts.append(new_starts)
        ends.append(new_ends)
    return starts, ends, child_parts, firsts_of_level


def _build_inputs(
    tri_min: np.ndarray, tri_max: np.ndarray, leaf_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`build_bvh`'s triangle boxes as contiguous float64, once its inputs are checked."""
    if leaf_size < 1:
        raise ValueError(f"leaf_size: expected an integer >= 1, got {leaf_size}")
    tri_min = np.ascontiguousarray(tri_min, dtype=np.float64)
    tri_max = np.ascontiguousarray(tri_max, dtype=np.float64)
    if tri_min.shape[0] == 0:
        raise ValueError("tri_min: a BVH needs at least one triangle")
    return tri_min, tri_max


def _pad(tri_min: np.ndarray, tri_max: np.ndarray) -> float:
    """The margin every box is widened by: ``2**-24 * (1 + max|coordinate|)`` [m]."""
    magnitude = max(float(np.max(np.abs(tri_min))), float(np.max(np.abs(tri_max))))
    return BVH_PAD_RELATIVE * (1.0 + magnitude)


def build_bvh(
    tri_min: np.ndarray,
    tri_max: np.ndarray,
    *,
    leaf_size: int = DEFAULT_LEAF_SIZE,
    compiled: bool | None = None,
) -> Bvh:
    """Builds the BVH of one instance from its triangles' bounding boxes.

    Args:
        tri_min: Per-triangle minimum corner in world NED [m], shape [triangle_count, 3].
        tri_max: Per-triangle maximum corner [m], shape [triangle_count, 3].
        leaf_size: Maximum triangles per leaf (>= 1).
        compiled: ``False``: this module's numpy build, the definition. ``True``: the
            same arrays from Warp CPU kernels (:mod:`leviathan._raycast_stages._bvh_compiled`).
            ``None`` (default): compiled for finite inputs of at least
            :data:`COMPILED_MIN_TRIANGLES` triangles when Warp's CPU kernels load here,
            numpy otherwise.

    Returns:
        The flat BVH arrays.
    """
    tri_min, tri_max = _build_inputs(tri_min, tri_max, leaf_size)
    n = tri_min.shape[0]
    if compiled is None:
        compiled = (
            n >= COMPILED_MIN_TRIANGLES
            and bool(np.isfinite(tri_min).all() and np.isfinite(tri_max).all())
            and _compiled_usable()
        )
    if compiled:
        return _build_compiled(tri_min, tri_max, leaf_size)

    # Axis by axis over contiguous columns: reductions and gathers over [n, 3] rows
    # are several times slower in numpy than over [n] columns (same values: min and
    # max are exact, and every element-wise operation is the same one).
    min_cols = np.ascontiguousarray(tri_min.T)
    max_cols = np.ascontiguousarray(tri_max.T)
    lo = np.array([min_cols[a].min() for a in range(3)], dtype=np.float64)
    hi = np.array([max_cols[a].max() for a in range(3)], dtype=np.float64)
    cube_hi = lo + float(np.max(hi - lo))
    codes = _morton_codes_of_columns(
        [(min_cols[a] + max_cols[a]) * 0.5 for a in range(3)], lo, cube_hi
    )
    order = np.argsort(codes, kind="stable")
    codes = codes[order]

    starts, ends, child_parts, firsts_of_level = _split_levels(codes, leaf_size)

    node_start = np.concatenate(starts)
    node_end = np.concatenate(ends)
    node_child = np.concatenate(child_parts).astype(np.int32)
    node_count = node_start.shape[0]

    old_id, depth_first_child = _depth_first(node_child, starts, firsts_of_level)

    leaf = node_child[:, 0] < 0
    leaf_ids = np.nonzero(leaf)[0]
    # Leaves: exact min/max over their contiguous run (reduceat is exact for min/max).
    leaf_order = np.argsort(node_start[leaf_ids], kind="stable")
    leaf_ids_sorted = leaf_ids[leaf_order]
    seg = node_start[leaf_ids_sorted]
    inner_levels = []
    for level in range(len(firsts_of_level) - 1, -1, -1):
        first = firsts_of_level[level]
        ids = np.arange(first, first + starts[level].shape[0])
        inner = ids[node_child[ids, 0] >= 0]
        if inner.size:
            inner_levels.append(
                (
                    inner,
                    node_child[inner, 0].astype(np.int64),
                    node_child[inner, 1].astype(np.int64),
                )
            )
    pad = _pad(tri_min, tri_max)
    node_bounds = np.empty((node_count, 6), dtype=np.float64)
    for a in range(3):
        for cols, reduce, both, column in (
            (min_cols, np.minimum.reduceat, np.minimum, a),
            (max_cols, np.maximum.reduceat, np.maximum, a + 3),
        ):
            box = np.empty(node_count, dtype=np.float64)
            box[leaf_ids_sorted] = reduce(cols[a][order], seg)
            # Inner nodes bottom-up, one level at a time (children live in later levels).
            for inner, left, right in inner_levels:
                box[inner] = both(box[left], box[right])
            node_bounds[:, column] = (box - pad if column < 3 else box + pad)[old_id]
    node_range = np.stack([node_start, node_end - node_start], axis=1).astype(np.int32)

    node_range = node_range[old_id]
    return Bvh(
        node_bounds=np.ascontiguousarray(node_bounds),
        node_child=np.ascontiguousarray(depth_first_child),
        node_range=np.ascontiguousarray(node_range),
        tri_order=np.ascontiguousarray(order.astype(np.int32)),
        pad=pad,
        leaf_size=leaf_size,
    )


COMPILED_MIN_TRIANGLES = 4096
"""Below this many triangles the numpy build is as quick as a kernel launch."""

_compiled_failure: list[str] = []


def _compiled_usable() -> bool:
    """Whether the compiled build loads here; if not, numpy builds, said once in the log."""
    return usable_once(
        _compiled_failure,
        _load_compiled,
        "compiled BVH build unavailable (%s); the numpy build is used (same arrays)",
    )


def _load_compiled() -> None:
    from leviathan._raycast_stages import _bvh_compiled

    _bvh_compiled.load()


def _build_compiled(tri_min: np.ndarray, tri_max: np.ndarray, leaf_size: int) -> Bvh:
    """:func:`build_bvh`'s arrays from the Warp CPU kernels, from the same host values."""
    from leviathan._raycast_stages import _bvh_compiled

    lo = np.array([tri_min[:, a].min() for a in range(3)], dtype=np.float64)
    hi = np.array([tri_max[:, a].max() for a in range(3)], dtype=np.float64)
    cube_hi = lo + float(np.max(hi - lo))
    pad = _pad(tri_min, tri_max)
    bounds, child, ranges, order = _bvh_compiled.build_arrays(
        tri_min, tri_max, lo, _morton_scale(lo, cube_hi), pad, leaf_size
    )
    return Bvh(
        node_bounds=bounds,
        node_child=child,
        node_range=ranges,
        tri_order=order,
        pad=pad,
        leaf_size=leaf_size,
    )


def _levels(node_child: np.ndarray) -> list[np.ndarray]:
    """Node ids level by level from the root (children of level k form level k + 1)."""
    levels = []
    frontier = np.zeros(1, dtype=np.int64)
    while frontier.size:
        levels.append(frontier)
        left = node_child[frontier, 0].astype(np.int64)
        left = left[left >= 0]
        frontier = np.concatenate([left, left + 1])
    return levels


def refit_bvh(bvh: Bvh, tri_min: np.ndarray, tri_max: np.ndarray) -> Bvh:
    """The same tree with boxes recomputed for moved triangles (no rebuild).

    Leaf boxes are the exact min/max of their triangles' boxes, inner boxes the
    exact min/max of their children's, then every box is padded by
    ``2**-24 * (1 + max|coordinate|)`` of the new triangles, exactly as
    :func:`build_bvh` pads; the topology (``node_child``, ``node_range``,
    ``tri_order``) is shared with ``bvh``.

    Args:
        bvh: A tree built by :func:`build_bvh` over the same triangles in another pose.
        tri_min: Per-triangle minimum corner in world NED [m], shape [triangle_count, 3].
        tri_max: Per-triangle maximum corner [m], shape [triangle_count, 3].

    Returns:
        The refitted BVH.

    Raises:
        ValueError: If the triangle count is not the tree's.
    """
    tri_min = np.ascontiguousarray(tri_min, dtype=np.float64)
    tri_max = np.ascontiguousarray(tri_max, dtype=np.float64)
    n = int(bvh.tri_order.shape[0])
    if tri_min.shape != (n, 3) or tri_max.shape != (n, 3):
        raise ValueError(
            f"tri_min/tri_max: expected shape ({n}, 3) (the tree's triangle count), got "
            f"{tri_min.shape} and {tri_max.shape}"
        )
    order = bvh.tri_order.astype(np.int64)
    sorted_min = tri_min[order]
    sorted_max = tri_max[order]
    node_count = bvh.node_count
    bmin = np.empty((node_count, 3), dtype=np.float64)
    bmax = np.empty((node_count, 3), dtype=np.float64)
    leaf_ids = np.nonzero(bvh.node_child[:, 0] < 0)[0]
    leaf_ids = leaf_ids[np.argsort(bvh.node_range[leaf_ids, 0], kind="stable")]
    seg = bvh.node_range[leaf_ids, 0].astype(np.int64)
    bmin[leaf_ids] = np.minimum.reduceat(sorted_min, seg, axis=0)
    bmax[leaf_ids] = np.maximum.reduceat(sorted_max, seg, axis=0)
    for ids in reversed(_levels(bvh.node_child)):
        inner = ids[bvh.node_child[ids, 0] >= 0]
        if inner.size:
            left = bvh.node_child[inner, 0]
            right = bvh.node_child[inner, 1]
            bmin[inner] = np.minimum(bmin[left], bmin[right])
            bmax[inner] = np.maximum(bmax[left], bmax[right])
    pad = _pad(tri_min, tri_max)
    node_bounds = np.concatenate([bmin - pad, bmax + pad], axis=1)
    return Bvh(
        node_bounds=np.ascontiguousarray(node_bounds),
        node_child=bvh.node_child,
        node_range=bvh.node_range,
        tri_order=bvh.tri_order,
        pad=pad,
        leaf_size=bvh.leaf_size,
    )
