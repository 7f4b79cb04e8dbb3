"""Reference tracing: BVH determinism, brute-force agreement, edge rays, culling."""

from __future__ import annotations

import numpy as np
import pytest
from trace_cases import grid as _grid
from trace_cases import prepared as _prepared
from trace_cases import random_rays as _random_rays
from trace_cases import random_soup as _random_soup

from leviathan.raycast import build_bvh, prepare_instance
from leviathan.reference_cpu.trace import (
    intersect_ray_triangle,
    nearest_hits,
    nearest_hits_brute_force,
)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("leaf_size", [1, 4, 8])
def test_bvh_traversal_equals_brute_force_on_random_soups(seed: int, leaf_size: int) -> None:
    rng = np.random.default_rng(seed)
    scene = _prepared(_random_soup(rng, 300), _random_soup(rng, 200), leaf_size=leaf_size)
    o, d = _random_rays(rng, 1500)
    bvh = nearest_hits(scene, o, d, t_max=100.0)
    brute = nearest_hits_brute_force(scene, o, d, t_max=100.0)
    assert bvh.t.dtype == np.float64 and bvh.instance.dtype == np.int32
    assert (bvh.instance >= 0).sum() > 200
    np.testing.assert_array_equal(bvh.t, brute.t)
    np.testing.assert_array_equal(bvh.instance, brute.instance)
    np.testing.assert_array_equal(bvh.triangle, brute.triangle)


def test_rays_at_shared_vertices_and_edges_never_leak() -> None:
    v, f = _grid(8, 80.0, 25.0, tilt=0.3)
    scene = _prepared((v, f))
    # aim rays exactly at every vertex and every edge midpoint of the grid
    targets = np.concatenate([v, (v[f[:, 0]] + v[f[:, 2]]) * 0.5, (v[f[:, 0]] + v[f[:, 1]]) * 0.5])
    inner = np.all(np.abs(targets[:, :2]) < 39.9, axis=1)
    targets = targets[inner]
    o = np.tile(np.array([[1.0, -2.0, 5.0]]), (targets.shape[0], 1))
    d = targets - o
    d /= np.sqrt((d * d).sum(axis=1))[:, None]
    hit = nearest_hits(scene, o, d, t_max=500.0)
    brute = nearest_hits_brute_force(scene, o, d, t_max=500.0)
    assert np.all(hit.instance == 0), "a ray aimed at a shared edge or vertex slipped through"
    np.testing.assert_array_equal(hit.triangle, brute.triangle)
    np.testing.assert_array_equal(hit.t, brute.t)


def test_coincident_triangles_tie_to_lowest_instance_and_triangle() -> None:
    v, f = _grid(2, 10.0, 5.0)
    doubled = (np.concatenate([v, v]), np.concatenate([f, f + v.shape[0]]))
    scene = _prepared(doubled, (v, f))
    o = np.array([[0.3, 0.2, 0.0], [-2.0, 1.0, 0.0]])
    d = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    hit = nearest_hits(scene, o, d, t_max=50.0)
    assert hit.instance.tolist() == [0, 0]
    assert np.all(hit.triangle < f.shape[0])  # the first copy, not the duplicate


def test_t_max_ignores_farther_hits() -> None:
    v, f = _grid(2, 10.0, 5.0)
    scene = _prepared((v, f))
    o = np.zeros((2, 3))
    d = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    assert nearest_hits(scene, o, d, t_max=5.0).instance.tolist() == [0, 0]
    far = nearest_hits(scene, o, d, t_max=4.999)
    assert far.instance.tolist() == [-1, -1] and np.all(np.isinf(far.t))


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


def test_ray_triangle_arithmetic_is_the_documented_order() -> None:
    rng = np.random.default_rng(7)
    o, d = _random_rays(rng, 200)
    v0, e1, e2 = (rng.normal(size=(200, 3)) for _ in range(3))
    _, t = intersect_ray_triangle(o, d, v0, e1, e2, np.inf)
    for k in range(200):
        (ox, oy, oz), (dx, dy, dz) = o[k].tolist(), d[k].tolist()
        (e1x, e1y, e1z), (e2x, e2y, e2z) = e1[k].tolist(), e2[k].tolist()
        sx, sy, sz = ox - v0[k, 0], oy - v0[k, 1], oz - v0[k, 2]
        qx, qy, qz = sy * e1z - sz * e1y, sz * e1x - sx * e1z, sx * e1y - sy * e1x
        px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x
        det = (e1x * px + e1y * py) + e1z * pz
        assert t[k] == ((e2x * qx + e2y * qy) + e2z * qz) * (1.0 / det)


def test_build_bvh_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="leaf_size"):
        build_bvh(np.zeros((1, 3)), np.ones((1, 3)), leaf_size=0)
    with pytest.raises(ValueError, match="at least one triangle"):
        build_bvh(np.zeros((0, 3)), np.zeros((0, 3)))
