"""Running a scenario: canonical dynamics and sensors underneath, analytic effects on top.

:func:`run_scenario` advances every vehicle with the same public functions a
canonical World uses, in the same order (vehicles by name; every vehicle's next
state computed from the committed ones, then all committed together):

1. ``controller.command(nominal_model, state, controller_state, ...)``: the
   controller sees the nominal vehicle;
2. the vehicle's faults rewrite that command and, for some kinds, the model the
   dynamics integrate (:class:`~leviathan.analytic._faults.VehicleFaults`);
3. ``leviathan.dynamics.step(model, state, command, current, dt_ns=...)``.

With no fault active, step 2 hands back the nominal model and the controller's
own array, so a fault-free, noise-free run reproduces a canonical World's
trajectories bit for bit (tested). After each tick, every recorded sensor whose
schedule falls on the tick is sampled through the canonical sensor protocol
(:func:`leviathan.sensors.sample_sensor`) from a :class:`SampleContext` built as
the World builds it; its noise-free channels then get the analytic noise of the
sensor's own generator. Nothing here is canonical: the result says
``tier = "analytic"`` and hashes in its own domain (:data:`~leviathan.analytic.ANALYTIC_DOMAIN`).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from leviathan.analytic._faults import VehicleFaults
from leviathan.analytic._generators import sensor_generator
from leviathan.analytic._scenario import ScenarioDocument, load_scenario
from leviathan.analytic._scenario_build import build_environment, build_vehicle_setups
from leviathan.analytic._scenario_outputs import check_output_folder, write_scenario_outputs
from leviathan.analytic._scenario_records import ScenarioResult, SensorStream, VehicleRun
from leviathan.dynamics import RigidBodyModel, VehicleState, accelerations
from leviathan.dynamics import step as dynamics_step
from leviathan.raycast import resolve_backend
from leviathan.sensors import BodyKinematics, SampleContext, sample_sensor, sensor_declarations

__all__ = ["UnrecordedSensorWarning", "run_scenario"]

# --------------------------------------------------------------------------- running


class UnrecordedSensorWarning(UserWarning):
    """A scenario leaves sensors that its vehicles declare unrecorded."""


def _warn_unrecorded(doc: ScenarioDocument, setups: Any) -> None:
    """Says which declared sensors the scenario does not record (a scenario records only
    the sensors its ``sensors`` table lists)."""
    listed = {s.id for s in doc.sensors}
    missing = [
        f"{setup.name}/{sensor.name}"
        for setup in setups
        for sensor in setup.spec.sensors
        if f"{setup.name}/{sensor.name}" not in listed
    ]
    if missing:
        warnings.warn(
            f"scenario {doc.name!r} records {len(listed)} of its vehicles' "
            f"{len(listed) + len(missing)} declared sensors; not recorded: {', '.join(missing)} "
            "(add a [[sensors]] entry with id = 'vehicle/sensor' to record one)",
            UnrecordedSensorWarning,
            stacklevel=3,
        )


class _Recorder:
    """Samples one listed sensor and records it through its kind's analytic tier."""

    def __init__(self, sensor_doc: Any, spec: Any, *, vehicle: str) -> None:
        self.sensor_id = sensor_doc.id
        self.vehicle = vehicle
        self.spec = spec
        self.kind = spec.kind
        self.schedule = spec.schedule.schedule()
        self.analytic = sensor_declarations(spec.kind).analytic
        self.noise = sensor_doc.noise_model(spec.kind)
        self.generator, self.record = sensor_generator(
            self.sensor_id, sensor_doc.seed, bit_generator=sensor_doc.bit_generator
        )
        if self.analytic is None:
            # A kind without an analytic tier is recorded as the canonical sensor gives it.
            self._row = _canonical_channels
        else:
            self._row = self.analytic.start(self.noise, self.generator, self.schedule.period_ns)
        self.rows: dict[str, list[Any]] = {}

    def add(self, product: Any) -> None:
        row: dict[str, Any] = {"time_ns": product.time_ns, "sample_index": product.sample_index}
        row.update(self._row(product))
        for key, value in row.items():
            self.rows.setdefault(key, []).append(value)

    def stream(self) -> SensorStream:
        arrays = {}
        for key, values in self.rows.items():
            dtype = np.int64 if key in ("time_ns", "sample_index") else None
            arrays[key] = np.array(values, dtype=dtype)
        if not arrays:
            arrays = {"time_ns": np.zeros(0, np.int64), "sample_index": np.zeros(0, np.int64)}
        return SensorStream(self.sensor_id, self.kind, arrays, self.record, self.noise)


