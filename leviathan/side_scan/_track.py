"""A side-scan's lines along a straight track over a fixed scene: :func:`render_track`.

The vehicle holds its attitude (roll, pitch, yaw) and moves along its own body x
axis at a constant speed; ping ``k`` is at the sensor schedule's instant ``t_k =
phase_ns + k * period_ns`` with the body at ``p_k = p_0 + (v * t_k [s]) * x_body``
(per component, in that order), and each line is :func:`leviathan.side_scan.render`
at that pose, exactly as a World's side-scan pings there. The scene does not move.
The ping period is checked at every ping against the two-way time ``2 R_max / c``
(:func:`leviathan.sonar.beams.check_ping_period_in_water`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from leviathan._validation import check_finite
from leviathan.frames import Transform, sensor_pose
from leviathan.scene import Scene
from leviathan.side_scan._line import SideScanLine
from leviathan.side_scan._render import render
from leviathan.sonar.beams import check_ping_period_in_water
from leviathan.specs import SideScanSonarSpec, WaterSpec

__all__ = ["MAX_TRACK_PINGS", "render_track"]

#: Most pings one :func:`render_track` call renders.
MAX_TRACK_PINGS = 4096


def _vector3(name: str, value: Sequence[float]) -> tuple[float, float, float]:
    if isinstance(value, str | bytes) or len(value) != 3:
        raise ValueError(f"{name}: expected 3 finite numbers, got {value!r}")
    x, y, z = (check_finite(f"{name}[{i}]", v) for i, v in enumerate(value))
    return x, y, z


def render_track(
    scene: Scene,
    spec: SideScanSonarSpec,
    *,
    position_ned_m: Sequence[float],
    rpy_deg: Sequence[float],
    speed_m_per_s: float,
    ping_count: int,
    water: WaterSpec | None = None,
    seed: int | None = None,
    sensor_id: str = "track/side_scan",
    backend: str = "auto",
    device: str | None = None,
) -> tuple[SideScanLine, ...]:
    """The side-scan lines of a straight track at constant attitude and speed.

    Args:
        scene: The scene (fixed for the whole track).
        spec: The side-scan; its ``schedule`` times the pings, its ``mount`` places it
            on the body.
        position_ned_m: Body position at time 0, world NED [m].
        rpy_deg: Body roll, pitch, yaw (ZYX) [deg], held along the track.
        speed_m_per_s: Speed along the body x axis [m/s], >= 0.
        ping_count: Pings, 1 to :data:`MAX_TRACK_PINGS`.
        water: The water (default :class:`~leviathan.specs.WaterSpec`).
        seed: Root seed of the keyed speckle (required when ``spec.speckle``).
        sensor_id: The lines' sensor id.
        backend, device: Tracing backend (every backend gives the same lines).

    Returns:
        The lines, oldest first (as :func:`leviathan.side_scan.display.waterfall` takes
        them); sample ``k`` is ping ``k``.

    Raises:
        TypeError, ValueError: Naming the argument; a ping period below the two-way
            time at a ping's depth names ``<sensor_id>.schedule.period_ns``.
    """
    if not isinstance(spec, SideScanSonarSpec):
        raise TypeError(f"spec: expected a SideScanSonarSpec, got {type(spec).__name__}")
    p0 = _vector3("position_ned_m", position_ned_m)
    roll, pitch, yaw = (math.radians(a) for a in _vector3("rpy_deg", rpy_deg))
    speed = check_finite("speed_m_per_s", speed_m_per_s)
    if speed < 0.0:
        raise ValueError(f"speed_m_per_s: expected a speed >= 0 m/s, got {speed_m_per_s!r}")
    if (
        isinstance(ping_count, bool)
        or not isinstance(ping_count, int)
        or not 1 <= ping_count <= MAX_TRACK_PINGS
    ):
        raise ValueError(
            f"ping_count: expected a whole number of pings in 1..{MAX_TRACK_PINGS}, "
            f"got {ping_count!r}"
        )
    water = WaterSpec() if water is None else water
    attitude = Transform.from_euler(roll, pitch, yaw)
    forward = [float(attitude.rotation[i, 0]) for i in range(3)]
    mount = spec.mount.transform()
    period, phase = int(spec.schedule.period_ns), int(spec.schedule.phase_ns)
    lines = []
    for k in range(ping_count):
        time_ns = phase + k * period
        run_m = speed * (time_ns * 1e-9)
        body = Transform.from_euler(
            roll, pitch, yaw, translation=[p0[i] + run_m * forward[i] for i in range(3)]
        )
        check_ping_period_in_water(spec, water, body, sensor_id=sensor_id)
        lines.append(
            render(
                scene,
                spec,
                sensor_pose(body, mount),
                sensor_id=sensor_id,
                sample_index=k,
                time_ns=time_ns,
                seed=seed,
                water=water,
                backend=backend,
                device=device,
            )
        )
    return tuple(lines)
