"""The BVH builder gives exactly the arrays of the original, straightforward build.

The builder was rewritten for speed (columns instead of rows, boxes written in
their final order). ``_reference_build_bvh`` below is the original algorithm, kept
verbatim apart from returning a dict: row-wise reductions over ``[n, 3]``, boxes
built in level order, then gathered into depth-first order. Every array, the pad
and the leaf size must be equal, bit for bit, on random soups, grids, degenerate
and coincident triangles and several leaf sizes.
"""

from __future__ import annotations

import numpy as np
import pytest
from trace_cases import grid, random_soup

from leviathan._raycast_stages.bvh import (
    BVH_PAD_RELATIVE,
    DEFAULT_LEAF_SIZE,
    _depth_first_ids,
    _highest_bit,
    morton_codes,
)
from leviathan._raycast_stages.prepare import _world_triangles
from leviathan.raycast import build_bvh


def _reference_build_bvh(
    tri_min: np.ndarray, tri_max: np.ndarray, *, leaf_size: int = DEFAULT_LEAF_SIZE
) -> dict:
    """Builds the BVH of one instance from its triangles' bounding boxes.

    Args:
        tri_min: Per-triangle minimum corner in world NED [m], shape [triangle_count, 3].
        tri_max: Per-triangle maximum corner [m], shape [triangle_count, 3].
        leaf_size: Maximum triangles per leaf (>= 1).

    Returns:
        The flat BVH arrays.
    """
    if leaf_size < 1:
        raise ValueError(f"leaf_size: expected an integer >= 1, got {leaf_size}")
    tri_min = np.ascontiguousarray(tri_min, dtype=np.float64)
    tri_max = np.ascontiguousarray(tri_max, dtype=np.float64)
    n = tri_min.shape[0]
    if n == 0:
        raise ValueError("tri_min: a BVH needs at least one triangle")

    lo = tri_min.min(axis=0)
    hi = tri_max.max(axis=0)
    cube_hi = lo + float(np.max(hi - lo))
    centroid = (tri_min + tri_max) * 0.5
    codes = morton_codes(centroid, lo, cube_hi)
    order = np.argsort(codes, kind="stable")
    codes = codes[order]

    # Level-by-level split of sorted ranges. Each level's nodes are numbered
    # consecutively after the previous level's, children in pairs.
    starts = [np.array([0], dtype=np.int64)]
    ends = [np.array([n], dtype=np.int64)]
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

    node_start = np.concatenate(starts)
    node_end = np.concatenate(ends)
    node_child = np.concatenate(child_parts).astype(np.int32)
    node_count = node_start.shape[0]

    sorted_min = tri_min[order]
    sorted_max = tri_max[order]
    bmin = np.empty((node_count, 3), dtype=np.float64)
    bmax = np.empty((node_count, 3), dtype=np.float64)
    leaf = node_child[:, 0] < 0
    leaf_ids = np.nonzero(leaf)[0]
    # Leaves: exact min/max over their contiguous run (reduceat is exact for min/max).
    leaf_order = np.argsort(node_start[leaf_ids], kind="stable")
    leaf_ids_sorted = leaf_ids[leaf_order]
    seg = node_start[leaf_ids_sorted]
    bmin[leaf_ids_sorted] = np.minimum.reduceat(sorted_min, seg, axis=0)
    bmax[leaf_ids_sorted] = np.maximum.reduceat(sorted_max, seg, axis=0)
    # Inner nodes bottom-up, one level at a time (children live in later levels).
    for level in range(len(firsts_of_level) - 1, -1, -1):
        first = firsts_of_level[level]
        last = first + starts[level].shape[0]
        ids = np.arange(first, last)
        inner = ids[node_child[ids, 0] >= 0]
        if inner.size:
            left = node_child[inner, 0]
            right = node_child[inner, 1]
            bmin[inner] = np.minimum(bmin[left], bmin[right])
            bmax[inner] = np.maximum(bmax[left], bmax[right])

    magnitude = max(float(np.max(np.abs(tri_min))), float(np.max(np.abs(tri_max))))
    pad = BVH_PAD_RELATIVE * (1.0 + magnitude)
    node_bounds = np.concatenate([bmin - pad, bmax + pad], axis=1)
    node_range = np.stack([node_start, node_end - node_start], axis=1).astype(np.int32)

    # Depth-first renumbering (step 5): new_id[old] for every node.
    levels = [np.arange(f, f + st.shape[0]) for f, st in zip(firsts_of_level, starts, strict=True)]
    new_id = _depth_first_ids(node_child, levels)
    old_id = np.empty_like(new_id)
    old_id[new_id] = np.arange(node_count, dtype=np.int64)
    child_old = node_child[old_id].astype(np.int64)
    node_child = np.where(child_old >= 0, new_id[np.maximum(child_old, 0)], -1).astype(np.int32)
    node_bounds = node_bounds[old_id]
    node_range = node_range[old_id]
    return dict(
        node_bounds=np.ascontiguousarray(node_bounds),
        node_child=np.ascontiguousarray(node_child),
        node_range=np.ascontiguousarray(node_range),
        tri_order=np.ascontiguousarray(order.astype(np.int32)),
        pad=pad,
        leaf_size=leaf_size,
    )


def _boxes(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    *_, tri_min, tri_max = _world_triangles(
        np.ascontiguousarray(vertices, dtype=np.float64), np.asarray(faces, dtype=np.int64)
    )
    return tri_min, tri_max


def _cases() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(17)
    soup = random_soup(rng, 3000)
    far = random_soup(rng, 500, spread=5000.0)
    v, f = grid(40, 30.0, 12.0, tilt=0.2)
    # Coincident triangles (equal Morton codes: split at the middle) and a flat sheet.
    same = (np.tile(soup[0][:3], (64, 1)), np.arange(192).reshape(64, 3))
    flat = (
        np.column_stack([rng.uniform(-9, 9, (900, 2)), np.zeros(900)]),
        rng.integers(0, 900, (300, 3)),
    )
    return {"soup": soup, "far": far, "grid": (v, f), "coincident": same, "flat": flat}


@pytest.mark.parametrize("case", sorted(_cases()))
@pytest.mark.parametrize("leaf_size", [1, 2, DEFAULT_LEAF_SIZE, 7])
def test_build_matches_the_reference_build(case: str, leaf_size: int) -> None:
    tri_min, tri_max = _boxes(*_cases()[case])
    ours = build_bvh(tri_min, tri_max, leaf_size=leaf_size)
    expected = _reference_build_bvh(tri_min, tri_max, leaf_size=leaf_size)
    for name in ("node_bounds", "node_child", "node_range", "tri_order"):
        got = getattr(ours, name)
        assert got.dtype == expected[name].dtype, name
        assert got.shape == expected[name].shape, name
        assert got.flags.c_contiguous, name
        np.testing.assert_array_equal(got, expected[name], err_msg=name)
    assert ours.pad == expected["pad"]
    assert ours.leaf_size == expected["leaf_size"] == leaf_size
