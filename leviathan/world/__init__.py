"""The canonical World: vehicles, 6-DOF dynamics, controllers, sensors on schedules."""

from leviathan.world._environment import Environment, SceneObject
from leviathan.world._errors import (
    MAX_STEPS_PER_WORLD,
    ThrusterFaultRefusedError,
    WorldDivergedError,
    WorldLimitError,
)
from leviathan.world._hulls import hull_triangle_mesh, scenes_seen
from leviathan.world._records import CaptureGroup, VehicleTrackRecord, WorldSnapshot, run_summary
from leviathan.world._registry import IDLE_RELEASE_S, MAX_OPEN_WORLDS, WorldRegistry
from leviathan.world._setup import VehicleSetup
from leviathan.world._world import World

__all__ = [
    "IDLE_RELEASE_S",
    "MAX_OPEN_WORLDS",
    "MAX_STEPS_PER_WORLD",
    "CaptureGroup",
    "Environment",
    "SceneObject",
    "ThrusterFaultRefusedError",
    "VehicleSetup",
    "VehicleTrackRecord",
    "World",
    "WorldDivergedError",
    "WorldLimitError",
    "WorldRegistry",
    "WorldSnapshot",
    "hull_triangle_mesh",
    "run_summary",
    "scenes_seen",
]
