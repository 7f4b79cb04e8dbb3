"""``GET /catalogue``: the built-in vehicles and the controller kinds, for a client's forms.

The controller kinds and their fields (with their bounds) are read from the
controller documents themselves (:data:`leviathan.specs.ControllerDocument`, the
schema ``POST /worlds`` reads), so a form built from this response asks for
exactly what the service accepts and cannot drift from it.
"""

from __future__ import annotations

import re
import typing
from typing import Any, Literal

from pydantic import BaseModel, Field

from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.specs import ControllerDocument

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


FieldType = Literal["number", "integer", "pair", "numbers", "points"]


class ControllerField(BaseModel):
    """One field of a controller document, as the create request accepts it."""

    name: str
    type: FieldType = Field(
        description="'number': a float; 'integer': a whole number; 'pair': (north, east) "
        "[m]; 'numbers': a list of floats (one per thruster, [N]); 'points': a list of "
        "(north, east, down) [m]."
    )
    required: bool
    default: Any = Field(None, description="The value taken when the field is left out.")
    description: str | None = None
    minimum: float | None = Field(None, description="Smallest value allowed (inclusive).")
    exclusive_minimum: float | None = Field(None, description="Values must exceed this.")
    maximum: float | None = Field(None, description="Largest value allowed (inclusive).")


class ControllerKind(BaseModel):
    """A controller document kind (``controller.kind`` of a vehicle setup) and its fields."""

    kind: str
    description: str
    fields: list[ControllerField]


class CatalogueResponse(BaseModel):
    """The built-in vehicles and the controller kinds a World can be created with."""

    vehicles: list[CatalogueVehicle]
    controllers: list[ControllerKind]


def _form_type(document: str, name: str, schema: dict[str, Any]) -> FieldType:
    kind = schema.get("type")
    if kind in ("number", "integer"):
        return kind
    items = schema.get("prefixItems")
    if kind == "array" and items and len(items) == 2:
        return "pair"
    inner = schema.get("items", {})
    if kind == "array" and inner.get("type") == "number":
        return "numbers"
    if kind == "array" and inner.get("type") == "array":
        return "points"
    raise TypeError(f"{document}.{name}: a field of schema {schema} has no form type")


def _controller_kinds() -> list[ControllerKind]:
    union = typing.get_args(ControllerDocument)[0]
    kinds = []
    for document in typing.get_args(union):
        properties = document.model_json_schema()["properties"]
        fields = []
        for name, info in document.model_fields.items():
            if name == "kind":
                continue
            schema = properties[name]
            required = info.is_required()
            fields.append(
                ControllerField(
                    name=name,
                    type=_form_type(document.__name__, name, schema),
                    required=required,
                    default=None if required else info.get_default(call_default_factory=True),
                    description=info.description,
                    minimum=schema.get("minimum"),
                    exclusive_minimum=schema.get("exclusiveMinimum"),
                    maximum=schema.get("maximum"),
                )
            )
        # The document's own fields first, the autopilot gains (all optional) after.
        fields.sort(key=lambda f: not f.required)
        kind = typing.get_args(document.model_fields["kind"].annotation)[0]
        # Plain words for a form: ":class:`leviathan.controllers.X`: ..." -> "X: ...".
        summary = re.sub(
            r":(?:class|func):`~?(?:[\w.]+\.)?(\w+)`", r"\1", (document.__doc__ or "").strip()
        )
        summary = " ".join(summary.split("\n\n")[0].split())
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
