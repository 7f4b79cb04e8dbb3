"""The catalogue as a readable table: :func:`format_catalogue`."""

from __future__ import annotations

from leviathan.catalogue._vehicles import _build
from leviathan.specs import CameraSpec, DVLSpec, ImagingSonarSpec, IMUSpec, ScheduleSpec


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
