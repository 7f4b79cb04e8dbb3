"""The main job: the survey demo.

The reference survey vehicle (a declared test and reference model) flies a
lawnmower pattern at 20 m depth over a generated 10^5-triangle seabed with
targets (a crate, a drum without acoustic material, a pipeline and a moving
ball), pinging its imaging sonar at 5 Hz with its DVL and IMU, while a
production inspection ROV slowly approaches a target, filming it with its front
camera, and the reference mapping AUV flies one straight leg north past the
targets with its side-scan (a third vehicle rather than the survey vehicle's leg:
the survey vehicle's lawnmower stays as it was, and the straight leg at 20 m
depth, 1 m east of the origin, puts the crate, the drum, the pipeline and the
ball at 3 to 11 m ground range on either side, out of the nadir gap, over the
whole run). About 20 s of simulation time in 10 ms ticks.

The demo ROV's camera is the catalogue camera at a reduced resolution and rate
(256 x 144 px at 2 Hz) so that the recorded samples stay a few megabytes (every
camera channel of every frame is recorded); this is stated in the manifest. Rays
are traced by ``leviathan.raycast``'s default backend (Warp on CUDA when
present, else Warp on the CPU), which the manifest records; every backend
gives the same samples and the same run hash.

Writes to the output directory, atomically: everything goes into a temporary
sibling folder that is renamed into place at the end, so an interrupted run
leaves nothing partial and a rerun replaces a previous output whole:

* ``dataset.h5``: every channel of every sample, the complete per-cell sonar
  ground truth, the vehicles' ground-truth tracks at every tick, their documents
  and the provenance, lossless (HDF5; :func:`leviathan.datasets.read_hdf5`
  rebuilds the records with their content hashes);
* ``dataset.mcap``: the same run as a ROS 2 bag in MCAP with standard message
  types (sonar, DVL, IMU, camera, odometry, TF), for ROS 2 tools and Foxglove;
* ``previews/``: each sensor's preview as its kind declares it (the sonar's fan,
  the camera's sRGB image), at most one per sensor and simulated second;
* ``track.png``: north-up plot of the vehicles' tracks and the targets;
* ``side_scan_waterfall.png`` and ``side_scan_waterfall_ground_range.png``: the
  mapping AUV's side-scan lines stacked (newest at the top; port left, nadir in
  the centre), slant range and ground-range corrected, with their display
  hashes in the manifest (``side_scan``);
* ``world.usda``: the World as an OpenUSD stage with both tracks;
* ``manifest.json``: every capture group with every member's content hash, the
  snapshot hash and the run hash; two runs give identical manifests.
"""

from __future__ import annotations

import errno
import io
import json
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from leviathan._behind import Behind
from leviathan._demo_mapping import MULTIBEAM_NOTE, demo_bathymetry, demo_mapper, usable_soundings
from leviathan._files import write_atomically
from leviathan._interrupt import checkpoint
from leviathan.time import NS_PER_SECOND

__all__ = ["build_demo_world", "run_demo", "ticks_for_duration"]

TICK_NS = 10_000_000  # 10 ms: every 100 Hz IMU sample falls on a tick
DEMO_SECONDS = 20
DEMO_SEABED_TRIANGLES = 100_000
"""Triangles of the demo's generated seabed; the run hash ``eaba3a3d...`` is for this size."""
DEMO_JOB = "leviathan survey demo"
"""The manifest's ``job``: marks a folder as this demo's output, which a rerun may replace."""


