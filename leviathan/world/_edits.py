"""Editing a live World: current, controllers, tick length, vehicle documents and sensors.

Each edit is validated fully before anything changes, then committed inside a
transaction and appended to the edit log (which the snapshot does not hash,
but which a World's history is replayed from). The functions take the World's
:class:`~leviathan.world._state.WorldState`; :class:`leviathan.world.World`
documents each as the method of the same name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from leviathan.controllers import Controller
from leviathan.dynamics import RigidBodyModel, VehicleState
from leviathan.identity import content_hash
from leviathan.specs import SensorSpec, VehicleSpec, WaterSpec
from leviathan.world._environment import Environment
from leviathan.world._errors import ThrusterFaultRefusedError
from leviathan.world._hulls import check_hulls
from leviathan.world._state import WorldState, live_vehicle
from leviathan.world._transactions import transaction
from leviathan.world._vehicles import (
    LiveVehicle,
    check_controller_fits,
    check_sensors_in_water,
    tick_length_ns,
)

__all__ = ["edit", "refuse_thruster_fault", "set_controller", "set_current", "set_step"]


def set_current(
    state: WorldState,
    current_ned_m_per_s: Sequence[float] | None = None,
    *,
    profile: Sequence[Any] | None = None,
) -> None:
    """Sets a uniform current or a current profile: :meth:`~leviathan.world.World.set_current`."""
    water = state.environment.water
    if profile is not None:
        if current_ned_m_per_s is not None:
            raise ValueError(
                "current_ned_m_per_s/profile: give a uniform current or a profile, not both"
            )
        water = water.model_copy(update={"current_ned_m_per_s": (0.0, 0.0, 0.0)})
        water = WaterSpec.model_validate({**water.model_dump(), "current_profile": list(profile)})
    else:
        if current_ned_m_per_s is None:
            raise ValueError("current_ned_m_per_s: give a 3-vector [m/s] or profile=...")
        if isinstance(current_ned_m_per_s, str | bytes):
            raise TypeError(
                f"current_ned_m_per_s: expected 3 numbers [m/s], got {current_ned_m_per_s!r}"
            )
        water = WaterSpec.model_validate(
            {
                **water.model_dump(),
                "current_ned_m_per_s": tuple(current_ned_m_per_s),
                "current_profile": (),
            }
        )
    environment = state.environment.with_water(water)
    with transaction(state):
        state.environment = environment
        state.edits.append(
            {"tick": state.clock.tick, "edit": "current", "water": water.model_dump(mode="json")}
        )


def set_controller(state: WorldState, vehicle: str, controller: Controller) -> None:
    """Replaces a vehicle's controller: :meth:`~leviathan.world.World.set_controller`."""
    v = live_vehicle(state, vehicle)
    initial = check_controller_fits(
        "controller",
        controller,
        v.model,
        v.state,
        time_ns=state.clock.time_ns,
        dt_ns=state.clock.step_ns,
    )
    with transaction(state):
        _commit_controller(state, v, controller, initial)


def _commit_controller(
    state: WorldState, v: LiveVehicle, controller: Controller, initial: dict
) -> None:
    v.controller = controller
    v.controller_state = initial
    state.edits.append(
        {
            "tick": state.clock.tick,
            "edit": "controller",
            "vehicle": v.name,
            "controller": content_hash(controller),
        }
    )


def set_step(state: WorldState, step: int | str | float) -> None:
    """Changes the tick length from this tick on: :meth:`~leviathan.world.World.set_step`."""
    step_ns = tick_length_ns("step", step)
    for v in state.vehicles.values():
        check_controller_fits(
            f"vehicle {v.name!r} controller",
            v.controller,
            v.model,
            v.state,
            time_ns=state.clock.time_ns,
            dt_ns=step_ns,
        )
    with transaction(state):
        state.clock.set_step(step_ns)


