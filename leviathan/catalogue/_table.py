"""The catalogue as a readable table: :func:`format_catalogue`."""

from __future__ import annotations

from typing import Any

from leviathan.catalogue._vehicles import _build
from leviathan.sensors import sensor_declarations
from leviathan.specs import ScheduleSpec


def _format_rate(schedule: ScheduleSpec) -> str:
    return f"{schedule.rate_hz:g} Hz"


def _hardware_summary(sensor: Any) -> str:
    """The key hardware values, as the sensor's kind summarises them (its ``summary``)."""
    summary = sensor_declarations(sensor.kind).summary
    return "" if summary is None else summary(sensor)


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
