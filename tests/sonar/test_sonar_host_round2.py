"""Round-2 fast paths of the sonar host stage equal the straightforward code, bit for bit.

* :func:`_contributor_order` (one sort of packed ``(cell, key1)`` keys, ties
  resolved by lexsort) is ``np.lexsort((key3, key2, key1, cell))``;
* :func:`_cell_status_mask` (a scatter per status code) is the or-reduction over
  cell-sorted samples;
* ``_pow10_neg`` and ``acos_clipped`` (libm through a memoryview) equal the
  original ``tolist`` versions, kept verbatim below;
* :func:`_sample_normals` (one gather from the stacked normal tables) equals the
  original per-instance loop, kept verbatim below.

The whole ground-truth stage is compared with its original in
``test_sonar_host_stages.py``; the cases here aim at the new code's edges
(dropped key bits, signed zeros and NaNs, many cells, empty input).
"""

from __future__ import annotations

import math
from itertools import repeat

import numpy as np
import pytest

from leviathan.frames import Transform
from leviathan.geometry import box_mesh, uv_sphere_mesh
from leviathan.raycast import prepare_scene
from leviathan.reference_cpu.sonar import _pow10_neg, acos_clipped
from leviathan.scene import Instance, Scene
from leviathan.sonar._ground_truth import _cell_status_mask, _contributor_order, _float_order_key
from leviathan.sonar._physics import _sample_normals


def _old_pow10_neg(x: np.ndarray) -> np.ndarray:
    """``10**-x`` element by element with the platform libm (``math.pow``), not numpy's SIMD."""
    x = np.asarray(x, dtype=np.float64)
    return np.fromiter(
        map(math.pow, repeat(10.0, x.shape[0]), (-x).tolist()), dtype=np.float64, count=x.shape[0]
    )


def _old_acos_clipped(x: np.ndarray) -> np.ndarray:
    """``acos(min(x, 1))`` element by element with the platform libm (``math.acos``)."""
    x = np.minimum(np.asarray(x, dtype=np.float64), 1.0)
    return np.fromiter(map(math.acos, x.tolist()), dtype=np.float64, count=x.shape[0])


SPECIAL = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-300, -1e-300, 5e-324, 1.0])


def _keys(rng: np.random.Generator, n: int, cells: int) -> tuple[np.ndarray, ...]:
    """Cells, float keys with near-ties (differing in the last bits) and special values."""
    cell = rng.integers(0, cells, n).astype(np.int64)
    base = rng.choice(np.array([-2e-3, -1e-3, -5e-4, -1e-3 * (1 + 2**-40)]), size=n)
    # Values within a few ulps of one another tie in the packed key's leading bits.
    key1 = base + rng.integers(-3, 4, n) * np.spacing(base)
    key1[rng.random(n) < 0.05] = key1[0]  # exact ties
    special = rng.random(n) < 0.08
    key1[special] = rng.choice(SPECIAL, size=int(special.sum()))
    key2 = rng.choice(np.array([5.0, 5.5, -0.0, 0.0, np.nan]), size=n)
    key3 = rng.integers(0, 6, n).astype(np.int64)
    return cell, key1, key2, key3


@pytest.mark.parametrize("cells", [1, 2, 7, 640, 2**17 + 3, 2**30])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_contributor_order_is_the_lexsort(cells: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    cell, key1, key2, key3 = _keys(rng, 3000, cells)
    got = _contributor_order(cell, key1, key2, key3, cells)
    expected = np.lexsort((key3, key2, key1, cell))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_contributor_order_breaks_full_ties_by_sample_index() -> None:
    # Equal in every key: the stable lexsort keeps sample order; so must the fast path.
    cell = np.array([3, 1, 3, 3, 1, 3], dtype=np.int64)
    key1 = np.array([-1.0, -2.0, -1.0, -0.0, -2.0, 0.0])
    key2 = np.full(6, 4.0)
    key3 = np.zeros(6, dtype=np.int64)
    np.testing.assert_array_equal(
        _contributor_order(cell, key1, key2, key3, 4), np.lexsort((key3, key2, key1, cell))
    )


@pytest.mark.parametrize("n", [0, 1])
def test_contributor_order_of_tiny_inputs(n: int) -> None:
    cell = np.zeros(n, dtype=np.int64)
    key = np.zeros(n)
    got = _contributor_order(cell, key, key, cell, 5)
    np.testing.assert_array_equal(got, np.lexsort((cell, key, key, cell)))


def test_float_order_key_orders_like_numpy_sort() -> None:
    rng = np.random.default_rng(5)
    values = np.concatenate([SPECIAL, rng.normal(size=200), -SPECIAL])
    values = values[rng.permutation(values.shape[0])]
    keys = _float_order_key(values)
    assert keys.dtype == np.uint64
    np.testing.assert_array_equal(
        np.argsort(keys, kind="stable"), np.argsort(values, kind="stable")
    )
    # Equal floats (0.0 and -0.0, every NaN) share one key.
    assert _float_order_key(np.array([0.0]))[0] == _float_order_key(np.array([-0.0]))[0]
    assert _float_order_key(np.array([np.nan]))[0] == _float_order_key(np.array([-np.nan]))[0]


def test_cell_status_mask_is_the_or_over_each_cell() -> None:
    rng = np.random.default_rng(9)
    cells = 50
    cell = rng.integers(0, cells, 400).astype(np.int64)
    status = rng.choice(np.array([1, 1, 1, 2, 3, 4], dtype=np.uint8), size=400)
    # The original: or-reduce the status bits over the cell-sorted samples.
    by_cell = np.argsort(cell, kind="stable")
    sorted_cell = cell[by_cell]
    starts = np.nonzero(np.r_[True, sorted_cell[1:] != sorted_cell[:-1]])[0]
    bits = np.left_shift(1, status.astype(np.int64))
    expected = np.zeros(cells, dtype=np.int64)
    expected[sorted_cell[starts]] = np.bitwise_or.reduceat(bits[by_cell], starts)
    got = _cell_status_mask(cell, status, cells)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(
        _cell_status_mask(cell[:0], status[:0], cells), np.zeros(cells, np.int64)
    )


def test_libm_maps_equal_the_tolist_versions() -> None:
    rng = np.random.default_rng(11)
    exponents = np.concatenate([SPECIAL, rng.uniform(0.0, 40.0, 5000), -rng.uniform(0, 5, 50)])
    # acos: its domain, values above 1 (clipped to 1), both zeros and NaN.
    cosines = np.concatenate([SPECIAL[:3], [1.0, 1.5, np.inf, -1.0], rng.uniform(-1, 1, 5000)])
    for new, old, x in (
        (_pow10_neg, _old_pow10_neg, exponents),
        (acos_clipped, _old_acos_clipped, cosines),
    ):
        got, expected = new(x), old(x)
        assert got.dtype == expected.dtype == np.float64
        assert got.tobytes() == expected.tobytes()
        # Strided and non-float64 input take the same values.
        assert new(x[::3]).tobytes() == old(x[::3]).tobytes()
        assert new(x.astype(np.float32)).tobytes() == old(x.astype(np.float32)).tobytes()
        assert new(x[:0]).shape == (0,)
    with pytest.raises(ValueError, match="math domain error"):
        acos_clipped(np.array([0.5, -2.0]))


def _old_normals(inst: np.ndarray, tri: np.ndarray, scene: Scene, prepared) -> np.ndarray:
    """The original per-instance loop of ``integrated_samples`` (verbatim, renamed)."""
    normal = np.zeros((inst.shape[0], 3), dtype=np.float64)
    surface = inst == scene.sea_surface_instance
    normal[surface] = scene.sea_surface.normal_world
    for k, prep in enumerate(prepared.instances):
        sel = inst == k
        if np.any(sel):
            normal[sel] = prep.normal[tri[sel]]
    return normal


def test_sample_normals_equal_the_per_instance_loop() -> None:
    box = box_mesh((2.0, 3.0, 1.0))
    ball = uv_sphere_mesh(1.5, segments=12, rings=6)
    scene = Scene(
        [
            Instance("box", box, Transform.from_euler(0.1, 0.2, 0.3, translation=(0, 0, 9)), "a"),
            Instance("ball", ball, Transform.from_euler(0.0, 0.4, 1.0, translation=(4, 0, 9)), "b"),
        ]
    )
    prepared = prepare_scene(scene)
    rng = np.random.default_rng(2)
    n = 500
    inst = rng.integers(0, scene.sea_surface_instance + 1, n).astype(np.int64)
    sizes = [p.triangle_count for p in prepared.instances]
    tri = np.array([rng.integers(0, sizes[k]) if k < len(sizes) else 0 for k in inst.tolist()])
    got = _sample_normals(inst, tri.astype(np.int64), scene=scene, prepared=prepared)
    expected = _old_normals(inst, tri, scene, prepared)
    assert got.dtype == np.float64 and got.shape == (n, 3)
    assert got.tobytes() == expected.tobytes()
