"""The vectorised ground-truth and channel stages equal the original loops, bit for bit.

``_old_cell_ground_truth`` and ``_old_cell_channels`` below are the original
implementations, kept verbatim (renamed): ``ufunc.at`` accumulations, one full
lexsort, a loop per rank, channels frozen by the frame's copy-and-canonicalise
path. The new stages (run-wise reductions, a lexsort of multi-sample cells only,
channels written once into one immutable buffer) must give the same arrays and
the same frame hash on seeded samples with shared cells, ties, NaN contributions,
every status and both medium cases.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import leviathan.sonar._frame as frame_module
from leviathan.reference_cpu.sonar import acos_clipped
from leviathan.sonar import SonarFrame
from leviathan.sonar._frame import _ChannelBuffer
from leviathan.sonar._ground_truth import (
    _STATUS_INTERFACE,
    _STATUS_KNOWN,
    _STATUS_UNKNOWN,
    _STATUS_UNSUPPORTED,
    BASIS_CONTRIBUTION,
    BASIS_GEOMETRIC,
    BASIS_GEOMETRIC_NO_ABSORPTION,
    FLAG_EMPTY,
    FLAG_MIXED_STATUS,
    FLAG_MULTIPLE_INSTANCES,
    FLAG_SEA_SURFACE,
    FLAG_TRUNCATED,
    FLAG_UNKNOWN_MATERIAL,
    FLAG_UNSUPPORTED_MATERIAL,
    FLAG_UNSUPPORTED_MEDIUM,
    FLAG_VALID,
    cell_channels,
    cell_ground_truth,
    channel_layout,
)

SHAPE = (40, 16)  # range bins x bearings
ELEVATIONS = 12


def _old_cell_ground_truth(
    *,
    top_k: int,
    medium_supported: bool,
    sample_cell: np.ndarray,
    sample_elevation: np.ndarray,
    sample_instance: np.ndarray,
    sample_range: np.ndarray,
    sample_status: np.ndarray,
    contribution: np.ndarray,
    geometric_weight: np.ndarray,
    geometric_weight_no_absorption: np.ndarray,
    sample_count: np.ndarray,
    linear_return: np.ndarray,
) -> dict[str, np.ndarray]:
    """Ranks each cell's contributors and flags the cell.

    Args:
        top_k: Contributors kept per cell.
        medium_supported: Whether absorption is defined for this ping.
        sample_cell: Flat cell index ``range_bin * bearing_count + bearing``, int64 [n].
        sample_elevation: Elevation index ``j``, int64 [n].
        sample_instance: Hit instance, int64 [n].
        sample_range: Slant range [m], float64 [n].
        sample_status: Acoustic status code, uint8 [n].
        contribution, geometric_weight, geometric_weight_no_absorption: float64 [n].
        sample_count, linear_return: The cell sums of
            :func:`leviathan.sonar._binning.bin_samples`, flat over cells.

    Returns:
        Cell arrays (flat over cells, reshaped by the caller): ``primary_basis``,
        ``validity``, ``truncation``, plus ``sample_rank`` (rank of each sample in
        its cell) and ``sample_dominance``, int64 and float64 [n].
    """
    cells = sample_count.shape[0]
    n = sample_cell.shape[0]
    count = sample_count

    status_mask = np.zeros(cells, dtype=np.int64)
    np.bitwise_or.at(status_mask, sample_cell, np.left_shift(1, sample_status.astype(np.int64)))
    known_only = status_mask == (1 << _STATUS_KNOWN)
    nonempty = count > 0

    basis = np.zeros(cells, dtype=np.uint8)
    if medium_supported:
        basis[nonempty & known_only] = BASIS_CONTRIBUTION
        basis[nonempty & ~known_only] = BASIS_GEOMETRIC
    else:
        basis[nonempty] = BASIS_GEOMETRIC_NO_ABSORPTION
    sample_basis = basis[sample_cell]
    dominance = np.where(
        sample_basis == BASIS_CONTRIBUTION,
        contribution,
        np.where(sample_basis == BASIS_GEOMETRIC, geometric_weight, geometric_weight_no_absorption),
    )

    # Deterministic contributor order: dominance (descending), range, elevation,
    # instance, triangle — all ascending — within each cell. A cell holds at most
    # one sample per elevation, so (cell, elevation) is already unique and the
    # instance and triangle keys can never decide: sorting without them gives the
    # same permutation, faster.
    order = np.lexsort((sample_elevation, sample_range, -dominance, sample_cell))
    sorted_cell = sample_cell[order]
    first_of_cell = np.searchsorted(sorted_cell, sorted_cell, side="left")
    rank_sorted = np.arange(n, dtype=np.int64) - first_of_cell
    rank = np.empty(n, dtype=np.int64)
    rank[order] = rank_sorted

    # Share of the return outside the top-K, summed in rank order.
    rest = np.zeros(cells, dtype=np.float64)
    max_rank = int(rank.max()) if n else -1
    for r in range(top_k, max_rank + 1):
        idx = order[rank_sorted == r]
        rest[sample_cell[idx]] += contribution[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        truncation = np.where(count > top_k, rest / linear_return, 0.0)
    truncation = np.where(np.isfinite(linear_return) & (linear_return > 0.0), truncation, np.nan)
    truncation = np.where(nonempty, truncation, np.nan)

    inst_min = np.full(cells, np.iinfo(np.int64).max, dtype=np.int64)
    inst_max = np.full(cells, -1, dtype=np.int64)
    np.minimum.at(inst_min, sample_cell, sample_instance)
    np.maximum.at(inst_max, sample_cell, sample_instance)

    validity = np.zeros(cells, dtype=np.uint16)
    validity[~nonempty] |= FLAG_EMPTY
    validity[nonempty & np.isfinite(linear_return)] |= FLAG_VALID
    validity[(status_mask & (1 << _STATUS_UNKNOWN)) != 0] |= FLAG_UNKNOWN_MATERIAL
    validity[(status_mask & (1 << _STATUS_UNSUPPORTED)) != 0] |= FLAG_UNSUPPORTED_MATERIAL
    validity[(status_mask & (1 << _STATUS_INTERFACE)) != 0] |= FLAG_SEA_SURFACE
    if not medium_supported:
        validity[nonempty] |= FLAG_UNSUPPORTED_MEDIUM
    # Mixed status: more than one status bit set (only non-empty cells have any).
    occupied = np.nonzero(nonempty)[0]
    occupied_mask = status_mask[occupied]
    popcount = np.zeros(occupied.shape[0], dtype=np.int64)
    for s in range(8):
        popcount += (occupied_mask >> s) & 1
    validity[occupied[popcount > 1]] |= FLAG_MIXED_STATUS
    validity[nonempty & (inst_min != inst_max)] |= FLAG_MULTIPLE_INSTANCES
    validity[count > top_k] |= FLAG_TRUNCATED

    return {
        "primary_basis": basis,
        "validity": validity,
        "truncation": truncation,
        "sample_rank": rank,
        "sample_dominance": dominance,
    }


def _old_cell_channels(
    *,
    shape: tuple[int, int],
    top_k: int,
    cells: dict[str, np.ndarray],
    sample_cell: np.ndarray,
    inst: np.ndarray,
    tri: np.ndarray,
    R: np.ndarray,
    elevation: np.ndarray,
    cos_incidence: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    status: np.ndarray,
    tables: dict[str, np.ndarray],
    terms: dict[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """The frame's channels over ``[range_bin, bearing]`` from the cell and sample arrays.

    Args:
        shape: Image shape ``(range_bin_count, bearing_count)``.
        top_k: Contributors kept per cell.
        cells: :func:`leviathan.sonar._binning.bin_samples` and :func:`cell_ground_truth`
            outputs together, flat over cells.
        sample_cell: Flat cell index of each sample, int64 [n].
        inst, tri: Hit instance and triangle of each sample, int64 [n].
        R: Slant range [m], float64 [n].
        elevation: Elevation of each sample in the sensor frame [rad], float64 [n].
        cos_incidence: |cos θ| of each sample, float64 [n].
        point, normal: Hit point [m] and unit normal in world NED, float64 [n, 3].
        status: Acoustic status code of each sample, uint8 [n].
        tables: The scene's per-instance lookup tables (``scene.instance_tables``).
        terms: :func:`leviathan.reference_cpu.sonar.sample_physics` outputs.

    Returns:
        Channels by name, in the frame's documented order (without ``speckle_return``).
    """
    n_cells = shape[0] * shape[1]
    rank = cells["sample_rank"]
    ret = cells["linear_return"]

    def full(fill: Any, dtype: Any, extra: tuple[int, ...] = ()) -> np.ndarray:
        return np.full((n_cells, *extra), fill, dtype=dtype)

    out: dict[str, np.ndarray] = {
        "linear_return": ret.reshape(shape),
        "sample_count": cells["sample_count"].reshape(shape),
        "validity": cells["validity"].reshape(shape),
        "primary_basis": cells["primary_basis"].reshape(shape),
        "truncation": cells["truncation"].reshape(shape),
    }

    p = rank == 0
    pc = sample_cell[p]
    primary = {
        "primary_instance": (full(-1, np.int32), inst[p]),
        "primary_object": (full(-1, np.int32), tables["object_index"][inst[p]]),
        "primary_triangle": (full(-1, np.int32), tri[p]),
        "primary_range_m": (full(np.nan, np.float64), R[p]),
        "primary_elevation_rad": (full(np.nan, np.float64), elevation[p]),
        # The angle is needed for primary samples only.
        "primary_incidence_rad": (full(np.nan, np.float64), acos_clipped(cos_incidence[p])),
        "primary_hit_point_world": (full(np.nan, np.float64, (3,)), point[p]),
        "primary_normal_world": (full(np.nan, np.float64, (3,)), normal[p]),
        "primary_semantic": (full(-1, np.int32), tables["semantic_index"][inst[p]]),
        "primary_acoustic_status": (full(0, np.uint8), status[p]),
        "primary_moving": (full(0, np.uint8), tables["moving"][inst[p]]),
    }
    for name, (arr, values) in primary.items():
        arr[pc] = values
        out[name] = arr.reshape(*shape, *arr.shape[1:])

    kk = rank < top_k
    kc, kr = sample_cell[kk], rank[kk]
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = terms["contribution"] / ret[sample_cell]
    fraction = np.where(ret[sample_cell] > 0.0, fraction, np.nan)
    topk = {
        "topk_instance": (full(-1, np.int32, (top_k,)), inst),
        "topk_triangle": (full(-1, np.int32, (top_k,)), tri),
        "topk_range_m": (full(np.nan, np.float64, (top_k,)), R),
        "topk_elevation_rad": (full(np.nan, np.float64, (top_k,)), elevation),
        "topk_contribution": (full(np.nan, np.float64, (top_k,)), terms["contribution"]),
        "topk_geometric_weight": (full(np.nan, np.float64, (top_k,)), terms["geometric_weight"]),
        "topk_energy_fraction": (full(np.nan, np.float64, (top_k,)), fraction),
    }
    for name, (arr, values) in topk.items():
        arr[kc, kr] = values[kk]
        out[name] = arr.reshape(*shape, top_k)
    return out


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
        np.array([_STATUS_KNOWN] * 6 + [_STATUS_UNKNOWN, _STATUS_UNSUPPORTED, _STATUS_INTERFACE]),
        size=n,
    ).astype(np.uint8)
    instance = rng.integers(0, 3, n).astype(np.int64)
    # Ranges and weights from small sets: ties in dominance and range occur.
    R = rng.choice(np.array([5.0, 5.5, 6.0, 7.25]), size=n)
    gw0 = rng.choice(np.array([1e-3, 2e-3, 2e-3, 5e-4]), size=n)
    gw = gw0 * 0.5
    contribution = np.where(status == _STATUS_KNOWN, gw * 0.25, np.nan)
    # A NaN of the other sign, as arithmetic on x86 makes it.
    contribution[status == _STATUS_UNKNOWN] = -np.nan
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
def test_ground_truth_equals_the_original(seed: int, top_k: int, supported: bool) -> None:
    s = _samples(seed)
    ours = _truth(cell_ground_truth, s, top_k=top_k, supported=supported)
    old = _truth(_old_cell_ground_truth, s, top_k=top_k, supported=supported)
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
def test_frame_channels_equal_the_original_path(seed: int, top_k: int, supported: bool) -> None:
    s = _samples(seed)
    cells = {**_binned(s), **_truth(_old_cell_ground_truth, s, top_k=top_k, supported=supported)}
    old = _old_cell_channels(**_channel_args(s, cells, top_k))
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
