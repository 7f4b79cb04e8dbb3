"""Thruster faults of analytic scenario runs (not canonical; a live World refuses them).

A fault sits between a controller and the dynamics: the controller computes its
thruster commands from the **nominal** vehicle model (it does not know about the
fault), the fault rewrites the command of one thruster and, for some kinds,
the thruster's parameters in the model the dynamics integrates; then the
canonical :func:`leviathan.dynamics.step` runs unchanged. With no fault active
the dynamics get the nominal model object and the controller's command array
itself, so a fault-free run is the canonical arithmetic bit for bit.

Kinds, for thruster i with nominal limits ``[lo, hi]`` and commanded force ``c`` [N]:

* ``dead``: the force is zero from the effective tick on (command 0 and an
  instant response, so no spin-down tail);
* ``stuck``: the command is held at ``command_n`` (within ``[lo, hi]``);
* ``loss_of_effectiveness``: the delivered command is ``gain · clamp(c, lo, hi)``,
  ``gain`` in [0, 1];
* ``reversed``: the command is ``-c`` (then saturated to ``[lo, hi]`` by the dynamics,
  so an asymmetric thruster reverses with its own reverse limit);
* ``reduced_limit``: the limits become ``[fraction · lo, fraction · hi]``,
  ``fraction`` in (0, 1];
* ``slowed_response``: the first-order time constant becomes ``time_constant_s`` [s].

Timing: a fault declared at ``time_ns`` takes effect on the first tick ``k`` whose
start time ``k · step_ns`` is at or after it (``k = ceil(time_ns / step_ns)``): the
command held over ``[t_k, t_k+1)`` is the first faulted one. A ``clear_time_ns``
ends it the same way. At most one fault may act on a thruster at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from leviathan.dynamics import RigidBodyModel
from leviathan.specs import VehicleSpec

__all__ = [
    "FAULT_KINDS",
    "DeadFault",
    "LossOfEffectivenessFault",
    "ReducedLimitFault",
    "ResolvedFault",
    "ReversedFault",
    "SlowedResponseFault",
    "StuckFault",
    "ThrusterFault",
    "VehicleFaults",
    "effective_tick",
]


class _FaultBase(BaseModel):
    """Common fields of every thruster fault."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)

    vehicle: str = Field(min_length=1, description="Vehicle name in the scenario")
    thruster: str = Field(min_length=1, description="Thruster name on that vehicle")
    time_ns: int = Field(ge=0, description="Simulation time the fault starts [ns]")
    clear_time_ns: int | None = Field(
        default=None, description="Simulation time the fault clears [ns], > time_ns; None: never"
    )

    @model_validator(mode="after")
    def _clears_after_start(self) -> _FaultBase:
        if self.clear_time_ns is not None and not self.clear_time_ns > self.time_ns:
            raise ValueError(
                f"clear_time_ns ({self.clear_time_ns}) must be greater than time_ns "
                f"({self.time_ns}), or left out for a fault that never clears"
            )
        return self


class DeadFault(_FaultBase):
    """The thruster gives no force."""

    __content_type__ = "leviathan.analytic.DeadFault"
    kind: Literal["dead"]


class StuckFault(_FaultBase):
    """The thruster holds one command whatever the controller asks."""

    __content_type__ = "leviathan.analytic.StuckFault"
    kind: Literal["stuck"]
    command_n: float = Field(description="The held command [N], within the thruster's limits")


class LossOfEffectivenessFault(_FaultBase):
    """The thruster delivers a fraction of its (saturated) command."""

    __content_type__ = "leviathan.analytic.LossOfEffectivenessFault"
    kind: Literal["loss_of_effectiveness"]
    gain: float = Field(ge=0.0, le=1.0, description="Delivered fraction of the command [-]")


class ReversedFault(_FaultBase):
    """The thruster pushes the other way (e.g. swapped motor phases)."""

    __content_type__ = "leviathan.analytic.ReversedFault"
    kind: Literal["reversed"]


