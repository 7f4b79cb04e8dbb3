"""The sea surface seeded on the device equals its composition after the mesh search, bit for bit.

:func:`leviathan.kernels.backend.nearest_hits_with_sea_surface` starts each ray from its
hit on the plane ``z = 0`` and traces the meshes against it; the reference composes
:func:`leviathan.raycast.combine_with_sea_surface` after the mesh search (the plane wins
only where strictly nearer). The cases include meshes lying on the plane (exact ties,
which the mesh must win), rays from above and below it, horizontal rays (``dz = ±0``),
origins on the plane (``t = 0``, no hit), a subnormal ``dz`` (``t`` overflows to
infinity) and a ``t_max`` equal to a ray's plane distance (inclusive).
"""

from __future__ import annotations

import numpy as np
import pytest
from trace_cases import grid, prepared, random_rays, random_soup

from leviathan.kernels import CPU_BATCH_RAYS
from leviathan.kernels.backend import nearest_hits, nearest_hits_with_sea_surface
from leviathan.raycast import intersect_sea_surface, trace_rays
from leviathan.raycast._sea_surface import combine_with_sea_surface
from leviathan.reference_cpu.trace import nearest_hits as reference_nearest_hits


def _case():
    rng = np.random.default_rng(2024)
    scene = prepared(
        grid(16, 80.0, 0.0),  # on the sea surface itself: ties
        grid(20, 40.0, 8.0, tilt=0.3),  # crosses the plane at x = -26.7 m
        random_soup(rng, 400),
    )
    o, d = random_rays(rng, CPU_BATCH_RAYS + 77)
    special_o = np.array(
        [
            [35.0, 35.0, 7.0],  # straight up from 7 m: the plane at t = 7 exactly
            [3.0, 1.0, 5.0],  # horizontal, dz = +0
            [3.0, 1.0, 5.0],  # horizontal, dz = -0
            [2.0, 2.0, 0.0],  # on the plane: t = 0 is no hit
            [2.0, 2.0, -0.0],
            [0.5, 0.5, 3.0],  # subnormal dz: t overflows to inf
            [1.0, 1.0, -4.0],  # above the surface, looking down through it
        ]
    )
    special_d = np.array(
        [
            [0.0, 0.0, -1.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, -0.0],
            [0.0, 0.6, -0.8],
            [0.0, 0.6, -0.8],
            [1.0, 0.0, -5e-324],
            [0.0, 0.0, 1.0],
        ]
    )
    o = np.ascontiguousarray(np.concatenate([o, special_o]))
    d = np.ascontiguousarray(np.concatenate([d, special_d]))
    return scene, o, d


def _composed(scene, o, d, t_max):
    sea = len(scene.instances)
    meshes = reference_nearest_hits(scene, o, d, t_max=t_max)
    return combine_with_sea_surface(meshes, o, d, t_max=t_max, sea_surface_instance=sea)


def _assert_same(a, b) -> None:
    for name in ("t", "instance", "triangle"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x.view(np.uint8), y.view(np.uint8)), name


@pytest.mark.parametrize("t_max", [60.0, np.inf, 7.0])
def test_seeded_trace_equals_the_composition(device: str, t_max: float) -> None:
    scene, o, d = _case()
    sea = len(scene.instances)
    expected = _composed(scene, o, d, t_max)
    seeded = nearest_hits_with_sea_surface(
        scene, o, d, t_max=t_max, sea_surface_instance=sea, device=device
    )
    _assert_same(seeded, expected)
    # The case exercises every branch: the plane winning, meshes winning, exact ties.
    meshes = nearest_hits(scene, o, d, t_max=t_max, device=device)
    hit, ts = intersect_sea_surface(o, d, t_max)
    assert np.count_nonzero(expected.instance == sea) > 100
    assert np.count_nonzero(hit & (meshes.instance >= 0) & (meshes.t < ts)) > 100
    ties = hit & (meshes.instance >= 0) & (meshes.t == ts)
    assert np.count_nonzero(ties) > 0
    assert np.all(expected.instance[ties] == meshes.instance[ties])


def test_seeded_trace_edge_rays() -> None:
    scene, o, d = _case()
    sea = len(scene.instances)
    n = o.shape[0]
    up, flat_pos, flat_neg, on, on_neg, subnormal, above = range(n - 7, n)
    inf = nearest_hits_with_sea_surface(scene, o, d, t_max=np.inf, sea_surface_instance=sea)
    at_seven = nearest_hits_with_sea_surface(scene, o, d, t_max=7.0, sea_surface_instance=sea)
    below_seven = nearest_hits_with_sea_surface(
        scene, o, d, t_max=np.nextafter(7.0, 0.0), sea_surface_instance=sea
    )
    # Straight up from 7 m: the grid on the plane ties with it exactly, and wins.
    assert inf.t[up] == 7.0 and inf.instance[up] == 0
    assert at_seven.t[up] == 7.0 and at_seven.instance[up] == 0
    assert below_seven.instance[up] != sea and below_seven.t[up] != 7.0
    for r in (flat_pos, flat_neg, on, on_neg):
        assert inf.instance[r] != sea
    assert inf.t[subnormal] == np.inf or inf.instance[subnormal] != sea
    assert inf.instance[above] >= 0 and inf.t[above] <= 4.0  # the plane, or a mesh first
    for result, t_max in ((inf, np.inf), (at_seven, 7.0), (below_seven, np.nextafter(7.0, 0.0))):
        _assert_same(result, _composed(scene, o, d, t_max))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_seeded_trace_is_the_same_on_every_thread_count(threads: int) -> None:
    scene, o, d = _case()
    sea = len(scene.instances)
    _assert_same(
        nearest_hits_with_sea_surface(
            scene, o, d, t_max=60.0, sea_surface_instance=sea, threads=threads
        ),
        _composed(scene, o, d, 60.0),
    )


@pytest.mark.parametrize("bad", [2, -1, True, 3.0, "3", 2**31])
def test_a_sea_surface_index_among_the_meshes_is_refused(bad: object) -> None:
    scene, o, d = _case()
    with pytest.raises(ValueError, match=r"sea_surface_instance: expected an int index after"):
        nearest_hits_with_sea_surface(
            scene,
            o,
            d,
            t_max=60.0,
            sea_surface_instance=bad,  # type: ignore[arg-type]
        )


def test_trace_rays_composes_on_the_host_for_an_index_among_the_meshes() -> None:
    # A label the scene would never give (its sea surface is always last): the plane's
    # hits carry it, and the result is still the reference's composition.
    scene, o, d = _case()
    for sea in (0, np.int64(len(scene.instances)), len(scene.instances) + 5):
        expected = combine_with_sea_surface(
            reference_nearest_hits(scene, o, d, t_max=60.0),
            o,
            d,
            t_max=60.0,
            sea_surface_instance=int(sea),
        )
        ours = trace_rays(scene, o, d, t_max=60.0, sea_surface_instance=sea, backend="warp")
        _assert_same(ours, expected)
