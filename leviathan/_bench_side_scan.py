"""``leviathan bench sonar --sensor side_scan``: side-scan lines/s beside imaging pings/s.

Both are timed in the same run, on the same seabeds and poses, per tracer: the
catalogue side-scan (``reference_mapping_auv``'s, rays as declared) one line per
pose, then the reference survey sonar one ping per pose. Medians are reported,
with the side-scan's real-time factor (its ping period over the median line time:
at least 1 keeps up with its own ping rate) and whether every tracer's lines are
bit-identical to the reference's (content hashes).
"""

from __future__ import annotations

from typing import Any

from leviathan._bench_beside import BesideFigures, Column, bench_beside_sonar, format_beside_bench

__all__ = ["bench_side_scan", "format_side_scan_bench"]


_FIGURES = BesideFigures(
    sensor="side_scan",
    title="side-scan bench",
    counted="lines/pings",
    sensor_median_s=Column("line_median_s", "line s", 8),
    sensor_per_s=Column("lines_per_s", "lines/s", 8),
    sensor_rays_per_s="side_scan_rays_per_s",
    sonar_median_s=Column("ping_median_s", "ping s", 8),
    sonar_per_s=Column("pings_per_s", "pings/s", 8),
    bit_identical=("lines_bit_identical_to_reference", "lines bit-identical"),
)


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
    from leviathan.catalogue import get_vehicle
    from leviathan.side_scan import render as render_line
    from leviathan.side_scan import side_scan_fan

    side_scan = get_vehicle("reference_mapping_auv").sensor("side_scan")
    line_rays = side_scan_fan(side_scan)[1].ray_count
    period_s = side_scan.schedule.period_ns / 1e9

    def sample(scene: Any, body: Any, k: int, backend_name: str, dev: str) -> str:
        line = render_line(
            scene,
            side_scan,
            body @ side_scan.mount.transform(),
            sensor_id="bench/side_scan",
            sample_index=k,
            time_ns=k * side_scan.schedule.period_ns,
            backend=backend_name,
            device=dev,
            sampling_warnings=False,
        )
        return line.content_hash

    return bench_beside_sonar(
        sample,
        _FIGURES,
        description=(
            f"reference_mapping_auv side-scan, {line_rays} rays/line, 2 x "
            f"{side_scan.range_bin_count} cells, ping period {period_s:g} s"
        ),
        rays=line_rays,
        period_s=period_s,
        triangle_counts=triangle_counts,
        pings=pings,
        backend=backend,
        device=device,
        bearings=bearings,
        elevations=elevations,
    )


def format_side_scan_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_side_scan`'s result."""
    return format_beside_bench(result, _FIGURES)
