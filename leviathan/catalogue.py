"""Built-in vehicle catalogue.

Three vehicles ship with LEVIATHAN:

* ``torpedo_auv`` and ``inspection_rov`` are production vehicle models. In
  this release they declare a front camera only.
* ``reference_survey_vehicle`` is a test and reference model. It declares an
  imaging sonar, a DVL and an IMU whose rates and hardware are declared test
  values, not a device specification.

Mass properties are plausible round numbers derived from simple hull shapes
(cylinder, box), not measurements of any real vehicle. Frames: body FRD with
its origin at the centre of gravity; mount angles are roll, pitch, yaw [deg]
in ZYX order. In FRD a positive pitch raises the x axis (nose up), so a
sensor tilted down has a negative pitch.
"""

from __future__ import annotations

import functools
import math

from leviathan.specs import (
    BeamPatternSpec,
    CameraSpec,
    DVLSpec,
    ImagingSonarSpec,
    IMUSpec,
    MassPropertiesSpec,
    MountSpec,
    ScheduleSpec,
    ThrusterSpec,
    VehicleSpec,
)

__all__ = ["catalogue", "format_catalogue", "get_vehicle", "vehicle_names"]

_NOMINAL_NOTE = "nominal simulation value for a generic device, not a device specification"
_TEST_NOTE = "declared test value, not a device specification"
_REFERENCE_NOTE = (
    "Test and reference model: its sensor rates and hardware are declared test values, "
    "not a device specification, and its mass properties are not those of a real vehicle."
)
# Seawater density used only to size the hulls below [kg/m³].
_RHO_SEAWATER_KG_M3 = 1025.0
_SQRT_HALF = math.sqrt(0.5)


def _cylinder_inertia(mass_kg: float, radius_m: float, length_m: float) -> tuple[float, ...]:
    """Principal inertia of a solid cylinder along body x [kg m²]."""
    axial = 0.5 * mass_kg * radius_m**2
    transverse = mass_kg * (3.0 * radius_m**2 + length_m**2) / 12.0
    return (round(axial, 4), round(transverse, 4), round(transverse, 4))


def _front_camera(*, x_m: float, rate_hz: float) -> CameraSpec:
    """A forward-looking 1280x720 camera with a 90° horizontal field of view."""
    width_px, height_px = 1280, 720
    # fx = (W / 2) / tan(HFOV / 2) with HFOV = 90°; square pixels.
    focal_px = 640.0
    return CameraSpec(
        name="front_camera",
        width_px=width_px,
        height_px=height_px,
        fx_px=focal_px,
        fy_px=focal_px,
        # Principal point at the image centre in the pixel-centre convention.
        cx_px=(width_px - 1) / 2.0,
        cy_px=(height_px - 1) / 2.0,
        near_m=0.05,
        far_m=50.0,
        schedule=ScheduleSpec.from_rate_hz(rate_hz),
        mount=MountSpec(translation_m=(x_m, 0.0, 0.0)),
        hardware_note=_NOMINAL_NOTE,
    )


def _tunnel_thrusters(
    *, bow_x_m: float, stern_x_m: float, max_thrust_n: float
) -> tuple[ThrusterSpec, ...]:
    """Bow and stern tunnel thrusters, vertical and lateral (heave/pitch, sway/yaw)."""
    thrusters = []
    for station, x_m in (("bow", bow_x_m), ("stern", stern_x_m)):
        for axis, direction in (("vertical", (0.0, 0.0, 1.0)), ("lateral", (0.0, 1.0, 0.0))):
            thrusters.append(
                ThrusterSpec(
                    name=f"{station}_{axis}",
                    position_m=(x_m, 0.0, 0.0),
                    direction=direction,
                    max_thrust_n=max_thrust_n,
                    min_thrust_n=-max_thrust_n,
                    time_constant_s=0.1,
                )
            )
    return tuple(thrusters)


