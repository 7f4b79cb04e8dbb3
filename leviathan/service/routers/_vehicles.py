"""``/worlds/{world_id}/vehicles/{vehicle}``: one vehicle of a World.

Its document, committed state and kinematics (lossless records), its controller,
and the thruster faults a live World refuses. A vehicle the World does not have is
404 (:func:`~leviathan.service.routers._common.vehicle_of`), like an unknown World.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Body, Depends

from leviathan.documents import build_controller
from leviathan.service import _models as m
from leviathan.service._deps import get_host
from leviathan.service._errors import errors
from leviathan.service._hosting import WorldHost
from leviathan.service._params import ThrusterName, VehicleName, WorldId
from leviathan.service.routers._common import vehicle_of, world_info
from leviathan.specs import ControllerDocument, VehicleSpec
from leviathan.wire import encode_record
from leviathan.world import World

__all__ = ["router"]

router = APIRouter(prefix="/worlds", tags=["vehicles"])

Host = Annotated[WorldHost, Depends(get_host)]
_OPEN = errors(404, 410)

_T = TypeVar("_T")


async def _read_vehicle(
    host: WorldHost, world_id: str, vehicle: str, read: Callable[[World, str], _T]
) -> _T:
    """``read(world, vehicle)`` on the hosted World, unchanged; 404 for a vehicle it lacks."""
    return await host.run(world_id, lambda w: read(w, vehicle_of(w, vehicle)), changes=False)


@router.put(
    "/{world_id}/vehicles/{vehicle}/controller",
    response_model=m.WorldInfo,
    summary="Set a controller",
    responses=_OPEN,
)
async def set_controller(
    world_id: WorldId,
    vehicle: VehicleName,
    body: Annotated[ControllerDocument, Body()],
    host: Host,
) -> m.WorldInfo:
    """:meth:`World.set_controller` (the controller's state starts fresh); a
    ``direct_thrust`` document has one command per thruster of the vehicle."""
    hosted = host.get(world_id)

    def apply(w: World) -> m.WorldInfo:
        w.set_controller(vehicle_of(w, vehicle), build_controller(body))
        return world_info(hosted, host)

    return await host.run(world_id, apply)


@router.get(
    "/{world_id}/vehicles/{vehicle}/spec",
    response_model=VehicleSpec,
    summary="A vehicle's document",
    responses=_OPEN,
)
async def get_vehicle_spec(world_id: WorldId, vehicle: VehicleName, host: Host) -> VehicleSpec:
    """:meth:`World.vehicle_spec` as a JSON document."""
    return await _read_vehicle(host, world_id, vehicle, World.vehicle_spec)


@router.get(
    "/{world_id}/vehicles/{vehicle}/state",
    summary="A vehicle's committed state",
    responses=_OPEN,
)
async def get_vehicle_state(world_id: WorldId, vehicle: VehicleName, host: Host) -> dict[str, Any]:
    """:meth:`World.vehicle_state` as a lossless typed-JSON record (pose, velocities, thrust)."""
    return encode_record(await _read_vehicle(host, world_id, vehicle, World.vehicle_state))


@router.get(
    "/{world_id}/vehicles/{vehicle}/kinematics",
    summary="A vehicle's kinematics",
    responses=errors(404, 409, 410),  # 409: its dynamics diverged (WorldDivergedError)
)
async def get_body_kinematics(
    world_id: WorldId, vehicle: VehicleName, host: Host
) -> dict[str, Any]:
    """:meth:`World.body_kinematics` (what the vehicle's sensors read) as a lossless record."""
    return encode_record(await _read_vehicle(host, world_id, vehicle, World.body_kinematics))


@router.post(
    "/{world_id}/vehicles/{vehicle}/thruster-faults/{thruster}",
    summary="Inject a thruster fault (always refused)",
    status_code=409,
    response_model=m.ErrorBody,
    responses={**_OPEN, **errors(409)},
)
async def inject_thruster_fault(
    world_id: WorldId, vehicle: VehicleName, thruster: ThrusterName, host: Host
) -> dict[str, Any]:
    """:meth:`World.inject_thruster_fault`: refused (409) on a live World, as in-process;
    thruster faults belong to analytic scenario runs."""
    await host.run(
        world_id,
        lambda w: w.inject_thruster_fault(vehicle_of(w, vehicle), thruster),
        changes=False,
    )
    raise AssertionError("the World refuses every thruster fault")  # never reached
