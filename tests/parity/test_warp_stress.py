"""Warp backend stress parity: bit-identical (t, instance, triangle) to the numpy reference.

Every test traces the same rays through
:func:`leviathan.reference_cpu.trace.nearest_hits` and
:func:`leviathan.kernels.backend.nearest_hits` on each Warp device present (the
``device`` parametrisation of ``tests/conftest.py``) and demands equal arrays,
``t`` compared by its bits.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from trace_cases import Mesh
from trace_cases import grid as _grid
from trace_cases import prepared as _prepared
from trace_cases import random_rays as _random_rays
from trace_cases import random_soup as _random_soup
from trace_cases import unit as _unit

from leviathan.kernels.backend import nearest_hits as warp_trace
from leviathan.kernels.trace import STACK_CAPACITY
from leviathan.raycast import Bvh, PreparedInstance, PreparedScene, TraceResult, prepare_instance
from leviathan.reference_cpu.trace import nearest_hits as reference_trace
from leviathan.reference_cpu.trace import nearest_hits_brute_force


def _assert_identical(got: TraceResult, want: TraceResult) -> None:
    """Dtypes and shapes first, then exact values (``t`` bit for bit)."""
    n = want.t.shape[0]
    assert got.t.dtype == np.float64 and got.t.shape == (n,)
    assert got.instance.dtype == np.int32 and got.instance.shape == (n,)
    assert got.triangle.dtype == np.int32 and got.triangle.shape == (n,)
    np.testing.assert_array_equal(got.t.view(np.uint64), want.t.view(np.uint64))
    np.testing.assert_array_equal(got.instance, want.instance)
    np.testing.assert_array_equal(got.triangle, want.triangle)


def _both(
    scene: PreparedScene, o: np.ndarray, d: np.ndarray, t_max: float, device: str
) -> TraceResult:
    """Traces on both backends, asserts they agree, returns the reference result."""
    want = reference_trace(scene, o, d, t_max=t_max)
    _assert_identical(warp_trace(scene, o, d, t_max=t_max, device=device), want)
    return want


@pytest.mark.parametrize("leaf_size", [1, 4, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_soups_match_reference(device: str, leaf_size: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    meshes = [_random_soup(rng, int(rng.integers(150, 300))) for _ in range(2 + seed % 2)]
    scene = _prepared(*meshes, leaf_size=leaf_size)
    o, d = _random_rays(rng, 1200)
    want = _both(scene, o, d, 100.0, device)
    assert (want.instance >= 0).sum() > 150
    assert set(np.unique(want.instance[want.instance >= 0])) == set(range(len(meshes)))


def test_random_soup_matches_brute_force(device: str) -> None:
    rng = np.random.default_rng(11)
    scene = _prepared(_random_soup(rng, 250), _random_soup(rng, 250), leaf_size=2)
    o, d = _random_rays(rng, 800)
    brute = nearest_hits_brute_force(scene, o, d, t_max=100.0)
    assert (brute.instance >= 0).sum() > 100
    _assert_identical(warp_trace(scene, o, d, t_max=100.0, device=device), brute)


def test_rays_at_shared_vertices_and_edge_midpoints_always_hit(device: str) -> None:
    v, f = _grid(8, 80.0, 25.0, tilt=0.3)
    scene = _prepared((v, f), leaf_size=1)
    p0, p1, p2 = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    targets = np.concatenate([v, (p0 + p1) * 0.5, (p1 + p2) * 0.5, (p0 + p2) * 0.5])
    targets = np.unique(targets, axis=0)
    origins = np.array([[1.0, -2.0, 5.0], [-31.0, 17.5, -3.0], [0.0, 0.0, 0.0], [3.0, 4.0, 60.0]])
    o = np.repeat(origins, targets.shape[0], axis=0)
    d = _unit(np.tile(targets, (origins.shape[0], 1)) - o)
    want = _both(scene, o, d, 500.0, device)
    assert np.all(want.instance == 0), "a ray aimed at a vertex or an edge slipped through"


def test_same_mesh_as_three_instances_ties_to_lowest_instance(device: str) -> None:
    rng = np.random.default_rng(3)
    mesh = _grid(6, 40.0, 10.0, tilt=-0.2)
    scene = _prepared(mesh, mesh, mesh)
    o = np.column_stack([rng.uniform(-18, 18, (400, 2)), np.zeros(400)])
    d = _unit(np.column_stack([rng.normal(scale=0.2, size=(400, 2)), np.ones(400)]))
    want = _both(scene, o, d, 100.0, device)
    hit = want.instance >= 0
    assert hit.sum() > 300
    assert np.all(want.instance[hit] == 0)


@pytest.mark.parametrize("leaf_size", [1, 4])
def test_duplicated_triangles_tie_to_lowest_triangle(device: str, leaf_size: int) -> None:
    rng = np.random.default_rng(4)
    v, f = _grid(6, 40.0, 10.0, tilt=0.25)
    n = f.shape[0]
    # Every face three times: as is, with its vertices rotated (same surface, its
    # own rounding), and as is again (exactly the same t as the first copy).
    scene = _prepared((v, np.concatenate([f, f[:, [1, 2, 0]], f])), leaf_size=leaf_size)
    o = np.column_stack([rng.uniform(-18, 18, (400, 2)), np.full(400, -5.0)])
    d = _unit(np.column_stack([rng.normal(scale=0.2, size=(400, 2)), np.ones(400)]))
    want = _both(scene, o, d, 100.0, device)
    hit = want.instance >= 0
    assert hit.sum() > 300
    # Rotated copies (n..2n) may round t differently; exact copies (2n..) never win.
    assert np.all(want.triangle[hit] < 2 * n)


def test_axis_aligned_rays_match_reference(device: str) -> None:
    rng = np.random.default_rng(5)
    soup = _random_soup(rng, 300, spread=15.0)
    scene = _prepared(soup, _grid(10, 60.0, 20.0))
    # Axis directions and in-plane diagonals: one or two components exactly 0.
    axes = np.array(
        [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.float64
    )
    diagonals = _unit(np.array([[1, 1, 0], [1, 0, -1], [0, -1, 1], [-1, 1, 0]], dtype=np.float64))
    dirs = np.concatenate([axes, diagonals])
    lattice = rng.uniform(-18, 18, (60, 3))
    # Origins exactly on box faces: (bound - origin) * INV_DIR_ZERO is then exactly 0.
    bounds = scene.instances[0].bvh.node_bounds
    on_faces = lattice.copy()
    on_faces[:, 0] = bounds[rng.integers(0, bounds.shape[0], 60), 0]
    on_faces[:, 1] = bounds[rng.integers(0, bounds.shape[0], 60), 4]
    origins = np.concatenate([lattice, on_faces])
    o = np.repeat(origins, dirs.shape[0], axis=0)
    d = np.tile(dirs, (origins.shape[0], 1))
    assert np.all(np.any(d == 0.0, axis=1))
    want = _both(scene, o, d, 80.0, device)
    assert (want.instance == 0).sum() > 50 and (want.instance == 1).sum() > 50


def test_subnormal_direction_components_on_box_faces_match_reference(device: str) -> None:
    # 1/d overflows to inf for a subnormal d, so (bound - origin) * inv_d is NaN on a
    # face; the two backends' min/max treat that NaN differently in the box test, but
    # such a ray stays a pad away from the box's triangles, so the traced result agrees.
    rng = np.random.default_rng(14)
    scene = _prepared(_random_soup(rng, 300, spread=10.0), leaf_size=2)
    bounds = scene.instances[0].bvh.node_bounds
    n = 2000
    o = rng.uniform(-12, 12, (n, 3))
    d = _unit(rng.normal(size=(n, 3)))
    axis = rng.integers(0, 3, n)
    rows = np.arange(n)
    o[rows, axis] = bounds[rng.integers(0, bounds.shape[0], n), axis + 3 * rng.integers(0, 2, n)]
    d[rows, axis] = rng.choice([1e-310, -1e-310, 5e-324, 0.0], n)
    with np.errstate(over="ignore", invalid="ignore"):
        want = _both(scene, o, d, 100.0, device)
    assert (want.instance >= 0).sum() > 100


def test_rays_starting_on_a_surface_do_not_hit_it(device: str) -> None:
    rng = np.random.default_rng(6)
    top, below = _grid(6, 40.0, 5.0), _grid(6, 40.0, 10.0)
    scene = _prepared(top, below)
    # Exactly on the plane z = 5: grid vertices and random interior points.
    on_plane = np.column_stack([rng.uniform(-19, 19, (300, 2)), np.full(300, 5.0)])
    starts = np.concatenate([top[0], on_plane])
    d = _unit(rng.normal(size=(starts.shape[0], 3)))
    want = _both(scene, starts, d, 100.0, device)
    assert not np.any(want.instance == 0), "t = 0 on the starting surface counted as a hit"
    assert np.all(want.instance[d[:, 2] < 0.0] == -1)
    assert (want.instance == 1).sum() > 50


def test_rays_starting_on_tilted_vertices_match_reference(device: str) -> None:
    rng = np.random.default_rng(7)
    v, f = _grid(6, 40.0, 10.0, tilt=0.3)
    scene = _prepared((v, f), _grid(4, 40.0, 30.0))
    starts = np.repeat(v, 4, axis=0)
    d = _unit(rng.normal(size=(starts.shape[0], 3)))
    _both(scene, starts, d, 100.0, device)


def test_t_max_at_a_hit_distance_keeps_it_and_one_ulp_below_drops_it(device: str) -> None:
    rng = np.random.default_rng(8)
    scene = _prepared(_grid(6, 40.0, 10.0, tilt=0.3), _random_soup(rng, 100, spread=10.0))
    o, d = _random_rays(rng, 300)
    full = reference_trace(scene, o, d, t_max=200.0)
    picks = rng.choice(np.nonzero(full.instance >= 0)[0], size=5, replace=False)
    for k in picks:
        t_hit = float(full.t[k])
        kept = _both(scene, o, d, t_hit, device)
        assert kept.t[k] == t_hit and kept.instance[k] == full.instance[k]
        dropped = _both(scene, o, d, float(np.nextafter(t_hit, 0.0)), device)
        assert dropped.instance[k] == -1 and np.isinf(dropped.t[k])


def test_seabed_grid_with_a_fan_of_rays(device: str) -> None:
    rng = np.random.default_rng(9)
    v, f = _grid(100, 200.0, 30.0)
    v[:, 2] += rng.normal(scale=0.4, size=v.shape[0])
    scene = _prepared((v, f))
    assert scene.instances[0].triangle_count == 20_000
    across = np.radians(np.linspace(-60.0, 60.0, 64))
    along = np.radians(np.linspace(-20.0, 20.0, 48))
    A, B = np.meshgrid(across, along, indexing="ij")
    d = _unit(np.column_stack([np.sin(B.ravel()), np.sin(A.ravel()), np.cos(A.ravel())]))
    o = np.tile([[1.5, -0.5, 0.0]], (d.shape[0], 1))
    want = _both(scene, o, d, 300.0, device)
    assert np.all(want.instance == 0)


def test_triangles_with_identical_centroids_tie_to_lowest_triangle(device: str) -> None:
    rng = np.random.default_rng(10)
    # Four shapes whose bounding boxes share one centre (exact in binary), 1024
    # copies each, interleaved: every Morton code is equal, so the BVH splits
    # ranges at the middle down to single-triangle leaves.
    centre = np.array([3.0, -2.0, 20.0])
    offsets = np.array([[-1.0, -1.0, -0.5], [1.0, -1.0, 0.5], [0.0, 1.0, 0.0]])
    shapes = np.stack([centre + s * offsets for s in (0.5, 1.0, 2.0, 4.0)])
    tris = np.tile(shapes, (1024, 1, 1))
    faces = np.arange(tris.shape[0] * 3).reshape(-1, 3)
    scene = _prepared((tris.reshape(-1, 3), faces), leaf_size=1)
    assert scene.instances[0].bvh.depth >= 12
    o = centre + np.column_stack([rng.uniform(-2, 2, (200, 2)), np.full(200, -15.0)])
    d = _unit(np.column_stack([rng.normal(scale=0.05, size=(200, 2)), np.ones(200)]))
    want = _both(scene, o, d, 100.0, device)
    hit = want.instance >= 0
    assert hit.sum() > 100
    assert np.all(want.triangle[hit] < 4)


def _caterpillar(prep: PreparedInstance, depth: int) -> PreparedInstance:
    """``prep`` with a hand-built BVH of the given depth that fills the traversal stack.

    Inner node at depth ``k`` has an inner left child and a leaf right child
    (the last inner node has two leaves); every box is the instance box, so a
    ray that reaches the root ties every pair, goes left and pushes the right
    leaf: the stack holds ``depth`` nodes at the bottom. Leaf position ``k``
    holds triangle ``k``, so the walk meets the triangles in descending index
    order and every exact tie is settled by the triangle-index rule.
    """
    n = depth + 1
    assert prep.triangle_count == n
    # Node ids: inner node at depth k is 2k - 1 (root 0); its children are 2k + 1, 2k + 2.
    node_count = 2 * depth + 1
    node_child = np.full((node_count, 2), -1, dtype=np.int32)
    node_range = np.zeros((node_count, 2), dtype=np.int32)
    inner_ids = [0] + [2 * k - 1 for k in range(1, depth)]
    for k, node in enumerate(inner_ids):
        node_child[node] = [2 * k + 1, 2 * k + 2]
        node_range[node] = [k, n - k]
        node_range[2 * k + 2] = [k, 1]  # right child: leaf holding leaf position k
    node_range[2 * depth - 1] = [depth, 1]  # last left child: the final leaf
    box = prep.bvh.node_bounds[0]
    bvh = Bvh(
        node_bounds=np.ascontiguousarray(np.tile(box, (node_count, 1))),
        node_child=node_child,
        node_range=node_range,
        tri_order=np.arange(n, dtype=np.int32),
        pad=prep.bvh.pad,
        leaf_size=1,
    )
    assert bvh.depth == depth
    return dataclasses.replace(prep, bvh=bvh)


def test_bvh_of_the_deepest_accepted_depth_traces_identically(device: str) -> None:
    rng = np.random.default_rng(12)
    depth = STACK_CAPACITY
    v, f = _random_soup(rng, depth + 1, spread=4.0)
    # Half the soup duplicated onto the other half: exact ties across leaves.
    v.reshape(-1, 3, 3)[1::2] = v.reshape(-1, 3, 3)[0::2][: (depth + 1) // 2]
    scene = PreparedScene(
        instances=(_caterpillar(prepare_instance(v, f, leaf_size=1), depth),), scene_hash=""
    )
    # Rays from random points towards the triangles' centroids: nearly all hit.
    centroids = v.reshape(-1, 3, 3).mean(axis=1)
    o = rng.uniform(-10, 10, (600, 3))
    d = _unit(centroids[rng.integers(0, depth + 1, 600)] - o)
    want = _both(scene, o, d, 100.0, device)
    assert (want.instance >= 0).sum() > 500


def _morton_chain(count: int) -> Mesh:
    """Tiny triangles whose Morton codes each set one more bit: a BVH of depth ~count."""
    points = np.zeros((count + 1, 3))
    for j in range(count):
        level, axis = divmod(j, 3)
        points[j + 1, 2 - axis] = 1.5 * 2.0**level
    corners = np.array([[0.0, 0.0, 0.0], [0.25, 0.0, 0.0], [0.0, 0.25, 0.0]])
    v = (points[:, None, :] + corners[None]).reshape(-1, 3)
    return v, np.arange(v.shape[0]).reshape(-1, 3)


def test_deep_bvh_from_the_builder_traces_identically(device: str) -> None:
    scene = _prepared(_morton_chain(62), leaf_size=1)
    assert 40 < scene.instances[0].bvh.depth <= STACK_CAPACITY
    rng = np.random.default_rng(16)
    o = rng.uniform(-1.0, 4.0, (400, 3))
    prep = scene.instances[0]
    pick = rng.integers(0, 62, 400)
    centroids = prep.v0[pick] + prep.e1[pick] / 3.0 + prep.e2[pick] / 3.0
    want = _both(scene, o, _unit(centroids - o), 1e7, device)
    assert (want.instance >= 0).sum() > 350


def test_bvh_deeper_than_the_stack_is_refused(device: str) -> None:
    rng = np.random.default_rng(17)
    depth = STACK_CAPACITY + 1
    v, f = _random_soup(rng, depth + 1, spread=4.0)
    scene = PreparedScene(
        instances=(_caterpillar(prepare_instance(v, f, leaf_size=1), depth),), scene_hash=""
    )
    o = np.zeros((4, 3))
    d = np.tile([[1.0, 0.0, 0.0]], (4, 1))
    reference_trace(scene, o, d, t_max=1e7)  # the reference has no stack limit
    with pytest.raises(ValueError, match=rf"depth {depth} exceeds the Warp traversal stack"):
        warp_trace(scene, o, d, t_max=1e7, device=device)


def test_zero_rays_give_empty_results(device: str) -> None:
    rng = np.random.default_rng(13)
    scene = _prepared(_random_soup(rng, 50))
    empty = np.zeros((0, 3))
    got = warp_trace(scene, empty, empty, t_max=10.0, device=device)
    assert got.t.shape == got.instance.shape == got.triangle.shape == (0,)
    _assert_identical(got, reference_trace(scene, empty, empty, t_max=10.0))


def test_scene_without_instances_misses_every_ray(device: str) -> None:
    rng = np.random.default_rng(15)
    scene = PreparedScene(instances=(), scene_hash="")
    o, d = _random_rays(rng, 50)
    want = _both(scene, o, d, 10.0, device)
    assert np.all(want.instance == -1) and np.all(np.isinf(want.t))


def test_subnormal_determinant_with_infinite_t_max_matches_reference(device: str) -> None:
    s = 1e-160  # edge length: det ~ 1e-320 is subnormal, 1/det overflows to inf
    v = np.array([[0.0, 0.0, 10.0], [s, 0.0, 10.0], [0.0, s, 10.0]])
    scene = _prepared((v, np.array([[0, 1, 2]])))
    o = np.array([[0.0, 0.0, 5.0]])
    d = np.array([[0.0, 0.0, 1.0]])
    with np.errstate(all="ignore"):
        want = reference_trace(scene, o, d, t_max=np.inf)
    assert want.instance.tolist() == [-1]
    _assert_identical(warp_trace(scene, o, d, t_max=np.inf, device=device), want)
