"""``/health`` and ``/catalogue``: the service itself and the vehicles it can build."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from fastapi import APIRouter, Depends, Path

from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.service import _models as m
from leviathan.service._catalogue import CatalogueResponse, catalogue_response
from leviathan.service._deps import get_host
from leviathan.service._errors import errors, not_found
from leviathan.service._hosting import WorldHost
from leviathan.service._requests import CATALOGUE_NAMES
from leviathan.specs import VehicleSpec

__all__ = ["router"]

router = APIRouter(tags=["service"])

Host = Annotated[WorldHost, Depends(get_host)]


@router.get("/health", response_model=m.HealthResponse, summary="Version and limits")
async def health(host: Host) -> m.HealthResponse:
    """The service's version, its limits and how many Worlds are open."""
    from leviathan import __version__

    # The limits are reported under their ServiceSettings names.
    limits = {
        f.name: getattr(host.settings, f.name)
        for f in dataclasses.fields(host.settings)
        if f.name in m.HealthResponse.model_fields
    }
    return m.HealthResponse(
        status="ok",
        version=__version__,
        worlds_open=len(host.ids()),
        **limits,
        samples_bytes_held=host.samples.bytes_held,
        catalogue=list(vehicle_names()),
    )


@router.get("/catalogue", response_model=CatalogueResponse, summary="The catalogue")
async def catalogue_list() -> CatalogueResponse:
    """Every built-in vehicle with its sensors and thrusters, and every controller kind
    with the fields ``POST /worlds`` accepts for it (for building a create form)."""
    return catalogue_response()


@router.get(
    "/catalogue/{name}",
    response_model=VehicleSpec,
    summary="A catalogue vehicle's document",
    responses=errors(404),
)
async def catalogue_vehicle(
    name: Annotated[
        str,
        Path(
            description="A catalogue vehicle name",
            json_schema_extra={"enum": list(CATALOGUE_NAMES)},
        ),
    ],
) -> VehicleSpec:
    """The built-in vehicle document ``name`` (usable inline in a create request); 404 for
    any other name."""
    if name not in CATALOGUE_NAMES:
        raise not_found(
            "name",
            name,
            f"no catalogue vehicle {name!r}",
            expected=f"one of {', '.join(CATALOGUE_NAMES)}",
        )
    return get_vehicle(name)
