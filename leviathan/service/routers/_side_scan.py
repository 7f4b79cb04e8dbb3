"""Side-scan waterfalls as PNG: a hosted World's, and a posed straight track's.

* ``GET /worlds/{world_id}/side-scan/{vehicle}/{sensor}/waterfall`` is
  :func:`leviathan.side_scan.display.waterfall` (or the ground-range-corrected
  :func:`~leviathan.side_scan.display.ground_range_waterfall`) of the side-scan lines
  the World keeps now (its newest samples, within the service's sample bounds: older
  lines are gone), newest at the top; 204 while the side-scan has no line kept (a
  World not stepped since it was created or reset).
* ``POST /side-scan/waterfall`` renders a straight track without a World:
  :func:`leviathan.side_scan.render_track` of a catalogue vehicle's side-scan from a
  typed pose at a constant speed over the built-in survey scene, on the sensor's own
  ping schedule; the request is bounded (at most :data:`MAX_POSED_PINGS` pings of a
  catalogue sensor over at most a million seabed triangles: seconds, not minutes).

Both name the waterfall's display hash, its line count and its newest line's hash in
headers. The Dashboard's Side-scan panel draws them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.service._deps import get_host
from leviathan.service._errors import errors
from leviathan.service._hosting import WorldHost
from leviathan.service._params import VehicleName, WorldId
from leviathan.service.routers._common import (
    PNG_RESPONSE,
    SurveyScene,
    png_response,
    sensor_of_kind,
    survey_environment,
    three_numbers,
)
from leviathan.specs import WaterSpec

__all__ = ["MAX_POSED_PINGS", "router"]

router = APIRouter(tags=["samples"])

Host = Annotated[WorldHost, Depends(get_host)]

View = Literal["slant_range", "ground_range"]

#: Most pings of one posed waterfall (the catalogue side-scan: ~0.1 s a ping at most).
MAX_POSED_PINGS = 128

#: Every catalogue vehicle's side-scan, as ``"vehicle/sensor"``.
CATALOGUE_SIDE_SCANS = tuple(
    f"{name}/{sensor.name}"
    for name in sorted(vehicle_names())
    for sensor in get_vehicle(name).sensors
    if sensor.kind == "side_scan"
)

_WATERFALL = {
    "description": "The waterfall as PNG (port left, nadir in the centre, newest on top)",
    "content": PNG_RESPONSE,
}

# A position within 100 km of the origin, an angle within one turn either way.
_Coordinate = Annotated[float, Field(ge=-100_000.0, le=100_000.0)]
_Angle = Annotated[float, Field(ge=-360.0, le=360.0)]


def _waterfall_response(lines: Any, view: View) -> Response:
    """The PNG of ``lines`` (oldest first) in ``view``, with its hashes in headers."""
    from leviathan.side_scan.display import ground_range_waterfall, waterfall

    product = waterfall(lines) if view == "slant_range" else ground_range_waterfall(lines)
    return png_response(
        product.png(),
        {
            "x-leviathan-display-hash": product.display_hash,
            "x-leviathan-lines": str(len(product.line_hashes)),
            "x-leviathan-newest-line": product.line_hashes[0],
        },
    )


@router.get(
    "/worlds/{world_id}/side-scan/{vehicle}/{sensor}/waterfall",
    summary="A side-scan's waterfall of its kept lines, as PNG",
    response_class=Response,
    responses={
        200: _WATERFALL,
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
        View, Query(description="slant_range (as sampled) or ground_range (flat-bottom corrected)")
    ] = "slant_range",
) -> Response:
    """The waterfall of ``vehicle``'s side-scan ``sensor`` over the lines the World keeps."""
    hosted = host.get(world_id)

    def build(world: Any) -> Any:
        sensor_id = sensor_of_kind(world, world_id, vehicle, sensor, "side_scan", "side-scan")
        lines = host.samples.of_sensor(hosted.world_id, sensor_id)
        # Nothing to draw yet: 204, not an error.
        return _waterfall_response(lines, view) if lines else None

    answer = await host.run(world_id, build, changes=False)
    return Response(status_code=204) if answer is None else answer


class PosedWaterfallRequest(BaseModel):
    """A straight track of a catalogue side-scan over the built-in survey scene.

    The vehicle holds ``rpy_deg`` and moves along its body x axis at
    ``speed_m_per_s`` from ``position_ned_m`` (its position at time 0); the sensor
    pings on its own schedule (ping ``k`` at ``phase_ns + k * period_ns``).
    """

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)

    sensor: Literal[CATALOGUE_SIDE_SCANS] = Field(  # type: ignore[valid-type]
        default=CATALOGUE_SIDE_SCANS[0],
        description="a catalogue vehicle's side-scan, 'vehicle/sensor'",
    )
    scene: SurveyScene = Field(default_factory=SurveyScene)
    position_ned_m: list[_Coordinate] = three_numbers(
        [-40.0, 0.0, 20.0], "vehicle body position at time 0, world NED [m], each within 100 km"
    )
    rpy_deg: list[_Angle] = three_numbers(
        [0.0, 0.0, 0.0], "vehicle roll, pitch, yaw, ZYX [deg], held along the track"
    )
    speed_m_per_s: float = Field(
        default=1.5, ge=0.0, le=10.0, description="speed along the body x axis [m/s]"
    )
    ping_count: int = Field(
        default=64,
        ge=1,
        le=MAX_POSED_PINGS,
        description=f"pings on the sensor's schedule [-], at most {MAX_POSED_PINGS}",
    )
    view: View = Field(
        default="slant_range",
        description="slant_range (as sampled) or ground_range (flat-bottom corrected)",
    )
    water: WaterSpec | None = Field(
        default=None, description="a water spec document; null: the survey scene's water"
    )
    root_seed: int = Field(
        default=0,
        ge=0,
        le=2**64 - 1,
        description="root seed of keyed randomness (a speckled sensor's speckle)",
    )


@router.post(
    "/side-scan/waterfall",
    summary="A side-scan waterfall of a straight track from a typed pose, as PNG",
    response_class=Response,
    responses={200: _WATERFALL, **errors()},
)
async def posed_side_scan_waterfall(request: PosedWaterfallRequest, host: Host) -> Response:
    """:func:`leviathan.side_scan.render_track` of the request, without a World."""
    from leviathan.side_scan import render_track

    def build() -> Response:
        env = survey_environment(request.scene.seabed_triangles)
        vehicle, sensor = request.sensor.split("/")
        lines = render_track(
            env.scene_at(0),
            get_vehicle(vehicle).sensor(sensor),
            position_ned_m=request.position_ned_m,
            rpy_deg=request.rpy_deg,
            speed_m_per_s=request.speed_m_per_s,
            ping_count=request.ping_count,
            water=env.water if request.water is None else request.water,
            seed=request.root_seed,
            sensor_id=request.sensor,
        )
        return _waterfall_response(lines, request.view)

    return await host.call(build)
