"""Read-only questions about a World's committed state: kinematics, sensor ids, a summary."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from leviathan.dynamics import accelerations
from leviathan.sensors import BodyKinematics
from leviathan.world._errors import WorldDivergedError
from leviathan.world._state import WorldState, live_vehicle

__all__ = ["body_kinematics", "sensor_ids", "summary"]


def sensor_ids(state: WorldState) -> tuple[str, ...]:
    """Every sensor id (``vehicle/sensor``) of the World, sorted."""
    return tuple(
        sorted(f"{v.name}/{s.name}" for v in state.vehicles.values() for s in v.spec.sensors)
    )


def body_kinematics(state: WorldState, vehicle: str) -> BodyKinematics:
    """Committed kinematics of ``vehicle``, with its accelerations under its last command.

    See :meth:`leviathan.world.World.body_kinematics`.
    """
    v = live_vehicle(state, vehicle)
    committed = v.state
    acc = accelerations(v.model, committed, v.command_n, state.environment.current_ned)
    for name in ("linear_acceleration_body", "angular_acceleration_body"):
        values = np.asarray(acc[name]).tolist()
        if not all(math.isfinite(x) for x in values):
            # A finite but run-away state (velocities near the float range) whose
            # accelerations overflow: the dynamics have diverged, as in the step itself.
            raise WorldDivergedError(
                f"vehicle {vehicle!r}: its dynamics diverged at tick {state.clock.tick} "
                f"({name} = {values}); the step is refused and the World stays as it was "
                "before it. Start the vehicle from a plausible state (velocity_body) or give "
                "it a gentler controller"
            )
    return BodyKinematics.of_state(committed, acc)


def norm3(v: Sequence[float]) -> float:
    """Euclidean norm of a 3-vector, ``sqrt((x² + y²) + z²)`` in this order."""
    x, y, z = v
    return math.sqrt((x * x + y * y) + z * z)


def summary(state: WorldState) -> dict[str, Any]:
    """Committed tick, time, epochs and per-vehicle kinematics (JSON-friendly).

    See :meth:`leviathan.world.World.state`.
    """
    vehicles = {}
    for v in state.vehicles.values():
        s = v.state
        roll, pitch, yaw = s.euler_rad
        # R v written element-wise in the frames contract order (no BLAS call).
        v_world = s.T_world_body.apply_direction(s.velocity_body[:3]).tolist()
        current = state.environment.current_ned(float(s.position_ned_m[2])).tolist()
        through_water = [a - b for a, b in zip(v_world, current, strict=True)]
        vehicles[v.name] = {
            "position_ned_m": s.position_ned_m.tolist(),
            "depth_m": float(s.position_ned_m[2]),
            "roll_rad": roll,
            "pitch_rad": pitch,
            "yaw_rad": yaw,
            "heading_rad": s.heading_rad,
            "velocity_body": dict(
                zip(("u", "v", "w", "p", "q", "r"), s.velocity_body.tolist(), strict=True)
            ),
            "speed_over_ground_m_s": norm3(v_world),
            "speed_through_water_m_s": norm3(through_water),
            "thrust_n": s.thrust_n.tolist(),
        }
    return {
        "tick": state.clock.tick,
        "time_ns": state.clock.time_ns,
        "epochs": state.clock.provenance()["epochs"],
        "vehicles": vehicles,
    }
