"""The ping-period rule of the fan sonars (side-scan, multibeam) at a vehicle pose.

One ping's echoes from the far range must be back before the next ping, so a
schedule whose period is below the two-way time ``2 R_max / c`` is refused
(:func:`leviathan.sonar.beams.check_ping_period`), ``c`` the water's Mackenzie
sound speed at the sensor's depth. A World applies the rule when it is created
and when a document or its environment is edited (the kind's ``check_water``),
and the sensor again at every ping: the depth, and so ``c``, changes as the
vehicle moves.
"""

from __future__ import annotations

from typing import Any

from leviathan.frames import Transform, sensor_pose
from leviathan.sonar.beams import check_ping_period
from leviathan.specs import WaterSpec

__all__ = ["check_ping_period_at"]


def check_ping_period_at(
    spec: Any, water: WaterSpec, T_world_body: Transform, *, sensor_id: str
) -> int:
    """Refuses ``spec``'s ping period in ``water`` with its vehicle at ``T_world_body``.

    Args:
        spec: A fan sonar spec (``schedule.period_ns``, ``range_max_m``, ``mount``).
        water: The World's water (temperature, salinity).
        T_world_body: The carrying vehicle's pose; the sensor's depth (NED z of its
            mount, clamped at the surface) selects the sound speed.
        sensor_id: ``"vehicle/sensor"``, named in the error.

    Returns:
        The minimum period [ns] there.

    Raises:
        ValueError: Naming ``<sensor_id>.schedule.period_ns``, the period, the
            minimum and the sound speed, when the period is shorter.
    """
    pose = sensor_pose(T_world_body, spec.mount.transform())
    return check_ping_period(
        spec.schedule.period_ns,
        spec.range_max_m,
        temperature_c=water.temperature_c,
        salinity_psu=water.salinity_psu,
        depth_m=max(0.0, float(pose.translation[2])),
        field=f"{sensor_id}.schedule.period_ns",
    )
