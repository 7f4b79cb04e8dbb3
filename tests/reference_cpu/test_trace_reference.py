"""Reference tracing: BVH traversal against brute force, edge rays, ties, culling, arithmetic order.

The BVH builder itself (shared by both backends) is tested in ``tests/raycast/test_bvh.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from trace_cases import grid as _grid
from trace_cases import prepared as _prepared
from trace_cases import random_rays as _random_rays
from trace_cases import random_soup as _random_soup

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