def survey_environment(seabed_triangles: int = DEMO_SEABED_TRIANGLES, *, seabed_seed: int = 7):
    """The survey scenario: a generated seabed (200 m x 200 m, ~30 m deep) with targets.

    Shared by the demo, ``leviathan bench sonar`` and the sweeps; ``seabed_seed`` is the
    seabed generator's seed (the demo's is 7).
    """
    from leviathan.frames import Transform
    from leviathan.geometry import box_mesh, cylinder_mesh, seabed_mesh, uv_sphere_mesh
    from leviathan.materials import TEST_LAMBERT_BRIGHT, TEST_LAMBERT_MEDIUM
    from leviathan.specs import WaterSpec
    from leviathan.world import Environment, SceneObject

    def at(x: float, y: float, z: float, yaw_deg: float = 0.0) -> Transform:
        return Transform.from_euler(0.0, 0.0, math.radians(yaw_deg), translation=(x, y, z))

    seabed = seabed_mesh(
        triangle_count=seabed_triangles,
        size_m=(200.0, 200.0),
        mean_depth_m=30.0,
        relief_m=1.5,
        seed=seabed_seed,
        origin=(-100.0, -100.0),
    )
    objects = [
        SceneObject("seabed", seabed, at(0.0, 0.0, 0.0), "seabed", TEST_LAMBERT_MEDIUM),
        SceneObject(
            "crate",
            box_mesh((2.0, 3.0, 1.5)),
            at(12.0, 4.0, 28.6, 20.0),
            "crate",
            TEST_LAMBERT_BRIGHT,
        ),
        SceneObject("drum", cylinder_mesh(0.8, 2.5, axis="y"), at(20.0, -6.0, 28.9), "drum", None),
        SceneObject(
            "pipeline",
            cylinder_mesh(0.4, 160.0, axis="x"),
            at(0.0, 12.0, 29.2),
            "pipeline",
            TEST_LAMBERT_BRIGHT,
        ),
        SceneObject(
            "ball",
            uv_sphere_mesh(1.2),
            at(26.0, 0.0, 27.0),
            "target",
            TEST_LAMBERT_BRIGHT,
            velocity_ned_m_per_s=(0.0, 0.4, 0.0),
        ),
    ]
    return Environment(
        water=WaterSpec(
            temperature_c=10.0, salinity_psu=35.0, ph=8.0, current_ned_m_per_s=(0.05, 0.02, 0.0)
        ),
        objects=tuple(objects),
        name="survey_demo",
    )


def build_demo_world(*, seabed_triangles: int = DEMO_SEABED_TRIANGLES, root_seed: int = 20261130):
    """The demo's World (also used by tests)."""
    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import Autopilot, WaypointFollower, lawnmower
    from leviathan.world import VehicleSetup, World

    env = survey_environment(seabed_triangles)
    survey = get_vehicle("reference_survey_vehicle")
    waypoints = lawnmower(
        origin_ne_m=(-12.0, -8.0),
        heading_rad=0.0,
        leg_length_m=16.0,
        leg_spacing_m=6.0,
        legs=2,
        depth_m=20.0,
    )
    rov = get_vehicle("inspection_rov")
    cam = rov.sensor("front_camera")
    demo_cam = cam.model_copy(
        update={
            "width_px": 256,
            "height_px": 144,
            "fx_px": 128.0,
            "fy_px": 128.0,
            "cx_px": 127.5,
            "cy_px": 71.5,
            "schedule": cam.schedule.from_rate_hz(2),
            "hardware_note": "demo: catalogue camera at reduced resolution and rate",
        }
    )
    rov = rov.model_copy(update={"sensors": (demo_cam,)})
    rov = type(rov).model_validate(rov.model_dump())
    mapper = demo_mapper()
    rov_ne, crate_ne = (4.0, 4.0), (12.0, 4.0)
    heading_to_crate = math.atan2(crate_ne[1] - rov_ne[1], crate_ne[0] - rov_ne[0])
    vehicles = [
        VehicleSetup(
            "survey",
            survey,
            WaypointFollower(waypoints, speed_m_per_s=1.5, acceptance_radius_m=2.0),
            position_ned_m=(-14.0, -8.0, 20.0),
        ),
        VehicleSetup(
            "inspector",
            rov,
            Autopilot(speed_m_per_s=0.2, depth_m=27.5, heading_rad=heading_to_crate),
            position_ned_m=(*rov_ne, 27.0),
            rpy_rad=(0.0, 0.0, heading_to_crate),
        ),
        VehicleSetup(
            "mapper",
            mapper,
            Autopilot(speed_m_per_s=1.5, depth_m=20.0, heading_rad=0.0),
            position_ned_m=(-4.0, 1.0, 20.0),
        ),
    ]
    return World.create(vehicles=vehicles, environment=env, root_seed=root_seed, step_ns=TICK_NS)


