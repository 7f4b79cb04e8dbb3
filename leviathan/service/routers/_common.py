"""What the World routers share: a World's summary and the vehicle lookup."""

from __future__ import annotations

from leviathan.service import _models as m
from leviathan.service._errors import ServiceError
from leviathan.service._hosting import HostedWorld, WorldHost
from leviathan.world import World

__all__ = ["vehicle_of", "world_info"]


def world_info(hosted: HostedWorld, host: WorldHost) -> m.WorldInfo:
    """The summary of an open World (with what it keeps of its samples)."""
    w = hosted.world
    return m.WorldInfo(
        samples_kept=host.samples.count(hosted.world_id),
        samples_bytes=host.samples.world_bytes(hosted.world_id),
        id=hosted.world_id,
        tick=w.tick,
        time_ns=w.time_ns,
        step_ns=w.clock.step_ns,
        step_limit=w.step_limit,
        vehicles=list(w.vehicle_names),
        sensor_ids=list(w.sensor_ids()),
        playing=bool(hosted.player is not None and hosted.player.playing),
    )


def vehicle_of(world: World, vehicle: str, field: str = "vehicle") -> str:
    """``vehicle`` if the World has it; else 404 naming the vehicles it has."""
    if vehicle not in world.vehicle_names:
        raise ServiceError(
            404,
            "not_found",
            f"{field}: the World has no vehicle {vehicle!r}; vehicles: "
            f"{', '.join(world.vehicle_names)}",
            field=field,
            value=vehicle,
            expected=f"one of {', '.join(world.vehicle_names)}",
        )
    return vehicle
