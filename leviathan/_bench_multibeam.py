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

from typing import Any

from leviathan._bench_beside import BesideFigures, Column, bench_beside_sonar, format_beside_bench

__all__ = ["bench_multibeam", "format_multibeam_bench"]


_FIGURES = BesideFigures(
    sensor="multibeam",
    title="multibeam bench",
    counted="pings each",
    sensor_median_s=Column("multibeam_median_s", "mb ping s", 9),
    sensor_per_s=Column("multibeam_pings_per_s", "mb pings/s", 10),
    sensor_rays_per_s="multibeam_rays_per_s",
    sonar_median_s=Column("sonar_median_s", "sonar s", 8),
    sonar_per_s=Column("sonar_pings_per_s", "sonar pings/s", 13),
    bit_identical=("multibeam_bit_identical_to_reference", "multibeam bit-identical"),
)


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
    from leviathan.catalogue import get_vehicle
    from leviathan.identity import content_hash
    from leviathan.multibeam import multibeam_ping, multibeam_rays

    multibeam = get_vehicle("reference_mapping_auv").sensor("multibeam")
    ping_rays = multibeam_rays(multibeam)[1].directions.shape[0]
    period_s = multibeam.schedule.period_ns / 1e9

    def sample(scene: Any, body: Any, k: int, backend_name: str, dev: str) -> str:
        ping = multibeam_ping(
            scene,
            multibeam,
            body @ multibeam.mount.transform(),
            sensor_id="bench/multibeam",
            sample_index=k,
            time_ns=k * multibeam.schedule.period_ns,
            backend=backend_name,
            device=dev,
        )
        return content_hash({"channels": ping.channels, "meta": ping.metadata})

    return bench_beside_sonar(
        sample,
        _FIGURES,
        description=(
            f"reference_mapping_auv multibeam, {multibeam.beam_count} beams, {ping_rays} "
            f"rays/ping, {multibeam.range_bin_count} bins, ping period {period_s:g} s"
        ),
        rays=ping_rays,
        period_s=period_s,
        triangle_counts=triangle_counts,
        pings=pings,
        backend=backend,
        device=device,
        bearings=bearings,
        elevations=elevations,
    )


def format_multibeam_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_multibeam`'s result."""
    return format_beside_bench(result, _FIGURES)
