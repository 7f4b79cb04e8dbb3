"""Posed hulls: one BVH per hull mesh, refitted at each pose, tracing as a fresh build does."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_array_equal
from trace_cases import unit

from leviathan.frames import Transform
from leviathan.geometry import capsule_mesh
from leviathan.raycast import (
    PreparedScene,
    build_bvh,
    prepare_instance,
    prepare_posed_instance,
    refit_bvh,
    trace_meshes,
)
from leviathan.scene import TriangleMesh


def _poses(rng: np.random.Generator, n: int) -> list[Transform]:
    return [
        Transform.from_euler(*rng.uniform(-3.0, 3.0, 3), translation=rng.uniform(-8.0, 8.0, 3))
        for _ in range(n)
    ]


def _hull() -> TriangleMesh:
    # Scaled up so that random rays from a 25 m cube hit it often.
    return capsule_mesh(2.0, 12.0, segments=24, rings=6)


def test_refit_keeps_the_topology_and_bounds_every_triangle() -> None:
    rng = np.random.default_rng(18)
    mesh = _hull()
    tree = prepare_instance(mesh.vertices, mesh.faces).bvh
    for T in _poses(rng, 4):
        posed = prepare_posed_instance(mesh, T)
        bvh = posed.bvh
        for name in ("node_child", "node_range", "tri_order"):
            assert_array_equal(getattr(bvh, name), getattr(tree, name))
        assert bvh.node_bounds.dtype == np.float64 and bvh.node_bounds.shape == (bvh.node_count, 6)
        world = T.apply_point(mesh.vertices)
        for node in range(bvh.node_count):
            start, count = bvh.node_range[node]
            tris = bvh.tri_order[start : start + count]
            pts = world[mesh.faces[tris].ravel()]
            assert np.all(bvh.node_bounds[node, :3] <= pts.min(axis=0))
            assert np.all(bvh.node_bounds[node, 3:] >= pts.max(axis=0))


def test_refitted_leaf_boxes_are_exact_min_max_plus_pad() -> None:
    rng = np.random.default_rng(3)
    lo = rng.uniform(-5.0, 5.0, (40, 3))
    hi = lo + rng.uniform(0.0, 1.0, (40, 3))
    tree = build_bvh(lo, hi, leaf_size=4)
    moved_lo, moved_hi = lo + 7.25, hi + 7.25
    refit = refit_bvh(tree, moved_lo, moved_hi)
    fresh_pad = build_bvh(moved_lo, moved_hi, leaf_size=4).pad
    assert refit.pad == fresh_pad
    for node in np.nonzero(tree.node_child[:, 0] < 0)[0]:
        start, count = tree.node_range[node]
        tris = tree.tri_order[start : start + count]
        assert_array_equal(refit.node_bounds[node, :3], moved_lo[tris].min(axis=0) - refit.pad)
        assert_array_equal(refit.node_bounds[node, 3:], moved_hi[tris].max(axis=0) + refit.pad)


def test_posed_hull_traces_bit_identically_to_a_fresh_build(device) -> None:
    rng = np.random.default_rng(7)
    mesh = _hull()
    for T in _poses(rng, 3):
        # Rays from a 25 m cube aimed near the hull's centre: most hit it, some graze.
        o = rng.uniform(-25.0, 25.0, (3000, 3))
        d = unit(T.translation + rng.normal(scale=3.0, size=(3000, 3)) - o)
        world = T.apply_point(mesh.vertices)
        fresh = PreparedScene(instances=(prepare_instance(world, mesh.faces),), scene_hash="")
        posed = PreparedScene(instances=(prepare_posed_instance(mesh, T),), scene_hash="")
        assert_array_equal(posed.instances[0].v0, fresh.instances[0].v0)
        expected = trace_meshes(fresh, o, d, t_max=100.0, backend="reference")
        assert 300 < np.count_nonzero(expected.instance >= 0) < 2900
        for backend, dev in (("reference", None), ("warp", device)):
            got = trace_meshes(posed, o, d, t_max=100.0, backend=backend, device=dev)
            assert_array_equal(got.t, expected.t)
            assert_array_equal(got.instance, expected.instance)
            assert_array_equal(got.triangle, expected.triangle)


def test_the_same_pose_is_prepared_once() -> None:
    mesh = _hull()
    T = Transform.from_euler(0.1, 0.2, 0.3, translation=(1.0, 2.0, 3.0))
    assert prepare_posed_instance(mesh, T) is prepare_posed_instance(mesh, T)