def _torpedo_auv() -> VehicleSpec:
    # 1.6 m x 0.153 m cylinder, 30 kg, about 1 % positively buoyant.
    length_m, radius_m, mass_kg = 1.6, 0.0765, 30.0
    return VehicleSpec(
        name="torpedo_auv",
        description="Survey AUV, 1.6 m torpedo hull, stern thruster plus tunnel thrusters",
        role="production",
        mass=MassPropertiesSpec(
            mass_kg=mass_kg,
            inertia_kg_m2=_cylinder_inertia(mass_kg, radius_m, length_m),
            cb_m=(0.0, 0.0, -0.01),
            displaced_volume_m3=0.0296,
            added_mass=(3.0, 30.0, 30.0, 0.0, 6.3, 6.3),
            linear_damping=(5.0, 30.0, 30.0, 0.5, 8.0, 8.0),
            quadratic_damping=(4.0, 60.0, 60.0, 0.1, 10.0, 10.0),
        ),
        thrusters=(
            ThrusterSpec(
                name="stern",
                position_m=(-0.8, 0.0, 0.0),
                direction=(1.0, 0.0, 0.0),
                max_thrust_n=40.0,
                min_thrust_n=-20.0,
                time_constant_s=0.15,
            ),
            *_tunnel_thrusters(bow_x_m=0.55, stern_x_m=-0.55, max_thrust_n=8.0),
        ),
        sensors=(_front_camera(x_m=0.78, rate_hz=10),),
    )


def _inspection_rov() -> VehicleSpec:
    # 0.45 x 0.34 x 0.25 m box, 12 kg, slightly positively buoyant.
    mass_kg = 12.0
    length_m, width_m, height_m = 0.45, 0.34, 0.25

    def box_moment(a_m: float, b_m: float) -> float:
        return round(mass_kg * (a_m**2 + b_m**2) / 12.0, 4)

    # Vectored layout: four horizontal thrusters at ±45° give surge, sway and
    # yaw independently; two vertical ones at ±y give heave and roll.
    horizontal = (
        ("front_right", (0.15, 0.1, 0.0), (_SQRT_HALF, -_SQRT_HALF, 0.0)),
        ("front_left", (0.15, -0.1, 0.0), (_SQRT_HALF, _SQRT_HALF, 0.0)),
        ("rear_right", (-0.15, 0.1, 0.0), (_SQRT_HALF, _SQRT_HALF, 0.0)),
        ("rear_left", (-0.15, -0.1, 0.0), (_SQRT_HALF, -_SQRT_HALF, 0.0)),
    )
    vertical = (
        ("vertical_right", (0.0, 0.11, 0.0), (0.0, 0.0, 1.0)),
        ("vertical_left", (0.0, -0.11, 0.0), (0.0, 0.0, 1.0)),
    )
    thrusters = tuple(
        ThrusterSpec(
            name=name,
            position_m=position,
            direction=direction,
            max_thrust_n=20.0,
            min_thrust_n=-15.0,
            time_constant_s=0.05,
        )
        for name, position, direction in horizontal + vertical
    )
    return VehicleSpec(
        name="inspection_rov",
        description="Small inspection ROV, 12 kg, vectored 6-thruster layout",
        role="production",
        mass=MassPropertiesSpec(
            mass_kg=mass_kg,
            inertia_kg_m2=(
                box_moment(width_m, height_m),
                box_moment(length_m, height_m),
                box_moment(length_m, width_m),
            ),
            cb_m=(0.0, 0.0, -0.02),
            displaced_volume_m3=0.0118,
            added_mass=(6.0, 8.0, 12.0, 0.1, 0.15, 0.12),
            linear_damping=(4.0, 6.0, 8.0, 0.3, 0.4, 0.3),
            quadratic_damping=(18.0, 22.0, 30.0, 0.2, 0.3, 0.25),
        ),
        thrusters=thrusters,
        sensors=(_front_camera(x_m=0.2, rate_hz=25),),
    )


