"""``leviathan bench sonar --sensor side_scan``: side-scan lines/s beside imaging pings/s.

Both are timed in the same run, on the same seabeds and poses, per tracer: the
catalogue side-scan (``reference_mapping_auv``'s, rays as declared) one line per
pose, then the reference survey sonar one ping per pose. Medians are reported,
with the side-scan's real-time factor (its ping period over the median line time:
at least 1 keeps up with its own ping rate) and whether every tracer's lines are
bit-identical to the reference's (content hashes).
"""

from __future__ import annotations

import platform
import statistics
import time
from typing import Any

import numpy as np

__all__ = ["bench_side_scan", "format_side_scan_bench"]


def bench_side_scan(
    *,
    triangle_counts: list[int],
    pings: int = 5,
    backend: str = "all",
    device: str | None = None,
    bearings: int = 512,
    elevations: int = 128,
) -> dict[str, Any]:
    """Times side-scan lines and imaging pings on each tracer over the survey seabeds.

    Args:
        triangle_counts: Approximate seabed triangle counts, one seabed each.
        pings: Lines (and pings) per seabed; medians are reported.
        backend, device: The tracers (:func:`leviathan.bench.bench_tracers`).
        bearings, elevations: The imaging sonar's ray grid (as ``bench sonar``).

    Returns:
        A JSON-friendly dict: the two sensors, machine, per seabed per tracer the
        median line and ping times, lines/s, pings/s, real-time factor, bit identity.
    """
    from leviathan.bench import bench_tracers, survey_scene
    from leviathan.catalogue import get_vehicle
    from leviathan.frames import Transform
    from leviathan.kernels import load_kernels
    from leviathan.raycast import clear_prepared_cache, prepare_scene
    from leviathan.side_scan import render as render_line
    from leviathan.side_scan import side_scan_fan
    from leviathan.sonar import render as render_ping

    if pings < 1:
        raise ValueError(f"pings: expected >= 1, got {pings}")
    tracers = bench_tracers(backend, device)
    compile_reports = {dev: load_kernels(dev).seconds for name, dev in tracers if name == "warp"}
    mapper = get_vehicle("reference_mapping_auv")
    side_scan = mapper.sensor("side_scan")
    sonar = get_vehicle("reference_survey_vehicle").sensor("sonar")
    sonar = sonar.model_copy(
        update={"bearing_count": bearings, "elevation_sample_count": elevations}
    )
    line_rays = side_scan_fan(side_scan)[1].ray_count
    period_s = side_scan.schedule.period_ns / 1e9
    seabeds = []
    for count in triangle_counts:
        scene = survey_scene(count)
        clear_prepared_cache()
        prepare_scene(scene)
        rows = []
        reference_hashes: list[str] = []
        for name, dev in tracers:
            key = "reference" if name == "reference" else f"{name}:{dev}"
            line_s: list[float] = []
            ping_s: list[float] = []
            hashes = []
            for k in range(pings + 1):  # the first round warms the caches, untimed
                body = Transform.from_euler(
                    0.0, 0.0, 0.05 * k, translation=(-10.0 + 1.0 * k, 0.0, 20.0)
                )
                t0 = time.perf_counter()
                line = render_line(
                    scene,
                    side_scan,
                    body @ side_scan.mount.transform(),
                    sensor_id="bench/side_scan",
                    sample_index=k,
                    time_ns=k * side_scan.schedule.period_ns,
                    backend=name,
                    device=dev,
                    sampling_warnings=False,
                )
                t1 = time.perf_counter()
                render_ping(
                    scene,
                    sonar,
                    body @ sonar.mount.transform(),
                    sensor_id="bench/sonar",
                    sample_index=k,
                    time_ns=k * sonar.schedule.period_ns,
                    backend=name,
                    device=dev,
                    sampling_warnings=False,
                )
                t2 = time.perf_counter()
                if k:
                    line_s.append(t1 - t0)
                    ping_s.append(t2 - t1)
                hashes.append(line.content_hash)
            if not reference_hashes:
                reference_hashes = hashes if name == "reference" else []
            line_median = statistics.median(line_s)
            ping_median = statistics.median(ping_s)
            rows.append(
                {
                    "tracer": key,
                    "line_median_s": line_median,
                    "lines_per_s": 1.0 / line_median,
                    "side_scan_rays_per_s": line_rays / line_median,
                    "real_time_factor": period_s / line_median,
                    "ping_median_s": ping_median,
                    "pings_per_s": 1.0 / ping_median,
                    "lines_bit_identical_to_reference": (
                        None if not reference_hashes else hashes == reference_hashes
                    ),
                }
            )
        seabeds.append({"triangles": scene.triangle_count, "tracers": rows})
    return {
        "side_scan": (
            f"reference_mapping_auv side-scan, {line_rays} rays/line, 2 x "
            f"{side_scan.range_bin_count} cells, ping period {period_s:g} s"
        ),
        "sonar": f"reference survey sonar, {bearings} bearings x {elevations} elevations",
        "pings_per_seabed": pings,
        "warp_compile_or_load_s": compile_reports,
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "numpy": np.__version__,
        },
        "seabeds": seabeds,
    }


def format_side_scan_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_side_scan`'s result."""
    lines = [
        f"side-scan bench: {result['side_scan']}",
        f"beside: {result['sonar']}; median of {result['pings_per_seabed']} lines/pings",
    ]
    for s in result["seabeds"]:
        lines.append("")
        lines.append(f"seabed {s['triangles']} triangles")
        lines.append(
            f"  {'tracer':<14} {'line s':>8} {'lines/s':>8} {'x real time':>11} "
            f"{'ping s':>8} {'pings/s':>8}  lines bit-identical"
        )
        for r in s["tracers"]:
            same = r["lines_bit_identical_to_reference"]
            lines.append(
                f"  {r['tracer']:<14} {r['line_median_s']:>8.3f} {r['lines_per_s']:>8.2f} "
                f"{r['real_time_factor']:>11.2f} {r['ping_median_s']:>8.3f} "
                f"{r['pings_per_s']:>8.2f}  " + ("-" if same is None else ("yes" if same else "NO"))
            )
    return "\n".join(lines)
