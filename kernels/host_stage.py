"""The compiled host stage: the acoustic fan's per-sample physics as Warp ``cpu`` kernels.

:func:`sample_physics` gives, for the integrated samples of one ping, what
:func:`leviathan.sonar._physics.integrated_samples` (hit point, normal,
``|cos θ|``, acoustic status, Lambert ``mu``) and
:func:`leviathan.reference_cpu.sonar.sample_physics` (the three return terms)
give, bit for bit, from one pass of :func:`leviathan.kernels.physics.sample_physics`
over the samples. It runs on the host for every tracing device (the C library's
``pow`` is the reference's; see :mod:`leviathan.kernels.physics`), in batches of
consecutive samples launched from the tracing stage's thread pool; each batch
owns its samples' output slots, so the result does not depend on the number of
threads.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from leviathan._interrupt import checkpoint, interrupt_requested
from leviathan._warp_output import init_warp
from leviathan.kernels.backend import _pool, cpu_trace_threads, load_kernels

__all__ = [
    "HOST_BATCH_CELLS",
    "HOST_BATCH_SAMPLES",
    "HOST_CELLS_PER_THREAD",
    "HOST_SAMPLES_PER_THREAD",
    "acos_clipped",
    "cell_channels",
    "cell_ground_truth",
    "sample_index",
    "sample_physics",
]

#: Samples per batch handed to one pool thread.
HOST_BATCH_SAMPLES = 32768
#: Samples per Warp thread within a launch (the CPU pays a fixed cost per thread).
HOST_SAMPLES_PER_THREAD = 256

_FLOAT_OUTPUTS = (
    "cos_incidence",
    "mu",
    "geometric_weight_no_absorption",
    "geometric_weight",
    "contribution",
)


def sample_index(
    *,
    hit_t: np.ndarray,
    hit_instance: np.ndarray,
    hit_triangle: np.ndarray,
    ray_column: np.ndarray,
    ray_row: np.ndarray,
    column_count: int,
    range_min_m: float,
    range_max_m: float,
    range_bin_width_m: float,
    range_bin_count: int,
) -> dict[str, np.ndarray]:
    """Which rays are integrated samples, in ray order, with their bookkeeping (Warp ``cpu``).

    The twin of :func:`leviathan.sonar._physics._sample_index`: a ray is a sample when
    it hit (instance >= 0) and :func:`leviathan.sonar.range_bin` gives its range a bin
    (:func:`leviathan.kernels.physics.range_bin`, the same operations, with the host's
    ``range_bin_width_m = (r_max - r_min) / N``). One pass counts each run's samples,
    a prefix over the runs places them, a second pass writes them.

    Returns:
        ``ray``, ``range_m``, ``instance``, ``triangle``, ``elevation_index`` (the
        row), ``bearing_index`` (the column) and ``cell`` (``bin * C + column``),
        one entry per sample [n]: int64, float64 for ``range_m``.
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels import physics as kp

    rays = int(hit_t.shape[0])
    if rays >= 2**31:
        raise ValueError(f"sample_index: {rays} rays exceed int32 slots")
    per_thread = HOST_SAMPLES_PER_THREAD
    threads = max(1, -(-rays // per_thread))

    def on_cpu(a: np.ndarray, dtype) -> object:
        return wp.array(np.ascontiguousarray(a), dtype=dtype, device="cpu", copy=False)

    ray_bin = np.empty(rays, dtype=np.int64)
    found = np.zeros(threads, dtype=np.int32)
    t_dev = on_cpu(hit_t, wp.float64)
    inst_dev = on_cpu(hit_instance, wp.int32)
    bin_dev = on_cpu(ray_bin, wp.int64)
    if rays:
        wp.launch(
            kp.count_samples,
            dim=threads,
            inputs=[
                t_dev,
                inst_dev,
                wp.float64(range_min_m),
                wp.float64(range_max_m),
                wp.float64(range_bin_width_m),
                wp.int64(range_bin_count),
                wp.int32(rays),
                wp.int32(per_thread),
            ],
            outputs=[bin_dev, on_cpu(found, wp.int32)],
            device="cpu",
        )
        wp.synchronize_device("cpu")
    first = np.zeros(threads, dtype=np.int32)
    if threads > 1:
        np.cumsum(found[:-1], out=first[1:])
    n = int(first[-1]) + int(found[-1])
    out = {
        "ray": np.empty(n, dtype=np.int64),
        "range_m": np.empty(n, dtype=np.float64),
        "instance": np.empty(n, dtype=np.int64),
        "triangle": np.empty(n, dtype=np.int64),
        "elevation_index": np.empty(n, dtype=np.int64),
        "bearing_index": np.empty(n, dtype=np.int64),
        "cell": np.empty(n, dtype=np.int64),
    }
    if n:
        wp.launch(
            kp.compact_samples,
            dim=threads,
            inputs=[
                bin_dev,
                on_cpu(first, wp.int32),
                t_dev,
                inst_dev,
                on_cpu(hit_triangle, wp.int32),
                on_cpu(np.ascontiguousarray(ray_column, dtype=np.int64), wp.int64),
                on_cpu(np.ascontiguousarray(ray_row, dtype=np.int64), wp.int64),
                wp.int64(column_count),
                wp.int32(rays),
                wp.int32(per_thread),
            ],
            outputs=[
                on_cpu(out[name], wp.float64 if name == "range_m" else wp.int64)
                for name in (
                    "ray",
                    "range_m",
                    "instance",
                    "triangle",
                    "elevation_index",
                    "bearing_index",
                    "cell",
                )
            ],
            device="cpu",
        )
        wp.synchronize_device("cpu")
    checkpoint()
    return out


def sample_physics(
    *,
    sample_ray: np.ndarray,
    hit_t: np.ndarray,
    hit_instance: np.ndarray,
    hit_triangle: np.ndarray,
    origins: np.ndarray,
    directions: np.ndarray,
    normal_rows: np.ndarray,
    normal_start: np.ndarray,
    sea_surface_instance: int,
    instance_status: np.ndarray,
    instance_mu: np.ndarray,
    known_status: int,
    two_way_gain: np.ndarray,
    solid_angle_sr: np.ndarray,
    alpha_db_per_m: float | None,
    threads: int | None = None,
) -> dict[str, np.ndarray]:
    """Geometry, surface and return terms of every integrated sample (Warp ``cpu``).

    Args:
        sample_ray: Ray of each sample, int64 [n] (ascending).
        hit_t, hit_instance, hit_triangle: The nearest hit of every ray: float64,
            int32, int32 [R].
        origins, directions: The rays in world NED, float64 [R, 3].
        normal_rows: Every instance's unit triangle normals stacked, the sea surface's
            one normal last, float64 [M, 3].
        normal_start: First row of each instance in ``normal_rows``, int64 [I + 1]
            (the sea surface's entry is its row).
        sea_surface_instance: The sea surface's instance index (the last).
        instance_status: Acoustic status code per instance, uint8 [I + 1].
        instance_mu: Lambert ``mu`` per instance, NaN where none, float64 [I + 1].
        known_status: The KNOWN status code.
        two_way_gain, solid_angle_sr: ``G²`` and ``dΩ`` [sr] per ray, float64 [R].
        alpha_db_per_m: Absorption [dB/m], ``None`` when the medium is unsupported.
        threads: Pool threads (default: the tracing stage's, one per allowed core).

    Returns:
        ``point``, ``normal`` float64 [n, 3]; ``cos_incidence``, ``mu`` and the three
        terms float64 [n]; ``status`` uint8 [n].
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels.physics import launch_sample_physics

    n = int(sample_ray.shape[0])
    out = {
        "point": np.empty((n, 3), dtype=np.float64),
        "normal": np.empty((n, 3), dtype=np.float64),
        "status": np.empty(n, dtype=np.uint8),
        **{name: np.empty(n, dtype=np.float64) for name in _FLOAT_OUTPUTS},
    }

    def on_cpu(a: np.ndarray, dtype) -> object:
        return wp.array(np.ascontiguousarray(a), dtype=dtype, device="cpu", copy=False)

    shared = {
        "hit_t": on_cpu(hit_t, wp.float64),
        "hit_instance": on_cpu(hit_instance, wp.int32),
        "hit_triangle": on_cpu(hit_triangle, wp.int32),
        "origins": on_cpu(origins, wp.vec3d),
        "directions": on_cpu(directions, wp.vec3d),
        "normal_rows": on_cpu(normal_rows, wp.vec3d),
        "normal_start": on_cpu(normal_start, wp.int64),
        "instance_status": on_cpu(instance_status, wp.uint8),
        "instance_mu": on_cpu(instance_mu, wp.float64),
        "two_way_gain": on_cpu(two_way_gain, wp.float64),
        "solid_angle_sr": on_cpu(solid_angle_sr, wp.float64),
    }
    out_dtypes = {"point": wp.vec3d, "normal": wp.vec3d, "status": wp.uint8}
    batches = list(itertools.pairwise([*range(0, n, HOST_BATCH_SAMPLES), n]))
    skipped: list[tuple[int, int]] = []

    def run(batch: tuple[int, int]) -> None:
        if interrupt_requested():
            skipped.append(batch)
            return
        a, b = batch
        launch_sample_physics(
            sample_ray=on_cpu(sample_ray[a:b], wp.int64),
            **shared,
            sea_surface_instance=sea_surface_instance,
            known_status=known_status,
            alpha_db_per_m=alpha_db_per_m,
            outputs={
                name: on_cpu(array[a:b], out_dtypes.get(name, wp.float64))
                for name, array in out.items()
            },
            samples_per_thread=HOST_SAMPLES_PER_THREAD,
        )

    threads = cpu_trace_threads() if threads is None else threads
    if threads == 1 or len(batches) <= 1:
        for batch in batches:
            run(batch)
    else:
        list(_pool(threads).map(run, batches))
    wp.synchronize_device("cpu")
    checkpoint()
    if skipped:
        raise KeyboardInterrupt
    return out


def acos_clipped(x: np.ndarray) -> np.ndarray:
    """:func:`leviathan.reference_cpu.sonar.acos_clipped` compiled: the C library's ``acos``.

    Args:
        x: ``|cos θ|`` values, float64 [n] (NaN allowed: it stays NaN).

    Returns:
        ``acos(min(x, 1))`` [rad], float64 [n], bit for bit the reference's.
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels.physics import launch_acos_clipped

    x = np.ascontiguousarray(x, dtype=np.float64)
    angle = np.empty_like(x)
    launch_acos_clipped(
        x=wp.array(x, dtype=wp.float64, device="cpu", copy=False),
        angle=wp.array(angle, dtype=wp.float64, device="cpu", copy=False),
        per_thread=HOST_SAMPLES_PER_THREAD,
    )
    wp.synchronize_device("cpu")
    return angle


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
    ``threads`` as for :func:`sample_physics`.
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
    start = np.zeros(cells, dtype=np.int32)
    if cells > 1:
        np.cumsum(count[:-1], out=start[1:])
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

    def on_cpu(a: np.ndarray, dtype) -> object:
        return wp.array(np.ascontiguousarray(a), dtype=dtype, device="cpu", copy=False)

    cell = np.ascontiguousarray(sample_cell, dtype=np.int64)
    if n:
        wp.launch(
            kg.group_by_cell,
            dim=1,
            inputs=[on_cpu(cell, wp.int64), wp.int32(n), on_cpu(start.copy(), wp.int32)],
            outputs=[on_cpu(grouped, wp.int32)],
            device="cpu",
        )
    binned_here = linear_return is None
    if binned_here:
        linear_return = np.empty(cells, dtype=np.float64)
        _run_cell_batches(
            lambda a, b: wp.launch(
                kg.bin_cells,
                dim=-(-(b - a) // HOST_CELLS_PER_THREAD),
                inputs=[
                    on_cpu(start, wp.int32),
                    on_cpu(count, wp.int32),
                    on_cpu(np.ascontiguousarray(sample_elevation, dtype=np.int64), wp.int64),
                    on_cpu(contribution, wp.float64),
                    wp.int32(a),
                    wp.int32(b),
                    wp.int32(HOST_CELLS_PER_THREAD),
                ],
                outputs=[on_cpu(grouped, wp.int32), on_cpu(linear_return, wp.float64)],
                device="cpu",
            ),
            cells,
            threads,
        )
    arrays = [
        on_cpu(start, wp.int32),
        on_cpu(count, wp.int32),
        on_cpu(np.ascontiguousarray(linear_return, dtype=np.float64), wp.float64),
        on_cpu(grouped, wp.int32),
        on_cpu(np.ascontiguousarray(sample_instance, dtype=np.int64), wp.int64),
        on_cpu(np.ascontiguousarray(sample_range, dtype=np.float64), wp.float64),
        on_cpu(np.ascontiguousarray(sample_elevation, dtype=np.int64), wp.int64),
        on_cpu(np.ascontiguousarray(sample_status, dtype=np.uint8), wp.uint8),
        on_cpu(contribution, wp.float64),
        on_cpu(geometric_weight, wp.float64),
        on_cpu(geometric_weight_no_absorption, wp.float64),
        wp.int32(top_k),
        wp.int32(1 if medium_supported else 0),
    ]
    outputs = [
        on_cpu(order, wp.int32),
        on_cpu(scratch, wp.int32),
        on_cpu(out["sample_dominance"], wp.float64),
        on_cpu(out["sample_rank"], wp.int64),
        on_cpu(out["primary_basis"], wp.uint8),
        on_cpu(out["validity"], wp.uint16),
        on_cpu(out["truncation"], wp.float64),
    ]
    # Every array is whole; a batch is a range of cells, each owning its own slots
    # and those of its samples.
    _run_cell_batches(
        lambda a, b: wp.launch(
            kg.cell_ground_truth,
            dim=-(-(b - a) // HOST_CELLS_PER_THREAD),
            inputs=[*arrays, wp.int32(a), wp.int32(b), wp.int32(HOST_CELLS_PER_THREAD)],
            outputs=outputs,
            device="cpu",
        ),
        cells,
        threads,
    )
    out["contributor_order"] = order
    out["cell_start"] = start
    if binned_here:
        out["linear_return"] = linear_return
    return out


def _run_cell_batches(launch: Any, cells: int, threads: int | None) -> None:
    """Calls ``launch(first, end)`` for batches of consecutive cells on the pool, then syncs.

    Each batch owns its cells' slots. After a Ctrl-C no new batch starts, and the
    call raises :class:`KeyboardInterrupt` rather than hand back a partial result.
    """
    wp = init_warp()
    batches = list(itertools.pairwise([*range(0, cells, HOST_BATCH_CELLS), cells]))
    skipped: list[tuple[int, int]] = []

    def run(batch: tuple[int, int]) -> None:
        if interrupt_requested():
            skipped.append(batch)
            return
        launch(*batch)

    threads = cpu_trace_threads() if threads is None else threads
    if threads == 1 or len(batches) <= 1:
        for batch in batches:
            run(batch)
    else:
        list(_pool(threads).map(run, batches))
    wp.synchronize_device("cpu")
    checkpoint()
    if skipped:
        raise KeyboardInterrupt


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

    def on_cpu(a: np.ndarray, dtype) -> object:
        return wp.array(np.ascontiguousarray(a), dtype=dtype, device="cpu", copy=False)

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
        on_cpu(cells["cell_start"], wp.int32),
        on_cpu(cells["sample_count"].astype(np.int32, copy=False), wp.int32),
        on_cpu(cells["contributor_order"], wp.int32),
        on_cpu(cells["linear_return"], wp.float64),
        on_cpu(cells["validity"], wp.uint16),
        on_cpu(cells["primary_basis"], wp.uint8),
        on_cpu(cells["truncation"], wp.float64),
        on_cpu(sample_ray, wp.int64),
        on_cpu(inst, wp.int64),
        on_cpu(tri, wp.int64),
        on_cpu(R, wp.float64),
        on_cpu(cos_incidence, wp.float64),
        on_cpu(np.ascontiguousarray(point).reshape(-1), wp.float64),
        on_cpu(np.ascontiguousarray(normal).reshape(-1), wp.float64),
        on_cpu(status, wp.uint8),
        on_cpu(terms["contribution"], wp.float64),
        on_cpu(terms["geometric_weight"], wp.float64),
        on_cpu(angle0, wp.float64),
        on_cpu(angle1, wp.float64),
        wp.int32(len(names)),
        on_cpu(tables["object_index"].astype(np.int32, copy=False), wp.int32),
        on_cpu(tables["semantic_index"].astype(np.int32, copy=False), wp.int32),
        on_cpu(tables["moving"].astype(np.uint8, copy=False), wp.uint8),
        wp.int32(top_k),
    ]
    angle_slot = [*(names[:2]), None, None][:2]
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
        out(None if angle_slot[0] is None else f"primary_{angle_slot[0]}"),
        out(None if angle_slot[1] is None else f"primary_{angle_slot[1]}"),
        out("primary_incidence_rad"),
        out("primary_hit_point_world"),
        out("primary_normal_world"),
        out("primary_semantic"),
        out("primary_acoustic_status"),
        out("primary_moving"),
        out("topk_instance"),
        out("topk_triangle"),
        out("topk_range_m"),
        out(None if angle_slot[0] is None else f"topk_{angle_slot[0]}"),
        out(None if angle_slot[1] is None else f"topk_{angle_slot[1]}"),
        out("topk_contribution"),
        out("topk_geometric_weight"),
        out("topk_energy_fraction"),
    ]
    _run_cell_batches(
        lambda a, b: wp.launch(
            kc.cell_channels,
            dim=-(-(b - a) // HOST_CELLS_PER_THREAD),
            inputs=[*inputs, wp.int32(a), wp.int32(b), wp.int32(HOST_CELLS_PER_THREAD)],
            outputs=outputs,
            device="cpu",
        ),
        cell_count,
        threads,
    )
