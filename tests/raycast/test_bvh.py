"""The shared BVH builder (:func:`leviathan.raycast.build_bvh`): deterministic, complete, padded.

Both tracing backends walk these arrays, so their layout is checked here, once: the
traversals themselves are compared in ``tests/reference_cpu`` and ``tests/kernels``.
The arrays equal, bit for bit, those of the straightforward build kept as
``reference_build_bvh`` in ``tests/reference_impls.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_impls import reference_build_bvh
from trace_cases import grid as _grid
from trace_cases import random_soup as _random_soup

from leviathan._raycast_stages.bvh import DEFAULT_LEAF_SIZE
from leviathan._raycast_stages.prepare import _world_triangles
from leviathan.raycast import build_bvh, prepare_instance


def test_bvh_arrays_are_deterministic_and_cover_every_triangle() -> None:
    rng = np.random.default_rng(5)
    v, f = _random_soup(rng, 1000)
    a = prepare_instance(v, f).bvh
    b = prepare_instance(v.copy(), f.copy()).bvh
    for name in ("node_bounds", "node_child", "node_range", "tri_order"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert sorted(a.tri_order.tolist()) == list(range(1000))
    leaves = a.node_child[:, 0] < 0
    assert a.node_range[leaves, 1].sum() == 1000
    assert a.node_range[leaves, 1].max() <= 4


def test_bvh_nodes_are_depth_first_with_siblings_side_by_side() -> None:
    rng = np.random.default_rng(8)
    v, f = _random_soup(rng, 700)
    bvh = prepare_instance(v, f, leaf_size=2).bvh
    child = bvh.node_child
    inner = np.nonzero(child[:, 0] >= 0)[0]
    assert np.all(child[inner, 1] == child[inner, 0] + 1)
    assert np.all(child[inner, 0] > inner)
    assert np.all(child[child[:, 0] < 0] == -1)

    def descendants(n: int) -> list[int]:
        out, todo = [], [n]
        while todo:
            left = int(child[todo.pop(), 0])
            if left >= 0:
                out += [left, left + 1]
                todo += [left, left + 1]
        return out

    # A node's descendants fill one contiguous id range starting at its left child.
    for n in inner[:: max(1, inner.size // 60)]:
        ids = sorted(descendants(int(n)))
        assert ids == list(range(int(child[n, 0]), int(child[n, 0]) + len(ids)))
    assert sorted([0, *descendants(0)]) == list(range(bvh.node_count))


def test_flat_seabed_is_split_across_its_plane_not_its_depth() -> None:
    rng = np.random.default_rng(9)
    v, f = _grid(64, 100.0, 30.0)
    v[:, 2] += rng.uniform(-0.5, 0.5, v.shape[0])
    bvh = prepare_instance(v, f).bvh
    b = bvh.node_bounds
    depth_range = b[0, 5] - b[0, 2]

    def area(n: int) -> float:
        return float((b[n, 3] - b[n, 0]) * (b[n, 4] - b[n, 1]))

    frontier = [0]
    for _ in range(4):  # the top four levels
        pairs = [(n, int(c)) for n in frontier for c in bvh.node_child[n]]
        for parent, n in pairs:
            # Every split halves the plan area and keeps (nearly) the whole depth range.
            assert area(n) < 0.6 * area(parent)
            assert b[n, 5] - b[n, 2] > 0.8 * depth_range
        frontier = [n for _, n in pairs]


def test_bvh_boxes_contain_their_triangles_with_padding() -> None:
    rng = np.random.default_rng(6)
    v, f = _random_soup(rng, 500)
    prep = prepare_instance(v, f)
    bvh = prep.bvh
    tri_min = np.minimum(np.minimum(v[f[:, 0]], v[f[:, 1]]), v[f[:, 2]])
    tri_max = np.maximum(np.maximum(v[f[:, 0]], v[f[:, 1]]), v[f[:, 2]])
    for node in np.nonzero(bvh.node_child[:, 0] < 0)[0]:
        first, count = bvh.node_range[node]
        tris = bvh.tri_order[first : first + count]
        assert np.all(bvh.node_bounds[node, :3] < tri_min[tris].min(axis=0))
        assert np.all(bvh.node_bounds[node, 3:] > tri_max[tris].max(axis=0))
    inner = np.nonzero(bvh.node_child[:, 0] >= 0)[0]
    for node in inner:
        for child in bvh.node_child[node]:
            assert np.all(bvh.node_bounds[node, :3] <= bvh.node_bounds[child, :3])
            assert np.all(bvh.node_bounds[node, 3:] >= bvh.node_bounds[child, 3:])


def test_build_bvh_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="leaf_size"):
        build_bvh(np.zeros((1, 3)), np.ones((1, 3)), leaf_size=0)
    with pytest.raises(ValueError, match="at least one triangle"):
        build_bvh(np.zeros((0, 3)), np.zeros((0, 3)))


# The builder is the fast rewrite (columns instead of rows, boxes written in their final
# order) of reference_build_bvh in tests/reference_impls.py: every array, the pad and the
# leaf size must be equal, bit for bit, on random soups, grids, degenerate and coincident
# triangles and several leaf sizes.


def _boxes(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    *_, tri_min, tri_max = _world_triangles(
        np.ascontiguousarray(vertices, dtype=np.float64), np.asarray(faces, dtype=np.int64)
    )
    return tri_min, tri_max


def _cases() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(17)
    soup = _random_soup(rng, 3000)
    far = _random_soup(rng, 500, spread=5000.0)
    v, f = _grid(40, 30.0, 12.0, tilt=0.2)
    # Coincident triangles (equal Morton codes: split at the middle) and a flat sheet.
    same = (np.tile(soup[0][:3], (64, 1)), np.arange(192).reshape(64, 3))
    flat = (
        np.column_stack([rng.uniform(-9, 9, (900, 2)), np.zeros(900)]),
        rng.integers(0, 900, (300, 3)),
    )
    return {"soup": soup, "far": far, "grid": (v, f), "coincident": same, "flat": flat}


@pytest.mark.parametrize("case", sorted(_cases()))
@pytest.mark.parametrize("leaf_size", [1, 2, DEFAULT_LEAF_SIZE, 7])
def test_build_equals_the_reference_build(case: str, leaf_size: int) -> None:
    tri_min, tri_max = _boxes(*_cases()[case])
    ours = build_bvh(tri_min, tri_max, leaf_size=leaf_size)
    expected = reference_build_bvh(tri_min, tri_max, leaf_size=leaf_size)
    for name in ("node_bounds", "node_child", "node_range", "tri_order"):
        got = getattr(ours, name)
        assert got.dtype == expected[name].dtype, name
        assert got.shape == expected[name].shape, name
        assert got.flags.c_contiguous, name
        np.testing.assert_array_equal(got, expected[name], err_msg=name)
    assert ours.pad == expected["pad"]
    assert ours.leaf_size == expected["leaf_size"] == leaf_size
