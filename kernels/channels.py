"""Warp cell channels of the acoustic fan: the compiled twin of ``cell_channels``.

Mirrors :func:`leviathan.sonar._ground_truth.cell_channels` (the numpy stage the
reference backend runs): one thread owns a run of cells and writes every byte of
their slots in every channel once — the cell sums and flags, the primary
contributor's channels (rank 0 of the contributor order that
:mod:`leviathan.kernels.ground_truth` left in ``order``) or their sentinels, and
the top-K slots in rank order or their sentinels — instead of a sentinel fill
followed by scatters. Every float written passes through :func:`canonical`
(numpy's one NaN, ``0x7ff8000000000000``), as ``canonical_nan`` does; the incidence
is :func:`leviathan.kernels.physics.clipped_acos`, the C library's ``acos``; the energy fraction is
``contribution / linear_return`` where the return is positive, else NaN. Only
copies, one ``acos`` and one ``/`` per value: compiled with ``fuse_fp=False`` and
``fast_math=False`` like the other modules.

Up to two per-ray angle channels (``primary_<name>``/``topk_<name>``): the imaging
sonar has one, the side-scan and the multibeam two; ``angle_count`` says how many
of the two slots are real.
"""

from __future__ import annotations

import warp as wp

from leviathan._kernel_options import KERNEL_OPTIONS
from leviathan.kernels.ground_truth import CellBatch
from leviathan.kernels.physics import clipped_acos, thread_run

wp.set_module_options(KERNEL_OPTIONS)

__all__ = ["canonical", "cell_channels"]

ZERO = wp.constant(wp.float64(0.0))
NAN = wp.constant(wp.float64(float("nan")))


@wp.func
def canonical(x: wp.float64) -> wp.float64:
    """``x``, or numpy's NaN bit pattern where ``x`` is any NaN."""
    if wp.isnan(x):
        return NAN
    return x


@wp.func
def _put_angles(
    ray_angle0: wp.array(dtype=wp.float64),
    ray_angle1: wp.array(dtype=wp.float64),
    ray: wp.int64,
    angle_count: wp.int32,
    out_angle0: wp.array(dtype=wp.float64),
    out_angle1: wp.array(dtype=wp.float64),
    slot: wp.int32,
):
    """Ray ``ray``'s angles into ``slot`` of the ``angle_count`` real angle channels.

    ``ray`` -1 (no contributor in the slot) writes the sentinel, NaN.
    """
    if angle_count > 0:
        angle0 = NAN
        if ray >= wp.int64(0):
            angle0 = canonical(ray_angle0[ray])
        out_angle0[slot] = angle0
    if angle_count > 1:
        angle1 = NAN
        if ray >= wp.int64(0):
            angle1 = canonical(ray_angle1[ray])
        out_angle1[slot] = angle1