def _reference_survey_vehicle() -> VehicleSpec:
    # 1.8 m x 0.176 m cylinder, 45 kg, about 0.2 % positively buoyant.
    length_m, radius_m, mass_kg = 1.8, 0.088, 45.0
    sonar = ImagingSonarSpec(
        name="sonar",
        frequency_hz=900_000.0,
        azimuth_fov_deg=90.0,
        elevation_aperture_deg=20.0,
        bearing_count=256,
        elevation_sample_count=64,
        range_min_m=0.5,
        range_max_m=60.0,
        range_bin_count=512,
        # One-way intensity pattern over the whole fan, relative to the
        # boresight: the -3 dB full widths equal the fan's extent, so the fan
        # edges sit at half power.
        beam_pattern=BeamPatternSpec(
            kind="gaussian",
            azimuth_3db_full_width_deg=90.0,
            elevation_3db_full_width_deg=20.0,
        ),
        top_k=4,
        speckle=False,
        schedule=ScheduleSpec.from_rate_hz(5),
        # At the bow, below the centreline, tilted 15° down: negative pitch
        # because positive pitch raises x in FRD/ZYX.
        mount=MountSpec(translation_m=(0.85, 0.0, 0.06), rpy_deg=(0.0, -15.0, 0.0)),
        hardware_note=_TEST_NOTE,
    )
    dvl = DVLSpec(
        name="dvl",
        beam_count=4,
        beam_angle_deg=30.0,
        min_range_m=0.3,
        max_range_m=80.0,
        velocity_noise_std_m_per_s=0.002,
        schedule=ScheduleSpec.from_rate_hz(10),
        # Under the hull looking down: pitch -90° turns the DVL boresight
        # (sensor +x) onto body +z.
        mount=MountSpec(translation_m=(-0.2, 0.0, 0.09), rpy_deg=(0.0, -90.0, 0.0)),
        hardware_note=_TEST_NOTE,
    )
    imu = IMUSpec(
        name="imu",
        accel_noise_std_m_per_s2=0.01,
        gyro_noise_std_rad_per_s=0.0005,
        schedule=ScheduleSpec.from_rate_hz(100),
        mount=MountSpec(translation_m=(0.0, 0.0, 0.0)),
        hardware_note=_TEST_NOTE,
    )
    return VehicleSpec(
        name="reference_survey_vehicle",
        description=(
            "Test and reference survey vehicle: 1.8 m hull with imaging sonar, DVL and IMU"
        ),
        role="test_reference",
        reference_note=_REFERENCE_NOTE,
        mass=MassPropertiesSpec(
            mass_kg=mass_kg,
            inertia_kg_m2=_cylinder_inertia(mass_kg, radius_m, length_m),
            cb_m=(0.0, 0.0, -0.01),
            displaced_volume_m3=0.0440,
            added_mass=(4.5, 45.0, 45.0, 0.0, 11.0, 11.0),
            linear_damping=(6.0, 40.0, 40.0, 0.6, 12.0, 12.0),
            quadratic_damping=(5.0, 80.0, 80.0, 0.1, 15.0, 15.0),
        ),
        thrusters=(
            ThrusterSpec(
                name="stern",
                position_m=(-0.9, 0.0, 0.0),
                direction=(1.0, 0.0, 0.0),
                max_thrust_n=50.0,
                min_thrust_n=-25.0,
                time_constant_s=0.15,
            ),
            *_tunnel_thrusters(bow_x_m=0.6, stern_x_m=-0.6, max_thrust_n=10.0),
        ),
        sensors=(sonar, dvl, imu),
    )


@functools.cache
def _build() -> dict[str, VehicleSpec]:
    vehicles = (_torpedo_auv(), _inspection_rov(), _reference_survey_vehicle())
    return {vehicle.name: vehicle for vehicle in sorted(vehicles, key=lambda v: v.name)}


