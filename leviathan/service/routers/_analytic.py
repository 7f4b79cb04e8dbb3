"""``/analytic``: analytic imaging-sonar images (not canonical) as PNG, npz and report JSON.

Each handler calls :func:`leviathan.analytic.sonar_image`, the function a Python
user calls: for a posed request over a built-in scene (``POST
/analytic/sonar-image/{product}``) or for a hosted World's vehicle (``POST
/analytic/worlds/{world_id}/vehicles/{vehicle}/sonar-image/{product}``, under the
World's lock, changing nothing). ``product`` is ``fan.png``, ``bscan.png``,
``arrays.npz`` or ``report.json``. Errors have the service's one JSON shape.
"""

from __future__ import annotations

import io
from typing import Annotated, Any, Literal

import numpy as np
from fastapi import APIRouter, Depends, Path, Response
from pydantic import BaseModel, ConfigDict, Field

from leviathan.analytic import sonar_image, sonar_image_png
from leviathan.sensors import SonarNoiseModel
from leviathan.service._deps import get_host
from leviathan.service._errors import errors, not_found
from leviathan.service._hosting import WorldHost
from leviathan.service._params import VehicleName, WorldId
from leviathan.service._requests import VEHICLE_NAME_PATTERN
from leviathan.service.routers._common import (
    PNG_RESPONSE,
    SurveyScene,
    survey_environment,
    three_numbers,
    vehicle_of,
)
from leviathan.specs import ImagingSonarSpec, WaterSpec

__all__ = ["router"]

router = APIRouter(prefix="/analytic", tags=["analytic"])

Host = Annotated[WorldHost, Depends(get_host)]

Product = Literal["fan.png", "bscan.png", "arrays.npz", "report.json"]

_BINARY = {
    200: {
        "description": "fan.png and bscan.png: a PNG image; arrays.npz: a NumPy .npz "
        "archive; report.json: the image's report (SonarImageReport JSON)",
        "content": {
            **PNG_RESPONSE,
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
            "application/json": {"schema": {"type": "object"}},
        },
    }
}


class ImageOptions(BaseModel):
    """Options of an analytic image (units in each description)."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)

    noise: SonarNoiseModel | None = Field(default=None, description="analytic noise model")
    seed: int | None = Field(
        default=None, ge=0, lt=1 << 128, description="noise generator seed; null: unseeded"
    )
    elevation_sample_count: int | None = Field(
        default=None, ge=1, description="exact elevation samples (overrides the fill rule) [-]"
    )
    max_ray_count: int = Field(
        default=1 << 20, ge=1, le=1 << 22, description="cap on rays of the ping [-]"
    )
    saturation_ceiling_db: float | None = Field(
        default=None,
        ge=-400.0,
        le=400.0,
        description="receiver full scale [dB re 1]; null: the image peak",
    )
    bandwidth_hz: float | None = Field(
        default=None, gt=0, description="declared pulse bandwidth for c/2B [Hz]"
    )
    beamwidth_3db_deg: float | None = Field(
        default=None, gt=0, le=180, description="declared per-beam -3 dB width [deg]"
    )


class PosedImageRequest(ImageOptions):
    """A vehicle pose over a built-in scene, with the sonar to image it."""

    position_ned_m: list[float] = three_numbers(
        [-12.0, -8.0, 20.0], "vehicle body position, world NED [m]"
    )
    rpy_deg: list[float] = three_numbers([0.0, 0.0, 0.0], "vehicle roll, pitch, yaw, ZYX [deg]")
    scene: SurveyScene = Field(default_factory=SurveyScene)
    sonar: ImagingSonarSpec | None = Field(
        default=None,
        description="an imaging_sonar spec document; null: the reference survey vehicle's sonar",
    )
    water: WaterSpec | None = Field(
        default=None, description="a water spec document; null: the survey scene's water"
    )


class VehicleImageRequest(ImageOptions):
    """A hosted World's vehicle, at its committed pose."""

    sensor: str = Field(
        default="sonar", pattern=VEHICLE_NAME_PATTERN, description="the vehicle's sonar name"
    )


def _options(request: ImageOptions) -> dict[str, Any]:
    """The request's :class:`ImageOptions`: ``sonar_image``'s keyword arguments by name."""
    # getattr, not model_dump: the noise model is passed as the model it is.
    return {name: getattr(request, name) for name in ImageOptions.model_fields}


def _respond(image: Any, product: str) -> Response:
    if product == "report.json":
        return Response(image.report.to_json_text(), media_type="application/json")
    if product == "arrays.npz":
        buffer = io.BytesIO()
        np.savez(buffer, **{k: np.asarray(v) for k, v in image.arrays().items()})
        return Response(
            buffer.getvalue(),
            media_type="application/octet-stream",
            headers={"content-disposition": 'attachment; filename="sonar_image.npz"'},
        )
    view = "fan" if product == "fan.png" else "bscan"
    return Response(sonar_image_png(image, view=view), media_type="image/png")


@router.post(
    "/sonar-image/{product}",
    summary="Analytic sonar image from a pose over a built-in scene",
    response_class=Response,
    responses={**_BINARY, **errors()},
)
async def posed_sonar_image(
    product: Annotated[Product, Path(description="The product: an image, arrays or report")],
    request: PosedImageRequest,
    host: Host,
) -> Response:
    """Fan or B-scan PNG, the arrays (npz) or the report (JSON) of a posed ping."""
    from leviathan.catalogue import get_vehicle

    def build() -> Any:
        env = survey_environment(request.scene.seabed_triangles)
        spec = (
            get_vehicle("reference_survey_vehicle").sensor("sonar")
            if request.sonar is None
            else request.sonar
        )
        water = env.water if request.water is None else request.water
        return sonar_image(
            scene=env.scene_at(0),
            spec=spec,
            position_ned_m=request.position_ned_m,
            rpy_deg=request.rpy_deg,
            water=water,
            **_options(request),
        )

    return _respond(await host.call(build), product)


@router.post(
    "/worlds/{world_id}/vehicles/{vehicle}/sonar-image/{product}",
    summary="Analytic sonar image from a hosted World's vehicle",
    response_class=Response,
    responses={**_BINARY, **errors(404, 410)},
)
async def vehicle_sonar_image(
    world_id: WorldId,
    vehicle: VehicleName,
    product: Annotated[Product, Path(description="The product: an image, arrays or report")],
    request: VehicleImageRequest,
    host: Host,
) -> Response:
    """The same products for a World's vehicle at its committed pose (the World is
    unchanged); 404 for a vehicle or sonar the World does not have."""

    def build(world: Any) -> Any:
        vehicle_of(world, vehicle)
        spec = world.vehicle_spec(vehicle)
        if request.sensor not in [s.name for s in spec.sensors if s.kind == "imaging_sonar"]:
            sonars = [s.name for s in spec.sensors if s.kind == "imaging_sonar"]
            raise not_found(
                "sensor",
                request.sensor,
                f"{vehicle} has no imaging sonar {request.sensor!r}; sonars: "
                f"{', '.join(sonars) or 'none'}",
                expected=f"one of {', '.join(sonars)}" if sonars else "a vehicle with a sonar",
            )
        return sonar_image(world=world, vehicle=vehicle, sensor=request.sensor, **_options(request))

    return _respond(await host.run(world_id, build, changes=False), product)
