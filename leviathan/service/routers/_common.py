"""What the routers share: a World's summary, the vehicle and sensor lookups, the PNG
answer, and the built-in survey scene and pose fields of the posed requests."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from fastapi import Response
from pydantic import BaseModel, ConfigDict, Field

from leviathan.service import _models as m
from leviathan.service._errors import ServiceError, not_found
from leviathan.service._hosting import HostedWorld, WorldHost
from leviathan.world import World

__all__ = [
    "PNG_RESPONSE",
    "SurveyScene",
    "json_response",
    "png_response",
    "sensor_of_kind",
    "survey_environment",
    "three_numbers",
    "too_many_ticks",
    "vehicle_of",
    "world_info",
]

PNG_RESPONSE = {"image/png": {"schema": {"type": "string", "format": "binary"}}}
"""The ``content`` of an operation's PNG answer in the OpenAPI schema."""


def json_response(answer: BaseModel) -> Response:
    """``answer`` as the JSON body FastAPI would send for it, serialised by the caller.

    A route that builds its answer in a worker thread returns this, so that the
    event loop only sends the bytes (FastAPI passes a ``Response`` through; the
    operation's ``response_model`` still documents the answer).
    """
    return Response(answer.model_dump_json(), media_type="application/json")


def too_many_ticks(field: str, ticks: int, limit: int, message: str) -> ServiceError:
    """The 422 for ``ticks`` over the service's per-request tick ``limit``."""
    return ServiceError(
        422,
        "invalid",
        message,
        field=field,
        value=ticks,
        expected=f"an integer in 1..{limit}",
    )


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
        raise not_found(
            field,
            vehicle,
            f"the World has no vehicle {vehicle!r}; vehicles: {', '.join(world.vehicle_names)}",
            expected=f"one of {', '.join(world.vehicle_names)}",
        )
    return vehicle


def sensor_of_kind(
    world: World, world_id: str, vehicle: str, sensor: str, kind: str, words: str
) -> str:
    """The sensor id ``vehicle/sensor`` if the World's ``vehicle`` carries a ``kind``
    sensor of that name; else 404 naming the vehicles, or the vehicle's ``words``
    (e.g. ``"side-scan"``)."""
    if vehicle not in world.vehicle_names:
        raise not_found(
            "vehicle",
            vehicle,
            f"{world_id} has no vehicle {vehicle!r}",
            expected=f"one of {', '.join(world.vehicle_names)}",
        )
    names = [s.name for s in world.vehicle_spec(vehicle).sensors if s.kind == kind]
    if sensor not in names:
        raise not_found(
            "sensor",
            sensor,
            f"{vehicle} has no {words} {sensor!r}; {words}s: {', '.join(names) or 'none'}",
            expected=f"one of {', '.join(names)}" if names else f"a vehicle with a {words}",
        )
    return f"{vehicle}/{sensor}"


def png_response(png: bytes, headers: dict[str, str]) -> Response:
    """A PNG answer with LEVIATHAN's ``x-leviathan-*`` headers."""
    return Response(png, media_type="image/png", headers=headers)


class SurveyScene(BaseModel):
    """The demo's survey scene (seabed, crate, drum, pipeline, ball) at time 0."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    kind: Literal["survey_demo"] = "survey_demo"
    seabed_triangles: int = Field(
        default=100_000, ge=2, le=1_000_000, description="seabed triangles [-]"
    )


@lru_cache(maxsize=4)
def survey_environment(seabed_triangles: int) -> Any:
    """:func:`leviathan.demo.survey_environment`, built once per seabed size."""
    from leviathan.demo import survey_environment as build

    return build(seabed_triangles)


def three_numbers(default: list[float], description: str) -> Any:
    """A posed request's field of exactly three numbers (a position, roll-pitch-yaw).

    A list, not a tuple: a strict model refuses JSON arrays for tuple fields.
    """
    return Field(default=default, min_length=3, max_length=3, description=description)
