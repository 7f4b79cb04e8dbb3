"""The canonical World: vehicles, 6-DOF dynamics, controllers, sensors on schedules."""

from leviathan.world.environment import Environment, SceneObject
from leviathan.world.records import CaptureGroup, VehicleTrackRecord, WorldSnapshot
from leviathan.world.registry import IDLE_RELEASE_S, MAX_OPEN_WORLDS, WorldRegistry
from leviathan.world.setup import VehicleSetup
from leviathan.world.world import (
    MAX_STEPS_PER_WORLD,
    ThrusterFaultRefusedError,
    World,
    WorldLimitError,
)

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
    "WorldLimitError",
    "WorldRegistry",
    "WorldSnapshot",
]
