"""``/worlds``: create, list, read, step, edit, snapshot, reset, export and delete Worlds.

Every handler is thin: it turns the request document into the arguments a Python
user would pass, and calls the same :class:`~leviathan.world.World` method through
:meth:`WorldHost.run` (the World's lock, the worker pool).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from fastapi import APIRouter, Depends, Query, Response

from leviathan._validation import refusals_at
from leviathan.catalogue import get_vehicle
from leviathan.documents import build_controller, build_environment, build_vehicle_setup
from leviathan.service import _models as m
from leviathan.service import _requests as r
from leviathan.service._deps import get_host
from leviathan.service._errors import ServiceError, errors
from leviathan.service._hosting import WorldHost
from leviathan.service._params import WorldId
from leviathan.service.routers._common import (
    json_response,
    too_many_ticks,
    vehicle_of,
    world_info,
)
from leviathan.specs import VehicleSpec
from leviathan.wire import encode_record, encode_value
from leviathan.world import World

__all__ = ["router", "summarise_groups"]

router = APIRouter(prefix="/worlds", tags=["worlds"])

Host = Annotated[WorldHost, Depends(get_host)]
_SCALAR_VALUES = 16
_OPEN = errors(404, 410)  # every operation on one World


def _spec(field: str, spec: str | VehicleSpec) -> VehicleSpec:
    return get_vehicle(spec) if isinstance(spec, str) else spec


def _scalar(array: np.ndarray) -> Any:
    # JSON has no NaN: a missing value is null.
    values = np.asarray(array).tolist()
    if isinstance(values, float) and values != values:
        return None
    if isinstance(values, list):
        return [None if isinstance(v, float) and v != v else v for v in np.ravel(array).tolist()]
    return values


def _sensor_kinds(world: World) -> dict[str, str]:
    return {
        f"{vehicle}/{sensor.name}": sensor.kind
        for vehicle in world.vehicle_names
        for sensor in world.vehicle_spec(vehicle).sensors
    }


def summarise_groups(groups: list[Any], kinds: dict[str, str]) -> list[m.GroupSummary]:
    """Capture groups as summaries: hashes, channel shapes, small channels' values.

    Args:
        groups: The capture groups.
        kinds: Sensor id -> the kind its spec declares.
    """
    out = []
    for g in groups:
        members = []
        for sensor_id, s in g.samples.items():
            meta = s.metadata
            channels = {
                name: {"dtype": a.dtype.str, "shape": list(a.shape)}
                for name, a in s.channels.items()
            }
            scalars = {
                name: _scalar(a) for name, a in s.channels.items() if a.size <= _SCALAR_VALUES
            }
            index = getattr(s, "sample_index", meta.get("sample_index"))
            members.append(
                m.MemberSummary(
                    sensor_id=sensor_id,
                    kind=kinds[sensor_id],
                    sample_id=s.content_hash,
                    sample_index=None if index is None else int(index),
                    time_ns=int(getattr(s, "time_ns", meta.get("time_ns", g.time_ns))),
                    content_hash=s.content_hash,
                    channels=channels,
                    scalars=scalars,
                )
            )
        out.append(
            m.GroupSummary(
                tick=g.tick, time_ns=g.time_ns, content_hash=g.content_hash, members=members
            )
        )
    return out


def _setups(body: r.CreateWorldRequest) -> list[Any]:
    setups = []
    for i, v in enumerate(body.vehicles):
        with refusals_at(f"vehicles[{i}]."):
            setups.append(build_vehicle_setup(v, allow_paths=False))
    return setups


def _environment(doc: Any) -> Any:
    with refusals_at("environment."):
        return build_environment(doc)


@router.post(
    "",
    status_code=201,
    response_model=m.WorldInfo,
    summary="Create a World",
    responses=errors(409),
)
async def create_world(body: r.CreateWorldRequest, host: Host) -> m.WorldInfo:
    """:meth:`World.create` from catalogue names or inline documents; opens it
    (409 when the service holds its most Worlds)."""

    def build() -> World:
        return World.create(
            vehicles=_setups(body),
            environment=_environment(body.environment),
            root_seed=body.root_seed,
            step_ns=body.step_ns,
            step_s=body.step_s,
            tracing_backend=body.tracing_backend,
        )

    world = await host.call(build)
    return world_info(host.open(world), host)


@router.get("", response_model=m.WorldList, summary="List the open Worlds")
async def list_worlds(host: Host) -> m.WorldList:
    """Every open World (reading the list marks none of them used)."""
    infos = []
    for wid in host.ids():
        hosted = host.hosted(wid)
        if hosted is not None:
            infos.append(world_info(hosted, host))
    return m.WorldList(worlds=infos)


@router.get("/{world_id}", response_model=m.WorldInfo, summary="One World", responses=_OPEN)
async def get_world(world_id: WorldId, host: Host) -> m.WorldInfo:
    """Tick, time, step, limit, vehicles and sensors of one World."""
    hosted = host.get(world_id)
    return await host.run(world_id, lambda w: world_info(hosted, host), changes=False)


@router.delete("/{world_id}", status_code=204, summary="Delete a World", responses=_OPEN)
async def delete_world(world_id: WorldId, host: Host) -> Response:
    """Closes the World (after any operation in progress on it)."""
    hosted = host.get(world_id)
    await host.run(world_id, lambda w: host.close(hosted), changes=False)
    return Response(status_code=204)


@router.get(
    "/{world_id}/state", response_model=m.StateResponse, summary="Committed state", responses=_OPEN
)
async def get_state(world_id: WorldId, host: Host) -> m.StateResponse:
    """:meth:`World.state`."""
    state = await host.run(world_id, World.state, changes=False)
    return m.StateResponse(world_id=world_id, state=state)


@router.post(
    "/{world_id}/step",
    response_model=m.StepResponse,
    summary="Step n ticks",
    responses=errors(404, 409, 410),
)
async def step_world(world_id: WorldId, body: r.StepRequest, host: Host) -> Response:
    """:meth:`World.step`: advances ``n`` ticks and returns only the new capture groups
    (409 at the World's step limit, nothing changed)."""
    limit = host.settings.max_ticks_per_request
    if isinstance(body.n, int) and body.n > limit:
        raise too_many_ticks(
            "n",
            body.n,
            limit,
            f"n: {body.n} ticks is more than one request may step ({limit}); split it",
        )
    hosted = host.get(world_id)

    def step(w: World) -> Response:
        groups = w.step(body.n)
        host.keep_samples(hosted, groups)
        # Summarised and serialised here in the worker, not on the event loop, which
        # then stays free for other requests and pushes while this one is built.
        answer = m.StepResponse(
            world_id=world_id,
            tick=w.tick,
            time_ns=w.time_ns,
            groups=summarise_groups(groups, _sensor_kinds(w)),
            records=[encode_record(g) for g in groups] if body.detail == "records" else None,
        )
        return json_response(answer)

    return await host.run(world_id, step)


@router.get(
    "/{world_id}/track",
    response_model=m.TrackResponse,
    summary="Vehicle track",
    responses=errors(404, 409, 410),
)
async def get_track(
    world_id: WorldId,
    host: Host,
    vehicle: Annotated[
        str, Query(pattern=r.VEHICLE_NAME_PATTERN, description="A vehicle of the World")
    ],
    from_tick: Annotated[
        int,
        Query(ge=0, le=2**63 - 1, description="First tick wanted; 409 past the committed tick"),
    ] = 0,
    matrices: Annotated[
        Literal["true", "false"], Query(description="'true' adds T_world_body per tick")
    ] = "false",
) -> m.TrackResponse:
    """:meth:`World.track_states` from ``from_tick`` (and :meth:`World.track`'s matrices);
    409 for a ``from_tick`` the World has not reached."""

    def read(w: World) -> tuple[Any, Any]:
        if from_tick > w.tick:
            raise ServiceError(
                409,
                "conflict",
                f"from_tick: {from_tick} is past the World's committed tick {w.tick}",
                field="from_tick",
                value=from_tick,
                expected=f"a tick in [0, {w.tick}]",
            )
        record = w.track_states(vehicle_of(w, vehicle), from_tick=from_tick)
        poses = w.track(vehicle)[2][from_tick:].tolist() if matrices == "true" else None
        return record, poses

    record, poses = await host.run(world_id, read, changes=False)
    return m.TrackResponse(
        world_id=world_id,
        vehicle=record.name,
        ticks=record.ticks.tolist(),
        times_ns=record.times_ns.tolist(),
        position_ned_m=record.position_ned_m.tolist(),
        attitude_q=record.attitude_q.tolist(),
        velocity_body=record.velocity_body.tolist(),
        T_world_body=poses,
    )


@router.post(
    "/{world_id}/edit", response_model=m.WorldInfo, summary="Edit a World", responses=_OPEN
)
async def edit_world(world_id: WorldId, body: r.EditRequest, host: Host) -> m.WorldInfo:
    """:meth:`World.edit`: replace a vehicle's document, sensors or controller, or the
    environment; the vehicle keeps its pose and velocity (404: no such vehicle)."""
    hosted = host.get(world_id)

    def edit(w: World) -> m.WorldInfo:
        if body.vehicle is not None:
            vehicle_of(w, body.vehicle)
        w.edit(
            vehicle=body.vehicle,
            spec=None if body.spec is None else _spec("spec", body.spec),
            sensors=None if body.sensors is None else list(body.sensors),
            controller=None if body.controller is None else build_controller(body.controller),
            environment=_environment(body.environment),
        )
        return world_info(hosted, host)

    return await host.run(world_id, edit)


@router.get(
    "/{world_id}/current", response_model=m.CurrentResponse, summary="The current", responses=_OPEN
)
async def get_current(world_id: WorldId, host: Host) -> m.CurrentResponse:
    """The current the World's environment holds (what ``PUT .../current`` set)."""

    def read(w: World) -> m.CurrentResponse:
        water = w.environment.water
        return m.CurrentResponse(
            world_id=world_id,
            current_ned_m_per_s=tuple(water.current_ned_m_per_s),
            profile=list(water.current_profile),
        )

    return await host.run(world_id, read, changes=False)


@router.put(
    "/{world_id}/current",
    response_model=m.StateResponse,
    summary="Set the current",
    responses=_OPEN,
)
async def set_current(world_id: WorldId, body: r.CurrentRequest, host: Host) -> m.StateResponse:
    """:meth:`World.set_current`: a uniform NED current [m/s] or a depth profile."""

    def apply(w: World) -> dict[str, Any]:
        w.set_current(body.current_ned_m_per_s, profile=body.profile)
        return w.state()

    return m.StateResponse(world_id=world_id, state=await host.run(world_id, apply))


@router.put(
    "/{world_id}/step-length",
    response_model=m.WorldInfo,
    summary="Set the tick length",
    responses=_OPEN,
)
async def set_step(world_id: WorldId, body: r.StepLengthRequest, host: Host) -> m.WorldInfo:
    """:meth:`World.set_step`: a new epoch starts at the current tick."""
    hosted = host.get(world_id)

    def apply(w: World) -> m.WorldInfo:
        w.set_step(body.step_ns if body.step_ns is not None else body.step_s)
        return world_info(hosted, host)

    return await host.run(world_id, apply)


@router.get(
    "/{world_id}/snapshot", response_model=m.SnapshotResponse, summary="Snapshot", responses=_OPEN
)
async def snapshot(world_id: WorldId, host: Host) -> m.SnapshotResponse:
    """:meth:`World.snapshot`: the committed state as an immutable, hashed record."""
    snap = await host.run(world_id, World.snapshot, changes=False)
    return m.SnapshotResponse(
        world_id=world_id,
        tick=snap.tick,
        time_ns=snap.time_ns,
        content_hash=snap.content_hash,
        record=encode_record(snap),
    )


@router.get("/{world_id}/off-tick", summary="Refused off-tick samples", responses=_OPEN)
async def off_tick(world_id: WorldId, host: Host) -> list[dict[str, Any]]:
    """:attr:`World.off_tick_samples` (runs of refused samples), each in typed JSON."""
    runs = await host.run(world_id, lambda w: w.off_tick_samples, changes=False)
    return [encode_value(r) for r in runs]


@router.post("/{world_id}/reset", response_model=m.StateResponse, summary="Reset", responses=_OPEN)
async def reset(world_id: WorldId, host: Host) -> m.StateResponse:
    """:meth:`World.reset`: back to tick 0 (there is no rewind to an intermediate tick);
    the World's kept samples are gone (404)."""

    def apply(w: World) -> dict[str, Any]:
        w.reset()
        host.samples.clear(world_id)
        return w.state()

    return m.StateResponse(world_id=world_id, state=await host.run(world_id, apply))


_MEDIA = {"usda": "text/plain; charset=utf-8", "usdc": "application/octet-stream"}


@router.get(
    "/{world_id}/usd",
    summary="Export OpenUSD",
    response_class=Response,
    responses={
        200: {
            "description": "The stage: usda as UTF-8 text, usdc as bytes",
            "content": {
                "text/plain": {"schema": {"type": "string"}},
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
            },
        },
        **_OPEN,
    },
)
async def export_usd(
    world_id: WorldId,
    host: Host,
    format: Annotated[Literal["usda", "usdc"], Query(description="Stage format")] = "usda",
) -> Response:
    """:meth:`World.export_usd` as a download; the file name is the service's own
    (``<world id>-tick<n>.<format>``), never a path from the client."""

    def export(w: World) -> tuple[bytes, str]:
        name = f"{world_id}-tick{w.tick}.{format}"
        with tempfile.TemporaryDirectory(prefix="leviathan-usd-") as folder:
            path = w.export_usd(Path(folder) / name)
            return path.read_bytes(), name

    data, name = await host.run(world_id, export, changes=False)
    return Response(
        data,
        media_type=_MEDIA[format],
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )
