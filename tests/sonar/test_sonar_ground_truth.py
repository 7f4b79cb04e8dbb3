"""The sonar's ground-truth stage: contributor order, cell flags and the channels it writes.

The stage's vectorised code (run-wise reductions, a lexsort of multi-sample cells
only, channels written once into one immutable buffer, one sort of packed keys for
the contributor order) is compared bit for bit with the reference implementations in
``tests/reference_impls.py`` (``ufunc.at`` accumulations, one full lexsort, a loop per
rank, channels frozen by the frame's copy-and-canonicalise path) on seeded samples
with shared cells, ties, NaN contributions, every status and both medium cases, and on
the edges of the packed keys (dropped key bits, signed zeros and NaNs, many cells,
empty input).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from reference_impls import (
    reference_cell_channels,
    reference_cell_ground_truth,
    reference_contributor_order,
)

import leviathan.sonar._frame as frame_module
from leviathan.sonar import SonarFrame
from leviathan.sonar import _ground_truth as gt
from leviathan.sonar._frame import _ChannelBuffer
from leviathan.sonar._ground_truth import (
    _cell_status_mask,
    _contributor_order,
    _float_order_key,
    cell_channels,
    cell_ground_truth,
    channel_layout,
)

SHAPE = (40, 16)  # range bins x bearings
ELEVATIONS = 12


def _samples(seed: int) -> dict[str, Any]:
    """Samples in ray order with crowded cells, ties and NaN contributions."""
    rng = np.random.default_rng(seed)
    n_bearings = SHAPE[1]
    rays = np.sort(rng.choice(ELEVATIONS * n_bearings, size=180, replace=False))
    j, i = rays // n_bearings, rays % n_bearings
    # Few range bins so that many cells hold several samples (one per elevation).
    k = rng.integers(0, 3, rays.shape[0])
    cell = k * n_bearings + i
    n = rays.shape[0]
    status = rng.choice(
        np.array(
            [gt._STATUS_KNOWN] * 6
            + [gt._STATUS_UNKNOWN, gt._STATUS_UNSUPPORTED, gt._STATUS_INTERFACE]
        ),
        size=n,
    ).astype(np.uint8)
    instance = rng.integers(0, 3, n).astype(np.int64)
    # Ranges and weights from small sets: ties in dominance and range occur.
    R = rng.choice(np.array([5.0, 5.5, 6.0, 7.25]), size=n)
    gw0 = rng.choice(np.array([1e-3, 2e-3, 2e-3, 5e-4]), size=n)
    gw = gw0 * 0.5
    contribution = np.where(status == gt._STATUS_KNOWN, gw * 0.25, np.nan)
    # A NaN of the other sign, as arithmetic on x86 makes it.
    contribution[status == gt._STATUS_UNKNOWN] = -np.nan
    return {
        "cell": cell.astype(np.int64),
        "elevation": j.astype(np.int64),
        "instance": instance,
        "triangle": rng.integers(0, 50, n).astype(np.int64),
        "R": R,
        "status": status,
        "contribution": contribution,
        "gw": gw,
        "gw0": gw0,
        "cos": rng.uniform(0.1, 1.0, n),
        "point": rng.normal(size=(n, 3)),
        "normal": rng.normal(size=(n, 3)),
    }


def _binned(s: dict[str, Any]) -> dict[str, np.ndarray]:
    cells = SHAPE[0] * SHAPE[1]
    count = np.bincount(s["cell"], minlength=cells).astype(np.int32)
    ret = np.zeros(cells, dtype=np.float64)
    for j in range(ELEVATIONS):
        sel = s["elevation"] == j
        ret[s["cell"][sel]] += s["contribution"][sel]
    return {"sample_count": count, "linear_return": ret}


def _truth(fn: Any, s: dict[str, Any], *, top_k: int, supported: bool) -> dict[str, np.ndarray]:
    return fn(
        top_k=top_k,
        medium_supported=supported,
        sample_cell=s["cell"],
        sample_elevation=s["elevation"],
        sample_instance=s["instance"],
        sample_range=s["R"],
        sample_status=s["status"],
        contribution=s["contribution"],
        geometric_weight=s["gw"] if supported else np.full_like(s["gw"], np.nan),
        geometric_weight_no_absorption=s["gw0"],
        **_binned(s),
    )


CASES = [
    (seed, top_k, supported)
    for seed in (1, 2, 3)
    for top_k in (1, 2, 4)
    for supported in (True, False)
]


@pytest.mark.parametrize(("seed", "top_k", "supported"), CASES)
def test_ground_truth_equals_the_reference(seed: int, top_k: int, supported: bool) -> None:
    s = _samples(seed)
    ours = _truth(cell_ground_truth, s, top_k=top_k, supported=supported)
    old = _truth(reference_cell_ground_truth, s, top_k=top_k, supported=supported)
    assert set(ours) == set(old)
    assert np.any(_binned(s)["sample_count"] > top_k)  # truncation is exercised
    for name in old:
        assert ours[name].dtype == old[name].dtype, name
        np.testing.assert_array_equal(ours[name], old[name], err_msg=name)
        assert ours[name].tobytes() == old[name].tobytes(), name


def _channel_args(s: dict[str, Any], cells: dict[str, np.ndarray], top_k: int) -> dict[str, Any]:
    tables = {
        "object_index": np.array([0, 1, 1, 2], dtype=np.int32),
        "semantic_index": np.array([3, 4, 5, 6], dtype=np.int32),
        "moving": np.array([0, 1, 0, 1], dtype=np.uint8),
    }
    return {
        "shape": SHAPE,
        "top_k": top_k,
        "cells": cells,
        "sample_cell": s["cell"],
        "inst": s["instance"],
        "tri": s["triangle"],
        "R": s["R"],
        "elevation": 0.01 * s["elevation"],
        "cos_incidence": s["cos"],
        "point": s["point"],
        "normal": s["normal"],
        "status": s["status"],
        "tables": tables,
        "terms": {"contribution": s["contribution"], "geometric_weight": s["gw"]},
    }


def _new_channels(s: dict[str, Any], top_k: int, supported: bool) -> Any:
    cells = {**_binned(s), **_truth(cell_ground_truth, s, top_k=top_k, supported=supported)}
    buffer = _ChannelBuffer(channel_layout(SHAPE, top_k, speckle=False))
    cell_channels(buffer=buffer, **_channel_args(s, cells, top_k))
    return buffer.finish()


@pytest.mark.parametrize(("seed", "top_k", "supported"), CASES[:6])
def test_frame_channels_equal_the_reference_path(seed: int, top_k: int, supported: bool) -> None:
    s = _samples(seed)
    cells = {
        **_binned(s),
        **_truth(reference_cell_ground_truth, s, top_k=top_k, supported=supported),
    }
    old = reference_cell_channels(**_channel_args(s, cells, top_k))
    metadata = {"case": seed}
    expected = SonarFrame(channels=old, metadata=metadata)  # copy + canonical NaN path
    ours = SonarFrame(channels=_new_channels(s, top_k, supported), metadata=metadata)
    assert list(ours.channels) == list(expected.channels)
    for name, a in expected.channels.items():
        b = ours.channels[name]
        assert (b.dtype, b.shape) == (a.dtype, a.shape), name
        assert b.tobytes() == a.tobytes(), name
    assert ours.content_hash == expected.content_hash


def test_channel_buffer_arrays_sit_on_immutable_bytes() -> None:
    channels = _new_channels(_samples(4), 2, True)
    frame = SonarFrame(channels=channels, metadata={})
    for name, a in frame.channels.items():
        assert not a.flags.writeable, name
        base = a.base
        while isinstance(base, np.ndarray):
            assert not base.flags.writeable, name
            base = base.base
        assert type(base) is bytes, name
        with pytest.raises(ValueError):
            a.setflags(write=True)


def test_channel_buffer_without_ctypes_gives_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = _samples(5)
    with_api = _new_channels(s, 4, True)
    monkeypatch.setattr(frame_module, "_BYTES_API", None)
    without = _new_channels(s, 4, True)
    for name, a in with_api.items():
        base = without[name].base
        while isinstance(base, np.ndarray):
            base = base.base
        assert type(base) is bytes, name
        assert without[name].tobytes() == a.tobytes(), name


# --------------------------------------------------------------------------- packed keys


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
    expected = reference_contributor_order(cell, key1, key2, key3)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_contributor_order_breaks_full_ties_by_sample_index() -> None:
    # Equal in every key: the stable lexsort keeps sample order; so must the fast path.
    cell = np.array([3, 1, 3, 3, 1, 3], dtype=np.int64)
    key1 = np.array([-1.0, -2.0, -1.0, -0.0, -2.0, 0.0])
    key2 = np.full(6, 4.0)
    key3 = np.zeros(6, dtype=np.int64)
    np.testing.assert_array_equal(
        _contributor_order(cell, key1, key2, key3, 4),
        reference_contributor_order(cell, key1, key2, key3),
    )


@pytest.mark.parametrize("n", [0, 1])
def test_contributor_order_of_tiny_inputs(n: int) -> None:
    cell = np.zeros(n, dtype=np.int64)
    key = np.zeros(n)
    got = _contributor_order(cell, key, key, cell, 5)
    np.testing.assert_array_equal(got, reference_contributor_order(cell, key, key, cell))


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
