"""The reference implementations the fast paths are checked against: one test-support module.

Each ``reference_*`` function is a plain, earlier or straightforward way to compute what
an optimised function of the package computes, kept here so that the unit's tests can
compare the two bit for bit on seeded inputs (as MuJoCo's ``batch_test.py`` compares the
batched path with the scalar one). They are test code only: the package never imports
them, and a test names the one it uses. Kept verbatim where they are the original
implementation, apart from their names and how they reach the package's constants.

===============================  ========================================================
reference                        checked against
===============================  ========================================================
reference_build_bvh              :func:`leviathan.raycast.build_bvh` (tests/raycast)
reference_cell_ground_truth      ``leviathan.sonar._ground_truth.cell_ground_truth``
reference_cell_channels          ``leviathan.sonar._ground_truth.cell_channels``
reference_contributor_order      ``leviathan.sonar._ground_truth._contributor_order``
reference_pow10_neg              ``leviathan.reference_cpu.sonar._pow10_neg``
reference_acos_clipped           ``leviathan.reference_cpu.sonar.acos_clipped``
reference_sample_normals         ``leviathan.sonar._physics._sample_normals``
reference_canonical_encode       :func:`leviathan.identity.canonical_encode`
reference_derive_key             ``leviathan.random._derive_key``
reference_philox4x32_10          ``leviathan.random._philox4x32_10``
reference_draws                  :func:`leviathan.random.uniform`, ``exponential``, ``normal``
reference_uniform                :func:`leviathan.random.uniform` (one draw, from the spec)
reference_canonical_channel      ``leviathan.sensors._sample._canonical_channel``
reference_fan_grid               :func:`leviathan.sonar.display.fan_raster`
reference_detect_bottom          :func:`leviathan.reference_cpu.multibeam.detect_bottom`
===============================  ========================================================
"""

from __future__ import annotations

import hashlib
import math
import struct
from itertools import repeat
from typing import Any

import numpy as np

from leviathan import random as keyed
from leviathan import sonar
from leviathan._raycast_stages import bvh as bvh_stage
from leviathan.identity import canonical_encode
from leviathan.raycast import PreparedScene
from leviathan.reference_cpu import sonar as ref_sonar
from leviathan.scene import Scene
from leviathan.sonar import _ground_truth as gt

_MASK32 = 0xFFFFFFFF


# --------------------------------------------------------------------------- BVH


def reference_build_bvh(
    tri_min: np.ndarray, tri_max: np.ndarray, *, leaf_size: int = bvh_stage.DEFAULT_LEAF_SIZE
) -> dict:
    """:func:`leviathan.raycast.build_bvh` as first written: row-wise, level order.

    The original algorithm, verbatim apart from returning a dict: row-wise reductions
    over ``[n, 3]``, boxes built in level order, then gathered into depth-first order.
    The split of the sorted Morton ranges, which the package still does as first written,
    is the package's ``_split_levels``: what this checks is everything around it.

    Args:
        tri_min: Per-triangle minimum corner in world NED [m], shape [triangle_count, 3].
        tri_max: Per-triangle maximum corner [m], shape [triangle_count, 3].
        leaf_size: Maximum triangles per leaf (>= 1).

    Returns:
        The flat BVH arrays.
    """
    # The input checks and the pad are the package's own (``_build_inputs``, ``_pad``).
    tri_min, tri_max = bvh_stage._build_inputs(tri_min, tri_max, leaf_size)

    lo = tri_min.min(axis=0)
    hi = tri_max.max(axis=0)
    cube_hi = lo + float(np.max(hi - lo))
    centroid = (tri_min + tri_max) * 0.5
    codes = bvh_stage.morton_codes(centroid, lo, cube_hi)
    order = np.argsort(codes, kind="stable")
    codes = codes[order]

    # The level-by-level split was never rewritten: the package's own.
    starts, ends, child_parts, firsts_of_level = bvh_stage._split_levels(codes, leaf_size)

    node_start = np.concatenate(starts)
    node_end = np.concatenate(ends)
    node_child = np.concatenate(child_parts).astype(np.int32)
    node_count = node_start.shape[0]

    sorted_min = tri_min[order]
    sorted_max = tri_max[order]
    bmin = np.empty((node_count, 3), dtype=np.float64)
    bmax = np.empty((node_count, 3), dtype=np.float64)
    leaf = node_child[:, 0] < 0
    leaf_ids = np.nonzero(leaf)[0]
    # Leaves: exact min/max over their contiguous run (reduceat is exact for min/max).
    leaf_order = np.argsort(node_start[leaf_ids], kind="stable")
    leaf_ids_sorted = leaf_ids[leaf_order]
    seg = node_start[leaf_ids_sorted]
    bmin[leaf_ids_sorted] = np.minimum.reduceat(sorted_min, seg, axis=0)
    bmax[leaf_ids_sorted] = np.maximum.reduceat(sorted_max, seg, axis=0)
    # Inner nodes bottom-up, one level at a time (children live in later levels).
    for level in range(len(firsts_of_level) - 1, -1, -1):
        first = firsts_of_level[level]
        last = first + starts[level].shape[0]
        ids = np.arange(first, last)
        inner = ids[node_child[ids, 0] >= 0]
        if inner.size:
            left = node_child[inner, 0]
            right = node_child[inner, 1]
            bmin[inner] = np.minimum(bmin[left], bmin[right])
            bmax[inner] = np.maximum(bmax[left], bmax[right])

    pad = bvh_stage._pad(tri_min, tri_max)
    node_bounds = np.concatenate([bmin - pad, bmax + pad], axis=1)
    node_range = np.stack([node_start, node_end - node_start], axis=1).astype(np.int32)

    # Depth-first renumbering (step 5): the package's own, like the split.
    old_id, node_child = bvh_stage._depth_first(node_child, starts, firsts_of_level)
    node_bounds = node_bounds[old_id]
    node_range = node_range[old_id]
    return dict(
        node_bounds=np.ascontiguousarray(node_bounds),
        node_child=np.ascontiguousarray(node_child),
        node_range=np.ascontiguousarray(node_range),
        tri_order=np.ascontiguousarray(order.astype(np.int32)),
        pad=pad,
        leaf_size=leaf_size,
    )