class ReducedLimitFault(_FaultBase):
    """The thruster's limits shrink (e.g. a current limit or a fouled propeller)."""

    __content_type__ = "leviathan.analytic.ReducedLimitFault"
    kind: Literal["reduced_limit"]
    fraction: float = Field(gt=0.0, le=1.0, description="Fraction of both limits kept [-]")


class SlowedResponseFault(_FaultBase):
    """The thruster responds more slowly (a larger first-order time constant)."""

    __content_type__ = "leviathan.analytic.SlowedResponseFault"
    kind: Literal["slowed_response"]
    time_constant_s: float = Field(gt=0.0, le=3600.0, description="New time constant [s]")


ThrusterFault = Annotated[
    DeadFault
    | StuckFault
    | LossOfEffectivenessFault
    | ReversedFault
    | ReducedLimitFault
    | SlowedResponseFault,
    Field(discriminator="kind"),
]
"""One thruster fault document, chosen by its ``kind``."""

FAULT_KINDS = (
    "dead",
    "stuck",
    "loss_of_effectiveness",
    "reversed",
    "reduced_limit",
    "slowed_response",
)
"""Every fault kind."""

# Kinds that change the thruster's parameters in the model the dynamics integrate.
_MODEL_KINDS = frozenset({"dead", "reduced_limit", "slowed_response"})


