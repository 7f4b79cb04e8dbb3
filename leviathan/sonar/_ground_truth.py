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
]
# __all__ lists the cell flags and bases that leviathan.sonar re-exports; the stage's
# functions (canonical_nan, cell_channels, cell_ground_truth, channel_layout) are used by
# name within the package only.

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
# Set bits of each byte value: statuses are codes below 8, so their masks fit a byte.
_POPCOUNT_8 = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)


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

    # Per-cell status bits first: they give the basis, hence the dominance, which
    # the contributor order needs.
    status_mask = _cell_status_mask(sample_cell, sample_status, cells)
    basis = np.zeros(cells, dtype=np.uint8)
    filled = count > 0
    if medium_supported:
        known_only = status_mask == (1 << _STATUS_KNOWN)
        basis[filled] = np.where(known_only, BASIS_CONTRIBUTION, BASIS_GEOMETRIC)[filled]
    else:
        basis[filled] = BASIS_GEOMETRIC_NO_ABSORPTION
    sample_basis = basis[sample_cell]
    dominance = np.where(
        sample_basis == BASIS_CONTRIBUTION,
        contribution,
        np.where(sample_basis == BASIS_GEOMETRIC, geometric_weight, geometric_weight_no_absorption),
    )

    # Deterministic contributor order: dominance (descending), range, elevation,
    # instance, triangle — all ascending — within each cell; cells ascending. A
    # cell holds at most one sample per elevation, so (cell, elevation) is already
    # unique and the instance and triangle keys can never decide.
    order = _contributor_order(sample_cell, -dominance, sample_range, sample_elevation, cells)
    sorted_cell = sample_cell[order]
    run_start = np.ones(n, dtype=bool)
    run_start[1:] = sorted_cell[1:] != sorted_cell[:-1]
    starts = np.nonzero(run_start)[0]
    occupied = sorted_cell[starts]  # ascending cell indices with at least one sample
    status_occ = status_mask[occupied]
    count_occ = count[occupied]
    positions = np.arange(n, dtype=np.int64)
    first_of_cell = np.repeat(starts, count_occ)
    rank_sorted = positions - first_of_cell
    rank = np.empty(n, dtype=np.int64)
    rank[order] = rank_sorted

    # Share of the return outside the top-K, summed in rank order (one indexed add
    # per rank; a cell has at most one sample of each rank). Cells by descending
    # count: those holding rank r are a prefix.
    rest = np.zeros(cells, dtype=np.float64)
    if n and int(count_occ.max()) > top_k:
        by_count = np.argsort(-count_occ, kind="stable")
        desc_count = count_occ[by_count]
        desc_start = starts[by_count]
        desc_cell = occupied[by_count]
        holding = np.searchsorted(-desc_count, -np.arange(int(desc_count[0])), side="left")
        for r in range(top_k, int(desc_count[0])):
            k = holding[r]
            idx = order[desc_start[:k] + r]
            rest[desc_cell[:k]] += contribution[idx]
    # NaN where the cell is empty or its return is not a positive finite number; 0
    # where it has no more than top_k contributors; else rest / linear_return.
    truncation = np.full(cells, np.nan, dtype=np.float64)
    ret_occ = linear_return[occupied]
    positive = np.isfinite(ret_occ) & (ret_occ > 0.0)
    truncation[occupied[positive]] = 0.0
    cut = occupied[positive & (count[occupied] > top_k)]
    truncation[cut] = rest[cut] / linear_return[cut]

    # Several instances: a sample whose instance differs from its cell's first one.
    inst_sorted = sample_instance[order]
    differs = inst_sorted != inst_sorted[first_of_cell]
    multiple = np.zeros(cells, dtype=bool)
    multiple[sorted_cell[differs]] = True

    # Empty cells carry FLAG_EMPTY alone; the other flags are built over occupied cells.
    validity = np.full(cells, FLAG_EMPTY, dtype=np.uint16)
    flags = np.zeros(occupied.shape[0], dtype=np.uint16)
    flags[np.isfinite(ret_occ)] |= FLAG_VALID
    flags[(status_occ & (1 << _STATUS_UNKNOWN)) != 0] |= FLAG_UNKNOWN_MATERIAL
    flags[(status_occ & (1 << _STATUS_UNSUPPORTED)) != 0] |= FLAG_UNSUPPORTED_MATERIAL
    flags[(status_occ & (1 << _STATUS_INTERFACE)) != 0] |= FLAG_SEA_SURFACE
    if not medium_supported:
        flags |= FLAG_UNSUPPORTED_MEDIUM
    # Mixed status: more than one status bit set.
    flags[_POPCOUNT_8[status_occ & 0xFF] > 1] |= FLAG_MIXED_STATUS
    flags[multiple[occupied]] |= FLAG_MULTIPLE_INSTANCES
    flags[count[occupied] > top_k] |= FLAG_TRUNCATED
    validity[occupied] = flags

    return {
        "primary_basis": basis,
        "validity": validity,
        "truncation": truncation,
        "sample_rank": rank,
        "sample_dominance": dominance,
    }


