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
    from leviathan._bench_beside import machine, time_beside_sonar
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

    timed, compile_reports = time_beside_sonar(
        sample,
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
                    "multibeam_median_s": r["sensor_median_s"],
                    "multibeam_pings_per_s": 1.0 / r["sensor_median_s"],
                    "multibeam_rays_per_s": ping_rays / r["sensor_median_s"],
                    "real_time_factor": period_s / r["sensor_median_s"],
                    "sonar_median_s": r["sonar_median_s"],
                    "sonar_pings_per_s": 1.0 / r["sonar_median_s"],
                    "multibeam_bit_identical_to_reference": r["bit_identical"],
                }
                for r in s["tracers"]
            ],
        }
        for s in timed
    ]
    return {
        "multibeam": (
            f"reference_mapping_auv multibeam, {multibeam.beam_count} beams, {ping_rays} "
            f"rays/ping, {multibeam.range_bin_count} bins, ping period {period_s:g} s"
        ),
        "sonar": f"reference survey sonar, {bearings} bearings x {elevations} elevations",
        "pings_per_seabed": pings,
        "warp_compile_or_load_s": compile_reports,
        "machine": machine(),
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
