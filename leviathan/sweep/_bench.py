"""``leviathan bench sweep``: a sweep serial and on a local Ray cluster, Ray's overhead, projection.

The sweep: ``runs`` canonical World runs (the reference survey vehicle's IMU and
DVL over a flat seabed, HDF5 and MCAP written), one per root seed, each about
``run_seconds`` of wall time: the simulated duration is calibrated first from two
probe runs (cost = a + b x duration, fitted through them). The same sweep is run
serially and on a local Ray cluster of ``workers`` CPUs started beforehand (its
start-up, and one short run in each worker so that they are as warm as this process
is for the serial sweep, are reported apart), into two folders whose run hashes are
compared.

Ray's per-task overhead is measured three ways: the round trip of one empty task
submitted and awaited alone (median of 200), the driver's cost per empty task when
2,000 are in flight (wall / 2,000), and in the sweep itself: (Ray wall x workers -
sum of the run times) / runs, which also holds worker start-up and imbalance.

Projection to ``cores`` (one run per core at a time) from the measured per-run
cost ``c`` (mean run time in the serial sweep: one run per core, as on a cluster
node that runs nothing else), the per-run overhead in the sweep ``o`` and the
driver's cost per task ``d`` (the empty-task throughput figure), for ``R`` runs::

    wall(N) = max(ceil(R / N) x (c + o), R x d),   speedup(N) = R x c / wall(N)

It assumes equal, independent runs, storage that keeps up with N writers, and a
driver whose per-task work does not grow with N; it is an estimate, not a
measurement. The load average before and after is reported: on a machine other
processes share, the Ray runs slow each other down and the speedup says so.
Figures are printed, never asserted.

The peer for the speedup is the same sweep split into ``workers`` contiguous shares
run by as many plain Python processes side by side (the serial executor, no Ray):
what this machine gives independent runs at once. Cores that share caches, memory
bandwidth or a host (a VM's vCPUs) slow each run down, and that ceiling is no
scheduler's; Ray's speedup is quoted against it as well as against serial.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["bench_sweep", "format_sweep_bench"]

_TICK_NS = 10_000_000


def line_run(ticks: int, *, sensors: tuple[str, ...] = ("auv/imu", "auv/dvl")) -> dict[str, Any]:
    """The benchmark's World run table (``[run]``): the reference survey vehicle's IMU and
    DVL over a flat seabed for ``ticks`` 10 ms ticks, traced by the numpy reference (no
    Warp kernel load per worker), written to HDF5 and MCAP. The sweep tests use it too."""
    return {
        "kind": "world",
        "outputs": {"mcap": True, "hdf5": True, "previews": False},
        "scenario": {
            "name": "bench_line",
            "step_ns": _TICK_NS,
            "duration_ticks": ticks,
            "tracing_backend": "reference",
            "environment": {"scene": "flat_seabed", "seabed_depth_m": 30.0},
            "vehicles": [
                {
                    "name": "auv",
                    "spec": "reference_survey_vehicle",
                    "position_ned_m": [0.0, 0.0, 20.0],
                    "controller": {
                        "kind": "autopilot",
                        "speed_m_per_s": 1.0,
                        "depth_m": 20.0,
                        "heading_rad": 0.0,
                    },
                }
            ],
            "sensors": [{"id": s} for s in sensors],
        },
    }


def _document(runs: int, ticks: int) -> dict[str, Any]:
    return {
        "name": "bench_sweep",
        "run": line_run(ticks),
        "axes": [
            {
                "name": "root_seed",
                "path": "scenario.root_seed",
                "range": {"start": 0, "stop": runs - 1, "step": 1},
            }
        ],
    }


def _timed_sweep(doc: dict, out: Path, executor: Any) -> tuple[float, dict[str, dict]]:
    from leviathan.sweep._index import read_index
    from leviathan.sweep._plan import sweep_from_dict
    from leviathan.sweep._sweep import run_sweep

    start = time.perf_counter()
    summary = run_sweep(sweep_from_dict(doc), out, executor=executor)
    wall = time.perf_counter() - start
    if summary.failed:
        raise RuntimeError(f"bench sweep: {summary.failed} runs failed: {summary.failures[:1]}")
    return wall, {r["key"]: r for r in read_index(out)}


def share_main(document: str, out: str) -> None:
    """One plain process's share of the sweep (``python -c``, from :func:`_plain_processes`)."""
    from leviathan.sweep._executors import SerialExecutor

    _timed_sweep(json.loads(document), Path(out), SerialExecutor())


