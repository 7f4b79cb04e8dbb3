"""Benchmarks behind ``leviathan bench``: figures to print, never assertions.

``bench_sonar`` renders the catalogue survey vehicle's imaging sonar (512 x 128
rays unless told otherwise) over generated seabeds of several sizes. Per seabed:
the BVH build (compiled beside numpy: :mod:`leviathan._bench_bvh`) and per tracer:

* ``reference``: the numpy reference;
* ``warp:cpu``: the Warp float64 kernels on the CPU, ray batches from a thread
  pool on every core (the ctypes call into a compiled CPU kernel releases the
  GIL), also timed on one thread (scaling, one-thread ratio to Embree);
* ``warp:cuda:N``: the same kernels on each CUDA device present;

the median trace time (rays/s), whether every ping's hits are bit-identical to the
reference's, and the median full ping (trace + host physics + ground truth, pings/s),
its host stage (all but trace and cached preparation) broken down by
:data:`leviathan.sonar.RENDER_STAGES`. The machine is shared and noisy: medians are
quoted, every rate is also a ratio to a peer timed in the same run. The peer, on the
same rays, is Intel Embree through ``embreex`` (float32, one thread, an
``rtcIntersect1`` loop), the tracer a user would otherwise pick: its rays/s, each
tracer's ratio to it, and the share of hit rays where Embree picks the same
(instance, triangle) as the reference (``pip install -e .[bench]``; else left out).
"""

from __future__ import annotations

import platform
import statistics
import time
from typing import Any

import numpy as np

from leviathan._bench_bvh import bvh_build_figures, bvh_build_line

__all__ = ["bench_sonar", "bench_tracers", "format_sonar_bench", "survey_scene"]


def survey_scene(triangle_count: int):
    """The survey scenario's scene at time 0 with a seabed of about ``triangle_count`` triangles."""
    from leviathan.demo import survey_environment

    env = survey_environment(triangle_count)
    return env.scene_at(0)


def bench_tracers(backend: str = "all", device: str | None = None) -> list[tuple[str, str]]:
    """The ``(backend, device)`` pairs a bench run times.

    Args:
        backend: ``"all"`` (the reference, then Warp on every available device),
            ``"reference"``, ``"warp"`` or ``"auto"``.
        device: For ``"warp"``/``"auto"``: one device; ``None`` means every
            available device for ``"warp"`` and the default one for ``"auto"``.
    """
    from leviathan.kernels import available_devices
    from leviathan.raycast import resolve_backend

    if backend == "all":
        if device is not None:
            raise ValueError("device: give --device with --backend warp, not with 'all'")
        return [("reference", "cpu")] + [("warp", d) for d in available_devices()]
    if backend == "warp" and device is None:
        return [("warp", d) for d in available_devices()]
    return [resolve_backend(backend, device)]


def _tracer_name(backend: str, device: str) -> str:
    return "reference" if backend == "reference" else f"{backend}:{device}"


