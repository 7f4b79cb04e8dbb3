"""Editing a live World: current, controllers, tick length, vehicle documents and sensors.

Each edit is validated fully before anything changes, then committed inside a
transaction and appended to the edit log (which the snapshot does not hash,
but which a World's history is replayed from).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from leviathan.world._transactions import Transactional
from leviathan.world._vehicles import LiveVehicle, check_controller_fits, tick_length_ns

__all__ = ["WorldEdits"]


class WorldEdits(Transactional):
    """The editing operations of a World (mixed into :class:`~leviathan.world.World`)."""

    # Provided by World.
    tick: int
    time_ns: int
    _vehicle: Callable[[str], LiveVehicle]

    def set_current(
        self,
        current_ned_m_per_s: Sequence[float] | None = None,
        *,
        profile: Sequence[Any] | None = None,
    ) -> None:
        """Sets a uniform NED current [m/s] or a depth profile of ``CurrentLayer``s."""
        water = self.environment.water
        if profile is not None:
            if current_ned_m_per_s is not None:
                raise ValueError(
                    "current_ned_m_per_s/profile: give a uniform current or a profile, not both"
                )
            water = water.model_copy(update={"current_ned_m_per_s": (0.0, 0.0, 0.0)})
            water = WaterSpec.model_validate(
                {**water.model_dump(), "current_profile": list(profile)}
            )
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
        environment = self.environment.with_water(water)
        with self._transaction():
            self.environment = environment
            self._edits.append(
                {"tick": self.tick, "edit": "current", "water": water.model_dump(mode="json")}
            )

    def set_controller(self, vehicle: str, controller: Controller) -> None:
        """Replaces a vehicle's controller (its state starts fresh).

        Raises:
            KeyError: If there is no such vehicle.
            TypeError, ValueError: If the controller does not fit the vehicle (see
                :meth:`create`); the World is unchanged.
        """
        v = self._vehicle(vehicle)
        initial = check_controller_fits(
            "controller",
            controller,
            v.model,
            v.state,
            time_ns=self.time_ns,
            dt_ns=self.clock.step_ns,
        )
        with self._transaction():
            self._commit_controller(v, controller, initial)

    def _commit_controller(self, v: LiveVehicle, controller: Controller, initial: dict) -> None:
        v.controller = controller
        v.controller_state = initial
        self._edits.append(
            {
                "tick": self.tick,
                "edit": "controller",
                "vehicle": v.name,
                "controller": content_hash(controller),
            }
        )

    def set_step(self, step: int | str | float) -> None:
        """Changes the tick length (ns as int, or seconds); a new epoch starts at this tick.

        Raises:
            ValueError, TypeError: If the step is not a whole number of nanoseconds
                within the tick bounds, or the vehicles' controllers refuse it.
        """
        step_ns = tick_length_ns("step", step)
        for v in self._vehicles.values():
            check_controller_fits(
                f"vehicle {v.name!r} controller",
                v.controller,
                v.model,
                v.state,
                time_ns=self.time_ns,
                dt_ns=step_ns,
            )
        with self._transaction():
            self.clock.set_step(step_ns)

    def edit(
        self,
        *,
        vehicle: str | None = None,
        spec: VehicleSpec | None = None,
        sensors: Sequence[SensorSpec] | None = None,
        controller: Controller | None = None,
        environment: Environment | None = None,
    ) -> None:
        """Replaces a vehicle's document or sensors, its controller, or the environment.

        The vehicle keeps its current pose and velocity; if the new document has a
        different thruster count, thruster states restart at zero. Everything is
        validated before anything is changed: the (new or kept) controller must fit
        the (new or kept) document, or the whole edit is refused.
        """
        if environment is not None and not isinstance(environment, Environment):
            raise TypeError(
                f"environment: expected an Environment, got {type(environment).__name__}"
            )
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
            check_hulls({n: self.vehicle_spec(n) for n in self.vehicle_names}, environment)
            with self._transaction():
                self._commit_environment(environment)
            return
        v = self._vehicle(vehicle)
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
        state, model = v.state, v.model
        if new_spec is not None:
            thrust = (
                state.thrust_n
                if len(new_spec.thrusters) == state.thrust_n.shape[0]
                else np.zeros(len(new_spec.thrusters))
            )
            state = VehicleState(
                position_ned_m=state.position_ned_m,
                attitude_q=state.attitude_q,
                velocity_body=state.velocity_body,
                thrust_n=thrust,
            )
            model = RigidBodyModel.from_spec(new_spec)
        new_controller = v.controller if controller is None else controller
        initial = check_controller_fits(
            "controller" if controller is not None else f"vehicle {vehicle!r} controller",
            new_controller,
            model,
            state,
            time_ns=self.time_ns,
            dt_ns=self.clock.step_ns,
        )
        specs = {n: self.vehicle_spec(n) for n in self.vehicle_names}
        if new_spec is not None:
            specs[vehicle] = new_spec
        check_hulls(specs, self.environment if environment is None else environment)
        with self._transaction():
            if environment is not None:
                self._commit_environment(environment)
            if new_spec is not None:
                v.state = state
                v.setup = replace(v.setup, spec=new_spec)
                v.model = model
                v.command_n = np.zeros(len(new_spec.thrusters), dtype=np.float64)
                self._edits.append(
                    {
                        "tick": self.tick,
                        "edit": "spec",
                        "vehicle": vehicle,
                        "spec": content_hash(new_spec),
                    }
                )
            if controller is not None:
                self._commit_controller(v, controller, initial)

    def _commit_environment(self, environment: Environment) -> None:
        self.environment = environment
        self._edits.append(
            {"tick": self.tick, "edit": "environment", "hash": environment.content_hash}
        )

    def inject_thruster_fault(self, vehicle: str, thruster: str, **_: Any) -> None:
        """Always refused: thruster faults belong to analytic scenario runs, not live Worlds."""
        raise ThrusterFaultRefusedError(
            f"thruster fault on {vehicle!r}/{thruster!r} refused: thruster faults are not "
            "available on a live World; they belong to analytic scenario runs"
        )
