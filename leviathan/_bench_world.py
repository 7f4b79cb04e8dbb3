"""The World bench behind ``leviathan bench world``: figures to print, never assertions.

It times :meth:`leviathan.world.World.step` for the catalogue's reference survey
vehicle on 10 ms ticks (unless told otherwise) over the survey scenario's
generated seabed, in five configurations that add one sensor kind at a time:

* ``dynamics``: no sensor; the controller, RK4 dynamics and the track record;
* ``+imu``: the 100 Hz IMU (a sample every tick, keyed noise, sample freezing);
* ``+dvl``: the IMU and the 10 Hz DVL (four beams traced against the seabed);
* ``+sonar``: those and the imaging sonar (the full catalogue sonar unless
  ``sonar_size`` says otherwise);
* ``+camera``: every sensor of the vehicle.

For each it reports the median ms per tick over a few timed runs, the real-time
factor (simulated time over wall time) and the time 2,000,000 steps would take.
The peer is the ``dynamics`` configuration measured in the same run: every
configuration is also given as a multiple of it, so the figures compare across
machines and loads. It also times the snapshot of a long dynamics-only World
(its ``content_hash``, which encodes the whole track), and content hashing of a
large float64 array beside ``hashlib.sha256`` of the same bytes (that peer is the
ceiling: the encoder adds a header and the NaN/-0.0 check to the same digest).
"""

from __future__ import annotations

import hashlib
import platform
import statistics
import time
from typing import Any

import numpy as np

__all__ = ["CONFIGURATIONS", "bench_world", "format_world_bench"]

CONFIGURATIONS: dict[str, tuple[str, ...]] = {
    "dynamics": (),
    "+imu": ("imu",),
    "+dvl": ("imu", "dvl"),
    "+sonar": ("imu", "dvl", "imaging_sonar"),
    "+camera": ("imu", "dvl", "imaging_sonar", "camera"),
}
"""Configuration name -> the sensor kinds of the survey vehicle it keeps."""

LONG_RUN_STEPS = 2_000_000
"""The step count of a long World (the World's step limit) for the projected time."""


def _survey_world(
    kinds: tuple[str, ...], environment: Any, *, step_ns: int, sonar_size: tuple[int, int] | None
) -> Any:
    """The survey vehicle with only the sensors of ``kinds``, north at 1 m/s at 20 m depth."""
    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import Autopilot
    from leviathan.world import VehicleSetup, World

    spec = get_vehicle("reference_survey_vehicle")
    sensors = []
    for sensor in spec.sensors:
        if sensor.kind not in kinds:
            continue
        if sensor.kind == "imaging_sonar" and sonar_size is not None:
            sensor = sensor.model_copy(
                update={"bearing_count": sonar_size[0], "elevation_sample_count": sonar_size[1]}
            )
        sensors.append(sensor.model_dump())
    spec = type(spec).model_validate({**spec.model_dump(), "sensors": sensors})
    setup = VehicleSetup(
        "survey",
        spec,
        Autopilot(speed_m_per_s=1.0, depth_m=20.0, heading_rad=0.0),
        position_ned_m=(0.0, 0.0, 20.0),
    )
    return World.create(vehicles=[setup], environment=environment, root_seed=1, step_ns=step_ns)


