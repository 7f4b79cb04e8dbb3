"""The compiled BVH build (Warp CPU kernels) makes the numpy build's arrays, byte for byte.

``build_bvh(..., compiled=False)`` is the definition (and equals the first
straightforward build kept as ``reference_build_bvh``); ``compiled=True`` runs
:mod:`leviathan._raycast_stages._bvh_compiled`; the default picks the compiled
build for large finite inputs. Every case compares all four arrays, their dtypes
and shapes, the pad and the leaf size.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
from reference_impls import reference_build_bvh
from trace_cases import grid as _grid
from trace_cases import random_soup as _random_soup

from leviathan._raycast_stages import bvh as bvh_stage
from leviathan._raycast_stages.prepare import _world_triangles
from leviathan.raycast import build_bvh

FIELDS = ("node_bounds", "node_child", "node_range", "tri_order")


def _boxes(v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    *_, tri_min, tri_max = _world_triangles(np.ascontiguousarray(v, dtype=np.float64), f)
    return tri_min, tri_max


def _assert_same(a: bvh_stage.Bvh, b: bvh_stage.Bvh) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert (x.dtype, x.shape) == (y.dtype, y.shape), name
        assert x.flags.c_contiguous and y.flags.c_contiguous, name
        assert x.tobytes() == y.tobytes(), name
    assert np.float64(a.pad).tobytes() == np.float64(b.pad).tobytes()
    assert a.leaf_size == b.leaf_size


def _both(tri_min: np.ndarray, tri_max: np.ndarray, leaf_size: int = 4) -> None:
    numpy_built = build_bvh(tri_min, tri_max, leaf_size=leaf_size, compiled=False)
    compiled = build_bvh(tri_min, tri_max, leaf_size=leaf_size, compiled=True)
    _assert_same(compiled, numpy_built)


@pytest.mark.parametrize(
    ("seed", "count", "leaf_size"),
    [
        (0, 1, 4),
        (1, 2, 1),
        (2, 3, 4),
        (3, 17, 2),
        (4, 1000, 1),
        (5, 1000, 4),
        (6, 5000, 8),
        (7, 20000, 4),
        (8, 777, 3),
    ],
)
def test_random_soups_build_the_same_arrays(seed: int, count: int, leaf_size: int) -> None:
    v, f = _random_soup(np.random.default_rng(seed), count)
    _both(*_boxes(v, f), leaf_size)


def test_the_compiled_build_equals_the_first_written_one() -> None:
    v, f = _random_soup(np.random.default_rng(11), 3000)
    tri_min, tri_max = _boxes(v, f)
    first = reference_build_bvh(tri_min, tri_max)
    compiled = build_bvh(tri_min, tri_max, compiled=True)
    for name in FIELDS:
        x, y = getattr(compiled, name), np.ascontiguousarray(first[name])
        assert (x.dtype, x.shape) == (y.dtype, y.shape), name
        assert x.tobytes() == y.tobytes(), name


@pytest.mark.parametrize("tilt", [0.0, 0.1])
def test_seabed_grids_build_the_same_arrays(tilt: float) -> None:
    # Flat (one axis without extent: scale 0) and tilted grids: many neighbouring codes.
    _both(*_boxes(*_grid(120, 200.0, 30.0, tilt)))


def test_identical_triangles_split_in_the_middle_alike() -> None:
    # Every Morton code equal: ranges split at their middle, in both builds.
    v, f = _random_soup(np.random.default_rng(12), 1)
    tri_min = np.repeat(_boxes(v, f)[0], 5000, axis=0)
    tri_max = np.repeat(_boxes(v, f)[1], 5000, axis=0)
    _both(tri_min, tri_max, 1)


def test_groups_of_equal_codes_keep_ascending_triangle_order() -> None:
    rng = np.random.default_rng(13)
    centres = rng.uniform(-5.0, 5.0, (50, 3))[rng.integers(0, 50, 6000)]
    _both(centres - 0.25, centres + 0.25, 2)


def test_signed_zeros_and_large_offsets_build_the_same_arrays() -> None:
    rng = np.random.default_rng(14)
    v, f = _random_soup(rng, 4000, spread=3.0)
    v = np.where(np.abs(v) < 0.5, 0.0, v) * np.where(rng.random(v.shape) < 0.5, -1.0, 1.0)
    tri_min, tri_max = _boxes(v, f)
    assert np.any(np.signbit(tri_min) & (tri_min == 0.0))
    _both(tri_min, tri_max)
    _both(tri_min + 1.0e6, tri_max + 1.0e6)


def test_the_demo_seabed_builds_the_same_arrays() -> None:
    from leviathan.bench import survey_scene

    scene = survey_scene(100_000)
    inst = max(scene.instances, key=lambda i: i.mesh.triangle_count)
    world = inst.T_world_object.apply_point(inst.mesh.vertices)
    _both(*_boxes(world, inst.mesh.faces))


def test_the_default_is_compiled_for_large_finite_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = bvh_stage._build_compiled

    def spy(tri_min: np.ndarray, tri_max: np.ndarray, leaf_size: int) -> bvh_stage.Bvh:
        calls.append(tri_min.shape[0])
        return real(tri_min, tri_max, leaf_size)

    monkeypatch.setattr(bvh_stage, "_build_compiled", spy)
    big = _boxes(*_random_soup(np.random.default_rng(15), bvh_stage.COMPILED_MIN_TRIANGLES))
    small = _boxes(*_random_soup(np.random.default_rng(16), bvh_stage.COMPILED_MIN_TRIANGLES - 1))
    _assert_same(build_bvh(*big), build_bvh(*big, compiled=False))
    build_bvh(*small)
    infinite = (big[0].copy(), big[1].copy())
    infinite[1][7, 2] = np.inf
    with np.errstate(invalid="ignore"):  # the numpy build's own warning about inf
        build_bvh(*infinite)
    assert calls == [bvh_stage.COMPILED_MIN_TRIANGLES]


def test_without_the_compiled_build_numpy_builds_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from leviathan._raycast_stages import _bvh_compiled

    def broken() -> None:
        raise OSError("no compiler here")

    monkeypatch.setattr(_bvh_compiled, "load", broken)
    monkeypatch.setattr(bvh_stage, "_compiled_failure", [])
    big = _boxes(*_random_soup(np.random.default_rng(17), bvh_stage.COMPILED_MIN_TRIANGLES))
    with caplog.at_level(logging.WARNING, logger="leviathan.raycast"):
        first = build_bvh(*big)
        build_bvh(*big)
    _assert_same(first, build_bvh(*big, compiled=False))
    messages = [r.getMessage() for r in caplog.records if "compiled BVH build" in r.getMessage()]
    assert messages == [
        "compiled BVH build unavailable (OSError: no compiler here); the numpy build is used "
        "(same arrays)"
    ]
