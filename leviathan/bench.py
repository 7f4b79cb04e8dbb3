"""Benchmarks behind ``leviathan bench``: figures to print, never assertions.

``bench_sonar`` renders the reference survey vehicle's imaging sonar (from the
catalogue: 256 bearings x 64 elevations) over generated seabeds of several
triangle counts with a few targets, and reports the BVH build time, the
median trace time (rays/s) and the median full ping (trace + host physics +
ground truth, pings/s). The machine is shared and noisy: medians are quoted.

The peer, measured in the same run on the same rays, is Intel Embree through
``embreex`` (float32, single-threaded ``rtcIntersect1`` loop), the tracer a user
would otherwise pick: its rays/s, our ratio to it, and the share of hit rays
where both pick the same (instance, triangle). Install it with
``pip install -e .[bench]``; without it the peer columns are left out.
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
        peer = _EmbreePeer.build(scene)
        trace_times, ping_times, peer_times, agree, hits = [], [], [], 0, 0
        for k in range(pings):
            body = Transform.from_euler(
                0.0, 0.0, 0.05 * k, translation=(-10.0 + 1.0 * k, 0.0, 20.0)
            )
            pose = body @ spec.mount.transform()
            d = pose.apply_direction(dirs)
            o = np.ascontiguousarray(np.broadcast_to(pose.translation, d.shape))
            t0 = time.perf_counter()
            ours = trace_scene_meshes(prepared, o, d, t_max=spec.range_max_m)
            trace_times.append(time.perf_counter() - t0)
            if peer is not None:
                t0 = time.perf_counter()
                inst, tri = peer.trace(o, d, t_max=spec.range_max_m)
                peer_times.append(time.perf_counter() - t0)
                hit = ours.instance >= 0
                hits += int(np.count_nonzero(hit))
                agree += int(
                    np.count_nonzero(
                        (inst[hit] == ours.instance[hit]) & (tri[hit] == ours.triangle[hit])
                    )
                )
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
        row_peer = {}
        if peer is not None:
            peer_s = statistics.median(peer_times)
            row_peer = {
                "embree_build_s": peer.build_s,
                "embree_trace_median_s": peer_s,
                "embree_rays_per_s": rays / peer_s,
                "ratio_to_embree": (rays / trace_s) / (rays / peer_s),
                "same_triangle_share": agree / hits if hits else float("nan"),
            }
        rows.append(
            {
                **row_peer,
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
    if result["results"] and "embree_rays_per_s" in result["results"][0]:
        lines.append("peer: Embree via embreex (float32, single thread), same rays")
        lines.append(
            f"{'triangles':>10} {'build s':>9} {'rays/s':>12} {'ours/Embree':>12} {'same tri':>9}"
        )
        for r in result["results"]:
            lines.append(
                f"{r['triangles']:>10d} {r['embree_build_s']:>9.3f} "
                f"{r['embree_rays_per_s']:>12.0f} {r['ratio_to_embree']:>12.3f} "
                f"{r['same_triangle_share']:>9.4f}"
            )
    else:
        lines.append("peer: Embree not installed (pip install -e .[bench]); no ratio measured")
    return "\n".join(lines)
