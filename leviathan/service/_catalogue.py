"""``GET /catalogue``: the built-in vehicles and the controller kinds, for a client's forms.

The controller kinds and their fields are read from the request documents themselves
(:data:`leviathan.service._models.ControllerDocument`), so a form built from this
response asks for exactly what ``POST /worlds`` accepts and cannot drift from it.
Kept apart from :mod:`leviathan.service._models` (already long), which holds the
request and response bodies of the World endpoints.
"""

from __future__ import annotations

import re
import typing
from typing import Any, Literal

from pydantic import BaseModel, Field

from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.service import _models as m

__all__ = [
    "CatalogueResponse",
    "CatalogueSensor",
    "CatalogueThruster",
    "CatalogueVehicle",
    "ControllerField",
    "ControllerKind",
    "catalogue_response",
]


class CatalogueSensor(BaseModel):
    """One sensor a catalogue vehicle declares."""

    name: str = Field(description="Sensor name; its id in a World is 'vehicle/name'.")
    kind: str = Field(description="Sensor kind, e.g. 'imaging_sonar', 'dvl', 'imu', 'camera'.")


class CatalogueThruster(BaseModel):
    """One thruster of a catalogue vehicle (in the order of a direct_thrust command)."""

    name: str
    min_thrust_n: float = Field(description="Most reverse force [N].")
    max_thrust_n: float = Field(description="Most forward force [N].")


class CatalogueVehicle(BaseModel):
    """A built-in vehicle: a name a create request may give as its ``spec``."""

    name: str
    description: str
    role: str = Field(description="'production' or 'test_reference'.")
    sensors: list[CatalogueSensor]
    thrusters: list[CatalogueThruster]


FieldType = Literal["number", "numbers", "points", "options"]


class ControllerField(BaseModel):
    """One field of a controller document, as the create request accepts it."""

    name: str
    type: FieldType = Field(
        description="'number': a float; 'numbers': a list of floats (one per thruster, "
        "[N]); 'points': a list of (north, east, down) [m]; 'options': a name -> number "
        "mapping."
    )
    required: bool
    default: Any = Field(None, description="The value taken when the field is left out.")
    description: str | None = None


class ControllerKind(BaseModel):
    """A controller document kind (``controller.kind`` of a vehicle setup) and its fields."""

    kind: str
    description: str
    fields: list[ControllerField]


class CatalogueResponse(BaseModel):
    """The built-in vehicles and the controller kinds a World can be created with."""

    vehicles: list[CatalogueVehicle]
    controllers: list[ControllerKind]


_TYPES: dict[Any, FieldType] = {
    float: "number",
    float | None: "number",
    list[float]: "numbers",
    list[m.Vec3]: "points",
    dict[str, float]: "options",
}


def _controller_kinds() -> list[ControllerKind]:
    union = typing.get_args(m.ControllerDocument)[0]
    kinds = []
    for document in typing.get_args(union):
        fields = []
        for name, info in document.model_fields.items():
            if name == "kind":
                continue
            if info.annotation not in _TYPES:
                raise TypeError(
                    f"{document.__name__}.{name}: a field of type {info.annotation} has no "
                    f"form type; add it to _TYPES ({', '.join(map(str, _TYPES))})"
                )
            required = info.is_required()
            fields.append(
                ControllerField(
                    name=name,
                    type=_TYPES[info.annotation],
                    required=required,
                    default=None if required else info.get_default(call_default_factory=True),
                    description=info.description,
                )
            )
        kind = typing.get_args(document.model_fields["kind"].annotation)[0]
        # Plain words for a form: ":class:`leviathan.controllers.X`: ..." -> "X: ...".
        summary = re.sub(r":class:`(?:[\w.]+\.)?(\w+)`", r"\1", (document.__doc__ or "").strip())
        summary = summary.splitlines()[0]
        kinds.append(ControllerKind(kind=kind, description=summary, fields=fields))
    return kinds


def catalogue_response() -> CatalogueResponse:
    """Every catalogue vehicle (sensors, thrusters) and every controller document kind."""
    vehicles = []
    for name in vehicle_names():
        spec = get_vehicle(name)
        vehicles.append(
            CatalogueVehicle(
                name=name,
                description=spec.description,
                role=str(getattr(spec.role, "value", spec.role)),
                sensors=[CatalogueSensor(name=s.name, kind=s.kind) for s in spec.sensors],
                thrusters=[
                    CatalogueThruster(
                        name=t.name, min_thrust_n=t.min_thrust_n, max_thrust_n=t.max_thrust_n
                    )
                    for t in spec.thrusters
                ],
            )
        )
    return CatalogueResponse(vehicles=vehicles, controllers=_controller_kinds())