@wp.kernel
def cell_channels(
    cell_start: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    order: wp.array(dtype=wp.int32),
    linear_return: wp.array(dtype=wp.float64),
    validity: wp.array(dtype=wp.uint16),
    primary_basis: wp.array(dtype=wp.uint8),
    truncation: wp.array(dtype=wp.float64),
    sample_ray: wp.array(dtype=wp.int64),
    sample_instance: wp.array(dtype=wp.int64),
    sample_triangle: wp.array(dtype=wp.int64),
    sample_range: wp.array(dtype=wp.float64),
    cos_incidence: wp.array(dtype=wp.float64),
    point: wp.array(dtype=wp.float64),
    normal: wp.array(dtype=wp.float64),
    sample_status: wp.array(dtype=wp.uint8),
    contribution: wp.array(dtype=wp.float64),
    geometric_weight: wp.array(dtype=wp.float64),
    ray_angle0: wp.array(dtype=wp.float64),
    ray_angle1: wp.array(dtype=wp.float64),
    angle_count: wp.int32,
    object_index: wp.array(dtype=wp.int32),
    semantic_index: wp.array(dtype=wp.int32),
    moving: wp.array(dtype=wp.uint8),
    top_k: wp.int32,
    batch: CellBatch,
    out_linear_return: wp.array(dtype=wp.float64),
    out_sample_count: wp.array(dtype=wp.int32),
    out_validity: wp.array(dtype=wp.uint16),
    out_primary_basis: wp.array(dtype=wp.uint8),
    out_truncation: wp.array(dtype=wp.float64),
    out_primary_instance: wp.array(dtype=wp.int32),
    out_primary_object: wp.array(dtype=wp.int32),
    out_primary_triangle: wp.array(dtype=wp.int32),
    out_primary_range_m: wp.array(dtype=wp.float64),
    out_primary_angle0: wp.array(dtype=wp.float64),
    out_primary_angle1: wp.array(dtype=wp.float64),
    out_primary_incidence_rad: wp.array(dtype=wp.float64),
    out_primary_hit_point_world: wp.array(dtype=wp.float64),
    out_primary_normal_world: wp.array(dtype=wp.float64),
    out_primary_semantic: wp.array(dtype=wp.int32),
    out_primary_acoustic_status: wp.array(dtype=wp.uint8),
    out_primary_moving: wp.array(dtype=wp.uint8),
    out_topk_instance: wp.array(dtype=wp.int32),
    out_topk_triangle: wp.array(dtype=wp.int32),
    out_topk_range_m: wp.array(dtype=wp.float64),
    out_topk_angle0: wp.array(dtype=wp.float64),
    out_topk_angle1: wp.array(dtype=wp.float64),
    out_topk_contribution: wp.array(dtype=wp.float64),
    out_topk_geometric_weight: wp.array(dtype=wp.float64),
    out_topk_energy_fraction: wp.array(dtype=wp.float64),
):
    """A run of cells: every channel's slots of each, written once."""
    first, last = thread_run(batch.cell_first, wp.tid(), batch.cells_per_thread, batch.cell_end)
    for c in range(first, last):
        m = count[c]
        ret = linear_return[c]
        out_linear_return[c] = canonical(ret)
        out_sample_count[c] = m
        out_validity[c] = validity[c]
        out_primary_basis[c] = primary_basis[c]
        out_truncation[c] = canonical(truncation[c])
        ray = wp.int64(-1)  # no contributor: the angles' sentinel
        if m > 0:
            s = order[cell_start[c]]
            inst = int(sample_instance[s])
            ray = sample_ray[s]
            out_primary_instance[c] = inst
            out_primary_object[c] = object_index[inst]
            out_primary_triangle[c] = int(sample_triangle[s])
            out_primary_range_m[c] = canonical(sample_range[s])
            out_primary_incidence_rad[c] = canonical(clipped_acos(cos_incidence[s]))
            for k in range(3):
                out_primary_hit_point_world[c * 3 + k] = canonical(point[s * 3 + k])
                out_primary_normal_world[c * 3 + k] = canonical(normal[s * 3 + k])
            out_primary_semantic[c] = semantic_index[inst]
            out_primary_acoustic_status[c] = sample_status[s]
            out_primary_moving[c] = moving[inst]
        else:
            out_primary_instance[c] = -1
            out_primary_object[c] = -1
            out_primary_triangle[c] = -1
            out_primary_range_m[c] = NAN
            out_primary_incidence_rad[c] = NAN
            for k in range(3):
                out_primary_hit_point_world[c * 3 + k] = NAN
                out_primary_normal_world[c * 3 + k] = NAN
            out_primary_semantic[c] = -1
            out_primary_acoustic_status[c] = wp.uint8(0)
            out_primary_moving[c] = wp.uint8(0)
        _put_angles(
            ray_angle0, ray_angle1, ray, angle_count, out_primary_angle0, out_primary_angle1, c
        )
        for r in range(top_k):
            slot = c * top_k + r
            ray = wp.int64(-1)
            if r < m:
                s = order[cell_start[c] + r]
                ray = sample_ray[s]
                out_topk_instance[slot] = int(sample_instance[s])
                out_topk_triangle[slot] = int(sample_triangle[s])
                out_topk_range_m[slot] = canonical(sample_range[s])
                cs = contribution[s]
                out_topk_contribution[slot] = canonical(cs)
                out_topk_geometric_weight[slot] = canonical(geometric_weight[s])
                fraction = NAN
                if ret > ZERO:
                    fraction = cs / ret
                out_topk_energy_fraction[slot] = canonical(fraction)
            else:
                out_topk_instance[slot] = -1
                out_topk_triangle[slot] = -1
                out_topk_range_m[slot] = NAN
                out_topk_contribution[slot] = NAN
                out_topk_geometric_weight[slot] = NAN
                out_topk_energy_fraction[slot] = NAN
            _put_angles(
                ray_angle0, ray_angle1, ray, angle_count, out_topk_angle0, out_topk_angle1, slot
            )