def effective_tick(time_ns: int, step_ns: int) -> int:
    """The first tick whose start time ``k · step_ns`` is at or after ``time_ns``."""
    return -(-int(time_ns) // int(step_ns))


class ResolvedFault:
    """A fault bound to its thruster index and its effective ticks (run bookkeeping,
    never hashed itself: its :meth:`record` goes into the manifest).

    Attributes:
        fault: The fault document.
        index: The thruster's index in the vehicle's declared order.
        start_tick: First tick whose command is faulted.
        clear_tick: First tick whose command is nominal again (``None``: never).
    """

    __slots__ = ("clear_tick", "fault", "index", "start_tick")

    def __init__(self, fault: Any, index: int, start_tick: int, clear_tick: int | None) -> None:
        self.fault = fault
        self.index = index
        self.start_tick = start_tick
        self.clear_tick = clear_tick

    def active(self, tick: int) -> bool:
        """Whether the command of ``tick`` (held over ``[t_k, t_k+1)``) is faulted."""
        return tick >= self.start_tick and (self.clear_tick is None or tick < self.clear_tick)

    def record(self, step_ns: int, tick_count: int) -> dict[str, Any]:
        """The manifest entry: the fault as declared plus its effective ticks and times."""
        start, clear = self.start_tick, self.clear_tick
        return {
            **self.fault.model_dump(mode="json"),
            "thruster_index": self.index,
            "effective_tick": start,
            "effective_time_ns": start * step_ns,
            "cleared_tick": clear,
            "cleared_time_ns": None if clear is None else clear * step_ns,
            "took_effect_in_run": start < tick_count,
            "rule": "effective on the first tick k with k * step_ns >= time_ns",
        }


class VehicleFaults:
    """The faults of one vehicle and how they rewrite its commands and model.

    Args:
        spec: The vehicle document (thruster names, limits, time constants).
        nominal: ``RigidBodyModel.from_spec(spec)``: what the controller sees and
            what the dynamics get while no model-changing fault is active.
        faults: This vehicle's fault documents.
        step_ns: Tick length [ns].

    Raises:
        ValueError: For an unknown thruster, a stuck command outside the thruster's
            limits, or two faults overlapping in time on one thruster.
    """

    def __init__(
        self,
        spec: VehicleSpec,
        nominal: RigidBodyModel,
        faults: Sequence[tuple[int, Any]],
        *,
        step_ns: int,
    ) -> None:
        self.spec = spec
        self.nominal = nominal
        names = [t.name for t in spec.thrusters]
        resolved: list[ResolvedFault] = []
        for position, fault in faults:
            where = f"faults[{position}]"
            if fault.thruster not in names:
                raise ValueError(
                    f"{where}.thruster: vehicle {fault.vehicle!r} ({spec.name}) has no thruster "
                    f"{fault.thruster!r}; expected one of {', '.join(names)}"
                )
            index = names.index(fault.thruster)
            thruster = spec.thrusters[index]
            if fault.kind == "stuck" and not (
                thruster.min_thrust_n <= fault.command_n <= thruster.max_thrust_n
            ):
                raise ValueError(
                    f"{where}.command_n: {fault.command_n!r} N is outside thruster "
                    f"{fault.thruster!r}'s limits [{thruster.min_thrust_n!r}, "
                    f"{thruster.max_thrust_n!r}] N"
                )
            clear = None
            if fault.clear_time_ns is not None:
                clear = effective_tick(fault.clear_time_ns, step_ns)
            start = effective_tick(fault.time_ns, step_ns)
            if clear is not None and clear <= start:
                raise ValueError(
                    f"{where}.clear_time_ns: {fault.clear_time_ns} ns clears on tick {clear}, "
                    f"the tick the fault takes effect ({start}); with {step_ns} ns ticks the "
                    "fault would never act: clear it at least one tick later"
                )
            for other_position, other in zip((p for p, _ in faults), resolved, strict=False):
                if other.index == index and _overlap(other, start, clear):
                    raise ValueError(
                        f"{where}: overlaps faults[{other_position}] on thruster "
                        f"{fault.thruster!r} of vehicle {fault.vehicle!r}; one fault acts on a "
                        "thruster at a time (clear the first before the next starts)"
                    )
            resolved.append(ResolvedFault(fault, index, start, clear))
        self.resolved = tuple(resolved)
        self._models: dict[tuple, RigidBodyModel] = {(): nominal}

    def active(self, tick: int) -> tuple[ResolvedFault, ...]:
        """The faults acting on the command of ``tick``."""
        return tuple(r for r in self.resolved if r.active(tick))

    def apply(self, command_n: np.ndarray, tick: int) -> tuple[RigidBodyModel, np.ndarray]:
        """The model and command the dynamics integrate over tick ``tick``.

        Args:
            command_n: The controller's commands [N], shape (n,), float64.
            tick: The tick whose command this is.

        Returns:
            ``(model, command)``; with no active fault, ``(nominal, command_n)`` themselves.
        """
        active = self.active(tick)
        if not active:
            return self.nominal, command_n
        command = np.array(command_n, dtype=np.float64, copy=True)
        for r in active:
            f, i = r.fault, r.index
            if f.kind == "dead":
                command[i] = 0.0
            elif f.kind == "stuck":
                command[i] = f.command_n
            elif f.kind == "loss_of_effectiveness":
                t = self.spec.thrusters[i]
                command[i] = f.gain * min(max(float(command[i]), t.min_thrust_n), t.max_thrust_n)
            elif f.kind == "reversed":
                command[i] = -command[i]
        key = tuple(sorted(id(r) for r in active if r.fault.kind in _MODEL_KINDS))
        model = self._models.get(key)
        if model is None:
            model = RigidBodyModel.from_spec(self._faulted_spec(active))
            self._models[key] = model
        return model, command

    def _faulted_spec(self, active: Sequence[ResolvedFault]) -> VehicleSpec:
        thrusters = list(self.spec.thrusters)
        for r in active:
            t, f = thrusters[r.index], r.fault
            if f.kind == "dead":
                thrusters[r.index] = t.model_copy(update={"time_constant_s": 0.0})
            elif f.kind == "reduced_limit":
                thrusters[r.index] = t.model_copy(
                    update={
                        "max_thrust_n": f.fraction * t.max_thrust_n,
                        "min_thrust_n": f.fraction * t.min_thrust_n,
                    }
                )
            elif f.kind == "slowed_response":
                thrusters[r.index] = t.model_copy(update={"time_constant_s": f.time_constant_s})
        return self.spec.model_copy(update={"thrusters": tuple(thrusters)})


def _overlap(other: ResolvedFault, start: int, clear: int | None) -> bool:
    """Whether ``[start, clear)`` meets ``other``'s ``[start_tick, clear_tick)`` (None: open)."""
    a_end = other.clear_tick if other.clear_tick is not None else float("inf")
    b_end = clear if clear is not None else float("inf")
    return start < a_end and other.start_tick < b_end
