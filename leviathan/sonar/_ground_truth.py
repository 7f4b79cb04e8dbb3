"""Ground-truth stage of the imaging sonar: per-cell dominance, validity and contributors.

After binning (:mod:`leviathan.sonar._binning`), each cell's samples are ranked
by dominance (contribution when every contributor's radiometry is known,
otherwise the geometric weight, without absorption when the medium is
unsupported), then range, elevation, instance and triangle; the cell gets
validity flags (:data:`CELL_FLAGS`), its primary basis, the share of its return
outside the top-K, and the primary and top-K contributors' channels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from leviathan.reference_cpu.sonar import acos_clipped

__all__ = [
    "BASIS_CONTRIBUTION",
    "BASIS_GEOMETRIC",
    "BASIS_GEOMETRIC_NO_ABSORPTION",
    "BASIS_NONE",
    "CELL_FLAGS",
    "FLAG_EMPTY",
    "FLAG_MIXED_STATUS",
    "FLAG_MULTIPLE_INSTANCES",
    "FLAG_SEA_SURFACE",
    "FLAG_TRUNCATED",
    "FLAG_UNKNOWN_MATERIAL",
    "FLAG_UNSUPPORTED_MATERIAL",
    "FLAG_UNSUPPORTED_MEDIUM",
    "FLAG_VALID",
    "cell_channels",
    "cell_ground_truth",
]

# Cell validity flags (uint16 bit mask).
FLAG_EMPTY = 1 << 0  # no sample integrated: linear_return is 0 (nothing scatters there)
FLAG_VALID = 1 << 1  # return has a value: every contributor KNOWN and the medium supported
FLAG_UNKNOWN_MATERIAL = 1 << 2  # a contributor without a declared acoustic material
FLAG_UNSUPPORTED_MATERIAL = 1 << 3  # a contributor whose declared model is not implemented
FLAG_UNSUPPORTED_MEDIUM = 1 << 4  # water/frequency/depth outside the absorption model
FLAG_SEA_SURFACE = 1 << 5  # a contributor on the sea-surface interface
FLAG_MIXED_STATUS = 1 << 6  # contributors with more than one acoustic status
FLAG_MULTIPLE_INSTANCES = 1 << 7  # contributors from more than one instance
FLAG_TRUNCATED = 1 << 8  # more contributors than top_k

CELL_FLAGS: dict[str, int] = {
    "empty": FLAG_EMPTY,
    "valid": FLAG_VALID,
    "unknown_material": FLAG_UNKNOWN_MATERIAL,
    "unsupported_material": FLAG_UNSUPPORTED_MATERIAL,
    "unsupported_medium": FLAG_UNSUPPORTED_MEDIUM,
    "sea_surface": FLAG_SEA_SURFACE,
    "mixed_status": FLAG_MIXED_STATUS,
    "multiple_instances": FLAG_MULTIPLE_INSTANCES,
    "truncated": FLAG_TRUNCATED,
}

# primary_basis codes: the rule used for dominance in each cell.
BASIS_NONE = 0  # empty cell
BASIS_CONTRIBUTION = 1  # radiometry fully known: dominance = contribution
BASIS_GEOMETRIC = 2  # radiometry unknown somewhere: dominance = geometric weight
BASIS_GEOMETRIC_NO_ABSORPTION = 3  # medium unsupported: geometric weight without absorption

_STATUS_KNOWN = 1
_STATUS_UNKNOWN = 2
_STATUS_UNSUPPORTED = 3
_STATUS_INTERFACE = 4


def cell_ground_truth(
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


def cell_channels(
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
