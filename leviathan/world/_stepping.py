"""Stepping a World: one RK4 tick of every vehicle, then the samples due at the new tick.

Each tick advances every vehicle (in name order) by one step of its 6-DOF model
under its controller's thruster commands, computing every next state before
committing any, then takes every scheduled sample that falls exactly on the new
tick (off-tick ones are recorded in the off-tick log). A call of :func:`step` is
one transaction: all of its ticks or none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from leviathan.dynamics import step as dynamics_step
from leviathan.schedule import SensorSchedule
from leviathan.world import _sampling as sampling
from leviathan.world._errors import WorldDivergedError, WorldLimitError
from leviathan.world._records import CaptureGroup
from leviathan.world._state import WorldState, record_track
from leviathan.world._transactions import transaction

__all__ = ["step"]


# Runtime schedules by schedule spec object: specs are frozen, and each tick asks every
# sensor for its schedule. The entry holds the spec, so its id cannot be reused.
_SCHEDULES: dict[int, tuple[Any, SensorSchedule]] = {}


def _schedule_of(schedule_spec: Any) -> SensorSchedule:
    """``schedule_spec.schedule()``, built once per spec object."""
    entry = _SCHEDULES.get(id(schedule_spec))
    if entry is not None and entry[0] is schedule_spec:
        return entry[1]
    schedule = schedule_spec.schedule()
    if len(_SCHEDULES) >= 1024:
        _SCHEDULES.clear()
    _SCHEDULES[id(schedule_spec)] = (schedule_spec, schedule)
    return schedule


def step(state: WorldState, n: int) -> list[CaptureGroup]:
    """Advances ``n`` ticks; the new samples as capture groups in time order.

    See :meth:`leviathan.world.World.step`.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n: expected a positive integer number of ticks, got {n!r}")
    tick = state.clock.tick
    if tick + n > state.step_limit:
        raise WorldLimitError(
            f"n: stepping {n} ticks from tick {tick} would exceed the limit of "
            f"{state.step_limit} steps for this World; reset() or create a new World"
        )
    groups: list[CaptureGroup] = []
    with transaction(state):
        if state.sampled_through_tick < 0:
            groups.extend(_sample_tick(state, after_ns=None))
        for _ in range(n):
            after_ns = state.clock.time_ns
            _advance_one(state)
            groups.extend(_sample_tick(state, after_ns=after_ns))
    return groups


def _advance_one(state: WorldState) -> None:
    dt_ns = state.clock.step_ns
    t_ns = state.clock.time_ns
    current = state.environment.current_ned
    # Compute every vehicle's next state first, then commit them together.
    updates = []
    for v in state.vehicles.values():
        command, controller_state = v.controller.command(
            v.model, v.state, v.controller_state, time_ns=t_ns, dt_ns=dt_ns
        )
        command_n = np.asarray(command, dtype=np.float64)
        try:
            next_state = dynamics_step(v.model, v.state, command_n, current, dt_ns=dt_ns)
        except ValueError as error:
            # The committed state is finite and checked; only a run-away integration (a
            # stage's depth or velocity out of the finite numbers) fails in here.
            _diverged(v.name, state.clock.tick + 1, str(error), error)
        _check_finite(v.name, next_state, state.clock.tick + 1)
        updates.append((v, controller_state, command_n, next_state))
    for v, controller_state, command_n, next_state in updates:
        v.controller_state, v.command_n, v.state = controller_state, command_n, next_state
    state.clock.advance(1)
    record_track(state)


def _check_finite(vehicle: str, next_state: Any, tick: int) -> None:
    """Refuses a tick whose state is not finite (the step then rolls back, as any failure)."""
    for name in ("position_ned_m", "attitude_q", "velocity_body"):
        values = getattr(next_state, name)
        if not np.isfinite(values).all():
            _diverged(vehicle, tick, f"{name} = {values.tolist()}")


def _diverged(vehicle: str, tick: int, what: str, cause: BaseException | None = None) -> None:
    raise WorldDivergedError(
        f"vehicle {vehicle!r}: its dynamics diverged at tick {tick} ({what}); the step is "
        "refused and the World stays as it was before it. Start the vehicle from a plausible "
        "state (velocity_body) or give it a gentler controller"
    ) from cause


def _sample_tick(state: WorldState, *, after_ns: int | None) -> list[CaptureGroup]:
    tick, t_ns = state.clock.tick, state.clock.time_ns
    epoch = state.clock.epochs[-1]
    due: list[sampling.DueSample] = []
    for v in state.vehicles.values():
        for spec in v.spec.sensors:
            schedule = _schedule_of(spec.schedule)
            window = schedule.tick_window(t_ns, after_ns=after_ns)
            state.off_tick.record(
                f"{v.name}/{spec.name}",
                schedule,
                tick=tick,
                epoch=epoch,
                first_index=window.first_off_tick_index,
                count=window.off_tick_count,
            )
            if window.on_tick_index is not None:
                due.append((v.name, spec, window.on_tick_index))
    state.sampled_through_tick = tick
    if not due:
        return []
    samples = sampling.take_samples(state, due, time_ns=t_ns)
    return [CaptureGroup(tick=tick, time_ns=t_ns, samples=samples)]
