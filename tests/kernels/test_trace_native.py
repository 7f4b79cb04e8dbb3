"""The CPU walk in C++ (``kernels.trace_native``) against the Warp-language walk, bit for bit.

Both kernels run on the CPU over the same uploaded arrays and the same rays, instance
after instance as the backend launches them: random rays over a soup, a tilted grid and a
grid lying on a plane with its twin, rays straight down onto that grid's vertices and
edge midpoints (exact ``t`` ties between triangles, decided by the triangle index, and
between the twins, by the instance index), rays along axes (``INV_DIR_ZERO`` inverses)
and with subnormal components (overflowing inverses: the NaN-propagating slab test,
which can only cull less than the finite one, never change a result), and ``t_max``
finite, exactly a hit's distance, and infinite. The whole trace is also checked against
the reference.
"""

from __future__ import annotations

import numpy as np
import pytest
import warp as wp
from trace_cases import grid, prepared, random_rays, random_soup, unit

from leviathan._kernel_options import KERNEL_OPTIONS
from leviathan.kernels import nearest_hits
from leviathan.kernels import trace as kt
from leviathan.kernels import trace_native as kn
from leviathan.kernels.backend import _upload, load_kernels
from leviathan.reference_cpu.trace import nearest_hits as reference_nearest_hits


def _scene():
    rng = np.random.default_rng(5150)
    flat_v, flat_f = grid(12, 30.0, 6.0)
    return prepared(
        random_soup(rng, 400, spread=15.0),
        grid(20, 40.0, 8.0, tilt=0.1),
        (flat_v, flat_f),
        (flat_v.copy(), flat_f[::-1].copy()),  # the same plane again: ties between instances
    )


_TICKS = np.arange(-15.0, 15.0 + 1.25, 1.25)


def _rays(n: int):
    rng = np.random.default_rng(n)
    o, d = random_rays(rng, n)
    o[: n // 4] = rng.uniform(-15.0, 15.0, (n // 4, 3)) * np.array([1.0, 1.0, 0.0])
    d[: n // 4] = unit(rng.normal(size=(n // 4, 3)) * np.array([0.3, 0.3, 1.0]) + [0, 0, 1])
    axis = rng.integers(0, 3, n)
    rows = np.arange(n)
    zero = rng.random(n) < 0.15
    d[zero, axis[zero]] = 0.0
    tiny = rng.random(n) < 0.08
    d[tiny, axis[tiny]] = 5e-324
    # Straight down onto the flat grid's vertices and edge midpoints: exact t ties
    # between the triangles that share them (and with the plane's twin).
    x, y = np.meshgrid(_TICKS, _TICKS, indexing="ij")
    m = x.size
    o[-m:] = np.stack([x.ravel(), y.ravel(), np.zeros(m)], axis=1)
    d[-m:] = np.array([0.0, 0.0, 1.0])
    return np.ascontiguousarray(o), np.ascontiguousarray(d), rows


def _trace(scene, o, d, t_max: float, kernel) -> tuple[np.ndarray, ...]:
    n = o.shape[0]
    best = [np.full(n, t_max), np.full(n, -1, np.int32), np.full(n, -1, np.int32)]
    o_dev = wp.array(o, dtype=wp.vec3d, device="cpu")
    d_dev = wp.array(d, dtype=wp.vec3d, device="cpu")
    inv_dev = wp.empty(n, dtype=wp.vec3d, device="cpu")
    kt.launch_inverse_directions(directions=d_dev, inv_directions=inv_dev, device="cpu")
    best_dev = [wp.array(b, device="cpu", copy=False) for b in best]
    for k, prep in enumerate(scene.instances):
        kt.launch_trace_instance(
            origins=o_dev,
            directions=d_dev,
            inv_directions=inv_dev,
            t_max=t_max,
            instance_index=k,
            arrays=_upload(prep, "cpu"),
            best_t=best_dev[0],
            best_instance=best_dev[1],
            best_triangle=best_dev[2],
            rays_per_thread=64,
            device="cpu",
            kernel=kernel,
        )
    wp.synchronize_device("cpu")
    return tuple(best)


@pytest.mark.parametrize("t_max", [60.0, 9.0, np.inf])
def test_the_native_walk_equals_the_warp_walk_bit_for_bit(t_max: float) -> None:
    load_kernels("cpu")
    scene = _scene()
    o, d, _ = _rays(4000)
    with np.errstate(over="ignore", divide="ignore"):
        finite = np.isfinite(1.0 / np.where(d == 0.0, 1.0, d)).all(axis=1)
    assert 0.8 * len(d) < finite.sum() < len(d)  # both slab tests are reached
    want = _trace(scene, o, d, t_max, kt.trace_instance)
    got = _trace(scene, o, d, t_max, kn.trace_instance_cpu)
    # Every instance wins somewhere but the plane's twin, which loses every tie to it.
    assert (want[1] >= 0).sum() > 1000 and set(want[1][want[1] >= 0].tolist()) == {0, 1, 2}
    assert (want[0][-(len(_TICKS) ** 2) :] == 6.0).sum() > 500  # the tie rays reach the plane
    for name, a, b in zip(("t", "instance", "triangle"), got, want, strict=True):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8), err_msg=name)


def test_a_t_max_at_a_hit_distance_keeps_that_hit_in_both_walks() -> None:
    scene = _scene()
    o, d, _ = _rays(2000)
    with np.errstate(over="ignore", invalid="ignore"):
        t_exact = reference_nearest_hits(scene, o, d, t_max=60.0).t
    t_max = float(t_exact[np.isfinite(t_exact)][7])
    want = _trace(scene, o, d, t_max, kt.trace_instance)
    got = _trace(scene, o, d, t_max, kn.trace_instance_cpu)
    assert (want[0] == t_max).any()
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def test_the_cpu_trace_with_the_native_walk_equals_the_reference() -> None:
    scene = _scene()
    o, d, _ = _rays(3000)
    with np.errstate(over="ignore", invalid="ignore"):  # the reference's slabs: inf, NaN
        want = reference_nearest_hits(scene, o, d, t_max=60.0)
    got = nearest_hits(scene, o, d, t_max=60.0, device="cpu", threads=2)
    for name in ("t", "instance", "triangle"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


def test_the_native_walk_compiles_with_the_trace_modules_options() -> None:
    options = kn.trace_instance_cpu.module.options
    for name, value in KERNEL_OPTIONS.items():
        assert options[name] == value, name
    assert kn.walk_native.module is kn.trace_instance_cpu.module
