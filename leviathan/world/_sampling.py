"""Taking a World's due sensor samples through the sensor protocol.

At a committed tick the World hands the samples that fall due to
:func:`take_samples`, which builds one immutable
:class:`~leviathan.sensors.SampleContext` per sample from the World's state
(the scene at the instant with the other vehicles' hulls posed in it,
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
from typing import Any

import numpy as np

from leviathan.sensors import (
    BodyKinematics,
    SampleContext,
    SensorProduct,
    sample_sensor,
    sensor_declarations,
    sensor_kind_for,
)
from leviathan.world._hulls import scenes_seen
from leviathan.world._queries import body_kinematics
from leviathan.world._state import WorldState

__all__ = ["DueSample", "take_samples"]

DueSample = tuple[str, Any, int]
"""One sample due at a tick: ``(vehicle name, sensor spec, sample index)``."""


def take_samples(
    state: WorldState, due: Sequence[DueSample], *, time_ns: int
) -> dict[str, SensorProduct]:
    """Sample every due sensor from the World's committed state at ``time_ns``.

    Args:
        state: The World's state, at the committed tick whose time is ``time_ns``.
        due: The samples due, in any order.
        time_ns: The sample instant [ns] (the committed time).

    Returns:
        The products keyed by sensor id (``"vehicle/sensor"``).
    """
    specs = {name: v.spec for name, v in state.vehicles.items()}
    base = state.environment.scene_at(time_ns)
    # Only vehicles with a due sensor that reads the scene get the posed hulls (an
    # IMU-only tick builds none); a kind that does not read it gets the environment's.
    observers = {vehicle for vehicle, spec, _ in due if _reads(spec, "reads_scene")}
    scenes = (
        scenes_seen(
            base,
            specs,
            {name: v.state.T_world_body for name, v in state.vehicles.items()},
            observers,
        )
        if observers
        else {}
    )
    water = state.environment.water
    backend, device = state.tracing
    # One kinematics record per vehicle and instant, shared by its sensors.
    kinematics: dict[str, BodyKinematics] = {}
    surfaces = (
        _surface_kinematics(state, specs, kinematics, time_ns)
        if any(_reads(spec, "reads_surfaces") for _, spec, _ in due)
        else _NO_SURFACES
    )
    samples: dict[str, SensorProduct] = {}
    for vehicle, spec, index in due:
        if vehicle not in kinematics:
            kinematics[vehicle] = body_kinematics(state, vehicle)
        context = SampleContext(
            sensor_id=f"{vehicle}/{spec.name}",
            sample_index=index,
            time_ns=time_ns,
            kinematics=kinematics[vehicle],
            scene=scenes.get(vehicle, base),
            root_seed=state.root_seed,
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
        sensor_kind_for(spec)  # the spec is of its kind's spec type
        return bool(getattr(sensor_declarations(spec.kind), attribute))
    except (LookupError, TypeError):
        return True


def _surface_kinematics(
    state: WorldState,
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
                kinematics[name] = body_kinematics(state, name)
            surfaces[name] = kinematics[name]
    for obj in state.environment.objects:
        if obj.moving:
            T = obj.instance_at(time_ns).T_world_object
            surfaces[obj.object_id] = BodyKinematics(
                T_world_body=T,
                velocity_body_m_s=T.inverse().apply_direction(
                    np.array(obj.velocity_ned_m_per_s, dtype=np.float64)
                ),
            )
    return MappingProxyType(surfaces)
