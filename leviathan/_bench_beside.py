"""The timing loop of ``leviathan bench sonar --sensor KIND``: a sensor beside the imaging sonar.

Both are timed in the same run, on the same seabeds and poses, per tracer: the
sensor's ``sample(scene, T_world_body, k, backend, device)`` (which returns the
sample's content hash), then the reference survey sonar's ping at the same pose.
The first pose of each tracer warms the caches and is not timed; medians of the
others are reported, with whether every tracer's samples are bit-identical to the
reference tracer's. The side-scan and multibeam benches name the figures.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["machine", "time_beside_sonar"]

Sample = Callable[[Any, Any, int, str, str], str]


def machine() -> dict[str, str]:
    """The processor, Python and numpy that ran the bench."""
    return {
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }


def time_beside_sonar(
    sample: Sample,
    *,
    triangle_counts: list[int],
    pings: int,
    backend: str,
    device: str | None,
    bearings: int,
    elevations: int,
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Times ``sample`` and the imaging sonar per seabed and tracer.

    Returns:
        The seabeds (``triangles`` and per tracer ``tracer``, ``sensor_median_s``,
        ``sonar_median_s``, ``bit_identical``: ``None`` without a reference tracer)
        and the Warp kernels' compile-or-load seconds per device.
    """
    from leviathan.bench import bench_tracers, survey_scene
    from leviathan.catalogue import get_vehicle
    from leviathan.frames import Transform
    from leviathan.kernels import load_kernels
    from leviathan.raycast import clear_prepared_cache, prepare_scene
    from leviathan.sonar import render as render_ping

    if pings < 1:
        raise ValueError(f"pings: expected >= 1, got {pings}")
    tracers = bench_tracers(backend, device)
    compile_reports = {dev: load_kernels(dev).seconds for name, dev in tracers if name == "warp"}
    sonar = get_vehicle("reference_survey_vehicle").sensor("sonar")
    sonar = sonar.model_copy(
        update={"bearing_count": bearings, "elevation_sample_count": elevations}
    )
    seabeds = []
    for count in triangle_counts:
        scene = survey_scene(count)
        clear_prepared_cache()
        prepare_scene(scene)
        rows = []
        reference_hashes: list[str] = []
        for name, dev in tracers:
            sensor_s: list[float] = []
            sonar_s: list[float] = []
            hashes = []
            for k in range(pings + 1):  # the first round warms the caches, untimed
                body = Transform.from_euler(
                    0.0, 0.0, 0.05 * k, translation=(-10.0 + 1.0 * k, 0.0, 20.0)
                )
                t0 = time.perf_counter()
                digest = sample(scene, body, k, name, dev)
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
                    sensor_s.append(t1 - t0)
                    sonar_s.append(t2 - t1)
                hashes.append(digest)
            if not reference_hashes:
                reference_hashes = hashes if name == "reference" else []
            rows.append(
                {
                    "tracer": "reference" if name == "reference" else f"{name}:{dev}",
                    "sensor_median_s": statistics.median(sensor_s),
                    "sonar_median_s": statistics.median(sonar_s),
                    "bit_identical": None if not reference_hashes else hashes == reference_hashes,
                }
            )
        seabeds.append({"triangles": scene.triangle_count, "tracers": rows})
    return seabeds, compile_reports
