"""Taking a World's due sensor samples through the sensor protocol, and the off-tick log.

At a committed tick the World hands the samples that fall due to
:func:`take_samples`, which builds one immutable
:class:`~leviathan.sensors.SampleContext` per sample from the World's public
accessors (the scene at the instant with the other vehicles' hulls posed in it,
each vehicle's committed kinematics, the kinematics of every moving surface (hulls
and moving environment objects), the root seed, the water, the tracer) and
asks the sensor registered for the spec's ``kind`` for its product
(:func:`leviathan.sensors.sample_sensor`). No sensor type is named here: a new
sensor kind needs no change in this module. Which hulls a vehicle's sensors see
is stated in :mod:`leviathan.world._hulls`.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from leviathan.schedule import SensorSchedule
from leviathan.sensors import (
    BodyKinematics,
    SampleContext,
    SensorProduct,
    sample_sensor,
    sensor_kind_for,
)
from leviathan.time import Epoch
from leviathan.world._hulls import scenes_seen

if TYPE_CHECKING:
    from leviathan.world._world import World

__all__ = ["DueSample", "OffTickLog", "take_samples"]

DueSample = tuple[str, Any, int]
"""One sample due at a tick: ``(vehicle name, sensor spec, sample index)``."""


def take_samples(
    world: World, due: Sequence[DueSample], *, time_ns: int
) -> dict[str, SensorProduct]:
    """Sample every due sensor from the World's committed state at ``time_ns``.

    Args:
        world: The World, at the committed tick whose time is ``time_ns``.
        due: The samples due, in any order.
        time_ns: The sample instant [ns] (the committed time).

    Returns:
        The products keyed by sensor id (``"vehicle/sensor"``).
    """
    names = world.vehicle_names
    specs = {name: world.vehicle_spec(name) for name in names}
    base = world.environment.scene_at(time_ns)
    # Only vehicles with a due sensor that reads the scene get the posed hulls (an
    # IMU-only tick builds none); a kind that does not read it gets the environment's.
    observers = {vehicle for vehicle, spec, _ in due if _reads(spec, "reads_scene")}
    scenes = (
        scenes_seen(
            base,
            specs,
            {name: world.vehicle_state(name).T_world_body for name in names},
            observers,
        )
        if observers
        else {}
    )
    water = world.environment.water
    backend, device = world.tracing
    # One kinematics record per vehicle and instant, shared by its sensors.
    kinematics: dict[str, BodyKinematics] = {}
    surfaces = (
        _surface_kinematics(world, specs, kinematics, time_ns)
        if any(_reads(spec, "reads_surfaces") for _, spec, _ in due)
        else _NO_SURFACES
    )
    samples: dict[str, SensorProduct] = {}
    for vehicle, spec, index in due:
        if vehicle not in kinematics:
            kinematics[vehicle] = world.body_kinematics(vehicle)
        context = SampleContext(
            sensor_id=f"{vehicle}/{spec.name}",
            sample_index=index,
            time_ns=time_ns,
            kinematics=kinematics[vehicle],
            scene=scenes.get(vehicle, base),
            root_seed=world.root_seed,
            water=water,
            backend=backend,
            device=device,
            surface_kinematics=surfaces,
        )
        samples[context.sensor_id] = sample_sensor(spec, context)
    return samples


_NO_SURFACES: MappingProxyType = MappingProxyType({})


def _reads(spec: Any, attribute: str) -> bool:
    """Whether the kind that samples ``spec`` reads ``attribute`` of the context.

    A kind declares ``reads_scene = False`` or ``reads_surfaces = False`` when it
    never looks at them (the IMU reads neither); undeclared means it does. A spec
    no kind samples counts as reading both: :func:`sample_sensor` refuses it below.
    """
    try:
        return bool(getattr(sensor_kind_for(spec), attribute, True))
    except (LookupError, TypeError):
        return True


def _surface_kinematics(
    world: World,
    specs: dict[str, Any],
    kinematics: dict[str, BodyKinematics],
    time_ns: int,
) -> MappingProxyType:
    """Committed kinematics of every moving surface at ``time_ns``, by object id.

    A hull's object id is its vehicle's name and its kinematics the vehicle's
    (computed once into ``kinematics``, which its own sensors then share); a
    moving environment object's is its pose at the instant with its constant
    world velocity rotated into its own frame and no rotation.
    """
    surfaces: dict[str, BodyKinematics] = {}
    for name, spec in sorted(specs.items()):
        if spec.hull is not None:
            if name not in kinematics:
                kinematics[name] = world.body_kinematics(name)
            surfaces[name] = kinematics[name]
    for obj in world.environment.objects:
        if obj.moving:
            T = obj.instance_at(time_ns).T_world_object
            surfaces[obj.object_id] = BodyKinematics(
                T_world_body=T,
                velocity_body_m_s=T.inverse().apply_direction(
                    np.array(obj.velocity_ned_m_per_s, dtype=np.float64)
                ),
            )
    return MappingProxyType(surfaces)


class OffTickLog:
    """Refused (off-tick) samples stored as arithmetic runs, not one record each.

    One run covers a sensor over consecutive ticks ``from_tick..through_tick``
    of one epoch with one schedule: every scheduled sample whose time lies in
    ``(t(from_tick - 1), t(through_tick)]`` and is not the time of a tick was
    refused; there are ``refused_count`` of them, with sample indices from
    ``first_sample_index`` to ``last_sample_index``. Samples at ``t_n = phase_ns
    + n * period_ns`` are refused exactly when ``t_n`` is not a tick time of that
    epoch, so the run determines each refused sample, and memory and hashing
    time grow with runs (a sensor, an epoch, an edit), never per refused sample.
    """

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self._open: dict[str, dict[str, Any]] = {}

    def copy(self) -> OffTickLog:
        """An independent log with the same runs (and the same open runs)."""
        clone = OffTickLog()
        clone.runs = [dict(run) for run in self.runs]
        index = {id(run): i for i, run in enumerate(self.runs)}
        clone._open = {k: clone.runs[index[id(run)]] for k, run in self._open.items()}
        return clone

    def record(
        self,
        sensor_id: str,
        schedule: SensorSchedule,
        *,
        tick: int,
        epoch: Epoch,
        first_index: int,
        count: int,
    ) -> None:
        """Record ``count`` samples of ``sensor_id`` refused at ``tick``, from ``first_index``."""
        run = self._open.get(sensor_id)
        if run is not None and (
            run["through_tick"] != tick - 1
            or run["epoch_start_tick"] != epoch.start_tick
            or run["step_ns"] != epoch.step_ns
            or run["period_ns"] != schedule.period_ns
            or run["phase_ns"] != schedule.phase_ns
        ):
            del self._open[sensor_id]
            run = None
        if run is not None:
            run["through_tick"] = tick
            if count:
                if not run["refused_count"]:
                    run["first_sample_index"] = first_index
                run["last_sample_index"] = first_index + count - 1
                run["refused_count"] += count
            return
        if not count:
            return
        run = {
            "sensor_id": sensor_id,
            "period_ns": schedule.period_ns,
            "phase_ns": schedule.phase_ns,
            "epoch_start_tick": epoch.start_tick,
            "epoch_start_time_ns": epoch.start_time_ns,
            "step_ns": epoch.step_ns,
            "from_tick": tick,
            "through_tick": tick,
            "first_sample_index": first_index,
            "last_sample_index": first_index + count - 1,
            "refused_count": count,
        }
        self.runs.append(run)
        self._open[sensor_id] = run

    def records(self) -> tuple[dict[str, Any], ...]:
        """Fresh dicts of every run, with the first and last refused times [ns] added."""
        return tuple(
            {
                **run,
                "first_time_ns": run["phase_ns"] + run["first_sample_index"] * run["period_ns"],
                "last_time_ns": run["phase_ns"] + run["last_sample_index"] * run["period_ns"],
            }
            for run in self.runs
        )
