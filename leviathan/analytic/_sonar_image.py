"""Analytic imaging-sonar image: a quick range x bearing picture from a pose (not canonical).

:func:`sonar_image` renders one ping with the canonical geometry and return model
(:func:`leviathan.sonar.render`, so the rays, tracing, per-sample physics and
binning are the canonical stages), with the elevation sampling raised by the fill
rule below, then applies the sensor's analytic noise
(:func:`~leviathan.analytic.apply_sonar_noise`) from its own generator, and returns
the B-scan, the fan and the report (:class:`~leviathan.analytic.SonarImageReport`).

Elevation sampling rule (fill rule)
-----------------------------------
For a plane at perpendicular distance ``h`` from the sensor, a ray of unit
direction ``d(b, e)`` meets it at slant range ``R = h / (d . n)``, so along the
elevation ``e`` of one bearing::

    dR/de = -h (d_e . n) / (d . n)^2 = -(R^2 / h) (d_e . n),   |d_e . n| <= |d_e| = 1

(``d_e = dd/de`` is a unit vector for every bearing, tilt and roll). Inside the range
window ``R <= R_max``, so two adjacent elevation rays whose hits both lie in the
window differ in range by at most ``R_max^2 / h * de`` (the mean value theorem; on
the arc between them ``R`` never exceeds its larger end). The rule asks that step
to be at most a fraction ``f`` of a range bin ``dr = (R_max - R_min) / N``::

    de <= f * dr * h / R_max^2,     M = ceil(A / de_max) + 1

for an elevation aperture ``A`` on the inclusive grid of ``M`` samples. With
``f <= 1`` no range bin a plane's hits span can be skipped (two consecutive hits
closer than one bin cannot straddle a whole bin); ``f = 1/2``, the default, leaves
every bin about two samples. ``h`` is the plane's distance: given, or estimated from
a coarse ping of 33 elevations as the smallest ``R cos(theta)`` (the perpendicular
distance to the primary triangle's plane) over the cells of the instance that holds
the most hit cells (the extended surface to fill, e.g. the seabed). The ray count
``bearing_count * M`` is capped at ``max_ray_count`` (the report says when the cap
binds and which bins may then be thin).

Pose: ``position_ned_m`` and ``rpy_deg`` are the carrying vehicle's body pose in
world NED (roll, pitch, yaw in ZYX order, degrees); the sonar sits on it through
its spec's mount, ``T_world_sensor = T_world_body @ T_body_sensor``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._sonar_fill import (
    FILL_BIN_FRACTION,
    elevation_samples_for_fill,
    fill_plane_distance,
)
from leviathan._validation import check_integer
from leviathan.analytic._generators import GeneratorRecord, sensor_generator
from leviathan.analytic._sonar_report import SonarImageReport, build_report
from leviathan.frames import Transform, euler_from_rotation, sensor_pose
from leviathan.scene import Scene
from leviathan.sensors import SonarNoiseModel, apply_sonar_noise
from leviathan.sonar import SonarFrame, render
from leviathan.sonar.display import fan_raster
from leviathan.specs import MAX_SONAR_RAY_COUNT, ImagingSonarSpec, WaterSpec
from leviathan.world import scenes_seen

__all__ = [
    "DEFAULT_MAX_RAY_COUNT",
    "FILL_BIN_FRACTION",
    "SonarImage",
    "elevation_samples_for_fill",
    "sonar_image",
]

DEFAULT_MAX_RAY_COUNT = 1 << 20
"""Default cap on the rays of one analytic ping (1,048,576; about 1 s on Warp CPU)."""

_COARSE_ELEVATIONS = 33


@dataclasses.dataclass(frozen=True, eq=False)
class SonarImage:
    """An analytic sonar image (``tier = "analytic"``; never a canonical product).

    Attributes:
        tier: Always ``"analytic"``.
        intensity: Noisy linear intensity, float64 [range_bin, bearing], read-only
            (0 in empty cells, NaN where the return has no value).
        level_db: ``10 log10(intensity)`` [dB re 1], float64 [range_bin, bearing]
            (-inf in empty cells, NaN without a value).
        sample_count: Ray samples integrated per cell, int32 [range_bin, bearing].
        bearing_rad: Bearings, positive to starboard, float64 [bearing].
        range_bin_edges_m: Nominal range-bin edges [m], float64 [range_bin + 1].
        fan_level_db: The fan, polar to Cartesian: level [dB re 1] per pixel, float64
            [height, width] (row 0 at far range; NaN outside the fan and without a value).
        fan_inside: Whether each fan pixel lies in the fan, bool [height, width].
        fan_extent_m: ``(x_min, x_max, y_min, y_max)`` of the fan pixels [m], x to
            starboard and y forward of the sensor.
        report: The report, with every figure's unit and how it was computed.
        frame: The canonical frame rendered underneath (with its ground truth and the
            raised elevation sampling), before any analytic noise.
        generator: How the noise generator was made (None without noise).
    """

    __content_type__ = "leviathan.analytic.SonarImage"

    tier: str
    intensity: np.ndarray
    level_db: np.ndarray
    sample_count: np.ndarray
    bearing_rad: np.ndarray
    range_bin_edges_m: np.ndarray
    fan_level_db: np.ndarray
    fan_inside: np.ndarray
    fan_extent_m: tuple[float, float, float, float]
    report: SonarImageReport
    frame: SonarFrame
    generator: GeneratorRecord | None

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by name (what the npz download holds)."""
        return {
            "intensity": self.intensity,
            "level_db": self.level_db,
            "sample_count": self.sample_count,
            "bearing_rad": self.bearing_rad,
            "range_bin_edges_m": self.range_bin_edges_m,
            "fan_level_db": self.fan_level_db,
            "fan_inside": self.fan_inside,
            "fan_extent_m": np.asarray(self.fan_extent_m, dtype=np.float64),
        }


