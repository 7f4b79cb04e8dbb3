"""Benchmarks behind ``leviathan bench``: figures to print, never assertions.

``bench_sonar`` renders the reference survey vehicle's imaging sonar (from the
catalogue: 256 bearings x 64 elevations) over generated seabeds of several
triangle counts with a few targets, and reports the BVH build time, the
median trace time (rays/s) and the median full ping (trace + host physics +
ground truth, pings/s). The machine is shared and noisy: medians are quoted.
"""

from __future__ import annotations

import platform
import statistics
import time
from typing import Any

import numpy as np

__all__ = ["bench_sonar", "format_sonar_bench", "survey_scene"]


def survey_scene(triangle_count: int):
    """The survey scenario's scene at time 0 with a seabed of about ``triangle_count`` triangles."""
    from leviathan.demo import survey_environment

    env = survey_environment(triangle_count)
    return env.scene_at(0)


def bench_sonar(
    *, triangle_counts: list[int], pings: int = 5, backend: str = "reference"
) -> dict[str, Any]:
    """Measures the reference survey sonar over seabeds of the given sizes.

    Returns:
        A JSON-friendly dict: machine info and, per triangle count, the BVH
        build time [s], median trace time [s], rays/s, median ping time [s]
        and pings/s.
    """
    from leviathan.catalogue import get_vehicle
    from leviathan.frames import Transform
    from leviathan.reference_cpu.prepare import _CACHE, prepare_scene
    from leviathan.reference_cpu.trace import trace_scene_meshes
    from leviathan.sonar import render
    from leviathan.sonar.render import beam_grid_for

    if pings < 1:
        raise ValueError(f"pings: expected >= 1, got {pings}")
    vehicle = get_vehicle("reference_survey_vehicle")
    spec = vehicle.sensor("sonar")
    _, dirs = beam_grid_for(spec)
    rays = dirs.shape[0]
    rows = []
    for count in triangle_counts:
        scene = survey_scene(count)
        _CACHE.clear()
        t0 = time.perf_counter()
        prepared = prepare_scene(scene)
        build_s = time.perf_counter() - t0
        trace_times, ping_times = [], []
        for k in range(pings):
            body = Transform.from_euler(
                0.0, 0.0, 0.05 * k, translation=(-10.0 + 1.0 * k, 0.0, 20.0)
            )
            pose = body @ spec.mount.transform()
            d = pose.apply_direction(dirs)
            o = np.ascontiguousarray(np.broadcast_to(pose.translation, d.shape))
            t0 = time.perf_counter()
            trace_scene_meshes(prepared, o, d, t_max=spec.range_max_m)
            trace_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            render(
                scene,
                spec,
                pose,
                sensor_id="bench/sonar",
                sample_index=k,
                time_ns=k * 200_000_000,
                backend=backend,
            )
            ping_times.append(time.perf_counter() - t0)
        trace_s = statistics.median(trace_times)
        ping_s = statistics.median(ping_times)
        rows.append(
            {
                "triangles": scene.triangle_count,
                "bvh_nodes": sum(p.bvh.node_count for p in prepared.instances),
                "bvh_build_s": build_s,
                "trace_median_s": trace_s,
                "rays_per_s": rays / trace_s,
                "ping_median_s": ping_s,
                "pings_per_s": 1.0 / ping_s,
            }
        )
    return {
        "backend": backend,
        "sonar": f"{spec.bearing_count} bearings x {spec.elevation_sample_count} elevations",
        "rays_per_ping": rays,
        "pings_per_seabed": pings,
        "machine": {
            "processor": platform.machine(),
            "python": platform.python_version(),
            "numpy": np.__version__,
        },
        "results": rows,
    }


def format_sonar_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_sonar`'s result."""
    lines = [
        f"sonar bench: backend={result['backend']}, {result['sonar']} "
        f"({result['rays_per_ping']} rays/ping), median of {result['pings_per_seabed']} pings",
        f"{'triangles':>10} {'BVH build s':>12} {'trace s':>9} {'rays/s':>12} "
        f"{'ping s':>8} {'pings/s':>8}",
    ]
    for r in result["results"]:
        lines.append(
            f"{r['triangles']:>10d} {r['bvh_build_s']:>12.3f} {r['trace_median_s']:>9.3f} "
            f"{r['rays_per_s']:>12.0f} {r['ping_median_s']:>8.3f} {r['pings_per_s']:>8.2f}"
        )
    return "\n".join(lines)
