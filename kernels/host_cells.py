"""The compiled host stage's per-cell part: ground truth and channels as Warp ``cpu`` kernels.

:func:`cell_ground_truth` (with the cell sums of binning when asked) and
:func:`cell_channels` give what :func:`leviathan.sonar._ground_truth.cell_ground_truth`,
:func:`leviathan.sonar._binning.bin_samples` and
:func:`leviathan.sonar._ground_truth.cell_channels` give, bit for bit (published
channels byte for byte), from :mod:`leviathan.kernels.ground_truth` and
:mod:`leviathan.kernels.channels`. The per-sample part is
:mod:`leviathan.kernels.host_stage`. Cells are launched in batches of consecutive
cells from the tracing stage's thread pool; each batch owns its cells' slots and
their samples' slots, so the result does not depend on the number of threads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from leviathan._warp_output import init_warp
from leviathan.kernels.backend import (
    cpu_array,
    exclusive_offsets,
    load_kernels,
    run_cpu_batches,
)

__all__ = ["HOST_BATCH_CELLS", "HOST_CELLS_PER_THREAD", "cell_channels", "cell_ground_truth"]

#: Cells per Warp thread in the ground-truth kernel, and per batch handed to a pool thread.
HOST_CELLS_PER_THREAD = 64
HOST_BATCH_CELLS = 16384


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
    linear_return: np.ndarray | None,
    threads: int | None = None,
) -> dict[str, np.ndarray]:
    """:func:`leviathan.sonar._ground_truth.cell_ground_truth` compiled, bit for bit.

    With ``linear_return=None`` the cells are binned here too
    (:func:`leviathan.sonar._binning.bin_samples`'s sums, in ascending
    ``sample_elevation``), and the output adds ``linear_return``.

    Same arguments and outputs (``primary_basis``, ``validity``, ``truncation``,
    ``sample_rank``, ``sample_dominance``), plus what :func:`cell_channels` reads:
    ``contributor_order`` (int32 [n]: the samples cell by cell, each cell's in rank
    order) and ``cell_start`` (int32 [cells]: each cell's first slot in it);
    ``threads``: pool threads (default: one per allowed core).
    The samples are grouped by cell with a counting sort (one thread), then the cells
    are split into batches of consecutive cells, each owning its cells' slots and its
    samples' slots.
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels import ground_truth as kg

    n = int(sample_cell.shape[0])
    cells = int(sample_count.shape[0])
    if n >= 2**31 or cells >= 2**31:
        raise ValueError(f"cell_ground_truth: {n} samples over {cells} cells exceed int32 slots")
    count = np.ascontiguousarray(sample_count, dtype=np.int32)
    start = exclusive_offsets(count)
    out = {
        "primary_basis": np.empty(cells, dtype=np.uint8),
        "validity": np.empty(cells, dtype=np.uint16),
        "truncation": np.empty(cells, dtype=np.float64),
        "sample_rank": np.empty(n, dtype=np.int64),
        "sample_dominance": np.empty(n, dtype=np.float64),
    }
    grouped = np.empty(n, dtype=np.int32)
    order = np.empty(n, dtype=np.int32)
    scratch = np.empty(n, dtype=np.int32)

    cell = np.ascontiguousarray(sample_cell, dtype=np.int64)
    if n:
        wp.launch(
            kg.group_by_cell,
            dim=1,
            inputs=[cpu_array(cell, wp.int64), wp.int32(n), cpu_array(start.copy(), wp.int32)],
            outputs=[cpu_array(grouped, wp.int32)],
            device="cpu",
        )
    binned_here = linear_return is None
    if binned_here:
        linear_return = np.empty(cells, dtype=np.float64)
        _launch_cells(
            kg.bin_cells,
            [
                cpu_array(start, wp.int32),
                cpu_array(count, wp.int32),
                cpu_array(np.ascontiguousarray(sample_elevation, dtype=np.int64), wp.int64),
                cpu_array(contribution, wp.float64),
            ],
            [cpu_array(grouped, wp.int32), cpu_array(linear_return, wp.float64)],
            cells,
            threads,
        )
    arrays = [
        cpu_array(start, wp.int32),
        cpu_array(count, wp.int32),
        cpu_array(np.ascontiguousarray(linear_return, dtype=np.float64), wp.float64),
        cpu_array(grouped, wp.int32),
        cpu_array(np.ascontiguousarray(sample_instance, dtype=np.int64), wp.int64),
        cpu_array(np.ascontiguousarray(sample_range, dtype=np.float64), wp.float64),
        cpu_array(np.ascontiguousarray(sample_elevation, dtype=np.int64), wp.int64),
        cpu_array(np.ascontiguousarray(sample_status, dtype=np.uint8), wp.uint8),
        cpu_array(contribution, wp.float64),
        cpu_array(geometric_weight, wp.float64),
        cpu_array(geometric_weight_no_absorption, wp.float64),
        wp.int32(top_k),
        wp.int32(1 if medium_supported else 0),
    ]
    outputs = [
        cpu_array(order, wp.int32),
        cpu_array(scratch, wp.int32),
        cpu_array(out["sample_dominance"], wp.float64),
        cpu_array(out["sample_rank"], wp.int64),
        cpu_array(out["primary_basis"], wp.uint8),
        cpu_array(out["validity"], wp.uint16),
        cpu_array(out["truncation"], wp.float64),
    ]
    _launch_cells(kg.cell_ground_truth, arrays, outputs, cells, threads)
    out["contributor_order"] = order
    out["cell_start"] = start
    if binned_here:
        out["linear_return"] = linear_return
    return out


def _launch_cells(
    kernel: Any, inputs: list, outputs: list, cells: int, threads: int | None
) -> None:
    """Launches a cell kernel over batches of consecutive cells (:func:`run_cpu_batches`).

    The kernel takes ``inputs``, then the batch's
    :class:`leviathan.kernels.ground_truth.CellBatch`, then ``outputs``; every array is
    whole, and a batch is a range of cells, each owning its own slots and those of its
    samples.
    """
    wp = init_warp()
    from leviathan.kernels import ground_truth as kg
    from leviathan.kernels.physics import struct_of

    def launch(a: int, b: int) -> None:
        batch = struct_of(
            kg.CellBatch,
            cell_first=wp.int32(a),
            cell_end=wp.int32(b),
            cells_per_thread=wp.int32(HOST_CELLS_PER_THREAD),
        )
        wp.launch(
            kernel,
            dim=-(-(b - a) // HOST_CELLS_PER_THREAD),
            inputs=[*inputs, batch],
            outputs=outputs,
            device="cpu",
        )

    run_cpu_batches(launch, cells, HOST_BATCH_CELLS, threads=threads)


_CHANNEL_DTYPES = {
    "linear_return": np.float64,
    "sample_count": np.int32,
    "validity": np.uint16,
    "primary_basis": np.uint8,
    "truncation": np.float64,
    "primary_instance": np.int32,
    "primary_object": np.int32,
    "primary_triangle": np.int32,
    "primary_range_m": np.float64,
    "primary_incidence_rad": np.float64,
    "primary_hit_point_world": np.float64,
    "primary_normal_world": np.float64,
    "primary_semantic": np.int32,
    "primary_acoustic_status": np.uint8,
    "primary_moving": np.uint8,
    "topk_instance": np.int32,
    "topk_triangle": np.int32,
    "topk_range_m": np.float64,
    "topk_contribution": np.float64,
    "topk_geometric_weight": np.float64,
    "topk_energy_fraction": np.float64,
}


def cell_channels(
    *,
    channels: dict[str, np.ndarray],
    top_k: int,
    cells: dict[str, np.ndarray],
    sample_ray: np.ndarray,
    inst: np.ndarray,
    tri: np.ndarray,
    R: np.ndarray,
    ray_angles: dict[str, np.ndarray],
    cos_incidence: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    status: np.ndarray,
    tables: dict[str, np.ndarray],
    terms: dict[str, np.ndarray],
    threads: int | None = None,
) -> None:
    """:func:`leviathan.sonar._ground_truth.cell_channels` compiled: every channel's bytes.

    Args:
        channels: The frame's writable channel arrays by name (any content: every
            element is written), C-contiguous, of :func:`channel_layout`'s dtypes,
            ``speckle_return`` excepted.
        top_k: Contributors kept per cell.
        cells: :func:`bin_samples` and :func:`cell_ground_truth` (this module's: it
            gives ``contributor_order`` and ``cell_start``) outputs, flat over cells.
        sample_ray: Ray of each sample, int64 [n].
        inst, tri, R, cos_incidence, point, normal, status: The samples' fields.
        ray_angles: At most two per-ray angle arrays by channel name (``primary_<name>``
            and ``topk_<name>``), float64 [ray_count] each.
        tables: The scene's per-instance lookup tables.
        terms: The samples' return terms.
        threads: Pool threads (default: one per allowed core).
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels import channels as kc

    if len(ray_angles) > 2:
        raise ValueError(f"ray_angles: at most two angle channels, got {sorted(ray_angles)}")
    names = list(ray_angles)
    warp_dtypes = {
        np.dtype(np.float64): wp.float64,
        np.dtype(np.int32): wp.int32,
        np.dtype(np.uint16): wp.uint16,
        np.dtype(np.uint8): wp.uint8,
    }
    cell_count = int(cells["sample_count"].shape[0])

    def out(name: str | None) -> object:
        if name is None:
            return wp.empty(1, dtype=wp.float64, device="cpu")
        a = channels[name]
        want = np.dtype(_CHANNEL_DTYPES.get(name, np.float64))  # angle channels: float64
        if a.dtype != want or not a.flags.c_contiguous or not a.flags.writeable:
            raise ValueError(f"channels[{name!r}]: expected a writable C-contiguous {want} array")
        return wp.array(a.reshape(-1), dtype=warp_dtypes[want], device="cpu", copy=False)

    angle0 = ray_angles[names[0]] if names else np.zeros(1)
    angle1 = ray_angles[names[1]] if len(names) > 1 else np.zeros(1)
    inputs = [
        cpu_array(cells["cell_start"], wp.int32),
        cpu_array(cells["sample_count"].astype(np.int32, copy=False), wp.int32),
        cpu_array(cells["contributor_order"], wp.int32),
        cpu_array(cells["linear_return"], wp.float64),
        cpu_array(cells["validity"], wp.uint16),
        cpu_array(cells["primary_basis"], wp.uint8),
        cpu_array(cells["truncation"], wp.float64),
        cpu_array(sample_ray, wp.int64),
        cpu_array(inst, wp.int64),
        cpu_array(tri, wp.int64),
        cpu_array(R, wp.float64),
        cpu_array(cos_incidence, wp.float64),
        cpu_array(np.ascontiguousarray(point).reshape(-1), wp.float64),
        cpu_array(np.ascontiguousarray(normal).reshape(-1), wp.float64),
        cpu_array(status, wp.uint8),
        cpu_array(terms["contribution"], wp.float64),
        cpu_array(terms["geometric_weight"], wp.float64),
        cpu_array(angle0, wp.float64),
        cpu_array(angle1, wp.float64),
        wp.int32(len(names)),
        cpu_array(tables["object_index"].astype(np.int32, copy=False), wp.int32),
        cpu_array(tables["semantic_index"].astype(np.int32, copy=False), wp.int32),
        cpu_array(tables["moving"].astype(np.uint8, copy=False), wp.uint8),
        wp.int32(top_k),
    ]
    angle_slot = [*(names[:2]), None, None][:2]

    def angle_outputs(prefix: str) -> list:
        # The two angle slots of a product; an unused slot launches with no output.
        return [out(None if name is None else f"{prefix}_{name}") for name in angle_slot]

    outputs = [
        out("linear_return"),
        out("sample_count"),
        out("validity"),
        out("primary_basis"),
        out("truncation"),
        out("primary_instance"),
        out("primary_object"),
        out("primary_triangle"),
        out("primary_range_m"),
        *angle_outputs("primary"),
        out("primary_incidence_rad"),
        out("primary_hit_point_world"),
        out("primary_normal_world"),
        out("primary_semantic"),
        out("primary_acoustic_status"),
        out("primary_moving"),
        out("topk_instance"),
        out("topk_triangle"),
        out("topk_range_m"),
        *angle_outputs("topk"),
        out("topk_contribution"),
        out("topk_geometric_weight"),
        out("topk_energy_fraction"),
    ]
    _launch_cells(kc.cell_channels, inputs, outputs, cell_count, threads)
