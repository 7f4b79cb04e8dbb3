"""The host-side instance cull of a small ray batch: the Warp trace skips the instances
no ray can reach, and the result stays the reference's bit for bit.

A DVL's four beams reach the seabed and none of the hull meshes around them; skipping
those meshes' uploads and launches must never change a hit: the cull is the
reference's own instance test with the largest ``t``, so it is never stricter than the
traversal's.
"""

from __future__ import annotations

import numpy as np
import pytest
from trace_cases import grid, prepared, random_rays, random_soup, unit

from leviathan.kernels import nearest_hits
from leviathan.kernels.backend import HOST_CULL_MAX_RAYS, _reachable
from leviathan.reference_cpu.trace import nearest_hits as reference_nearest_hits


def _scene():
    rng = np.random.default_rng(4242)
    above_v, above_f = random_soup(rng, 80, spread=3.0)
    far_v, far_f = random_soup(rng, 80, spread=3.0)
    return prepared(
        grid(24, 40.0, 8.0, tilt=0.1),
        (above_v + np.array([0.0, 0.0, -12.0]), above_f),  # above the beams' origin
        (far_v + np.array([200.0, 200.0, 0.0]), far_f),  # far to the side
    )


def _assert_same(a, b) -> None:
    for name in ("t", "instance", "triangle"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)


def test_beams_below_the_meshes_reach_the_seabed_only_and_hit_it_as_the_reference() -> None:
    scene = _scene()
    o = np.array([[0.5, 0.2, 4.0]] * 4)
    d = unit(np.array([[0.3, 0.3, 1.0], [-0.3, 0.3, 1.0], [0.3, -0.3, 1.0], [-0.3, -0.3, 1.0]]))
    assert _reachable(scene, o, d, 100.0) == [True, False, False]
    hits = nearest_hits(scene, o, d, t_max=100.0, device="cpu")
    assert (hits.instance == 0).all()
    _assert_same(hits, reference_nearest_hits(scene, o, d, t_max=100.0))


def test_a_ray_that_reaches_a_box_keeps_its_instance() -> None:
    scene = _scene()
    o = np.array([[0.0, 0.0, -10.0], [200.0, 200.0, -10.0]])
    d = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    assert _reachable(scene, o, d, 100.0) == [True, True, True]
    # A short t_max leaves the seabed and the far box out of reach; the first ray
    # starts inside the box above, which it therefore reaches.
    assert _reachable(scene, o, d, 1.0) == [False, True, False]
    for t_max in (100.0, 1.0):
        _assert_same(
            nearest_hits(scene, o, d, t_max=t_max, device="cpu"),
            reference_nearest_hits(scene, o, d, t_max=t_max),
        )


@pytest.mark.parametrize("count", [1, 37, HOST_CULL_MAX_RAYS, HOST_CULL_MAX_RAYS + 1])
def test_random_batches_on_both_sides_of_the_cull_limit_equal_the_reference(count: int) -> None:
    scene = _scene()
    rng = np.random.default_rng(count)
    o, d = random_rays(rng, count)
    o, d = np.ascontiguousarray(o), np.ascontiguousarray(d)
    _assert_same(
        nearest_hits(scene, o, d, t_max=60.0, device="cpu"),
        reference_nearest_hits(scene, o, d, t_max=60.0),
    )


def test_rays_from_the_instance_boxes_faces_are_culled_as_the_reference() -> None:
    # More rays than the host cull takes, so every instance's root box is tested per ray
    # in the kernel: its NaN-free test where the ray's inverse direction is finite, the
    # NaN-propagating one where it is not (subnormal components), as in the traversal.
    scene = _scene()
    rng = np.random.default_rng(77)
    n = 3 * HOST_CULL_MAX_RAYS
    box = np.stack([scene.instances[k].bounds for k in rng.integers(0, 3, n)])
    o = box[:, :3] + rng.uniform(-0.2, 1.2, (n, 3)) * (box[:, 3:] - box[:, :3])
    axis = rng.integers(0, 3, n)
    rows = np.arange(n)
    o[rows, axis] = box[rows, axis + 3 * rng.integers(0, 2, n)]  # on a face plane
    d = unit(rng.normal(size=(n, 3)))
    along = rng.random(n) < 0.2
    d[along, axis[along]] = 0.0  # along the face
    tiny = rng.random(n) < 0.1
    d[tiny, axis[tiny]] = 1e-310  # an inverse that overflows: the general test
    with np.errstate(over="ignore"):
        finite = np.isfinite(1.0 / np.where(d == 0.0, 1.0, d)).all(axis=1)
    assert 0.5 * n < finite.sum() < n
    for t_max in (60.0, 0.5, 1e-9):
        with np.errstate(over="ignore", invalid="ignore"):  # the reference's slabs: inf, NaN
            want = reference_nearest_hits(scene, o, d, t_max=t_max)
        _assert_same(nearest_hits(scene, o, d, t_max=t_max, device="cpu"), want)