def _cell_status_mask(sample_cell: np.ndarray, sample_status: np.ndarray, cells: int) -> np.ndarray:
    """Bit ``s`` of cell ``c`` set when a sample of ``c`` has status ``s``, int64 [cells].

    One scatter per status code present (codes are below 8, uint8 in): a bitwise
    or, exact in any order, without sorting the samples by cell first.
    """
    mask = np.zeros(cells, dtype=np.int64)
    present = np.nonzero(np.bincount(sample_status, minlength=8))[0]
    for code in present.tolist():
        has = np.zeros(cells, dtype=bool)
        has[sample_cell[sample_status == code]] = True
        mask[has] |= 1 << int(code)
    return mask


def _float_order_key(values: np.ndarray) -> np.ndarray:
    """uint64 keys that order like ``values`` in :func:`numpy.sort`, float64 [n] in.

    ``-0.0`` and ``0.0`` get the same key (numpy compares them equal) and every NaN
    the largest key (numpy sorts NaNs last, all equal): the float's bits with the
    magnitude flipped for negatives, then the sign bit flipped, order like the floats.
    """
    bits = (values + 0.0).view(np.int64)  # + 0.0: -0.0 becomes 0.0, NaN stays NaN
    signed = bits ^ ((bits >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))
    signed[np.isnan(values)] = np.iinfo(np.int64).max
    return signed.view(np.uint64) ^ np.uint64(1 << 63)


def _contributor_order(
    cell: np.ndarray,
    key1: np.ndarray,
    key2: np.ndarray,
    key3: np.ndarray,
    cells: int,
) -> np.ndarray:
    """``numpy.lexsort((key3, key2, key1, cell))``, the same permutation, faster.

    The cell and the leading bits of ``key1`` are packed into one uint64 whose
    order is that of ``(cell, key1)`` up to ties; samples whose packed keys tie
    (a rare few: equal cells and ``key1`` values close to within the dropped
    bits) are put in order by the full lexsort among themselves. Sorting the
    packed keys needs no stability: every tie is resolved that way.

    Args:
        cell: Flat cell index, int64 [n], in ``[0, cells)``.
        key1, key2: float64 [n] (ordered as :func:`numpy.sort` orders floats).
        key3: int64 [n].
        cells: Number of cells.

    Returns:
        int64 [n]: sample indices by cell, then ``key1``, ``key2``, ``key3``, then
        sample index (lexsort is stable).
    """
    cell_bits = max(1, (max(cells, 1) - 1).bit_length())
    if cell.shape[0] < 2 or cell_bits > 32:
        return np.lexsort((key3, key2, key1, cell))
    packed = (cell.astype(np.uint64) << np.uint64(64 - cell_bits)) | (
        _float_order_key(key1) >> np.uint64(cell_bits)
    )
    order = np.argsort(packed)
    packed_sorted = packed[order]
    tie = packed_sorted[1:] == packed_sorted[:-1]
    if tie.any():
        in_tie = np.zeros(order.shape[0], dtype=bool)
        in_tie[1:] = tie
        in_tie[:-1] |= tie
        where = np.nonzero(in_tie)[0]
        # Ascending sample indices first, so that the stable lexsort breaks full
        # ties by sample index as the reference does; the packed key keeps each
        # tied run in its place.
        tied = np.sort(order[where])
        order[where] = tied[np.lexsort((key3[tied], key2[tied], key1[tied], packed[tied]))]
    return order