def bench_sonar(
    *,
    triangle_counts: list[int],
    pings: int = 5,
    backend: str = "all",
    device: str | None = None,
    bearings: int = 512,
    elevations: int = 128,
) -> dict[str, Any]:
    """Times the reference survey sonar on each tracer over seabeds of the given sizes.

    Args:
        triangle_counts: Approximate seabed triangle counts, one seabed each.
        pings: Pings per seabed (poses differ); medians are reported.
        backend, device: Which tracers to time (see :func:`bench_tracers`).
        bearings, elevations: Sonar ray grid (the catalogue sonar's fan and range
            window, with this many bearings and elevation samples).

    Returns:
        A JSON-friendly dict: machine info, compile reports of the Warp devices
        and, per seabed, the BVH build and one entry per tracer (rays/s, pings/s,
        bit identity with the reference, ratio to Embree when installed).
    """
    from leviathan.catalogue import get_vehicle
    from leviathan.frames import Transform
    from leviathan.kernels import cpu_trace_threads, load_kernels
    from leviathan.kernels import nearest_hits as warp_nearest_hits
    from leviathan.raycast import clear_prepared_cache, prepare_scene, trace_meshes
    from leviathan.sonar import RENDER_STAGES, beam_grid_for, render

    if pings < 1:
        raise ValueError(f"pings: expected >= 1, got {pings}")
    for name, value in (("bearings", bearings), ("elevations", elevations)):
        if value < 2:
            raise ValueError(f"{name}: expected >= 2, got {value}")
    tracers = bench_tracers(backend, device)
    compile_reports = {dev: load_kernels(dev).seconds for name, dev in tracers if name == "warp"}
    spec = get_vehicle("reference_survey_vehicle").sensor("sonar")
    spec = spec.model_copy(update={"bearing_count": bearings, "elevation_sample_count": elevations})
    _, dirs = beam_grid_for(spec)
    rays = dirs.shape[0]
    t_max = float(spec.range_max_m)
    seabeds = []
    for count in triangle_counts:
        scene = survey_scene(count)
        clear_prepared_cache()
        t0 = time.perf_counter()
        prepared = prepare_scene(scene)
        build_s = time.perf_counter() - t0
        peer = _EmbreePeer.build(scene)
        trace_times: dict[str, list[float]] = {_tracer_name(*t): [] for t in tracers}
        ping_times: dict[str, list[float]] = {_tracer_name(*t): [] for t in tracers}
        identical = dict.fromkeys(trace_times, True)
        stage_times = {key: {stage: [] for stage in RENDER_STAGES} for key in trace_times}
        one_thread_times: list[float] = []
        first_call: dict[str, float] = {}
        peer_times: list[float] = []
        agree = hits = 0
        for k in range(pings):
            body = Transform.from_euler(
                0.0, 0.0, 0.05 * k, translation=(-10.0 + 1.0 * k, 0.0, 20.0)
            )
            pose = body @ spec.mount.transform()
            d = pose.apply_direction(dirs)
            o = np.ascontiguousarray(np.broadcast_to(pose.translation, d.shape))
            t0 = time.perf_counter()
            truth = trace_meshes(prepared, o, d, t_max=t_max, backend="reference")
            reference_s = time.perf_counter() - t0
            for name, dev in tracers:
                key = _tracer_name(name, dev)
                if name == "reference":
                    # The truth trace is the reference's timed trace: no second run.
                    trace_times[key].append(reference_s)
                else:
                    if k == 0:
                        # The first call uploads the seabed to the device: timed apart.
                        t0 = time.perf_counter()
                        trace_meshes(prepared, o, d, t_max=t_max, backend=name, device=dev)
                        first_call[key] = time.perf_counter() - t0
                    t0 = time.perf_counter()
                    ours = trace_meshes(prepared, o, d, t_max=t_max, backend=name, device=dev)
                    trace_times[key].append(time.perf_counter() - t0)
                    identical[key] = identical[key] and _same_hits(ours, truth)
                    if dev == "cpu":
                        t0 = time.perf_counter()
                        single = warp_nearest_hits(prepared, o, d, t_max=t_max, threads=1)
                        one_thread_times.append(time.perf_counter() - t0)
                        identical[key] = identical[key] and _same_hits(single, truth)
                stages: dict[str, float] = {}
                t0 = time.perf_counter()
                render(
                    scene,
                    spec,
                    pose,
                    sensor_id="bench/sonar",
                    sample_index=k,
                    time_ns=k * 200_000_000,
                    backend=name,
                    device=dev,
                    stage_times_s=stages,
                    sampling_warnings=False,  # a timing run: no extra checking traces
                )
                ping_times[key].append(time.perf_counter() - t0)
                for stage, seconds in stages.items():
                    stage_times[key][stage].append(seconds)
            if peer is not None:
                t0 = time.perf_counter()
                inst, tri = peer.trace(o, d, t_max=t_max)
                peer_times.append(time.perf_counter() - t0)
                hit = truth.instance >= 0
                hits += int(np.count_nonzero(hit))
                agree += int(
                    np.count_nonzero(
                        (inst[hit] == truth.instance[hit]) & (tri[hit] == truth.triangle[hit])
                    )
                )
        peer_rate = rays / statistics.median(peer_times) if peer is not None else None
        rows = []
        for name, dev in tracers:
            key = _tracer_name(name, dev)
            trace_s = statistics.median(trace_times[key])
            ping_s = statistics.median(ping_times[key])
            stage_s = {stage: statistics.median(v) for stage, v in stage_times[key].items()}
            host_s = sum(v for k, v in stage_s.items() if k not in ("prepare", "trace"))
            one_thread = {}
            if name == "warp" and dev == "cpu":
                one_s = statistics.median(one_thread_times)
                one_thread = {
                    "threads": cpu_trace_threads(),
                    "one_thread_trace_median_s": one_s,
                    "one_thread_rays_per_s": rays / one_s,
                    "one_thread_ratio_to_embree": (rays / one_s) / peer_rate if peer_rate else None,
                    "thread_scaling": one_s / trace_s,
                }
            rows.append(
                {
                    "tracer": key,
                    "trace_median_s": trace_s,
                    "rays_per_s": rays / trace_s,
                    "ratio_to_embree": (rays / trace_s) / peer_rate if peer_rate else None,
                    "ping_median_s": ping_s,
                    "pings_per_s": 1.0 / ping_s,
                    "bit_identical_to_reference": identical[key],
                    "first_call_s": first_call.get(key),
                    "threads": one_thread.get("threads", 1),
                    "host_median_s": host_s,
                    "stage_median_s": stage_s,
                    **one_thread,
                }
            )
        seabed: dict[str, Any] = {
            "triangles": scene.triangle_count,
            "bvh_nodes": sum(p.bvh.node_count for p in prepared.instances),
            "bvh_depth": max(p.bvh.depth for p in prepared.instances),
            "bvh_build_s": build_s,
            "bvh_build": bvh_build_figures(scene),
            "tracers": rows,
        }
        if peer is not None:
            seabed["embree"] = {
                "build_s": peer.build_s,
                "trace_median_s": rays / peer_rate,
                "rays_per_s": peer_rate,
                "same_triangle_share": agree / hits if hits else float("nan"),
            }
        seabeds.append(seabed)
    return {
        "sonar": f"reference survey sonar, {bearings} bearings x {elevations} elevations",
        "rays_per_ping": rays,
        "pings_per_seabed": pings,
        "warp_compile_or_load_s": compile_reports,
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "numpy": np.__version__,
        },
        "seabeds": seabeds,
    }


