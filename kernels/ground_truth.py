"""Warp per-cell ground truth of the acoustic fan: the compiled twin of ``cell_ground_truth``.

Mirrors :func:`leviathan.sonar._ground_truth.cell_ground_truth` (the numpy stage
the reference backend runs) rule for rule. One thread owns a run of cells; for
each cell it reads the cell's samples (grouped by :func:`group_by_cell`, in
ascending sample index), then

* ORs ``1 << status`` into the cell's status mask, which gives the primary basis
  (contribution when every contributor is KNOWN and the medium is supported,
  else the geometric weight, without absorption when the medium is unsupported)
  and hence each sample's dominance;
* sorts the samples by the contributor order: dominance descending, then range,
  then elevation ascending, then sample index, with numpy's float order (every
  NaN after every number and equal to every NaN; ``-0.0`` equal to ``0.0``) — a
  stable merge sort into ``order``, insertion sort for short runs;
* gives each sample its rank, sums the contributions of ranks ``>= top_k`` in
  rank order (the truncated share), and sets the validity flags.

Only comparisons, copies, one ``+`` per truncated contributor (in rank order,
from ``0.0``) and one ``/`` per truncated cell: the module compiles with
``fuse_fp=False`` and ``fast_math=False`` like the others, and the result is the
numpy stage's bit for bit. Each thread writes only its cells' slots.
"""

from __future__ import annotations

import warp as wp

from leviathan._kernel_options import KERNEL_OPTIONS
from leviathan.kernels.physics import thread_run

wp.set_module_options(KERNEL_OPTIONS)

__all__ = ["CellBatch", "bin_cells", "cell_ground_truth", "group_by_cell", "sample_before"]

ZERO = wp.constant(wp.float64(0.0))
NAN = wp.constant(wp.float64(float("nan")))
# Insertion sort up to this many samples in a cell; merge sort above.
INSERTION_MAX = wp.constant(24)
# The status codes, bases and cell flags of leviathan.sonar._ground_truth (and
# leviathan.materials.AcousticStatus), as literals: this package is imported by
# leviathan.sonar, not the other way round. tests/kernels/test_host_stage.py checks
# that each equals its namesake.
STATUS_KNOWN = wp.constant(1)
STATUS_UNKNOWN = wp.constant(2)
STATUS_UNSUPPORTED = wp.constant(3)
STATUS_INTERFACE = wp.constant(4)
BASIS_CONTRIBUTION = wp.constant(1)
BASIS_GEOMETRIC = wp.constant(2)
BASIS_GEOMETRIC_NO_ABSORPTION = wp.constant(3)
FLAG_EMPTY = wp.constant(1)
FLAG_VALID = wp.constant(2)
FLAG_UNKNOWN_MATERIAL = wp.constant(4)
FLAG_UNSUPPORTED_MATERIAL = wp.constant(8)
FLAG_UNSUPPORTED_MEDIUM = wp.constant(16)
FLAG_SEA_SURFACE = wp.constant(32)
FLAG_MIXED_STATUS = wp.constant(64)
FLAG_MULTIPLE_INSTANCES = wp.constant(128)
FLAG_TRUNCATED = wp.constant(256)


@wp.struct
class CellBatch:
    """The cells one launch of a cell kernel covers: ``cell_first`` to ``cell_end``
    (excluded), ``cells_per_thread`` consecutive cells per thread (thread ``t`` from
    ``cell_first + t * cells_per_thread``)."""

    cell_first: wp.int32
    cell_end: wp.int32
    cells_per_thread: wp.int32


@wp.func
def _float_order(a: wp.float64, b: wp.float64) -> wp.int32:
    """-1, 0 or 1 as numpy's sort orders ``a`` and ``b`` (NaNs last and equal; -0 == 0)."""
    na = wp.isnan(a)
    nb = wp.isnan(b)
    if na and nb:
        return 0
    if na:
        return 1
    if nb:
        return -1
    if a < b:
        return -1
    if b < a:
        return 1
    return 0