def channel_layout(
    shape: tuple[int, int],
    top_k: int,
    *,
    speckle: bool,
    angles: tuple[str, ...] = ("elevation_rad",),
) -> list[tuple[str, tuple[int, ...], Any]]:
    """``(name, shape, dtype)`` of every channel of a frame, in the frame's order.

    Args:
        shape: Image shape ``(range_bin_count, column_count)`` (columns are the
            imaging sonar's bearings).
        top_k: Contributors kept per cell.
        speckle: Whether ``speckle_return`` is drawn.
        angles: Names of the per-ray angle channels: each gives ``primary_<name>``
            (after ``primary_range_m``) and ``topk_<name>`` (after ``topk_range_m``);
            the imaging sonar's one is ``elevation_rad``.
    """
    cell, vec3, topk = shape, (*shape, 3), (*shape, top_k)
    f8, i4, u1 = np.float64, np.int32, np.uint8
    primary_angles = {f"primary_{a}": (cell, f8) for a in angles}
    topk_angles = {f"topk_{a}": (topk, f8) for a in angles}
    layout = {
        "linear_return": (cell, f8),
        "speckle_return": (cell, f8),
        "sample_count": (cell, i4),
        "validity": (cell, np.uint16),
        "primary_basis": (cell, u1),
        "truncation": (cell, f8),
        "primary_instance": (cell, i4),
        "primary_object": (cell, i4),
        "primary_triangle": (cell, i4),
        "primary_range_m": (cell, f8),
        **primary_angles,
        "primary_incidence_rad": (cell, f8),
        "primary_hit_point_world": (vec3, f8),
        "primary_normal_world": (vec3, f8),
        "primary_semantic": (cell, i4),
        "primary_acoustic_status": (cell, u1),
        "primary_moving": (cell, u1),
        "topk_instance": (topk, i4),
        "topk_triangle": (topk, i4),
        "topk_range_m": (topk, f8),
        **topk_angles,
        "topk_contribution": (topk, f8),
        "topk_geometric_weight": (topk, f8),
        "topk_energy_fraction": (topk, f8),
    }
    if not speckle:
        del layout["speckle_return"]
    return [(name, shape_, dtype) for name, (shape_, dtype) in layout.items()]


def canonical_nan(values: np.ndarray) -> np.ndarray:
    """``values`` with every NaN replaced by ``numpy.nan``'s one bit pattern.

    x86 and ARM differ in the sign of a default NaN; frames compare byte for byte
    across backends and platforms, so every NaN written into a channel is this one.
    Returns ``values`` itself when it holds no NaN.
    """
    nan = np.isnan(values)
    if not nan.any():
        return values
    return np.where(nan, np.nan, values)