def sonar_image(
    *,
    scene: Scene | None = None,
    spec: ImagingSonarSpec | None = None,
    position_ned_m: Any = None,
    rpy_deg: Any = (0.0, 0.0, 0.0),
    water: WaterSpec | None = None,
    world: Any = None,
    vehicle: str | None = None,
    sensor: str = "sonar",
    noise: SonarNoiseModel | None = None,
    seed: int | None = None,
    plane_distance_m: float | None = None,
    elevation_sample_count: int | None = None,
    bin_fraction: float = FILL_BIN_FRACTION,
    max_ray_count: int = DEFAULT_MAX_RAY_COUNT,
    saturation_ceiling_db: float | None = None,
    bandwidth_hz: float | None = None,
    beamwidth_3db_deg: float | None = None,
    fan_width_px: int = 512,
    backend: str = "auto",
    device: str | None = None,
) -> SonarImage:
    """Render an analytic range x bearing image from a pose or from a World's vehicle.

    Give either ``scene`` and ``position_ned_m`` (with ``spec``; default the reference
    survey vehicle's sonar, and ``rpy_deg``, ``water``), or ``world`` and ``vehicle``
    (the vehicle's committed pose, its sonar ``sensor``, the World's scene at its time,
    its water and tracer).

    Args:
        scene: Scene to image (pose form).
        spec: Sonar spec (pose form; default the catalogue reference survey sonar).
        position_ned_m: Vehicle body position in world NED [m], 3 numbers (pose form).
        rpy_deg: Vehicle roll, pitch, yaw [deg], ZYX (pose form).
        water: Water (pose form; default :class:`~leviathan.specs.WaterSpec`).
        world: A :class:`~leviathan.world.World` (World form).
        vehicle: Vehicle name in ``world``.
        sensor: Sonar name on that vehicle (World form).
        noise: Analytic noise model; ``None`` for none.
        seed: Seed of the sonar's noise generator (PCG64); ``None`` draws fresh entropy,
            recorded as "unseeded" with the entropy for replay.
        plane_distance_m: ``h`` of the fill rule [m]; ``None`` estimates it from a
            coarse ping.
        elevation_sample_count: Use exactly this many elevation samples (overrides the
            fill rule).
        bin_fraction: ``f`` of the fill rule, in (0, 1].
        max_ray_count: Cap on ``bearing_count * M`` [-], at most
            :data:`~leviathan.specs.MAX_SONAR_RAY_COUNT`.
        saturation_ceiling_db: Receiver full scale [dB re 1]: cells above it are clipped
            to it and counted as saturated; ``None``: the image peak (nothing clips).
        bandwidth_hz: Declared pulse bandwidth ``B`` [Hz] for the ``c / 2B`` resolution.
        beamwidth_3db_deg: Declared per-beam -3 dB azimuth width [deg] for the
            cross-range resolution; ``None`` uses the bearing spacing.
        fan_width_px: Width of the fan raster [px].
        backend: Tracing backend (pose form; the World form uses the World's).
        device: Device of the backend.

    Returns:
        The :class:`SonarImage`.

    Raises:
        TypeError, ValueError: For a missing, mixed or invalid argument, naming it.
    """
    if world is not None:
        if scene is not None or spec is not None or position_ned_m is not None:
            raise ValueError(
                "give either world and vehicle, or scene, spec and position_ned_m; not both"
            )
        if not isinstance(vehicle, str):
            raise ValueError("vehicle: the World form needs the vehicle's name")
        vspec = world.vehicle_spec(vehicle)
        spec = vspec.sensor(sensor)
        if not isinstance(spec, ImagingSonarSpec):
            raise ValueError(f"sensor: {vehicle}/{sensor} is a {spec.kind}, not an imaging_sonar")
        T_world_body = world.vehicle_state(vehicle).T_world_body
        names = world.vehicle_names
        specs = {name: world.vehicle_spec(name) for name in names}
        poses = {name: world.vehicle_state(name).T_world_body for name in names}
        # What its canonical sonar sees: the environment and the other vehicles' hulls.
        base = world.environment.scene_at(world.time_ns)
        scene = scenes_seen(base, specs, poses, {vehicle})[vehicle]
        water = world.environment.water
        backend, device = world.tracing
        pose_record = {
            "source": "world",
            "vehicle": vehicle,
            "sensor": sensor,
            "tick": int(world.tick),
            "time_ns": int(world.time_ns),
        }
    else:
        if scene is None or position_ned_m is None:
            raise ValueError("give scene and position_ned_m (a vehicle pose), or world and vehicle")
        if not isinstance(scene, Scene):
            raise TypeError(f"scene: expected a leviathan.scene.Scene, got {type(scene).__name__}")
        if spec is None:
            from leviathan.catalogue import get_vehicle

            spec = get_vehicle("reference_survey_vehicle").sensor("sonar")
        if not isinstance(spec, ImagingSonarSpec):
            raise TypeError(f"spec: expected an ImagingSonarSpec, got {type(spec).__name__}")
        T_world_body = _body_pose(position_ned_m, rpy_deg)
        pose_record = {"source": "pose"}
    water = WaterSpec() if water is None else water
    if noise is not None and not isinstance(noise, SonarNoiseModel):
        raise TypeError(f"noise: expected a SonarNoiseModel or None, got {type(noise).__name__}")
    cap = check_integer("max_ray_count", max_ray_count, low=1, high=MAX_SONAR_RAY_COUNT)
    if saturation_ceiling_db is not None and not (
        isinstance(saturation_ceiling_db, int | float) and -400.0 <= saturation_ceiling_db <= 400.0
    ):
        raise ValueError(
            "saturation_ceiling_db: expected a level from -400 to 400 dB re 1, got "
            f"{saturation_ceiling_db!r}"
        )
    for name, value, top in (
        ("bandwidth_hz", bandwidth_hz, math.inf),
        ("beamwidth_3db_deg", beamwidth_3db_deg, 180.0),
    ):
        if value is not None and not (
            isinstance(value, int | float) and 0.0 < value <= top and math.isfinite(value)
        ):
            raise ValueError(f"{name}: expected a finite value > 0 (at most {top}), got {value!r}")
    T_world_sensor = sensor_pose(T_world_body, spec.mount.transform())
    roll, pitch, yaw = euler_from_rotation(T_world_body.rotation)
    pose_record |= {
        "position_ned_m": [float(v) for v in T_world_body.translation],
        "rpy_deg": [math.degrees(a) for a in (roll, pitch, yaw)],
        "sensor_position_ned_m": [float(v) for v in T_world_sensor.translation],
    }
    trace = {"backend": backend, "device": device}

    sampling = _elevation_sampling(
        scene,
        spec,
        T_world_sensor,
        water=water,
        plane_distance_m=plane_distance_m,
        elevation_sample_count=elevation_sample_count,
        bin_fraction=bin_fraction,
        cap=cap,
        trace=trace,
    )
    dense = _with(spec, elevation_sample_count=sampling["elevation_sample_count"])
    frame = render(
        scene,
        dense,
        T_world_sensor,
        sensor_id=f"analytic/{spec.name}",
        sample_index=0,
        time_ns=0,
        water=water,
        **trace,
    )
    clean = np.asarray(frame.channels["linear_return"], dtype=np.float64)
    record = None
    if noise is not None:
        generator, record = sensor_generator(f"analytic/{spec.name}", seed)
        intensity = np.array(apply_sonar_noise(clean, noise, generator))
    else:
        intensity = np.array(clean)
    ceiling_db = saturation_ceiling_db
    saturated = np.zeros(intensity.shape, dtype=bool)
    if ceiling_db is not None:
        ceiling = 10.0 ** (float(ceiling_db) / 10.0)
        with np.errstate(invalid="ignore"):
            saturated = intensity >= ceiling
        intensity[saturated] = ceiling
    with np.errstate(divide="ignore", invalid="ignore"):
        level_db = 10.0 * np.log10(intensity)
    edges = np.asarray(frame.metadata["range_bin_edges_m"], dtype=np.float64)
    bearing = np.asarray(frame.metadata["bearing_rad"], dtype=np.float64)
    fan = fan_raster(
        bearing,
        azimuth_fov_rad=math.radians(spec.azimuth_fov_deg),
        range_min_m=spec.range_min_m,
        range_max_m=spec.range_max_m,
        range_bin_count=level_db.shape[0],
        width_px=check_integer("fan_width_px", fan_width_px, low=16, high=4096),
    )
    report = build_report(
        spec=dense,
        intensity=intensity,
        saturated=saturated,
        saturation_ceiling_db=ceiling_db,
        bearing_rad=bearing,
        range_bin_edges_m=edges,
        water=water,
        sensor_depth_m=float(T_world_sensor.translation[2]),
        sampling=sampling,
        noise=noise,
        generator=record,
        bandwidth_hz=bandwidth_hz,
        beamwidth_3db_deg=beamwidth_3db_deg,
        pose=pose_record,
        trace=trace,
    )
    return SonarImage(
        tier="analytic",
        intensity=frozen_array(intensity),
        level_db=frozen_array(level_db),
        sample_count=frozen_array(np.asarray(frame.channels["sample_count"])),
        bearing_rad=frozen_array(bearing),
        range_bin_edges_m=frozen_array(edges),
        fan_level_db=frozen_array(fan.cells(level_db, np.nan)),
        fan_inside=frozen_array(fan.inside),
        fan_extent_m=fan.extent_m,
        report=report,
        frame=frame,
        generator=record,
    )