def _plain_processes(doc: dict, runs: int, workers: int, root: Path) -> tuple[float, dict]:
    """The sweep in ``workers`` contiguous shares, one plain process each, side by side."""
    code = "import sys; from leviathan.sweep._bench import share_main; share_main(*sys.argv[1:])"
    bounds = [round(i * runs / workers) for i in range(workers + 1)]
    procs = []
    start = time.perf_counter()
    try:
        for i in range(workers):
            share = json.loads(json.dumps(doc))
            share["axes"][0]["range"] = {"start": bounds[i], "stop": bounds[i + 1] - 1, "step": 1}
            out = root / f"plain-{i}"
            argv = [sys.executable, "-c", code, json.dumps(share), str(out)]
            procs.append((subprocess.Popen(argv), out))
        for proc, _ in procs:
            if proc.wait() != 0:
                raise RuntimeError(f"bench sweep: a plain process exited {proc.returncode}")
        wall = time.perf_counter() - start
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    from leviathan.sweep._index import read_index

    return wall, {r["key"]: r for _, out in procs for r in read_index(out)}


def _calibrate(target_s: float, scratch: Path) -> tuple[int, float, float]:
    """Ticks that make one run take about ``target_s``; and the fitted a [s], b [s/tick].

    Two probe lengths, each run twice (the faster kept: the machine may be shared).
    """
    from leviathan.sweep._executors import SerialExecutor

    probes = {}
    for ticks in (100, 400):
        times = []
        for repeat in range(2):
            doc = _document(1, ticks)
            doc["axes"][0]["range"] = {"start": repeat, "stop": repeat, "step": 1}
            _, records = _timed_sweep(doc, scratch / f"probe{ticks}-{repeat}", SerialExecutor())
            times.append(next(iter(records.values()))["seconds"])
        probes[ticks] = min(times)
    b = max((probes[400] - probes[100]) / 300, 1e-6)
    a = max(probes[100] - 100 * b, 0.0)
    ticks = min(max(round((target_s - a) / b), 10), 100_000)
    return ticks, a, b


def _warm_workers(ray: Any, workers: int, scratch: Path) -> None:
    """One short run in each Ray worker first: imports and caches as warm as this process's."""
    from leviathan.sweep._plan import plan_sweep, sweep_from_dict
    from leviathan.sweep._ray import sweep_run
    from leviathan.sweep._run import RunTask

    plan = plan_sweep(sweep_from_dict(_document(2 * workers, 10)))
    remote = ray.remote(num_cpus=1)(sweep_run)
    tasks = [RunTask(r.key, r.params, r.document, str(scratch), "ray") for r in plan.runs]
    ray.get([remote.remote(task) for task in tasks])


def _overheads(ray: Any) -> dict[str, float]:
    @ray.remote(num_cpus=1)
    def empty() -> None:
        return None

    ray.get([empty.remote() for _ in range(20)])  # workers up
    trips = []
    for _ in range(200):
        start = time.perf_counter()
        ray.get(empty.remote())
        trips.append(time.perf_counter() - start)
    start = time.perf_counter()
    ray.get([empty.remote() for _ in range(2000)])
    throughput = (time.perf_counter() - start) / 2000
    return {"round_trip_ms": 1e3 * statistics.median(trips), "driver_ms_per_task": 1e3 * throughput}