def _same_hits(a: Any, b: Any) -> bool:
    return bool(
        np.array_equal(a.t, b.t)
        and np.array_equal(a.instance, b.instance)
        and np.array_equal(a.triangle, b.triangle)
    )


class _EmbreePeer:
    """Embree (float32) over the same world-space triangles, one geometry per instance."""

    def __init__(self, scene: Any, embree: Any, build_s: float) -> None:
        self.scene = scene
        self.embree = embree
        self.build_s = build_s

    @classmethod
    def build(cls, scene: Any) -> _EmbreePeer | None:
        try:
            from embreex import rtcore_scene
            from embreex.mesh_construction import TriangleMesh
        except ImportError:
            return None
        t0 = time.perf_counter()
        embree = rtcore_scene.EmbreeScene()
        for inst in scene.instances:
            world = inst.T_world_object.apply_point(inst.mesh.vertices)
            TriangleMesh(embree, world[inst.mesh.faces].astype(np.float32))
        # Embree commits (builds its BVH) on the first query: trigger it here.
        embree.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32), query="INTERSECT")
        return cls(scene, embree, time.perf_counter() - t0)

    def trace(self, o: np.ndarray, d: np.ndarray, *, t_max: float) -> tuple[np.ndarray, np.ndarray]:
        out = self.embree.run(
            o.astype(np.float32), d.astype(np.float32), query="INTERSECT", output=1
        )
        inst = np.asarray(out["geomID"], dtype=np.int64)
        tri = np.asarray(out["primID"], dtype=np.int64)
        miss = (inst < 0) | (np.asarray(out["tfar"]) > t_max)
        return np.where(miss, -1, inst), np.where(miss, -1, tri)