def _canonical_channels(product: Any) -> dict[str, np.ndarray]:
    return {name: np.array(value) for name, value in product.channels.items()}


class _Live:
    """One vehicle during a run: committed state, last applied model and command, records."""

    def __init__(self, setup: Any, model: RigidBodyModel, faults: VehicleFaults) -> None:
        self.setup = setup
        self.model = model
        self.faults = faults
        self.state: VehicleState = setup.initial_state()
        self.controller_state: dict = setup.controller.initial_state()
        # What a World's body_kinematics uses at tick 0: the model and a zero command.
        self.applied_model = model
        self.applied_command = np.zeros(len(setup.spec.thrusters), dtype=np.float64)
        self.states: list = []
        self.commands: list = []
        self.applied: list = []
        self.active: list = []


def _row(state: VehicleState) -> np.ndarray:
    row = np.empty(13)
    row[:3] = state.position_ned_m
    row[3:7] = state.attitude_q
    row[7:] = state.velocity_body
    return row


def _kinematics(v: _Live, current) -> BodyKinematics:
    """What the vehicle's sensors read, as :meth:`World.body_kinematics` builds it."""
    state = v.state
    return BodyKinematics.of_state(
        state, accelerations(v.applied_model, state, v.applied_command, current)
    )


def run_scenario(
    doc: ScenarioDocument | str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
) -> ScenarioResult:
    """Run an analytic scenario.

    Args:
        doc: A :class:`ScenarioDocument` or the path of a ``.json``/``.toml`` one.
        out: Folder to write the outputs to (see :func:`write_scenario_outputs`);
            ``None`` writes nothing.
        progress: Show a tqdm progress bar over the ticks (on stderr).

    Returns:
        The :class:`ScenarioResult`. Sensor streams hold, per sample:
        IMU: ``angular_rate_sensor_rad_s``, ``specific_force_sensor_m_s2`` (measured)
        and their ``true_*`` (3 each); DVL: ``velocity_sensor_m_s`` (NaN without a
        lock), ``true_velocity_sensor_m_s``, per-beam channels, ``lock``,
        ``altitude_m``; imaging sonar: ``linear_return`` (noisy),
        ``true_linear_return`` and ``mean_level_change_db``.

    Raises:
        SpecError: For an invalid document (naming the field).
        ValueError, TypeError: For a vehicle, controller, fault or sensor that does
            not fit (naming the field), before anything runs.
    """
    from tqdm import tqdm

    from leviathan.world import World

    if not isinstance(doc, ScenarioDocument):
        doc = load_scenario(doc)
    if out is not None:
        check_output_folder(Path(out))
    setups = build_vehicle_setups(doc)
    env = build_environment(doc)
    # The canonical checks a World applies to its vehicles and controllers, unchanged.
    World.create(
        vehicles=setups,
        environment=env,
        root_seed=doc.root_seed,
        step_ns=doc.step_ns,
        tracing_backend="reference",
    )
    dt = doc.step_ns
    live: dict[str, _Live] = {}
    for s in setups:
        model = RigidBodyModel.from_spec(s.spec)
        mine = [(i, f) for i, f in enumerate(doc.faults) if f.vehicle == s.name]
        faults = VehicleFaults(s.spec, model, mine, step_ns=dt)
        live[s.name] = _Live(s, model, faults)
    recorders = []
    for i, sensor_doc in enumerate(doc.sensors):
        vehicle, name = sensor_doc.id.split("/")
        spec = next((x for x in live[vehicle].setup.spec.sensors if x.name == name), None)
        if spec is None:
            names = ", ".join(x.name for x in live[vehicle].setup.spec.sensors)
            raise ValueError(
                f"sensors[{i}].id: vehicle {vehicle!r} has no sensor {name!r}; its sensors: {names}"
            )
        try:
            recorders.append(_Recorder(sensor_doc, spec, vehicle=vehicle))
        except ValueError as error:
            raise ValueError(f"sensors[{i}].{error}") from None
    _warn_unrecorded(doc, setups)
    backend = resolve_backend(doc.tracing_backend) if recorders else ("reference", "cpu")
    current = env.current_ned

    def sample(tick: int, after_ns: int | None) -> None:
        t_ns = tick * dt
        due = []
        for r in recorders:
            index = r.schedule.tick_window(t_ns, after_ns=after_ns).on_tick_index
            if index is not None:
                due.append((r, index))
        if not due:
            return
        scene = env.scene_at(t_ns)
        kinematics: dict[str, BodyKinematics] = {}
        for r, index in due:
            if r.vehicle not in kinematics:
                kinematics[r.vehicle] = _kinematics(live[r.vehicle], current)
            context = SampleContext(
                sensor_id=r.sensor_id,
                sample_index=index,
                time_ns=t_ns,
                kinematics=kinematics[r.vehicle],
                scene=scene,
                root_seed=doc.root_seed,
                water=env.water,
                backend=backend[0],
                device=backend[1],
            )
            r.add(sample_sensor(r.spec, context))

    for v in live.values():
        v.states.append((_row(v.state), v.state.thrust_n.copy()))
    sample(0, None)
    bar = tqdm(total=doc.tick_count, unit="tick", disable=not progress, mininterval=0.5)
    try:
        for tick in range(doc.tick_count):
            t_ns = tick * dt
            updates = []
            for v in live.values():
                command, controller_state = v.setup.controller.command(
                    v.model, v.state, v.controller_state, time_ns=t_ns, dt_ns=dt
                )
                command_n = np.asarray(command, dtype=np.float64)
                model, applied = v.faults.apply(command_n, tick)
                state = dynamics_step(model, v.state, applied, current, dt_ns=dt)
                updates.append((v, controller_state, command_n, model, applied, state))
            for v, controller_state, command_n, model, applied, state in updates:
                v.controller_state, v.state = controller_state, state
                v.applied_model, v.applied_command = model, applied
                mask = np.zeros(len(command_n), dtype=bool)
                for r in v.faults.active(tick):
                    mask[r.index] = True
                v.commands.append(command_n.copy())
                v.applied.append(np.array(applied, dtype=np.float64))
                v.active.append(mask)
                v.states.append((_row(state), state.thrust_n.copy()))
            sample(tick + 1, t_ns)
            if tick % 100 == 99:
                bar.update(100)
        bar.update(doc.tick_count - bar.n)
    finally:
        bar.close()

    n = doc.tick_count
    ticks = np.arange(n + 1, dtype=np.int64)
    vehicles = {}
    for name, v in live.items():
        thrusters = len(v.setup.spec.thrusters)
        vehicles[name] = VehicleRun(
            name=name,
            spec=v.setup.spec,
            ticks=ticks,
            time_ns=ticks * dt,
            states=np.array([s for s, _ in v.states]).reshape(n + 1, 13),
            thrust_n=np.array([f for _, f in v.states]).reshape(n + 1, thrusters),
            command_n=np.array(v.commands).reshape(n, thrusters),
            applied_command_n=np.array(v.applied).reshape(n, thrusters),
            fault_active=np.array(v.active, dtype=bool).reshape(n, thrusters),
        )
    fault_records = []
    for i, fault in enumerate(doc.faults):
        resolved = next(r for r in live[fault.vehicle].faults.resolved if r.fault is fault)
        fault_records.append({"index": i, **resolved.record(dt, n)})
    result = ScenarioResult(
        scenario=doc,
        step_ns=dt,
        tick_count=n,
        vehicles=vehicles,
        faults=tuple(fault_records),
        sensors={r.sensor_id: r.stream() for r in recorders},
        backend=backend,
    )
    if out is not None:
        write_scenario_outputs(result, out)
    return result
