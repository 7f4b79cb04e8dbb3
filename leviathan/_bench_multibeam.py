"""``leviathan bench sonar --sensor multibeam``: multibeam pings/s beside imaging pings/s.

Both are timed in the same run, on the same seabeds and poses, per tracer: the
catalogue multibeam (``reference_mapping_auv``'s) one ping per pose, then the
reference survey sonar one ping per pose. Medians are reported, with the multibeam's
real-time factor (its ping period over the median ping time: at least 1 keeps up
with its own ping rate) and whether every tracer's pings are bit-identical to the
reference's (content hashes of the whole sample: water column, detections,
soundings, truth).
"""

from __future__ import annotations

import platform
import statistics
import time
from typing import Any

import numpy as np

__all__ = ["bench_multibeam", "format_multibeam_bench"]


def bench_multibeam(
    *,
    triangle_counts: list[int],
    pings: int = 5,
    backend: str = "all",
    device: str | None = None,
    bearings: int = 512,
    elevations: int = 128,
) -> dict[str, Any]:
    """Times multibeam pings and imaging pings on each tracer over the survey seabeds.

    Args:
        triangle_counts: Approximate seabed triangle counts, one seabed each.
        pings: Pings of each sensor per seabed; medians are reported.
        backend, device: The tracers (:func:`leviathan.bench.bench_tracers`).
        bearings, elevations: The imaging sonar's ray grid (as ``bench sonar``).

    Returns:
        A JSON-friendly dict: the two sensors, machine, per seabed per tracer the
        median ping times of both, pings/s, the multibeam's real-time factor, bit identity.
    """
    from leviathan.bench import bench_tracers, survey_scene
    from leviathan.catalogue import get_vehicle
    from leviathan.frames import Transform
    from leviathan.identity import content_hash
    from leviathan.kernels import load_kernels
    from leviathan.multibeam import multibeam_ping, multibeam_rays
    from leviathan.raycast import clear_prepared_cache, prepare_scene
    from leviathan.sonar import render as render_ping

    if pings < 1:
        raise ValueError(f"pings: expected >= 1, got {pings}")
    tracers = bench_tracers(backend, device)
    compile_reports = {dev: load_kernels(dev).seconds for name, dev in tracers if name == "warp"}
    multibeam = get_vehicle("reference_mapping_auv").sensor("multibeam")
    sonar = get_vehicle("reference_survey_vehicle").sensor("sonar")
    sonar = sonar.model_copy(
        update={"bearing_count": bearings, "elevation_sample_count": elevations}
    )
    ping_rays = multibeam_rays(multibeam)[1].directions.shape[0]
    period_s = multibeam.schedule.period_ns / 1e9
    seabeds = []
    for count in triangle_counts:
        scene = survey_scene(count)
        clear_prepared_cache()
        prepare_scene(scene)
        rows = []
        reference_hashes: list[str] = []
        for name, dev in tracers:
            key = "reference" if name == "reference" else f"{name}:{dev}"
            multibeam_s: list[float] = []
            sonar_s: list[float] = []
            hashes = []
            for k in range(pings + 1):  # the first round warms the caches, untimed
                body = Transform.from_euler(
                    0.0, 0.0, 0.05 * k, translation=(-10.0 + 1.0 * k, 0.0, 20.0)
                )
                t0 = time.perf_counter()
                ping = multibeam_ping(
                    scene,
                    multibeam,
                    body @ multibeam.mount.transform(),
                    sensor_id="bench/multibeam",
                    sample_index=k,
                    time_ns=k * multibeam.schedule.period_ns,
                    backend=name,
                    device=dev,
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
                    multibeam_s.append(t1 - t0)
                    sonar_s.append(t2 - t1)
                hashes.append(content_hash({"channels": ping.channels, "meta": ping.metadata}))
            if not reference_hashes:
                reference_hashes = hashes if name == "reference" else []
            mb_median = statistics.median(multibeam_s)
            sonar_median = statistics.median(sonar_s)
            rows.append(
                {
                    "tracer": key,
                    "multibeam_median_s": mb_median,
                    "multibeam_pings_per_s": 1.0 / mb_median,
                    "multibeam_rays_per_s": ping_rays / mb_median,
                    "real_time_factor": period_s / mb_median,
                    "sonar_median_s": sonar_median,
                    "sonar_pings_per_s": 1.0 / sonar_median,
                    "multibeam_bit_identical_to_reference": (
                        None if not reference_hashes else hashes == reference_hashes
                    ),
                }
            )
        seabeds.append({"triangles": scene.triangle_count, "tracers": rows})
    return {
        "multibeam": (
            f"reference_mapping_auv multibeam, {multibeam.beam_count} beams, {ping_rays} "
            f"rays/ping, {multibeam.range_bin_count} bins, ping period {period_s:g} s"
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


def format_multibeam_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_multibeam`'s result."""
    lines = [
        f"multibeam bench: {result['multibeam']}",
        f"beside: {result['sonar']}; median of {result['pings_per_seabed']} pings each",
    ]
    for s in result["seabeds"]:
        lines.append("")
        lines.append(f"seabed {s['triangles']} triangles")
        lines.append(
            f"  {'tracer':<14} {'mb ping s':>9} {'mb pings/s':>10} {'x real time':>11} "
            f"{'sonar s':>8} {'sonar pings/s':>13}  multibeam bit-identical"
        )
        for r in s["tracers"]:
            same = r["multibeam_bit_identical_to_reference"]
            lines.append(
                f"  {r['tracer']:<14} {r['multibeam_median_s']:>9.3f} "
                f"{r['multibeam_pings_per_s']:>10.2f} {r['real_time_factor']:>11.2f} "
                f"{r['sonar_median_s']:>8.3f} {r['sonar_pings_per_s']:>13.2f}  "
                + ("-" if same is None else ("yes" if same else "NO"))
            )
    return "\n".join(lines)
