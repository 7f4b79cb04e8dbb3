"""``leviathan bench sonar --sensor KIND``: a sensor beside the imaging sonar, in one run.

Both are timed in the same run, on the same seabeds and poses, per tracer: the
sensor's ``sample(scene, T_world_body, k, backend, device)`` (which returns the
sample's content hash), then the reference survey sonar's ping at the same pose.
The first pose of each tracer warms the caches and is not timed; medians of the
others are reported, with the sensor's real-time factor (its ping period over its
median sample time: at least 1 keeps up with its own ping rate) and whether every
tracer's samples are bit-identical to the reference tracer's.

The sensors (:data:`BESIDE_SENSORS`), all ``reference_mapping_auv``'s from the
catalogue, rays as declared:

* ``side_scan``: one line per pose (its ``content_hash``);
* ``multibeam``: one ping per pose (the content hash of the whole sample: water
  column, detections, soundings, truth).

Each names its figures and the table's columns (:class:`BesideFigures`).
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "BESIDE_SENSORS",
    "BesideFigures",
    "BesideSensor",
    "Column",
    "bench_beside",
    "format_beside_bench",
    "machine",
    "time_beside_sonar",
]

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
    ping_sonar = _sampler(render_ping, sonar, "bench/sonar", sampling_warnings=False)
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
                ping_sonar(scene, body, k, name, dev)
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


def _sampler(
    render: Callable[..., Any],
    spec: Any,
    sensor_id: str,
    digest: Callable[[Any], str] | None = None,
    **options: Any,
) -> Sample:
    """The :data:`Sample` of the sensor ``spec``: ``render`` at its mount on the body.

    The ``k``-th sample is at time ``k`` ping periods, on the tracer given, and returns
    ``digest`` of what ``render`` returns (``None``: ``""``, for a sensor timed only);
    ``options`` go to ``render`` as they are. Every sensor the bench times renders so.
    """

    def sample(scene: Any, body: Any, k: int, backend_name: str, dev: str) -> str:
        out = render(
            scene,
            spec,
            body @ spec.mount.transform(),
            sensor_id=sensor_id,
            sample_index=k,
            time_ns=k * spec.schedule.period_ns,
            backend=backend_name,
            device=dev,
            **options,
        )
        return "" if digest is None else digest(out)

    return sample


class Column(NamedTuple):
    """One figure of a tracer's row: its JSON key, its table header and column width."""

    key: str
    header: str
    width: int


class BesideFigures(NamedTuple):
    """What one sensor's bench calls its figures, in the JSON result and in the table.

    Attributes:
        sensor: Result key of the sensor's description (``"multibeam"``).
        title: Start of the table's first line (``"multibeam bench"``).
        counted: What the second line says the medians are of (``"pings each"``).
        sensor_median_s, sensor_per_s: The sensor's median sample time [s] and samples/s.
        sensor_rays_per_s: JSON key of the sensor's rays/s (not in the table).
        sonar_median_s, sonar_per_s: The imaging sonar's median ping time [s] and pings/s.
        bit_identical: JSON key and table header of the sensor's bit identity.
    """

    sensor: str
    title: str
    counted: str
    sensor_median_s: Column
    sensor_per_s: Column
    sensor_rays_per_s: str
    sonar_median_s: Column
    sonar_per_s: Column
    bit_identical: tuple[str, str]


_REAL_TIME = Column("real_time_factor", "x real time", 11)


class BesideSensor(NamedTuple):
    """One sensor to time beside the imaging sonar: its sample function and what it is."""

    sample: Sample
    description: str
    rays: int
    period_s: float


def _side_scan() -> BesideSensor:
    from leviathan.catalogue import get_vehicle
    from leviathan.side_scan import render as render_line
    from leviathan.side_scan import side_scan_fan

    side_scan = get_vehicle("reference_mapping_auv").sensor("side_scan")
    line_rays = side_scan_fan(side_scan)[1].ray_count
    period_s = side_scan.schedule.period_ns / 1e9

    sample = _sampler(
        render_line,
        side_scan,
        "bench/side_scan",
        lambda line: line.content_hash,
        sampling_warnings=False,
    )
    description = (
        f"reference_mapping_auv side-scan, {line_rays} rays/line, 2 x "
        f"{side_scan.range_bin_count} cells, ping period {period_s:g} s"
    )
    return BesideSensor(sample, description, line_rays, period_s)


def _multibeam() -> BesideSensor:
    from leviathan.catalogue import get_vehicle
    from leviathan.identity import content_hash
    from leviathan.multibeam import multibeam_ping, multibeam_rays

    multibeam = get_vehicle("reference_mapping_auv").sensor("multibeam")
    ping_rays = multibeam_rays(multibeam)[1].directions.shape[0]
    period_s = multibeam.schedule.period_ns / 1e9

    sample = _sampler(
        multibeam_ping,
        multibeam,
        "bench/multibeam",
        lambda ping: content_hash({"channels": ping.channels, "meta": ping.metadata}),
    )
    description = (
        f"reference_mapping_auv multibeam, {multibeam.beam_count} beams, {ping_rays} "
        f"rays/ping, {multibeam.range_bin_count} bins, ping period {period_s:g} s"
    )
    return BesideSensor(sample, description, ping_rays, period_s)


