"""Host side of the Warp backend: devices, uploads, compile reports, the tracing stage.

:func:`nearest_hits` is the Warp twin of
:func:`leviathan.reference_cpu.trace.nearest_hits`: same arguments (plus
``device``), same :class:`~leviathan.raycast.TraceResult`, bit for bit.
Preparation (world triangles, padded BVH: :mod:`leviathan.raycast`) stays on
the host and is shared; this module uploads those exact arrays once per
prepared instance and device and keeps them while the prepared instance lives.

Upload layout (values unchanged, only reordered for locality): triangles are
stored in the BVH's leaf order, so a leaf reads one contiguous run, and each
triangle keeps its mesh index in ``tri_id`` for the tie rule and the output.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import numpy as np

from leviathan._cores import usable_cores
from leviathan._interrupt import checkpoint, interrupt_requested
from leviathan._raycast_stages import (
    PreparedInstance,
    PreparedScene,
    TraceResult,
    check_rays,
    check_t_max,
)
from leviathan._warp_output import init_warp, quiet_warp

T = TypeVar("T")  # an item of map_joined

__all__ = [
    "CPU_BATCH_RAYS",
    "CompileReport",
    "available_devices",
    "check_device",
    "compile_reports",
    "cpu_trace_threads",
    "default_device",
    "exclusive_offsets",
    "load_kernels",
    "map_joined",
    "nearest_hits",
    "nearest_hits_with_sea_surface",
    "run_cpu_batches",
]

#: Rays per Warp thread on the CPU, where each thread pays a fixed entry cost
#: (Warp copies the kernel's argument block per thread); CUDA uses one.
CPU_RAYS_PER_THREAD = 256

_log = logging.getLogger("leviathan.kernels")
_lock = threading.Lock()
_reports: dict[str, CompileReport] = {}
_uploads: weakref.WeakKeyDictionary[PreparedInstance, dict[str, dict]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class CompileReport:
    """How long the first use of the tracing kernels took on one device.

    Attributes:
        device: Warp device name, e.g. ``"cpu"`` or ``"cuda:0"``.
        seconds: Wall time of the module load [s]: a compile on a cold kernel
            cache (seconds), or a load from Warp's disk cache (milliseconds).
        warp_version: The Warp version that compiled it.
    """

    __content_type__ = "leviathan.kernels.backend.CompileReport"

    device: str
    seconds: float
    warp_version: str


def _warp():
    return init_warp()


def available_devices() -> list[str]:
    """Warp devices the backend can run on here: ``"cpu"`` always, then each CUDA device."""
    return list(_device_names())


@lru_cache(maxsize=1)
def _device_names() -> tuple[str, ...]:
    # Asked once per process: every trace checks its device against this list.
    with quiet_warp() as wp:
        wp.init()
    return ("cpu", *(f"cuda:{i}" for i in range(wp.get_cuda_device_count())))


def default_device() -> str:
    """``"cuda:0"`` when a CUDA device is present, else ``"cpu"``."""
    devices = available_devices()
    return "cuda:0" if "cuda:0" in devices else "cpu"


def check_device(device: str) -> str:
    """The Warp device name for ``device`` (``"cuda"`` is ``"cuda:0"``); refuses absent ones."""
    if not isinstance(device, str):
        raise TypeError(f"device: expected a device name like 'cpu' or 'cuda:0', got {device!r}")
    name = "cuda:0" if device == "cuda" else device
    devices = available_devices()
    if name not in devices:
        raise ValueError(
            f"device: {device!r} is not available here; the Warp backend can use {devices}"
        )
    return name


def load_kernels(device: str = "cpu") -> CompileReport:
    """Compiles (or loads from Warp's kernel cache) the tracing kernels on ``device``.

    The compiled host stage's kernels (:mod:`leviathan.kernels.physics`,
    :mod:`leviathan.kernels.ground_truth`, :mod:`leviathan.kernels.channels`) are loaded
    on the ``cpu`` device with them, where they always run.

    The first call per device is timed and reported (logged at INFO on
    ``leviathan.kernels`` and kept in :func:`compile_reports`); later calls
    return the same report at once.
    """
    device = check_device(device)
    with _lock:
        report = _reports.get(device)
        if report is None:
            wp = _warp()
            from leviathan.kernels import channels, ground_truth, physics, trace, trace_native

            t0 = time.perf_counter()
            with quiet_warp():
                wp.load_module(trace, device=device)
                # The compiled host stage (and the CPU walk) run on the CPU whatever traces.
                wp.load_module(trace_native, device="cpu")
                wp.load_module(physics, device="cpu")
                wp.load_module(ground_truth, device="cpu")
                wp.load_module(channels, device="cpu")
            report = CompileReport(device, time.perf_counter() - t0, wp.config.version)
            _reports[device] = report
            _log.info(
                "Warp tracing kernels ready on %s in %.3f s (compile or kernel-cache load)",
                device,
                report.seconds,
            )
    return report


def compile_reports() -> dict[str, CompileReport]:
    """The compile/load report of every device used so far in this process."""
    with _lock:
        return dict(_reports)


def _upload(prep: PreparedInstance, device: str) -> dict:
    from leviathan.kernels.trace import STACK_CAPACITY, box6d, tri9d

    with _lock:
        per_device = _uploads.get(prep)
        if per_device is not None and device in per_device:
            return per_device[device]
    wp = _warp()
    bvh = prep.bvh
    if bvh.depth > STACK_CAPACITY:
        raise ValueError(
            f"bvh: depth {bvh.depth} exceeds the Warp traversal stack ({STACK_CAPACITY} levels); "
            "leviathan's builder stays within 94 levels, so this tree was made elsewhere: "
            "rebuild it with leviathan.raycast.build_bvh or use backend='reference'"
        )
    order = bvh.tri_order.astype(np.int64)
    host = {
        "node_box": bvh.node_bounds,
        "node_child": np.ascontiguousarray(bvh.node_child[:, 0]),
        "node_range": bvh.node_range,
        "tri_data": np.ascontiguousarray(
            np.concatenate([prep.v0[order], prep.e1[order], prep.e2[order]], axis=1)
        ),
        "tri_id": np.ascontiguousarray(bvh.tri_order),
    }
    dtypes = {
        "node_box": box6d,
        "node_child": wp.int32,
        "node_range": wp.vec2i,
        "tri_data": tri9d,
        "tri_id": wp.int32,
    }
    arrays = {k: wp.array(v, dtype=dtypes[k], device=device) for k, v in host.items()}
    with _lock:
        _uploads.setdefault(prep, {})[device] = arrays
    return arrays


#: Rays per batch when a CPU trace is split across threads: small enough that the
#: threads share out uneven batches (rays over targets cost more), large enough that
#: a batch's Python-side launch work (array views and one launch per instance, under
#: the GIL) stays small. Measured on 2 cores over a 10^6-triangle seabed, 65,536
#: random rays: 4096 -> 1.57x one thread, 16384 -> 1.75x, 32768 -> 1.96x.
CPU_BATCH_RAYS = 16384

_pool_lock = threading.Lock()
_pools: dict[int, ThreadPoolExecutor] = {}


def cpu_trace_threads() -> int:
    """Host threads a CPU trace uses by default: the CPU cores this process may run on."""
    return usable_cores()


def _pool(threads: int) -> ThreadPoolExecutor:
    with _pool_lock:
        pool = _pools.get(threads)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="leviathan-trace")
            _pools[threads] = pool
        return pool


def _launch_rays(
    o: np.ndarray,
    d: np.ndarray,
    t_max: float,
    arrays: list[dict | None],
    best_t: np.ndarray,
    best_inst: np.ndarray,
    best_tri: np.ndarray,
    *,
    device: str,
    rays_per_thread: int,
    sea_surface_instance: int | None,
) -> None:
    """Traces the rays ``o``/``d`` into ``best_*`` (CPU: in place, over numpy memory),
    from their sea-surface hits first unless ``sea_surface_instance`` is ``None``."""
    wp = _warp()
    from leviathan.kernels import trace as kt
    from leviathan.kernels.trace_native import trace_instance_cpu

    on_cpu = device == "cpu"
    o_dev = wp.array(o, dtype=wp.vec3d, device=device, copy=not on_cpu)
    d_dev = wp.array(d, dtype=wp.vec3d, device=device, copy=not on_cpu)
    best_t_dev = wp.array(best_t, dtype=wp.float64, device=device, copy=not on_cpu)
    best_inst_dev = wp.array(best_inst, dtype=wp.int32, device=device, copy=not on_cpu)
    best_tri_dev = wp.array(best_tri, dtype=wp.int32, device=device, copy=not on_cpu)
    inv_dev = wp.empty(o.shape[0], dtype=wp.vec3d, device=device)
    kt.launch_inverse_directions(directions=d_dev, inv_directions=inv_dev, device=device)
    if sea_surface_instance is not None:
        kt.launch_seed_sea_surface(
            origins=o_dev,
            directions=d_dev,
            t_max=t_max,
            sea_surface_instance=sea_surface_instance,
            best_t=best_t_dev,
            best_instance=best_inst_dev,
            best_triangle=best_tri_dev,
            rays_per_thread=rays_per_thread,
            device=device,
        )
    for k, uploaded in enumerate(arrays):
        if uploaded is None:
            continue  # no ray reaches the instance's box (_reachable)
        kt.launch_trace_instance(
            origins=o_dev,
            directions=d_dev,
            inv_directions=inv_dev,
            t_max=t_max,
            instance_index=k,
            arrays=uploaded,
            best_t=best_t_dev,
            best_instance=best_inst_dev,
            best_triangle=best_tri_dev,
            rays_per_thread=rays_per_thread,
            device=device,
            kernel=trace_instance_cpu if on_cpu else None,
        )
    if not on_cpu:
        best_t[...] = best_t_dev.numpy()
        best_inst[...] = best_inst_dev.numpy()
        best_tri[...] = best_tri_dev.numpy()


def map_joined(
    pool: ThreadPoolExecutor,
    fn: Callable[[T], None],
    items: Sequence[T],
    stopping: threading.Event | None = None,
) -> None:
    """Runs ``fn(item)`` for every item on ``pool``; no call outlives this one.

    ``pool.map`` leaves the calls already running when the caller's wait is broken
    (a Ctrl-C's :class:`KeyboardInterrupt`, or an item's error), and the caller's
    frames then free the memory those calls' Warp kernels write through raw pointers
    (a segmentation fault). Here, on any exception, the calls not started are
    cancelled, ``stopping`` (when given) is set so that ``fn`` can decline new work,
    and the running ones are waited for (one item each) before the exception goes on.
    """
    futures = [pool.submit(fn, item) for item in items]
    try:
        for future in futures:
            future.result()
    except BaseException:
        if stopping is not None:
            stopping.set()
        for future in futures:
            future.cancel()
        concurrent.futures.wait(futures)
        raise


def exclusive_offsets(counts: np.ndarray) -> np.ndarray:
    """int32 ``[0, c0, c0 + c1, ...]``: where each run of ``counts`` items starts in one
    flat array (an integer prefix sum, exact in any order)."""
    start = np.zeros(counts.shape[0], dtype=np.int32)
    if counts.shape[0] > 1:
        np.cumsum(counts[:-1], out=start[1:])
    return start


def cpu_array(a: np.ndarray, dtype) -> object:
    """A Warp CPU array of Warp type ``dtype`` over ``a``'s memory (copied only if ``a``
    is not C-contiguous), so a host-stage kernel reads and writes numpy arrays in place."""
    return _warp().array(np.ascontiguousarray(a), dtype=dtype, device="cpu", copy=False)


def run_cpu_batches(
    launch: Callable[[int, int], None], count: int, batch: int, *, threads: int | None
) -> None:
    """Calls ``launch(first, end)`` for consecutive batches of ``count`` items, then syncs.

    The batches go to a pool of ``threads`` host threads (default
    :func:`cpu_trace_threads`); with one thread, or one batch, a single
    ``launch(0, count)`` runs on the caller's thread. Each batch must own its items'
    output slots, so the result does not depend on the thread count. After a Ctrl-C
    no new batch starts, and the call raises :class:`KeyboardInterrupt` rather than
    hand back a result with batches left out. The tracing stage and the compiled
    host stage (:mod:`leviathan.kernels.host_stage`) launch through it.
    """
    threads = cpu_trace_threads() if threads is None else threads
    batches = list(itertools.pairwise([*range(0, count, batch), count]))
    skipped: list[tuple[int, int]] = []
    stopping = threading.Event()

    def run(span: tuple[int, int]) -> None:
        if stopping.is_set() or interrupt_requested():
            # The command is being stopped (Ctrl-C), or another batch failed: take no
            # new batch, so the stage ends within one batch instead of running the
            # queue out.
            skipped.append(span)
            return
        launch(*span)

    if threads == 1 or len(batches) <= 1:
        run((0, count))
    else:
        map_joined(_pool(threads), run, batches, stopping)
    _warp().synchronize_device("cpu")
    checkpoint()
    if skipped:
        # Never hand back a result with batches left out, on any thread.
        raise KeyboardInterrupt


HOST_CULL_MAX_RAYS = 1024
"""Up to this many rays, the instances no ray can reach are culled on the host first."""


def _reachable(prepared: PreparedScene, o: np.ndarray, d: np.ndarray, t_max: float) -> list[bool]:
    """Whether any ray may hit each instance: the reference's instance culling test
    (:func:`leviathan.reference_cpu.trace.intersect_ray_box` on the padded instance box)
    with ``t_max`` for every ray's best ``t``, so never stricter than the traversal's own.

    For a few rays (a DVL's four beams) most instances are out of reach, and skipping
    their upload and launch saves more than the test costs; for many rays every
    instance is kept and the kernels cull per ray, as they always do.
    """
    from leviathan.reference_cpu.trace import intersect_ray_box, inverse_directions

    n = o.shape[0]
    if n > HOST_CULL_MAX_RAYS:
        return [True] * len(prepared.instances)
    inv_d = inverse_directions(d)
    t_best = np.full(n, t_max, dtype=np.float64)
    return [
        bool(np.any(intersect_ray_box(o, inv_d, np.broadcast_to(p.bounds, (n, 6)), t_best)))
        for p in prepared.instances
    ]


def nearest_hits(
    prepared: PreparedScene,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    t_max: float,
    device: str = "cpu",
    threads: int | None = None,
) -> TraceResult:
    """Nearest mesh hit per ray on a Warp device (instance culling, then BVH traversal).

    Bit-identical to :func:`leviathan.reference_cpu.trace.nearest_hits`, whatever
    the thread count: every ray is traced on its own, and a ray's slots are written
    by one launch at a time, instances in index order.

    Args:
        prepared: Prepared scene (:func:`leviathan.raycast.prepare_scene`, shared).
        origins: Ray origins in world NED [m], float64 [ray_count, 3].
        directions: Unit ray directions in world NED, float64 [ray_count, 3].
        t_max: Largest ray parameter of interest [m]; farther hits are ignored.
        device: Warp device, ``"cpu"`` or ``"cuda:N"``.
        threads: CPU only: host threads that launch ray batches side by side
            (``None``: :func:`cpu_trace_threads`). Warp runs a CPU launch on the
            calling thread, and calls the compiled kernel through ctypes, which
            releases the GIL, so batches launched from a thread pool run on every core.
    """
    return _nearest(prepared, origins, directions, t_max, device, threads, None)


def nearest_hits_with_sea_surface(
    prepared: PreparedScene,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    t_max: float,
    sea_surface_instance: int,
    device: str = "cpu",
    threads: int | None = None,
) -> TraceResult:
    """:func:`nearest_hits` and the analytic sea surface in one pass: the result of
    ``raycast._sea_surface.combine_with_sea_surface`` after :func:`nearest_hits`, bit
    for bit, with each ray started from its plane hit
    (:func:`leviathan.kernels.trace.seed_sea_surface`), which also culls every box
    beyond it. ``sea_surface_instance`` is the scene's (after every mesh instance).

    Raises:
        ValueError: If ``sea_surface_instance`` is not an int after the meshes' indices.
    """
    count = len(prepared.instances)
    if type(sea_surface_instance) is not int or not count <= sea_surface_instance < 2**31:
        raise ValueError(
            f"sea_surface_instance: expected an int index after the prepared scene's "
            f"{count} mesh instances (scene.sea_surface_instance, {count}), got "
            f"{sea_surface_instance!r}"
        )
    return _nearest(prepared, origins, directions, t_max, device, threads, sea_surface_instance)


def _nearest(prepared, origins, directions, t_max, device, threads, sea_surface_instance):
    """:func:`nearest_hits`, with the sea surface seeded first unless it is ``None``."""
    o, d = check_rays(origins, directions)
    t_max = check_t_max(t_max)
    device = check_device(device)
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise ValueError(f"threads: expected None or an integer >= 1, got {threads!r}")
    load_kernels(device)
    n = o.shape[0]
    if n == 0:
        empty = np.zeros(0, dtype=np.int32)
        return TraceResult(t=np.zeros(0, dtype=np.float64), instance=empty, triangle=empty.copy())
    best_t = np.full(n, float(t_max), dtype=np.float64)
    best_inst = np.full(n, -1, dtype=np.int32)
    best_tri = np.full(n, -1, dtype=np.int32)
    reach = _reachable(prepared, o, d, float(t_max))
    arrays = [
        _upload(p, device) if r else None for p, r in zip(prepared.instances, reach, strict=True)
    ]

    def launch(a: int, b: int, rays_per_thread: int = CPU_RAYS_PER_THREAD) -> None:
        _launch_rays(
            o[a:b],
            d[a:b],
            t_max,
            arrays,
            best_t[a:b],
            best_inst[a:b],
            best_tri[a:b],
            device=device,
            rays_per_thread=rays_per_thread,
            sea_surface_instance=sea_surface_instance,
        )

    if device == "cpu":
        # Batches of consecutive rays, launched from a pool of ``threads``.
        run_cpu_batches(launch, n, CPU_BATCH_RAYS, threads=threads)
    else:
        # CUDA: every ray in one launch per instance, one ray per GPU thread.
        launch(0, n, rays_per_thread=1)
    t = np.where(best_inst >= 0, best_t, np.inf)
    return TraceResult(t=t, instance=best_inst, triangle=best_tri)