# --------------------------------------------------------------------------- sonar ground truth


def reference_cell_ground_truth(
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
    """:func:`leviathan.sonar._ground_truth.cell_ground_truth` as first written.

    The original loops, verbatim but for the module's constants named through ``gt``:
    ``ufunc.at`` accumulations, one full lexsort, a loop per rank. Ranks each cell's
    contributors and flags the cell; the arguments and the returned arrays are the
    package function's (its docstring states them).
    """
    cells = sample_count.shape[0]
    n = sample_cell.shape[0]
    count = sample_count

    status_mask = np.zeros(cells, dtype=np.int64)
    np.bitwise_or.at(status_mask, sample_cell, np.left_shift(1, sample_status.astype(np.int64)))
    known_only = status_mask == (1 << gt._STATUS_KNOWN)
    nonempty = count > 0

    basis = np.zeros(cells, dtype=np.uint8)
    if medium_supported:
        basis[nonempty & known_only] = gt.BASIS_CONTRIBUTION
        basis[nonempty & ~known_only] = gt.BASIS_GEOMETRIC
    else:
        basis[nonempty] = gt.BASIS_GEOMETRIC_NO_ABSORPTION
    sample_basis = basis[sample_cell]
    dominance = np.where(
        sample_basis == gt.BASIS_CONTRIBUTION,
        contribution,
        np.where(
            sample_basis == gt.BASIS_GEOMETRIC, geometric_weight, geometric_weight_no_absorption
        ),
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
    validity[~nonempty] |= gt.FLAG_EMPTY
    validity[nonempty & np.isfinite(linear_return)] |= gt.FLAG_VALID
    validity[(status_mask & (1 << gt._STATUS_UNKNOWN)) != 0] |= gt.FLAG_UNKNOWN_MATERIAL
    validity[(status_mask & (1 << gt._STATUS_UNSUPPORTED)) != 0] |= gt.FLAG_UNSUPPORTED_MATERIAL
    validity[(status_mask & (1 << gt._STATUS_INTERFACE)) != 0] |= gt.FLAG_SEA_SURFACE
    if not medium_supported:
        validity[nonempty] |= gt.FLAG_UNSUPPORTED_MEDIUM
    # Mixed status: more than one status bit set (only non-empty cells have any).
    occupied = np.nonzero(nonempty)[0]
    occupied_mask = status_mask[occupied]
    popcount = np.zeros(occupied.shape[0], dtype=np.int64)
    for s in range(8):
        popcount += (occupied_mask >> s) & 1
    validity[occupied[popcount > 1]] |= gt.FLAG_MIXED_STATUS
    validity[nonempty & (inst_min != inst_max)] |= gt.FLAG_MULTIPLE_INSTANCES
    validity[count > top_k] |= gt.FLAG_TRUNCATED

    return {
        "primary_basis": basis,
        "validity": validity,
        "truncation": truncation,
        "sample_rank": rank,
        "sample_dominance": dominance,
    }


def reference_cell_channels(
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
    """:func:`leviathan.sonar._ground_truth.cell_channels` as first written.

    The original, verbatim: one array per channel, filled and reshaped, for the frame's
    copy-and-canonicalise path. The frame's channels over ``[range_bin, bearing]``; the
    arguments are the package function's (its docstring states them), without its
    ``buffer`` and with ``elevation`` as the one angle.

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
        "primary_incidence_rad": (
            full(np.nan, np.float64),
            ref_sonar.acos_clipped(cos_incidence[p]),
        ),
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


def reference_contributor_order(
    cell: np.ndarray, key1: np.ndarray, key2: np.ndarray, key3: np.ndarray
) -> np.ndarray:
    """The contributor order by its definition: ``np.lexsort((key3, key2, key1, cell))``."""
    return np.lexsort((key3, key2, key1, cell))


# --------------------------------------------------------------------------- sonar physics


def reference_pow10_neg(x: np.ndarray) -> np.ndarray:
    """``_pow10_neg`` of the reference sonar as first written: ``math.pow`` over ``tolist``."""
    x = np.asarray(x, dtype=np.float64)
    return np.fromiter(
        map(math.pow, repeat(10.0, x.shape[0]), (-x).tolist()), dtype=np.float64, count=x.shape[0]
    )


def reference_acos_clipped(x: np.ndarray) -> np.ndarray:
    """``acos_clipped`` as first written: ``math.acos`` of ``min(x, 1)`` over ``tolist``."""
    x = np.minimum(np.asarray(x, dtype=np.float64), 1.0)
    return np.fromiter(map(math.acos, x.tolist()), dtype=np.float64, count=x.shape[0])


def reference_sample_normals(
    inst: np.ndarray, tri: np.ndarray, scene: Scene, prepared: PreparedScene
) -> np.ndarray:
    """``_sample_normals`` of the sonar as first written: a loop over instances (verbatim)."""
    normal = np.zeros((inst.shape[0], 3), dtype=np.float64)
    surface = inst == scene.sea_surface_instance
    normal[surface] = scene.sea_surface.normal_world
    for k, prep in enumerate(prepared.instances):
        sel = inst == k
        if np.any(sel):
            normal[sel] = prep.normal[tri[sel]]
    return normal


# --------------------------------------------------------------------------- identity


def _u64(n: int) -> bytes:
    return struct.pack("<Q", n)


def _text(text: str) -> bytes:
    data = text.encode("utf-8")
    return _u64(len(data)) + data


def reference_canonical_encode(value: Any) -> bytes:
    """``enc(value)`` written from :mod:`leviathan.identity`'s docstring, without the domain.

    For None, bool, int, float, str, lists, tuples, str-keyed mappings and arrays: the
    plain encoder the fast paths of ``canonical_encode`` are checked against.
    """
    if value is None:
        return b"\x00"
    if isinstance(value, bool):
        return b"\x01" + (b"\x01" if value else b"\x00")
    if isinstance(value, int):
        magnitude = abs(value).to_bytes((abs(value).bit_length() + 7) // 8, "little")
        return b"\x02" + (b"\x01" if value < 0 else b"\x00") + _u64(len(magnitude)) + magnitude
    if isinstance(value, float):
        if math.isnan(value):
            return b"\x03" + _u64(0x7FF8000000000000)
        return b"\x03" + struct.pack("<d", 0.0 if value == 0.0 else value)
    if isinstance(value, str):
        return b"\x05" + _text(value)
    if isinstance(value, list | tuple):
        return b"\x07" + _u64(len(value)) + b"".join(reference_canonical_encode(v) for v in value)
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
        if data.dtype.kind == "f":
            data = np.where(np.isnan(data), np.nan, data + 0.0).astype(data.dtype)
        header = _text(data.dtype.str) + _u64(data.ndim) + b"".join(_u64(d) for d in data.shape)
        return b"\x0a" + header + _u64(data.nbytes) + data.tobytes()
    entries = sorted((k.encode("utf-8"), v) for k, v in value.items())
    body = b"".join(_u64(len(k)) + k + reference_canonical_encode(v) for k, v in entries)
    return b"\x08" + _u64(len(entries)) + body


# --------------------------------------------------------------------------- keyed randomness


def reference_derive_key(seed: int, sensor_id: str, n: int, effect: str) -> tuple[int, int]:
    """Step 1 as written: SHA-256 of the key tuple through the general encoder."""
    digest = hashlib.sha256(
        canonical_encode((keyed.ALGORITHM, int(seed), sensor_id, int(n), effect))
    )
    words = digest.digest()
    return int.from_bytes(words[0:4], "little"), int.from_bytes(words[4:8], "little")


def reference_philox4x32_10(
    counter: tuple[int, int, int, int], key: tuple[int, int]
) -> tuple[int, ...]:
    """Philox4x32-10 on Python ints, one counter, written from the module docstring."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_index in range(10):
        if round_index:
            k0 = (k0 + 0x9E3779B9) & _MASK32
            k1 = (k1 + 0xBB67AE85) & _MASK32
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & _MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & _MASK32
    return c0, c1, c2, c3


def reference_draws(key: tuple[int, str, int, str], index: np.ndarray) -> dict[str, np.ndarray]:
    """The three distributions through the numpy streams and _libm only (no fast path)."""
    words = reference_derive_key(*key)
    idx = keyed._validate_index(index)
    u0 = keyed._uniform_stream(words, idx, 0)
    u1 = keyed._uniform_stream(words, idx, 1)
    return {
        "uniform": u0,
        "exponential": -keyed._libm(math.log, u0),
        "normal": np.sqrt(-2.0 * keyed._libm(math.log, u0))
        * keyed._libm(math.cos, 2.0 * np.pi * u1),
    }


def reference_uniform(seed: int, sensor: str, sample: int, effect: str, i: int) -> float:
    """Uniform draw ``i`` of a key, in plain Python from the spec in :mod:`leviathan.random`."""
    encoded = canonical_encode(("leviathan.random.v1", seed, sensor, sample, effect))
    digest = hashlib.sha256(encoded).digest()
    key = (int.from_bytes(digest[0:4], "little"), int.from_bytes(digest[4:8], "little"))
    x0, x1, _, _ = reference_philox4x32_10((i & _MASK32, i >> 32, 0, 0), key)
    x = x0 | (x1 << 32)
    return ((x >> 12) + 0.5) * 2.0**-52


# --------------------------------------------------------------------------- sensors


def reference_canonical_channel(value: np.ndarray) -> np.ndarray:
    """A channel canonicalised the general way: a C-ordered copy, + 0.0, NaN set to numpy.nan."""
    array = np.array(value, copy=True, order="C")
    with np.errstate(invalid="ignore"):  # a signalling NaN stays a NaN
        array += 0.0
    array[np.isnan(array)] = np.nan
    return array


# --------------------------------------------------------------------------- fan geometry


def reference_fan_grid(
    level_db: np.ndarray,
    *,
    bearing_rad: np.ndarray,
    azimuth_fov_rad: float,
    range_min_m: float,
    range_max_m: float,
    width_px: int = 512,
) -> tuple[np.ndarray, np.ndarray, tuple[float, float, float, float]]:
    """The analytic fan raster as first written, with ``np.arctan2`` per pixel.

    The fan geometry of every fan picture is now :func:`leviathan.sonar.display.fan_raster`
    (tangent comparisons, no transcendental per pixel); this is the analytic tier's
    original, kept to show the two agree. Resample a ``[range_bin, bearing]`` image
    onto a Cartesian fan raster.

    Args:
        level_db: Cell values, float64 [range_bin, bearing].
        bearing_rad: Ascending bearings [rad], float64 [bearing].
        azimuth_fov_rad: Field of view [rad] (gives the spacing of a single bearing).
        range_min_m: Window start [m].
        range_max_m: Window end [m].
        width_px: Raster width [px], 16 to 4096.

    Returns:
        ``(fan, inside, extent)``: float64 [height, width_px] (row 0 at far range, NaN
        outside the fan and in cells without a value), bool [height, width_px] (the
        pixel lies in the fan) and ``(x_min, x_max, y_min, y_max)`` [m] of the raster's
        outer edges.
    """
    if isinstance(width_px, bool) or not isinstance(width_px, int) or not 16 <= width_px <= 4096:
        raise ValueError(f"fan_width_px: expected an int from 16 to 4096 px, got {width_px!r}")
    n_bins, n_bearings = level_db.shape
    if bearing_rad.shape != (n_bearings,):
        raise ValueError(f"bearing_rad: expected shape ({n_bearings},), got {bearing_rad.shape}")
    spacing = azimuth_fov_rad if n_bearings == 1 else azimuth_fov_rad / (n_bearings - 1)
    lo = float(bearing_rad[0]) - 0.5 * spacing
    hi = float(bearing_rad[-1]) + 0.5 * spacing
    half = min(max(-lo, hi), 0.5 * math.pi)
    height = max(1, min(width_px, math.floor(width_px / (2.0 * math.sin(half)))))
    scale = range_max_m / height
    x = (np.arange(width_px, dtype=np.float64) + 0.5 - 0.5 * width_px) * scale
    y = (np.arange(height, 0, -1, dtype=np.float64) - 0.5) * scale
    xx, yy = np.meshgrid(x, y)
    rbin = sonar.range_bin(
        np.sqrt(xx * xx + yy * yy),
        range_min_m=range_min_m,
        range_max_m=range_max_m,
        range_bin_count=n_bins,
    )
    bearing = np.arctan2(xx, yy)
    inside = (rbin >= 0) & (bearing >= lo) & (bearing <= hi)
    mid = 0.5 * (bearing_rad[:-1] + bearing_rad[1:])
    bidx = np.searchsorted(mid, bearing, side="left")
    fan = np.full((height, width_px), np.nan, dtype=np.float64)
    fan[inside] = level_db[rbin[inside], bidx[inside]]
    extent = (-0.5 * width_px * scale, 0.5 * width_px * scale, 0.0, height * scale)
    return fan, inside, extent


def reference_detect_bottom(
    beam_return: np.ndarray,
    bin_centre_m: np.ndarray,
    *,
    threshold_db: float,
    window_db: float,
    max_half_window_bins: int,
) -> tuple[np.ndarray, ...]:
    """The multibeam bottom detector as first written: one scalar scan per beam.

    Returns ``(range_m, peak_return, peak_bin, window_first_bin, window_last_bin,
    flag)`` as :class:`leviathan.reference_cpu.multibeam.Detections` holds them.
    """
    from leviathan.reference_cpu.multibeam import DETECTION_FLAGS

    a = np.asarray(beam_return, dtype=np.float64)
    m_count, n = a.shape
    centres = [float(x) for x in np.asarray(bin_centre_m, dtype=np.float64).tolist()]
    floor_factor = math.pow(10.0, -window_db / 10.0)
    out_range = np.full(n, np.nan)
    out_peak = np.full(n, np.nan)
    out_bin = np.full(n, -1, dtype=np.int64)
    first = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    flag = np.zeros(n, dtype=np.uint8)
    for k in range(n):
        col = a[:, k].tolist()
        best, m_star, missing = 0.0, -1, False
        for m in range(m_count):
            v = col[m]
            if v != v:
                missing = True
            elif v > best:
                best, m_star = v, m
        if m_star < 0:
            flag[k] = DETECTION_FLAGS["MISSING_RETURN" if missing else "NO_BOTTOM"]
            continue
        out_peak[k] = best
        out_bin[k] = m_star
        if 10.0 * math.log10(best) < threshold_db:
            flag[k] = DETECTION_FLAGS["BELOW_THRESHOLD"]
            continue
        floor = best * floor_factor
        lo = m_star
        while lo - 1 >= 0 and m_star - (lo - 1) <= max_half_window_bins:
            v = col[lo - 1]
            if not (v == v and v >= floor):
                break
            lo -= 1
        hi = m_star
        while hi + 1 < m_count and (hi + 1) - m_star <= max_half_window_bins:
            v = col[hi + 1]
            if not (v == v and v >= floor):
                break
            hi += 1
        num, den = 0.0, 0.0
        for m in range(lo, hi + 1):
            num = num + centres[m] * col[m]
            den = den + col[m]
        out_range[k] = num / den
        first[k], last[k] = lo, hi
        flag[k] = DETECTION_FLAGS["DETECTED"]
    return out_range, out_peak, out_bin, first, last, flag