def _track_plot(world: Any, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 7), dpi=100)
    for name in world.vehicle_names:
        _, _, poses = world.track(name)
        ax.plot(poses[:, 1, 3], poses[:, 0, 3], label=f"{name} ({world.vehicle_spec(name).name})")
        ax.plot(poses[-1, 1, 3], poses[-1, 0, 3], "o")
    for obj in world.environment.objects:
        if obj.object_id == "seabed":
            continue
        x0, y0, _ = obj.T_world_object.translation.tolist()
        ax.plot(y0, x0, "k^" if not obj.moving else "r^")
        ax.annotate(obj.object_id, (y0, x0), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("east [m]")
    ax.set_ylabel("north [m]")
    ax.set_title("Survey demo: north-up tracks (world NED)")
    ax.set_aspect("equal")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    write_atomically(path, buffer.getvalue())


def ticks_for_duration(
    seconds: int | str | Decimal | Fraction | float,
    step_ns: int,
    *,
    name: str = "seconds",
    minimum: int = 0,
) -> int:
    """The number of ticks in a duration that must be a whole number of ticks.

    The duration is converted exactly (:func:`leviathan.time.seconds_to_ns`,
    never float multiplication) and is never rounded: a duration that is not a
    whole number of ticks is refused with the two nearest durations that are.

    Args:
        seconds: Duration [s] as int, str (decimal notation), Decimal, Fraction or float.
        step_ns: Tick length [ns], positive.
        name: The option or argument named in error messages, e.g. ``"--seconds"``.
        minimum: Fewest ticks accepted (0 allows an empty duration).

    Returns:
        ``seconds`` as a whole number of ticks, in ``[minimum, MAX_STEPS_PER_WORLD]``.

    Raises:
        ValueError: The duration is not a whole number of ticks (or of
            nanoseconds), is below ``minimum`` ticks, beyond the World's step
            limit, unparsable or not finite.
        TypeError: ``seconds`` is a bool or not a number.
    """
    from leviathan._validation import exact_rational, refusals_at
    from leviathan.time import NonIntegerStepError, seconds_to_ns
    from leviathan.world import MAX_STEPS_PER_WORLD

    if isinstance(step_ns, bool) or not isinstance(step_ns, int) or step_ns <= 0:
        raise ValueError(f"step_ns: expected a positive int of nanoseconds, got {step_ns!r}")
    step_text = f"{_seconds_text(step_ns)} s"
    try:
        with refusals_at(f"{name}: "):
            duration_ns: int | Fraction = seconds_to_ns(seconds)
    except NonIntegerStepError:
        duration_ns = exact_rational(name, seconds, "s") * NS_PER_SECOND
    ticks = Fraction(duration_ns) / step_ns
    if ticks < minimum:
        raise ValueError(
            f"{name}: expected at least {_seconds_text(minimum * step_ns)} s "
            f"({minimum} tick{'' if minimum == 1 else 's'} of {step_text}), got {seconds} s"
        )
    if ticks > MAX_STEPS_PER_WORLD:
        raise ValueError(
            f"{name}: {seconds} s is {float(ticks)!r} ticks of {step_text}, beyond the World's "
            f"limit of {MAX_STEPS_PER_WORLD} ticks "
            f"({_seconds_text(MAX_STEPS_PER_WORLD * step_ns)} s)"
        )
    if ticks.denominator != 1:
        # Both neighbours lie in [minimum, MAX_STEPS_PER_WORLD]: ticks is strictly inside.
        below = math.floor(ticks) * step_ns
        raise ValueError(
            f"{name}: {seconds} s is not a whole number of ticks of {step_text} "
            f"(it is {float(ticks)!r} ticks); durations are never rounded: the nearest valid "
            f"values are {_seconds_text(below)} s and {_seconds_text(below + step_ns)} s"
        )
    count = ticks.numerator
    return count


def _seconds_text(ns: int) -> str:
    """``ns`` [ns] written exactly in seconds, without exponent: 10_000_000 -> ``'0.01'``."""
    return format(Decimal(ns).scaleb(-9).normalize(), "f")


def _is_previous_output(folder: Path) -> bool:
    """True if ``folder`` may be replaced: it is empty or holds this demo's manifest."""
    if not any(folder.iterdir()):
        return True
    try:
        manifest = json.loads((folder / "manifest.json").read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("job") == DEMO_JOB


def run_demo(
    out: str | Path,
    *,
    seconds: int | str | Decimal | Fraction | float = DEMO_SECONDS,
    progress: bool = True,
    seabed_triangles: int = DEMO_SEABED_TRIANGLES,
) -> Path:
    """Runs the survey demo and writes its products to the folder ``out``.

    The output is atomic: everything is written into a temporary sibling folder
    (``.<name>.tmp-<pid>-<hex>``) that is renamed to ``out`` only once the
    manifest is written. An interrupted or failed run (``KeyboardInterrupt``
    included) removes it and leaves ``out`` as it was; a rerun replaces a
    previous output folder whole (see :func:`leviathan._files.atomic_directory`).

    Args:
        out: Output folder. If it exists it must be empty or a previous output
            of this demo (it holds this demo's ``manifest.json``), so that no
            unrelated folder is ever replaced.
        seconds: Simulated duration [s], a positive whole number of 10 ms
            ticks (``1``, ``"0.5"``), converted exactly; never rounded.
        progress: Show a progress bar and a closing summary line.
        seabed_triangles: Triangles of the generated seabed (default
            :data:`DEMO_SEABED_TRIANGLES`). Fewer make a quicker run of a different
            scene (its environment hash, and so its run hash, differ from the demo's);
            the tests use it.

    Returns:
        The manifest path, ``out / "manifest.json"``.

    Raises:
        ValueError: ``seconds`` is not a positive whole number of ticks.
        FileExistsError: ``out`` is a non-empty folder that is not an output of this demo.
        OSError: ``out`` cannot be written (a file in the way, its parent folder
            missing or not writable); raised before the simulation starts.
    """
    from leviathan._files import atomic_directory, check_output_path

    ticks = ticks_for_duration(seconds, TICK_NS, name="seconds", minimum=1)
    out = check_output_path(out, folder=True)
    if out.is_dir() and not _is_previous_output(out):
        raise FileExistsError(
            errno.EEXIST,
            "exists and is not an output of this demo (no demo manifest.json in it), so it is "
            "not replaced; give a new folder or remove it first",
            str(out),
        )
    with atomic_directory(out) as staging:
        manifest = _write_products(
            staging, ticks, progress=progress, seabed_triangles=seabed_triangles
        )
    if progress:
        print(
            f"[demo] {len(manifest['capture_groups'])} capture groups over "
            f"{_seconds_text(ticks * TICK_NS)} s written to {out} "
            f"(run hash {manifest['run_hash'][:16]}…)"
        )
    return out / "manifest.json"


_NOTES = (
    "The inspection ROV's camera runs at 256x144 px and 2 Hz in this demo (reduced from "
    "the catalogue's 1280x720) to keep the recorded camera channels a few megabytes.",
    "Vehicle motion is integrated with the 6-DOF model; scene objects move with constant velocity.",
    MULTIBEAM_NOTE,
)


def _write_waterfalls(lines: dict[str, list[Any]], out: Path) -> dict[str, Any]:
    """Each side-scan's waterfall and ground-range waterfall as PNG; their display hashes."""
    from leviathan.side_scan.display import ground_range_waterfall, waterfall

    written: dict[str, Any] = {}
    for sensor_id, stack in sorted(lines.items()):
        # One side-scan in the demo: its files carry no sensor id (the manifest has it).
        stem = "side_scan" if len(lines) == 1 else sensor_id.replace("/", "_")
        slant, ground = waterfall(stack), ground_range_waterfall(stack)
        slant.png(out / f"{stem}_waterfall.png")
        ground.png(out / f"{stem}_waterfall_ground_range.png")
        written[sensor_id] = {
            "lines": len(stack),
            "waterfall": f"{stem}_waterfall.png",
            "waterfall_display_hash": slant.display_hash,
            "ground_range_waterfall": f"{stem}_waterfall_ground_range.png",
            "ground_range_waterfall_display_hash": ground.display_hash,
        }
    return written


def _write_products(
    out: Path, ticks: int, *, progress: bool, seabed_triangles: int = DEMO_SEABED_TRIANGLES
) -> dict[str, Any]:
    """Runs the demo World for ``ticks`` and writes every product into ``out``; returns the
    manifest (written last)."""
    from tqdm import tqdm

    from leviathan.datasets import RUN_DATASET_NAME, DatasetRecorder
    from leviathan.sensors import PreviewWriter
    from leviathan.side_scan import SideScanLine
    from leviathan.world import run_summary

    (out / "previews").mkdir()
    # The default size is not passed on, so a build_demo_world with other defaults
    # (the tests' smaller seabed) is called as it stands.
    world = (
        build_demo_world()
        if seabed_triangles == DEMO_SEABED_TRIANGLES
        else build_demo_world(seabed_triangles=seabed_triangles)
    )
    groups_out: list[dict] = []
    previews = PreviewWriter(world, out / "previews")
    side_scan_lines: dict[str, list[Any]] = {}
    soundings: list[Any] = []
    chunk = 50
    recorder = DatasetRecorder(
        world,
        mcap=out / "dataset.mcap",
        hdf5=out / RUN_DATASET_NAME,
        manifest={"job": DEMO_JOB, "notes": list(_NOTES)},
    )
    with (
        recorder,
        tqdm(total=ticks, unit="tick", desc="survey demo", disable=not progress, leave=True) as bar,
    ):

        def write(batch: Any) -> None:
            # On the writer thread: files, content hashes, previews, manifest rows.
            recorder.write(batch)
            for group in batch.groups:
                for sensor_id, sample in group.samples.items():
                    previews.write(sensor_id, sample)
                    if isinstance(sample, SideScanLine):
                        side_scan_lines.setdefault(sensor_id, []).append(sample)
                    if getattr(sample, "kind", None) == "multibeam":  # for the bathymetry
                        soundings.append(usable_soundings(sample))
                groups_out.append(group.manifest_entry())

        behind = Behind(write)
        done = 0
        while done < ticks:
            checkpoint()  # a Ctrl-C swallowed on the way (see leviathan._interrupt) stops here
            n = min(chunk, ticks - done)
            groups = world.step(n)
            # What reads the World is taken now; the rest is written behind the next step.
            behind.put(recorder.prepare(groups))
            done += n
            bar.update(n)
        behind.wait()
        snapshot = world.snapshot()
        recorder.close(manifest={"snapshot_hash": snapshot.content_hash})
    _track_plot(world, out / "track.png")
    waterfalls = _write_waterfalls(side_scan_lines, out)
    usd_path = world.export_usd(out / "world.usda")
    bathymetry = demo_bathymetry(out, world.environment.scene_at(0), soundings, progress)
    manifest = {
        "job": DEMO_JOB,
        **run_summary(world, snapshot, groups_out),
        "usd": usd_path.name,
        "tracing": {"backend": world.tracing[0], "device": world.tracing[1]},
        "dataset": {"hdf5": RUN_DATASET_NAME, "mcap": "dataset.mcap"},
        "side_scan": waterfalls,
        "bathymetry": bathymetry,
        "notes": list(_NOTES),
    }
    # Written last: a folder with a manifest is complete (and the rename above makes it whole).
    write_atomically(
        out / "manifest.json", (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    )
    return manifest