#: The sensors ``bench sonar --sensor`` times beside the imaging sonar: how to build
#: each one's :class:`BesideSensor`, and the names of its figures.
BESIDE_SENSORS: dict[str, tuple[Callable[[], BesideSensor], BesideFigures]] = {
    "side_scan": (
        _side_scan,
        BesideFigures(
            sensor="side_scan",
            title="side-scan bench",
            counted="lines/pings",
            sensor_median_s=Column("line_median_s", "line s", 8),
            sensor_per_s=Column("lines_per_s", "lines/s", 8),
            sensor_rays_per_s="side_scan_rays_per_s",
            sonar_median_s=Column("ping_median_s", "ping s", 8),
            sonar_per_s=Column("pings_per_s", "pings/s", 8),
            bit_identical=("lines_bit_identical_to_reference", "lines bit-identical"),
        ),
    ),
    "multibeam": (
        _multibeam,
        BesideFigures(
            sensor="multibeam",
            title="multibeam bench",
            counted="pings each",
            sensor_median_s=Column("multibeam_median_s", "mb ping s", 9),
            sensor_per_s=Column("multibeam_pings_per_s", "mb pings/s", 10),
            sensor_rays_per_s="multibeam_rays_per_s",
            sonar_median_s=Column("sonar_median_s", "sonar s", 8),
            sonar_per_s=Column("sonar_pings_per_s", "sonar pings/s", 13),
            bit_identical=("multibeam_bit_identical_to_reference", "multibeam bit-identical"),
        ),
    ),
}


def _sensor(sensor: str) -> tuple[Callable[[], BesideSensor], BesideFigures]:
    if sensor not in BESIDE_SENSORS:
        raise ValueError(f"sensor: expected one of {sorted(BESIDE_SENSORS)}, got {sensor!r}")
    return BESIDE_SENSORS[sensor]


def bench_beside(
    sensor: str,
    *,
    triangle_counts: list[int],
    pings: int = 5,
    backend: str = "all",
    device: str | None = None,
    bearings: int = 512,
    elevations: int = 128,
) -> dict[str, Any]:
    """Times ``sensor``'s samples and imaging pings on each tracer over the survey seabeds.

    Args:
        sensor: A key of :data:`BESIDE_SENSORS` (``"side_scan"``, ``"multibeam"``).
        triangle_counts: Approximate seabed triangle counts, one seabed each.
        pings: Samples of each sensor per seabed; medians are reported.
        backend, device: The tracers (:func:`leviathan.bench.bench_tracers`).
        bearings, elevations: The imaging sonar's ray grid (as ``bench sonar``).

    Returns:
        A JSON-friendly dict, keys named by the sensor's :class:`BesideFigures`: the
        two sensors, machine, per seabed per tracer the median times of both,
        samples/s, rays/s, the sensor's real-time factor, bit identity.
    """
    make, f = _sensor(sensor)
    timed_sensor = make()
    rays, period_s = timed_sensor.rays, timed_sensor.period_s
    timed, compile_reports = time_beside_sonar(
        timed_sensor.sample,
        triangle_counts=triangle_counts,
        pings=pings,
        backend=backend,
        device=device,
        bearings=bearings,
        elevations=elevations,
    )
    seabeds = [
        {
            "triangles": s["triangles"],
            "tracers": [
                {
                    "tracer": r["tracer"],
                    f.sensor_median_s.key: r["sensor_median_s"],
                    f.sensor_per_s.key: 1.0 / r["sensor_median_s"],
                    f.sensor_rays_per_s: rays / r["sensor_median_s"],
                    _REAL_TIME.key: period_s / r["sensor_median_s"],
                    f.sonar_median_s.key: r["sonar_median_s"],
                    f.sonar_per_s.key: 1.0 / r["sonar_median_s"],
                    f.bit_identical[0]: r["bit_identical"],
                }
                for r in s["tracers"]
            ],
        }
        for s in timed
    ]
    return {
        f.sensor: timed_sensor.description,
        "sonar": f"reference survey sonar, {bearings} bearings x {elevations} elevations",
        "pings_per_seabed": pings,
        "warp_compile_or_load_s": compile_reports,
        "machine": machine(),
        "seabeds": seabeds,
    }


def format_beside_bench(result: dict[str, Any], sensor: str) -> str:
    """A readable table of :func:`bench_beside`'s result for ``sensor``."""
    f = _sensor(sensor)[1]
    columns = (
        (f.sensor_median_s, 3),
        (f.sensor_per_s, 2),
        (_REAL_TIME, 2),
        (f.sonar_median_s, 3),
        (f.sonar_per_s, 2),
    )
    lines = [
        f"{f.title}: {result[f.sensor]}",
        f"beside: {result['sonar']}; median of {result['pings_per_seabed']} {f.counted}",
    ]
    for s in result["seabeds"]:
        lines.append("")
        lines.append(f"seabed {s['triangles']} triangles")
        headers = " ".join(f"{c.header:>{c.width}}" for c, _ in columns)
        lines.append(f"  {'tracer':<14} {headers}  {f.bit_identical[1]}")
        for r in s["tracers"]:
            same = r[f.bit_identical[0]]
            values = " ".join(f"{r[c.key]:>{c.width}.{digits}f}" for c, digits in columns)
            lines.append(
                f"  {r['tracer']:<14} {values}  "
                + ("-" if same is None else ("yes" if same else "NO"))
            )
    return "\n".join(lines)