@wp.func
def sample_before(
    a: wp.int32,
    b: wp.int32,
    dominance: wp.array(dtype=wp.float64),
    sample_range: wp.array(dtype=wp.float64),
    sample_elevation: wp.array(dtype=wp.int64),
) -> bool:
    """Whether sample ``a`` comes before ``b``: (-dominance, range, elevation, index)."""
    c = _float_order(-dominance[a], -dominance[b])
    if c == 0:
        c = _float_order(sample_range[a], sample_range[b])
    if c == 0:
        ea = sample_elevation[a]
        eb = sample_elevation[b]
        if ea < eb:
            c = -1
        elif eb < ea:
            c = 1
    if c == 0:
        return a < b
    return c < 0


@wp.kernel
def group_by_cell(
    sample_cell: wp.array(dtype=wp.int64),
    sample_count: wp.int32,
    cursor: wp.array(dtype=wp.int32),
    grouped: wp.array(dtype=wp.int32),
):
    """One thread: samples by cell, ascending sample index within a cell (a counting sort).

    ``cursor`` starts as each cell's first slot and is advanced in place.
    """
    for s in range(sample_count):
        c = sample_cell[s]
        grouped[cursor[c]] = s
        cursor[c] = cursor[c] + 1


@wp.kernel
def bin_cells(
    cell_start: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    sample_row: wp.array(dtype=wp.int64),
    contribution: wp.array(dtype=wp.float64),
    batch: CellBatch,
    grouped: wp.array(dtype=wp.int32),
    linear_return: wp.array(dtype=wp.float64),
):
    """A run of cells: their samples put in ascending row, their contributions summed so.

    :func:`leviathan.sonar._binning.bin_samples`'s sum, ``((0 + c_0) + c_1) + ...`` in
    ascending row (elevation) order; an insertion sort of the cell's slice of
    ``grouped`` (already ascending for the fans whose rows ascend with the ray index,
    when it costs one pass).
    """
    first, last = thread_run(batch.cell_first, wp.tid(), batch.cells_per_thread, batch.cell_end)
    for c in range(first, last):
        start = cell_start[c]
        end = start + count[c]
        for g in range(start + 1, end):
            s = grouped[g]
            h = g
            moving = bool(True)  # a typed variable, as Warp needs
            while moving:
                if h == start:
                    moving = False
                elif sample_row[s] < sample_row[grouped[h - 1]]:
                    grouped[h] = grouped[h - 1]
                    h = h - 1
                else:
                    moving = False
            grouped[h] = s
        total = ZERO
        for g in range(start, end):
            total = total + contribution[grouped[g]]
        linear_return[c] = total


@wp.func
def _sort_cell(
    order: wp.array(dtype=wp.int32),
    scratch: wp.array(dtype=wp.int32),
    start: wp.int32,
    end: wp.int32,
    dominance: wp.array(dtype=wp.float64),
    sample_range: wp.array(dtype=wp.float64),
    sample_elevation: wp.array(dtype=wp.int64),
):
    """Sorts ``order[start:end]`` by :func:`sample_before` (stable; no two samples tie)."""
    m = end - start
    if m <= INSERTION_MAX:
        for g in range(start + 1, end):
            s = order[g]
            h = g
            moving = bool(True)  # a typed variable, as Warp needs
            while moving:
                if h == start:
                    moving = False
                elif sample_before(s, order[h - 1], dominance, sample_range, sample_elevation):
                    order[h] = order[h - 1]
                    h = h - 1
                else:
                    moving = False
            order[h] = s
    else:
        # Bottom-up merge sort: runs of ``width`` merged from ``order`` into ``scratch``
        # or back, alternately; the last pass's copy is moved into ``order``.
        width = int(1)
        forward = bool(True)  # a typed variable, as Warp needs
        while width < m:
            lo = start
            while lo < end:
                mid = wp.min(lo + width, end)
                hi = wp.min(mid + width, end)
                i = lo
                j = mid
                for k in range(lo, hi):
                    take_right = bool(False)  # a typed variable, as Warp needs
                    if i >= mid:
                        take_right = True
                    elif j < hi:
                        if forward:
                            take_right = sample_before(
                                order[j], order[i], dominance, sample_range, sample_elevation
                            )
                        else:
                            take_right = sample_before(
                                scratch[j], scratch[i], dominance, sample_range, sample_elevation
                            )
                    if take_right:
                        if forward:
                            scratch[k] = order[j]
                        else:
                            order[k] = scratch[j]
                        j = j + 1
                    else:
                        if forward:
                            scratch[k] = order[i]
                        else:
                            order[k] = scratch[i]
                        i = i + 1
                lo = hi
            forward = not forward
            width = width + width
        if not forward:
            for g in range(start, end):
                order[g] = scratch[g]


