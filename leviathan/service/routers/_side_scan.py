"""``/worlds/{world_id}/side-scan``: a hosted World's side-scan waterfall as PNG.

The waterfall is :func:`leviathan.side_scan.display.waterfall` (or the
ground-range-corrected :func:`~leviathan.side_scan.display.ground_range_waterfall`)
of the side-scan lines the World keeps now (its newest samples, within the
service's sample bounds: older lines are gone), newest at the top; the response
names its display hash and line count in headers; 204 while the side-scan has no
line kept (a World not stepped since it was created or reset). The Dashboard's side-scan panel
draws it live.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response

from leviathan.service._deps import get_host
from leviathan.service._errors import ServiceError, errors
from leviathan.service._hosting import WorldHost
from leviathan.service._params import VehicleName, WorldId

__all__ = ["router"]

router = APIRouter(prefix="/worlds/{world_id}/side-scan", tags=["samples"])

Host = Annotated[WorldHost, Depends(get_host)]


@router.get(
    "/{vehicle}/{sensor}/waterfall",
    summary="A side-scan's waterfall of its kept lines, as PNG",
    response_class=Response,
    responses={
        200: {
            "description": "The waterfall as PNG (port left, nadir in the centre, newest on top)",
            "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
        },
        204: {"description": "The side-scan has no line kept yet (step or play the World)"},
        **errors(404, 410),
    },
)
async def side_scan_waterfall(
    world_id: WorldId,
    vehicle: VehicleName,
    sensor: VehicleName,
    host: Host,
    view: Annotated[
        Literal["slant_range", "ground_range"],
        Query(description="slant_range (as sampled) or ground_range (flat-bottom corrected)"),
    ] = "slant_range",
) -> Response:
    """The waterfall of ``vehicle``'s side-scan ``sensor`` over the lines the World keeps."""
    from leviathan.side_scan.display import ground_range_waterfall, waterfall

    hosted = host.get(world_id)

    def build(world: Any) -> Any:
        if vehicle not in world.vehicle_names:
            raise ServiceError(
                404,
                "not_found",
                f"vehicle: {world_id} has no vehicle {vehicle!r}",
                field="vehicle",
                value=vehicle,
                expected=f"one of {', '.join(world.vehicle_names)}",
            )
        names = [s.name for s in world.vehicle_spec(vehicle).sensors if s.kind == "side_scan"]
        if sensor not in names:
            raise ServiceError(
                404,
                "not_found",
                f"sensor: {vehicle} has no side-scan {sensor!r}; side-scans: "
                f"{', '.join(names) or 'none'}",
                field="sensor",
                value=sensor,
                expected=f"one of {', '.join(names)}" if names else "a vehicle with a side-scan",
            )
        lines = host.samples.of_sensor(hosted.world_id, f"{vehicle}/{sensor}")
        if not lines:
            return None  # nothing to draw yet: 204, not an error
        return waterfall(lines) if view == "slant_range" else ground_range_waterfall(lines)

    product = await host.run(world_id, build, changes=False)
    if product is None:
        return Response(status_code=204)
    return Response(
        product.png(),
        media_type="image/png",
        headers={
            "x-leviathan-display-hash": product.display_hash,
            "x-leviathan-lines": str(len(product.line_hashes)),
            "x-leviathan-newest-line": product.line_hashes[0],
        },
    )