def bench_sweep(
    *,
    runs: int = 200,
    run_seconds: float = 0.5,
    workers: int = 2,
    cores: tuple[int, ...] = (64, 512),
    scratch: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Times a sweep serially and on Ray; Ray's overhead; projected walls (module docstring).

    Args:
        runs: Runs in the sweep.
        run_seconds: Target wall time of one run [s].
        workers: CPUs of the local Ray cluster.
        cores: Core counts to project to.
        scratch: Folder for the two sweep outputs (default: a temporary one, removed).

    Returns:
        A JSON-friendly dict of every figure (times in s unless named ``*_ms``).
    """
    from leviathan.sweep._ray import RayExecutor, _import_ray

    if not math.isfinite(run_seconds) or run_seconds <= 0:
        raise ValueError(f"run_seconds: expected a positive number of seconds, got {run_seconds}")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        root = Path(tmp)
        ticks, a, b = _calibrate(run_seconds, root)
        doc = _document(runs, ticks)
        serial_wall, serial = _timed_sweep(doc, root / "serial", "serial")
        plain_wall, plain = _plain_processes(doc, runs, workers, root)
        ray = _import_ray()
        owned = not ray.is_initialized()  # else: the connection this process holds is used
        start = time.perf_counter()
        if owned:
            ray.init(
                num_cpus=workers,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        try:
            (root / "warm" / "runs").mkdir(parents=True)
            _warm_workers(ray, workers, root / "warm")
            cluster_start = time.perf_counter() - start
            ray_wall, on_ray = _timed_sweep(doc, root / "ray", RayExecutor())
            overhead = _overheads(ray)
        finally:
            if owned:
                ray.shutdown()
    hashes = {k: r["run_hash"] for k, r in serial.items()}
    identical = (
        hashes
        == {k: r["run_hash"] for k, r in on_ray.items()}
        == {k: r["run_hash"] for k, r in plain.items()}
    )
    serial_runs = [r["seconds"] for r in serial.values()]
    ray_runs = [r["seconds"] for r in on_ray.values()]
    c_serial = statistics.fmean(serial_runs)
    c_ray = statistics.fmean(ray_runs)
    in_sweep = (ray_wall * workers - math.fsum(ray_runs)) / runs
    driver = overhead["driver_ms_per_task"] / 1e3
    projection = []
    for count in (runs, 10_000):
        for n in cores:
            wall = max(math.ceil(count / n) * (c_serial + max(in_sweep, 0.0)), count * driver)
            projection.append(
                {
                    "runs": count,
                    "cores": n,
                    "wall_s": wall,
                    "speedup": count * c_serial / wall,
                    "efficiency": count * c_serial / wall / n,
                }
            )
    return {
        "runs": runs,
        "workers": workers,
        "ticks_per_run": ticks,
        "simulated_s_per_run": ticks * _TICK_NS / 1e9,
        "calibration": {"fixed_s": a, "s_per_tick": b},
        "serial": {"wall_s": serial_wall, "run_median_s": statistics.median(serial_runs)},
        "ray": {
            "cluster_start_s": cluster_start,
            "wall_s": ray_wall,
            "run_median_s": statistics.median(ray_runs),
        },
        "plain_processes": {
            "wall_s": plain_wall,
            "run_median_s": statistics.median(r["seconds"] for r in plain.values()),
            "speedup": serial_wall / plain_wall,
        },
        "speedup": serial_wall / ray_wall,
        "ray_vs_plain": plain_wall / ray_wall,
        "identical_run_hashes": identical,
        "overhead": {**overhead, "in_sweep_ms_per_run": 1e3 * in_sweep},
        "projection": projection,
        "cpu_count": os.cpu_count(),
        "load_average": {"before": load_before, "after": os.getloadavg()[0]},
        "run_mean_s": {"serial": c_serial, "ray": c_ray},
    }


def format_sweep_bench(result: dict[str, Any]) -> str:
    """The bench result as a few lines and a projection table."""
    r = result
    o = r["overhead"]
    p = r["plain_processes"]
    lines = [
        f"sweep bench: {r['runs']} canonical runs of {r['simulated_s_per_run']:g} s simulated "
        f"(IMU + DVL, HDF5 + MCAP), {r['cpu_count']} CPUs on this machine, load average "
        f"{r['load_average']['before']:.1f} before, {r['load_average']['after']:.1f} after",
        f"  serial:            {r['serial']['wall_s']:8.2f} s wall, run median "
        f"{r['serial']['run_median_s']:.3f} s",
        f"  ray, {r['workers']} workers:    {r['ray']['wall_s']:8.2f} s wall, run median "
        f"{r['ray']['run_median_s']:.3f} s (cluster start and worker warm-up "
        f"{r['ray']['cluster_start_s']:.1f} s, not included)",
        f"  {r['workers']} plain processes: {p['wall_s']:8.2f} s wall, run median "
        f"{p['run_median_s']:.3f} s (serial executor, no Ray: this machine's ceiling), "
        f"{p['speedup']:.2f}x serial",
        f"  speedup:           {r['speedup']:8.2f}x  (goal >= 1.8x on 2 cores); "
        f"{100 * r['ray_vs_plain']:.0f}% of the plain processes' speed; run hashes "
        f"{'identical' if r['identical_run_hashes'] else 'DIFFER'} (serial, plain, ray)",
        f"  ray overhead:      empty task round trip {o['round_trip_ms']:.2f} ms (median of 200); "
        f"driver {o['driver_ms_per_task']:.2f} ms/task (2,000 in flight); in the sweep "
        f"{o['in_sweep_ms_per_run']:.1f} ms/run (goal <= 20 ms)",
        "  projection: wall(N) = max(ceil(R/N) x (run + overhead in sweep), R x driver "
        "ms/task); equal independent runs, storage keeping up:",
        f"    {'runs':>7} {'cores':>6} {'wall [s]':>10} {'speedup':>9} {'efficiency':>11}",
    ]
    for p in r["projection"]:
        lines.append(
            f"    {p['runs']:>7} {p['cores']:>6} {p['wall_s']:>10.1f} {p['speedup']:>8.1f}x "
            f"{100 * p['efficiency']:>10.0f}%"
        )
    return "\n".join(lines)