@wp.kernel
def cell_ground_truth(
    cell_start: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    linear_return: wp.array(dtype=wp.float64),
    grouped: wp.array(dtype=wp.int32),
    sample_instance: wp.array(dtype=wp.int64),
    sample_range: wp.array(dtype=wp.float64),
    sample_elevation: wp.array(dtype=wp.int64),
    sample_status: wp.array(dtype=wp.uint8),
    contribution: wp.array(dtype=wp.float64),
    geometric_weight: wp.array(dtype=wp.float64),
    geometric_weight_no_absorption: wp.array(dtype=wp.float64),
    top_k: wp.int32,
    medium_supported: wp.int32,
    batch: CellBatch,
    order: wp.array(dtype=wp.int32),
    scratch: wp.array(dtype=wp.int32),
    sample_dominance: wp.array(dtype=wp.float64),
    sample_rank: wp.array(dtype=wp.int64),
    primary_basis: wp.array(dtype=wp.uint8),
    validity: wp.array(dtype=wp.uint16),
    truncation: wp.array(dtype=wp.float64),
):
    """A run of cells: basis, dominance, contributor order and rank, truncation, flags.

    Thread ``t`` takes cells ``cell_first + t * cells_per_thread`` onwards, before ``cell_end``.
    """
    first, last = thread_run(batch.cell_first, wp.tid(), batch.cells_per_thread, batch.cell_end)
    for c in range(first, last):
        m = count[c]
        start = cell_start[c]
        end = start + m
        if m == 0:
            primary_basis[c] = wp.uint8(0)
            validity[c] = wp.uint16(FLAG_EMPTY)
            truncation[c] = NAN
        else:
            mask = int(0)
            for g in range(start, end):
                mask = mask | (1 << int(sample_status[grouped[g]]))
            basis = BASIS_GEOMETRIC_NO_ABSORPTION
            if medium_supported != 0:
                basis = BASIS_GEOMETRIC
                if mask == (1 << STATUS_KNOWN):
                    basis = BASIS_CONTRIBUTION
            for g in range(start, end):
                s = grouped[g]
                dom = geometric_weight_no_absorption[s]
                if basis == BASIS_CONTRIBUTION:
                    dom = contribution[s]
                elif basis == BASIS_GEOMETRIC:
                    dom = geometric_weight[s]
                sample_dominance[s] = dom
                order[g] = s
            _sort_cell(order, scratch, start, end, sample_dominance, sample_range, sample_elevation)

            primary = sample_instance[order[start]]
            multiple = bool(False)  # a typed variable, as Warp needs
            rest = ZERO
            for g in range(start, end):
                s = order[g]
                r = g - start
                sample_rank[s] = wp.int64(r)
                if sample_instance[s] != primary:
                    multiple = True
                if r >= top_k:
                    rest = rest + contribution[s]

            ret = linear_return[c]
            trunc = NAN
            if wp.isfinite(ret) and ret > ZERO:
                trunc = ZERO
                if m > top_k:
                    trunc = rest / ret
            truncation[c] = trunc

            flags = int(0)
            if wp.isfinite(ret):
                flags = flags | FLAG_VALID
            if (mask & (1 << STATUS_UNKNOWN)) != 0:
                flags = flags | FLAG_UNKNOWN_MATERIAL
            if (mask & (1 << STATUS_UNSUPPORTED)) != 0:
                flags = flags | FLAG_UNSUPPORTED_MATERIAL
            if (mask & (1 << STATUS_INTERFACE)) != 0:
                flags = flags | FLAG_SEA_SURFACE
            if medium_supported == 0:
                flags = flags | FLAG_UNSUPPORTED_MEDIUM
            bits = int(0)
            for b in range(8):
                if (mask & (1 << b)) != 0:
                    bits = bits + 1
            if bits > 1:
                flags = flags | FLAG_MIXED_STATUS
            if multiple:
                flags = flags | FLAG_MULTIPLE_INSTANCES
            if m > top_k:
                flags = flags | FLAG_TRUNCATED
            primary_basis[c] = wp.uint8(basis)
            validity[c] = wp.uint16(flags)