def _body_pose(position_ned_m: Any, rpy_deg: Any) -> Transform:
    p = np.asarray(position_ned_m, dtype=np.float64)
    a = np.asarray(rpy_deg, dtype=np.float64)
    if p.shape != (3,) or not np.isfinite(p).all():
        raise ValueError(
            "position_ned_m: expected 3 finite numbers (north, east, down) [m], got "
            f"{position_ned_m!r}"
        )
    if a.shape != (3,) or not np.isfinite(a).all():
        raise ValueError(
            f"rpy_deg: expected 3 finite numbers (roll, pitch, yaw) [deg], got {rpy_deg!r}"
        )
    r, q, y = (math.radians(float(v)) for v in a)
    return Transform.from_euler(r, q, y, translation=tuple(float(v) for v in p))


def _with(spec: ImagingSonarSpec, *, elevation_sample_count: int) -> ImagingSonarSpec:
    """The spec with another elevation count and without keyed speckle, validated."""
    data = spec.model_dump()
    data.update(elevation_sample_count=elevation_sample_count, speckle=False)
    return ImagingSonarSpec.model_validate(data)


def _elevation_sampling(
    scene: Scene,
    spec: ImagingSonarSpec,
    T_world_sensor: Transform,
    *,
    water: WaterSpec,
    plane_distance_m: float | None,
    elevation_sample_count: int | None,
    bin_fraction: float,
    cap: int,
    trace: dict[str, Any],
) -> dict[str, Any]:
    """Choose the elevation count by the fill rule; returns what was chosen and why."""
    B = spec.bearing_count
    limit = max(1, cap // B)
    out: dict[str, Any] = {
        "bin_fraction": float(bin_fraction),
        "max_ray_count": cap,
        "spec_elevation_sample_count": spec.elevation_sample_count,
        "plane_distance_m": None,
        "plane_distance_source": None,
        "rule_elevation_sample_count": None,
        "capped": False,
    }
    if elevation_sample_count is not None:
        if isinstance(elevation_sample_count, bool) or not isinstance(elevation_sample_count, int):
            raise TypeError("elevation_sample_count: expected an int or None")
        if not 1 <= elevation_sample_count * B <= MAX_SONAR_RAY_COUNT:
            raise ValueError(
                f"elevation_sample_count: {elevation_sample_count} x {B} bearings must give 1 "
                f"to {MAX_SONAR_RAY_COUNT:,} rays"
            )
        out |= {"elevation_sample_count": elevation_sample_count, "choice": "given"}
        return out
    if plane_distance_m is None:
        coarse = render(
            scene,
            _with(spec, elevation_sample_count=_COARSE_ELEVATIONS),
            T_world_sensor,
            sensor_id=f"analytic/{spec.name}",
            sample_index=0,
            time_ns=0,
            water=water,
            sampling_warnings=False,  # coarse on purpose: only to find the plane
            **trace,
        )
        plane = fill_plane_distance(coarse.channels)
        if plane is None:
            out |= {
                "elevation_sample_count": spec.elevation_sample_count,
                "choice": "spec: no surface in the window in a coarse ping of "
                f"{_COARSE_ELEVATIONS} elevations, so the rule has no plane to fill",
            }
            return out
        h, _, cells = plane
        source = (
            f"min R cos(theta) over the cells of the instance holding most hit cells "
            f"({cells}) in a coarse ping of {_COARSE_ELEVATIONS} elevations"
        )
    else:
        h = float(plane_distance_m)
        source = "given"
    # A surface seen edge-on has h near 0; the rule's count then only the cap limits.
    h = max(h, 1e-6)
    wanted = elevation_samples_for_fill(spec, plane_distance_m=h, bin_fraction=bin_fraction)
    chosen = min(max(wanted, spec.elevation_sample_count), limit)
    out |= {
        "plane_distance_m": h,
        "plane_distance_source": source,
        "rule_elevation_sample_count": wanted,
        "elevation_sample_count": chosen,
        "capped": wanted > limit,
        "choice": "fill rule" if wanted <= limit else f"fill rule capped at {cap:,} rays",
    }
    return out