def _median_ms_per_tick(world: Any, ticks: int, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        world.step(ticks)
        times.append((time.perf_counter() - start) / ticks * 1e3)
    return statistics.median(times)


def bench_world(
    *,
    ticks: int = 200,
    runs: int = 3,
    step_ns: int = 10_000_000,
    seabed_triangles: int = 20_000,
    sonar_size: tuple[int, int] | None = None,
    configurations: list[str] | None = None,
    snapshot_ticks: int = 20_000,
    hash_mib: int = 64,
) -> dict[str, Any]:
    """Times World ticks by configuration, a long World's snapshot and content hashing.

    Args:
        ticks: Ticks per timed run.
        runs: Timed runs per configuration; the median ms per tick is reported.
        step_ns: Tick length [ns].
        seabed_triangles: About how many triangles the survey seabed has.
        sonar_size: ``(bearings, elevations)`` of the sonar, or ``None`` for the
            catalogue sonar as it is.
        configurations: Names from :data:`CONFIGURATIONS` (default: all, in order).
        snapshot_ticks: Ticks of the dynamics-only World whose snapshot is timed
            (0 skips it).
        hash_mib: Size [MiB] of the float64 array whose content hash is timed (0 skips).

    Returns:
        JSON-friendly figures: ``configurations`` (one entry each: ms per tick,
        ratio to the dynamics peer, real-time factor, projected seconds for
        2,000,000 steps), ``snapshot`` and ``hashing``.

    Raises:
        ValueError: If a count is out of range or a configuration is unknown.
    """
    from leviathan.demo import survey_environment

    names = list(CONFIGURATIONS) if configurations is None else list(configurations)
    for name in names:
        if name not in CONFIGURATIONS:
            raise ValueError(
                f"configurations: unknown {name!r}; choose from {', '.join(CONFIGURATIONS)}"
            )
    for field, value, least in (
        ("ticks", ticks, 1),
        ("runs", runs, 1),
        ("step_ns", step_ns, 1),
        ("seabed_triangles", seabed_triangles, 2),
        ("snapshot_ticks", snapshot_ticks, 0),
        ("hash_mib", hash_mib, 0),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{field}: expected an int >= {least}, got {value!r}")
    if "dynamics" not in names:
        names.insert(0, "dynamics")  # the peer is always measured

    environment = survey_environment(seabed_triangles)
    rows = []
    for name in names:
        world = _survey_world(
            CONFIGURATIONS[name], environment, step_ns=step_ns, sonar_size=sonar_size
        )
        world.step(2)  # first samples: BVH build, kernel loads, caches
        ms = _median_ms_per_tick(world, ticks, runs)
        rows.append(
            {
                "configuration": name,
                "sensors": list(CONFIGURATIONS[name]),
                "ms_per_tick": ms,
                "real_time_factor": (step_ns / 1e6) / ms,
                "long_run_s": ms * LONG_RUN_STEPS / 1e3,
            }
        )
    peer = next(r["ms_per_tick"] for r in rows if r["configuration"] == "dynamics")
    for row in rows:
        row["ratio_to_dynamics"] = row["ms_per_tick"] / peer

    result: dict[str, Any] = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
        "tick_ms": step_ns / 1e6,
        "ticks_per_run": ticks,
        "runs": runs,
        "seabed_triangles": seabed_triangles,
        "peer": "dynamics (same run)",
        "long_run_steps": LONG_RUN_STEPS,
        "configurations": rows,
    }
    if snapshot_ticks:
        world = _survey_world((), environment, step_ns=step_ns, sonar_size=None)
        start = time.perf_counter()
        world.step(snapshot_ticks)
        stepped = time.perf_counter() - start
        start = time.perf_counter()
        digest = world.snapshot().content_hash
        seconds = time.perf_counter() - start
        result["snapshot"] = {
            "ticks": snapshot_ticks,
            "step_s": stepped,
            "snapshot_and_hash_s": seconds,
            "content_hash": digest,
        }
    if hash_mib:
        result["hashing"] = _bench_hashing(hash_mib)
    return result


def _bench_hashing(mib: int) -> dict[str, Any]:
    """``content_hash`` of a float64 array beside ``hashlib.sha256`` of its bytes [GB/s]."""
    from leviathan.identity import content_hash

    values = np.random.default_rng(0).standard_normal(mib * 2**20 // 8)
    encoder, sha = [], []
    for _ in range(3):
        start = time.perf_counter()
        content_hash(values)
        encoder.append(time.perf_counter() - start)
        start = time.perf_counter()
        hashlib.sha256(memoryview(values).cast("B")).digest()
        sha.append(time.perf_counter() - start)
    encoder_gb_s = values.nbytes / statistics.median(encoder) / 1e9
    sha_gb_s = values.nbytes / statistics.median(sha) / 1e9
    return {
        "mib": mib,
        "content_hash_gb_s": encoder_gb_s,
        "sha256_gb_s": sha_gb_s,
        "ratio_to_sha256": encoder_gb_s / sha_gb_s,
    }


def format_world_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_world`'s result."""
    lines = [
        f"world bench: reference survey vehicle, {result['tick_ms']:g} ms ticks, seabed of "
        f"{result['seabed_triangles']} triangles, median of {result['runs']} runs x "
        f"{result['ticks_per_run']} ticks; peer: {result['peer']}",
        f"  {'configuration':<14} {'ms/tick':>9} {'x dynamics':>10} {'real-time x':>11} "
        f"{'2e6 steps s':>11}",
    ]
    for row in result["configurations"]:
        lines.append(
            f"  {row['configuration']:<14} {row['ms_per_tick']:>9.4f} "
            f"{row['ratio_to_dynamics']:>10.2f} {row['real_time_factor']:>11.1f} "
            f"{row['long_run_s']:>11.0f}"
        )
    snapshot = result.get("snapshot")
    if snapshot is not None:
        lines.append(
            f"snapshot of a {snapshot['ticks']}-tick World (content hash included): "
            f"{snapshot['snapshot_and_hash_s']:.3f} s (stepping it took {snapshot['step_s']:.2f} s)"
        )
    hashing = result.get("hashing")
    if hashing is not None:
        lines.append(
            f"content hash of a {hashing['mib']} MiB float64 array: "
            f"{hashing['content_hash_gb_s']:.2f} GB/s; peer hashlib.sha256 of its bytes "
            f"{hashing['sha256_gb_s']:.2f} GB/s ({hashing['ratio_to_sha256']:.2f} x)"
        )
    return "\n".join(lines)