def vehicle_names() -> tuple[str, ...]:
    """Return the names of the built-in vehicles, sorted."""
    return tuple(_build())


def get_vehicle(name: str) -> VehicleSpec:
    """Return a built-in vehicle spec by name.

    Raises:
        KeyError: If there is no such vehicle; the message lists the available names.
    """
    vehicles = _build()
    if name not in vehicles:
        raise KeyError(f"no vehicle {name!r} in the catalogue; available: {', '.join(vehicles)}")
    return vehicles[name]


def catalogue() -> dict[str, VehicleSpec]:
    """Return every built-in vehicle, keyed by name in sorted order (a new dict each call)."""
    return dict(_build())


def _format_rate(schedule: ScheduleSpec) -> str:
    return f"{schedule.rate_hz:g} Hz"


def _format_frequency(frequency_hz: float) -> str:
    if frequency_hz >= 1e3:
        return f"{frequency_hz / 1e3:g} kHz"
    return f"{frequency_hz:g} Hz"


def _hardware_summary(sensor: ImagingSonarSpec | DVLSpec | IMUSpec | CameraSpec) -> str:
    if isinstance(sensor, ImagingSonarSpec):
        beam = sensor.beam_pattern.kind
        return (
            f"{_format_frequency(sensor.frequency_hz)}, {sensor.azimuth_fov_deg:g}° azimuth FOV, "
            f"{sensor.elevation_aperture_deg:g}° elevation aperture, {beam} beam, "
            f"{sensor.range_min_m:g}–{sensor.range_max_m:g} m, "
            f"{sensor.bearing_count} bearings × {sensor.range_bin_count} range bins"
        )
    if isinstance(sensor, DVLSpec):
        return (
            f"{sensor.beam_count} beams at {sensor.beam_angle_deg:g}°, "
            f"{sensor.min_range_m:g}–{sensor.max_range_m:g} m"
        )
    if isinstance(sensor, IMUSpec):
        return (
            f"accel noise {sensor.accel_noise_std_m_per_s2:g} m/s², "
            f"gyro noise {sensor.gyro_noise_std_rad_per_s:g} rad/s"
        )
    return (
        f"{sensor.width_px}×{sensor.height_px} px, fx {sensor.fx_px:g} px, "
        f"{sensor.near_m:g}–{sensor.far_m:g} m"
    )


def format_catalogue() -> str:
    """Return a readable table of every vehicle and its sensors.

    Each vehicle line gives its name, role, mass and thruster count; each
    sensor line its kind, name, rate and key hardware values. Test and
    reference vehicles and their sensors are marked ``[TEST/REFERENCE]``.
    """
    vehicles = _build()
    lines = [f"LEVIATHAN vehicle catalogue ({len(vehicles)} vehicles)", ""]
    for vehicle in vehicles.values():
        is_reference = vehicle.role == "test_reference"
        marker = "  [TEST/REFERENCE]" if is_reference else ""
        lines.append(
            f"{vehicle.name}  role={vehicle.role}  mass={vehicle.mass.mass_kg:g} kg  "
            f"thrusters={len(vehicle.thrusters)}{marker}"
        )
        lines.append(f"  {vehicle.description}")
        if is_reference:
            lines.append(f"  note: {vehicle.reference_note}")
        rows = [
            (
                sensor.kind,
                sensor.name,
                _format_rate(sensor.schedule),
                _hardware_summary(sensor) + (" [test value]" if is_reference else ""),
            )
            for sensor in sorted(vehicle.sensors, key=lambda s: s.name)
        ]
        header = ("kind", "sensor", "rate", "hardware")
        widths = [max(len(row[i]) for row in (header, *rows)) for i in range(3)]
        for row in (header, *rows):
            cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
            lines.append("    " + "  ".join([*cells, row[3]]).rstrip())
        lines.append("")
    lines.append(
        "[TEST/REFERENCE]: declared test values for testing and reference, "
        "not a device specification."
    )
    return "\n".join(lines)