def edit(
    state: WorldState,
    *,
    vehicle: str | None,
    spec: VehicleSpec | None,
    sensors: Sequence[SensorSpec] | None,
    controller: Controller | None,
    environment: Environment | None,
) -> None:
    """Replaces a document, sensors, controller or scene: :meth:`~leviathan.world.World.edit`."""
    if environment is not None and not isinstance(environment, Environment):
        raise TypeError(f"environment: expected an Environment, got {type(environment).__name__}")
    if vehicle is None:
        if spec is not None or sensors is not None or controller is not None:
            raise ValueError(
                "vehicle: name the vehicle whose spec, sensors or controller you replace"
            )
        if environment is None:
            raise ValueError(
                "edit: nothing to change; give environment, or a vehicle and "
                "its spec, sensors or controller"
            )
        check_hulls({n: other.spec for n, other in state.vehicles.items()}, environment)
        _check_sensors(state, {}, environment)
        with transaction(state):
            _commit_environment(state, environment)
        return
    v = live_vehicle(state, vehicle)
    if spec is not None and not isinstance(spec, VehicleSpec):
        raise TypeError(f"spec: expected a VehicleSpec, got {type(spec).__name__}")
    if spec is None and sensors is None and controller is None and environment is None:
        raise ValueError(f"edit: nothing to change for vehicle {vehicle!r}")
    new_spec = spec
    if sensors is not None:
        if isinstance(sensors, str | bytes) or not isinstance(sensors, Sequence):
            raise TypeError(f"sensors: expected a sequence of sensor specs, got {sensors!r}")
        new_spec = (spec or v.spec).model_copy(update={"sensors": tuple(sensors)})
        new_spec = VehicleSpec.model_validate(new_spec.model_dump())
    kept, model = v.state, v.model
    if new_spec is not None:
        thrust = (
            kept.thrust_n
            if len(new_spec.thrusters) == kept.thrust_n.shape[0]
            else np.zeros(len(new_spec.thrusters))
        )
        kept = VehicleState(
            position_ned_m=kept.position_ned_m,
            attitude_q=kept.attitude_q,
            velocity_body=kept.velocity_body,
            thrust_n=thrust,
        )
        model = RigidBodyModel.from_spec(new_spec)
    new_controller = v.controller if controller is None else controller
    initial = check_controller_fits(
        "controller" if controller is not None else f"vehicle {vehicle!r} controller",
        new_controller,
        model,
        kept,
        time_ns=state.clock.time_ns,
        dt_ns=state.clock.step_ns,
    )
    specs = {n: other.spec for n, other in state.vehicles.items()}
    if new_spec is not None:
        specs[vehicle] = new_spec
    check_hulls(specs, state.environment if environment is None else environment)
    _check_sensors(state, {} if new_spec is None else {vehicle: new_spec}, environment)
    with transaction(state):
        if environment is not None:
            _commit_environment(state, environment)
        if new_spec is not None:
            v.state = kept
            v.setup = replace(v.setup, spec=new_spec)
            v.model = model
            v.command_n = np.zeros(len(new_spec.thrusters), dtype=np.float64)
            state.edits.append(
                {
                    "tick": state.clock.tick,
                    "edit": "spec",
                    "vehicle": vehicle,
                    "spec": content_hash(new_spec),
                }
            )
        if controller is not None:
            _commit_controller(state, v, controller, initial)


def _check_sensors(
    state: WorldState, new_specs: dict[str, VehicleSpec], environment: Environment | None
) -> None:
    """Every vehicle's sensors (with ``new_specs`` in place) in the water after the edit,
    at the vehicles' committed poses."""
    water = (state.environment if environment is None else environment).water
    check_sensors_in_water(
        {
            n: (new_specs.get(n, other.spec), other.state.T_world_body)
            for n, other in state.vehicles.items()
        },
        water,
    )


def _commit_environment(state: WorldState, environment: Environment) -> None:
    state.environment = environment
    state.edits.append(
        {"tick": state.clock.tick, "edit": "environment", "hash": environment.content_hash}
    )


def refuse_thruster_fault(vehicle: str, thruster: str) -> None:
    """Always refused: thruster faults belong to analytic scenario runs, not live Worlds."""
    raise ThrusterFaultRefusedError(
        f"thruster fault on {vehicle!r}/{thruster!r} refused: thruster faults are not "
        "available on a live World; they belong to analytic scenario runs"
    )