def format_sonar_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_sonar`'s result."""
    lines = [
        f"sonar bench: {result['sonar']} ({result['rays_per_ping']} rays/ping), "
        f"median of {result['pings_per_seabed']} pings",
    ]
    for dev, seconds in result["warp_compile_or_load_s"].items():
        lines.append(f"warp kernels on {dev}: ready in {seconds:.3f} s (compile or cache load)")
    lines.append(
        "first call s: our first trace on a device, seabed upload included; "
        "for Embree, its BVH build"
    )
    have_peer = any("embree" in s for s in result["seabeds"])
    if not have_peer:
        lines.append("peer: Embree not installed (pip install -e .[bench]); no ratio measured")
    for s in result["seabeds"]:
        lines.append("")
        lines.append(
            f"seabed {s['triangles']} triangles: BVH build {s['bvh_build_s']:.3f} s "
            f"({s['bvh_nodes']} nodes, depth {s['bvh_depth']})"
        )
        lines.append(bvh_build_line(s["bvh_build"]))
        lines.append(
            f"  {'tracer':<14} {'rays/s':>11} {'x Embree':>9} {'ping s':>8} {'pings/s':>8} "
            f"{'first call s':>12}  bit-identical"
        )
        for r in s["tracers"]:
            ratio = "-" if r["ratio_to_embree"] is None else f"{r['ratio_to_embree']:.3f}"
            first = "-" if r["first_call_s"] is None else f"{r['first_call_s']:.3f}"
            lines.append(
                f"  {r['tracer']:<14} {r['rays_per_s']:>11.0f} {ratio:>9} "
                f"{r['ping_median_s']:>8.3f} {r['pings_per_s']:>8.2f} {first:>12}  "
                f"{'yes' if r['bit_identical_to_reference'] else 'NO'}"
            )
            if "one_thread_rays_per_s" in r:
                one = r["one_thread_ratio_to_embree"]
                lines.append(
                    f"    trace on {r['threads']} threads; on 1 thread "
                    f"{r['one_thread_rays_per_s']:.0f} rays/s"
                    + ("" if one is None else f" ({one:.3f} x Embree)")
                    + f"; scaling {r['thread_scaling']:.2f}x"
                )
        for r in s["tracers"]:
            stages = r["stage_median_s"].items()
            parts = ", ".join(
                f"{k} {1e3 * v:.1f}" for k, v in stages if k not in ("prepare", "trace")
            )
            lines.append(
                f"  host stage {r['tracer']}: {1e3 * r['host_median_s']:.1f} ms/ping ({parts} ms)"
            )
        if "embree" in s:
            e = s["embree"]
            lines.append(
                f"  {'embree (f32)':<14} {e['rays_per_s']:>11.0f} {1.0:>9.3f} {'-':>8} {'-':>8} "
                f"{e['build_s']:>12.3f}  same triangle on {e['same_triangle_share']:.4f} of hits"
            )
    return "\n".join(lines)


# --------------------------------------------------------------------------- learning tier


def bench_learning(
    *,
    env_counts: list[int],
    steps: int = 50,
    devices: list[str] | None = None,
    sonar: tuple[int, int] = (64, 8),
    canonical: bool = True,
    repeats: int = 3,
) -> dict[str, Any]:
    """Times the learning tier's vector env beside the canonical World on the same vehicles.

    For each env count and device, ``UnderwaterVectorEnv("altitude_survey")`` (the
    task with the seabed in the loop) is stepped with constant actions, without and
    with a sonar observation; env-steps/s is the median over ``repeats`` runs of
    ``steps`` steps. The peer is a canonical World holding the same number of survey
    vehicles under constant thrust, advancing the same simulated time per step (the
    env's ``dt_s`` as its ``substeps`` ticks) on the CPU in the same run, so the
    ratio compares like with like: float32 batched kernels against the float64
    reference dynamics, vehicle by vehicle.

    Args:
        env_counts: Numbers of envs (and of canonical vehicles).
        steps: Control steps per timed run (the canonical peer takes fewer for large
            counts, at least 2, and is reported per step all the same).
        devices: Warp devices (default: every available device).
        sonar: (bearings, elevations) of the sonar observation variant.
        canonical: Also time the canonical peer.
        repeats: Timed runs per figure; the median is reported.

    Returns:
        A JSON-friendly dict: machine info and one row per (env count, device).
    """
    import numpy as np

    from leviathan.kernels import available_devices
    from leviathan.learning import UnderwaterVectorEnv

    for name, value in (("steps", steps), ("repeats", repeats)):
        if value < 1:
            raise ValueError(f"{name}: expected >= 1, got {value}")
    for count in env_counts:
        if count < 1:
            raise ValueError(f"envs: expected counts >= 1, got {count}")
    devices = list(available_devices()) if devices is None else list(devices)

    def time_env(count: int, device: str, with_sonar: bool) -> float:
        env = UnderwaterVectorEnv(
            "altitude_survey", num_envs=count, device=device, sonar=sonar if with_sonar else None
        )
        actions = np.full((count, env.vehicles.thruster_count), 0.2, dtype=np.float32)
        env.reset(seed=0)
        env.step(actions)  # warm-up: kernel load, graph of launches
        rates = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(steps):
                env.step(actions)
            _synchronize(device)
            rates.append(count * steps / (time.perf_counter() - t0))
        return statistics.median(rates)

    rows = []
    for count in env_counts:
        peer = _canonical_peer(count, steps=steps, repeats=repeats) if canonical else None
        for device in devices:
            row: dict[str, Any] = {"envs": count, "device": device}
            row["env_steps_per_s"] = time_env(count, device, False)
            row["env_steps_per_s_sonar"] = time_env(count, device, True)
            if peer is not None:
                row["canonical_env_steps_per_s"] = peer
                row["ratio"] = row["env_steps_per_s"] / peer
                row["ratio_sonar"] = row["env_steps_per_s_sonar"] / peer
            rows.append(row)
    return {
        "machine": {"platform": platform.platform(), "processor": platform.processor()},
        "task": "altitude_survey",
        "sonar": list(sonar),
        "steps": steps,
        "rows": rows,
    }


def _synchronize(device: str) -> None:
    if device.startswith("cuda"):
        import warp as wp

        wp.synchronize_device(device)


def _canonical_peer(count: int, *, steps: int, repeats: int) -> float:
    """Env-steps/s of a canonical World of ``count`` survey vehicles under constant thrust."""
    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import DirectThrust
    from leviathan.learning.env import UnderwaterVectorEnv
    from leviathan.specs import VehicleSpec
    from leviathan.world import VehicleSetup, World

    probe = UnderwaterVectorEnv("altitude_survey", num_envs=1, device="cpu")
    dt_s, substeps = probe.dt_s, probe.substeps
    spec = get_vehicle("reference_survey_vehicle")
    spec = VehicleSpec.model_validate({**spec.model_dump(), "sensors": []})
    lo = [t.min_thrust_n for t in spec.thrusters]
    hi = [t.max_thrust_n for t in spec.thrusters]
    command = DirectThrust([a + 0.6 * (b - a) for a, b in zip(lo, hi, strict=True)])
    tick_ns = round(dt_s * 1e9) // substeps
    world = World.create(
        vehicles=[
            VehicleSetup(f"v{i:05d}", spec, command, position_ned_m=(2.0 * i, 0.0, 20.0))
            for i in range(count)
        ],
        step_ns=tick_ns,
    )
    world.step(substeps)
    n = max(2, min(steps, 4000 // count))
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        world.step(n * substeps)
        rates.append(count * n / (time.perf_counter() - t0))
    return statistics.median(rates)


def format_learning_bench(result: dict[str, Any]) -> str:
    """A table of :func:`bench_learning`'s result."""
    bearings, elevations = result["sonar"]
    lines = [
        f"learning bench: {result['task']}, {result['steps']} control steps per run, median; "
        f"sonar {bearings}x{elevations}",
        "canonical: a World of as many survey vehicles, float64, on the CPU (same simulated "
        "time per step)",
        "",
        f"  {'envs':>6}  {'device':8} {'env-steps/s':>12} {'+sonar':>10} {'canonical':>10} "
        f"{'ratio':>8} {'ratio+sonar':>11}",
    ]
    for row in result["rows"]:
        peer = row.get("canonical_env_steps_per_s")
        lines.append(
            f"  {row['envs']:>6}  {row['device']:8} {row['env_steps_per_s']:>12.0f} "
            f"{row['env_steps_per_s_sonar']:>10.0f} "
            + (
                f"{peer:>10.0f} {row['ratio']:>7.1f}x {row['ratio_sonar']:>10.1f}x"
                if peer is not None
                else f"{'-':>10} {'-':>8} {'-':>11}"
            )
        )
    return "\n".join(lines)