def cell_channels(
    *,
    buffer: Any,
    shape: tuple[int, int],
    top_k: int,
    cells: dict[str, np.ndarray],
    sample_cell: np.ndarray,
    inst: np.ndarray,
    tri: np.ndarray,
    R: np.ndarray,
    elevation: np.ndarray | None = None,
    angles: dict[str, np.ndarray] | None = None,
    cos_incidence: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    status: np.ndarray,
    tables: dict[str, np.ndarray],
    terms: dict[str, np.ndarray],
) -> None:
    """Writes the frame's channels over ``[range_bin, bearing]`` into ``buffer``.

    Each channel is written once: its sentinel fill, then its values scattered into
    the cells that have them (NaNs made canonical first, see :func:`canonical_nan`).

    Args:
        buffer: The frame's :class:`leviathan.sonar._frame._ChannelBuffer`, laid out by
            :func:`channel_layout` (``speckle_return`` is left to the caller).
        shape: Image shape ``(range_bin_count, bearing_count)``.
        top_k: Contributors kept per cell.
        cells: :func:`leviathan.sonar._binning.bin_samples` and :func:`cell_ground_truth`
            outputs together, flat over cells.
        sample_cell: Flat cell index of each sample, int64 [n].
        inst, tri: Hit instance and triangle of each sample, int64 [n].
        R: Slant range [m], float64 [n].
        elevation: Elevation of each sample in the sensor frame [rad], float64 [n]
            (the imaging sonar's one angle; shorthand for ``angles={"elevation_rad": ...}``).
        angles: Per-sample angle channels by name (as in :func:`channel_layout`),
            float64 [n] each; give this or ``elevation``.
        cos_incidence: |cos θ| of each sample, float64 [n].
        point, normal: Hit point [m] and unit normal in world NED, float64 [n, 3].
        status: Acoustic status code of each sample, uint8 [n].
        tables: The scene's per-instance lookup tables (``scene.instance_tables``).
        terms: :func:`leviathan.reference_cpu.sonar.sample_physics` outputs.
    """
    if (angles is None) == (elevation is None):
        raise TypeError("cell_channels: give exactly one of elevation and angles")
    if angles is None:
        angles = {"elevation_rad": elevation}
    n_cells = shape[0] * shape[1]
    rank = cells["sample_rank"]
    ret = cells["linear_return"]

    def put(name: str, values: np.ndarray) -> None:
        a = buffer.array(name, 0).reshape(n_cells)
        a[...] = canonical_nan(values) if values.dtype.kind == "f" else values

    put("linear_return", ret)
    put("sample_count", cells["sample_count"])
    put("validity", cells["validity"])
    put("primary_basis", cells["primary_basis"])
    put("truncation", cells["truncation"])

    p = np.nonzero(rank == 0)[0]
    pc = sample_cell[p]
    ip = inst[p]
    primary = {
        "primary_instance": (-1, ip),
        "primary_object": (-1, tables["object_index"][ip]),
        "primary_triangle": (-1, tri[p]),
        "primary_range_m": (np.nan, R[p]),
        **{f"primary_{a}": (np.nan, values[p]) for a, values in angles.items()},
        # The angle is needed for primary samples only.
        "primary_incidence_rad": (np.nan, acos_clipped(cos_incidence[p])),
        "primary_hit_point_world": (np.nan, point[p]),
        "primary_normal_world": (np.nan, normal[p]),
        "primary_semantic": (-1, tables["semantic_index"][ip]),
        "primary_acoustic_status": (0, status[p]),
        "primary_moving": (0, tables["moving"][ip]),
    }
    for name, (fill, values) in primary.items():
        a = buffer.array(name, fill)
        a = a.reshape(n_cells, *a.shape[2:])
        a[pc] = canonical_nan(values) if values.dtype.kind == "f" else values

    kk = np.nonzero(rank < top_k)[0]
    kc, kr = sample_cell[kk], rank[kk]
    ret_k = ret[kc]
    contribution_k = terms["contribution"][kk]
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = contribution_k / ret_k
    fraction = np.where(ret_k > 0.0, fraction, np.nan)
    topk = {
        "topk_instance": (-1, inst[kk]),
        "topk_triangle": (-1, tri[kk]),
        "topk_range_m": (np.nan, R[kk]),
        **{f"topk_{a}": (np.nan, values[kk]) for a, values in angles.items()},
        "topk_contribution": (np.nan, contribution_k),
        "topk_geometric_weight": (np.nan, terms["geometric_weight"][kk]),
        "topk_energy_fraction": (np.nan, fraction),
    }
    flat = kc * top_k + kr  # one flat index instead of a (cell, rank) pair per channel
    for name, (fill, values) in topk.items():
        a = buffer.array(name, fill).reshape(n_cells * top_k)
        a[flat] = canonical_nan(values) if values.dtype.kind == "f" else values
