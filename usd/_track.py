"""What the stage writer takes of a vehicle: its name, document and committed poses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from leviathan.frames import Transform
from leviathan.specs import VehicleSpec

__all__ = ["VehicleTrack"]


@dataclass(frozen=True)
class VehicleTrack:
    """One vehicle's committed poses, as exported.

    Attributes:
        name: Vehicle name in the World, e.g. ``"reference_survey_vehicle"``.
        spec: The vehicle's specification (mass properties, thrusters, sensors).
        times_ns: Committed tick times [ns], strictly increasing; they must be
            the times of the ``ticks`` passed to :func:`export_stage`.
        poses: ``T_world_body`` at each of those ticks (world NED, body FRD).
    """

    __content_type__ = "leviathan.usd.stage.VehicleTrack"

    name: str
    spec: VehicleSpec
    times_ns: Sequence[int]
    poses: Sequence[Transform]
