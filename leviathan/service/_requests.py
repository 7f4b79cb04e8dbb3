"""The service's request bodies: strict pydantic models whose JSON Schema is the API's truth.

The World documents are :mod:`leviathan.specs`' one schema (the Python API and
the analytic scenarios read the same): :data:`~leviathan.specs.ControllerDocument`,
:class:`~leviathan.specs.EnvironmentDocument` and a vehicle placement that on a
server names a catalogue vehicle or carries its document inline (never a path).
Every body refuses unknown keys, a bool or a string for a number, a float for an
integer, ``null`` where a field is left out instead, NaN and infinities; every
bound the server enforces is a bound in the schema (limits that are settings,
such as ticks per request, are written into the served schema by
:func:`leviathan.service._openapi.service_openapi`), and a rule between fields is
a ``oneOf``/``anyOf`` of required fields where JSON Schema can say it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from leviathan.catalogue import vehicle_names
from leviathan.specs import (
    ControllerDocument,
    CurrentLayer,
    EnvironmentDocument,
    Integer,
    Real,
    SensorSpec,
    Text,
    VehicleSetupDocument,
    VehicleSpec,
)
from leviathan.time import MAX_STEP_NS, MIN_STEP_NS

__all__ = [
    "CATALOGUE_NAMES",
    "PATTERN_HINTS",
    "STEP_S_PATTERN",
    "VEHICLE_NAME_PATTERN",
    "CreateWorldRequest",
    "CurrentRequest",
    "EditRequest",
    "PlayRequest",
    "StepLengthRequest",
    "StepRequest",
    "VehicleSetupRequest",
]

VEHICLE_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$"
"""Vehicle (and sensor) names: letters, digits, '_', '.', '-'; no '/' or spaces."""

CATALOGUE_NAMES: tuple[str, ...] = tuple(vehicle_names())
"""The built-in vehicles a request may name."""

# A tick length in seconds as decimal text: a whole number of nanoseconds in
# [1 ns, 1000 s], without exponent, sign or spaces (nine fraction digits at most).
_FRACTION = r"(\.[0-9]{1,9})?"
_SUB_SECOND = "|".join(f"0{{{k}}}[1-9][0-9]{{0,{8 - k}}}" for k in range(9))
STEP_S_PATTERN = rf"^([1-9][0-9]{{0,2}}{_FRACTION}|1000(\.0{{1,9}})?|0\.({_SUB_SECOND}))$"
"""``step_s``: decimal seconds, a whole number of nanoseconds from 1 ns to 1000 s."""

PATTERN_HINTS: dict[str, str] = {
    STEP_S_PATTERN: "decimal seconds that make a whole number of nanoseconds from 1 ns to "
    "1000 s, e.g. '0.01'",
    VEHICLE_NAME_PATTERN: "a name of letters, digits, '_', '.' and '-' (no '/' or spaces)",
}
"""What each pattern of the request bodies accepts, in words (for error messages)."""

CatalogueName = Literal[CATALOGUE_NAMES]  # type: ignore[valid-type]


def _spec_branch(value: object) -> str:
    return "catalogue_name" if isinstance(value, str) else "vehicle_document"


CatalogueSpec = Annotated[
    Annotated[CatalogueName, Tag("catalogue_name")]
    | Annotated[VehicleSpec, Tag("vehicle_document")],
    Discriminator(_spec_branch),
]
"""A catalogue vehicle name or an inline vehicle document (a server reads no paths)."""

StepNs = Annotated[Integer, Field(ge=MIN_STEP_NS, le=MAX_STEP_NS, description="Tick length [ns]")]
StepS = Annotated[
    Text, Field(pattern=STEP_S_PATTERN, description="Tick length [s] as decimal text, e.g. '0.01'")
]


def _exactly_one(*names: str) -> dict[str, list[dict[str, list[str]]]]:
    return {"oneOf": [{"required": [name]} for name in names]}


class _Body(BaseModel):
    """Request bodies refuse unknown keys and non-finite numbers, like the library's specs."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    def _given(self, *names: str) -> list[str]:
        return [name for name in names if name in self.model_fields_set]


def _refuse_unless_one(body: _Body, *names: str) -> None:
    given = body._given(*names)
    if len(given) != 1:
        raise ValueError(
            f"{'/'.join(names)}: give exactly one of {' and '.join(names)}, got "
            f"{given or 'neither'}"
        )


class VehicleSetupRequest(VehicleSetupDocument):
    """:class:`~leviathan.world.VehicleSetup` (the :class:`~leviathan.specs.VehicleSetupDocument`
    schema) as a server reads it: ``spec`` is a catalogue name or an inline document."""

    spec: CatalogueSpec = Field(
        description="A catalogue vehicle name, or an inline vehicle document (VehicleSpec)"
    )


class CreateWorldRequest(_Body):
    """Arguments of :meth:`World.create`; give exactly one of ``step_ns`` and ``step_s``.

    Vehicle names are unique within the World; a ``direct_thrust`` controller has one
    command per thruster of its vehicle.
    """

    model_config = ConfigDict(json_schema_extra=_exactly_one("step_ns", "step_s"))

    vehicles: tuple[VehicleSetupRequest, ...] = Field(min_length=1, max_length=16)
    environment: EnvironmentDocument | None = Field(
        None, description="Scene, objects and water; null: open water with the default water"
    )
    root_seed: Integer = Field(0, ge=0, le=2**64 - 1, description="Root seed of keyed randomness")
    step_ns: StepNs = None
    step_s: StepS = None
    tracing_backend: Literal["auto", "reference", "warp"] = Field(
        "auto", description="Ray tracer of the World's sensors"
    )

    @model_validator(mode="after")
    def _one_step(self) -> CreateWorldRequest:
        _refuse_unless_one(self, "step_ns", "step_s")
        return self


class StepRequest(_Body):
    """Advance ``n`` ticks (at most the service's ``max_ticks_per_request``)."""

    n: Integer = Field(1, ge=1, description="Ticks to advance")
    detail: Literal["summary", "records"] = Field(
        "summary",
        description="'records' adds every capture group in lossless wire form (for clients "
        "that rebuild the records, e.g. leviathan.client).",
    )


class CurrentRequest(_Body):
    """:meth:`World.set_current`: exactly one of a uniform current and a depth profile.

    Profile layers are in strictly increasing depth.
    """

    model_config = ConfigDict(json_schema_extra=_exactly_one("current_ned_m_per_s", "profile"))

    current_ned_m_per_s: tuple[Real, Real, Real] = Field(
        None, description="Uniform water velocity in world NED [m/s]"
    )
    profile: tuple[CurrentLayer, ...] = Field(
        None, min_length=1, max_length=1024, description="Current layers, increasing depth"
    )

    @model_validator(mode="after")
    def _one_current(self) -> CurrentRequest:
        _refuse_unless_one(self, "current_ned_m_per_s", "profile")
        return self


class StepLengthRequest(_Body):
    """:meth:`World.set_step`: exactly one of ``step_ns`` and ``step_s``."""

    model_config = ConfigDict(json_schema_extra=_exactly_one("step_ns", "step_s"))

    step_ns: StepNs = None
    step_s: StepS = None

    @model_validator(mode="after")
    def _one_step(self) -> StepLengthRequest:
        _refuse_unless_one(self, "step_ns", "step_s")
        return self


_VEHICLE_PARTS = ("spec", "sensors", "controller")


class EditRequest(_Body):
    """:meth:`World.edit`: the environment, or a vehicle's document, sensors or controller.

    ``spec``, ``sensors`` and ``controller`` need ``vehicle``; a request changes
    something (``environment``, or ``vehicle`` with at least one of them). A
    ``direct_thrust`` controller has one command per thruster of the vehicle.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "dependentRequired": {part: ["vehicle"] for part in _VEHICLE_PARTS},
            "anyOf": [{"required": ["environment"]}]
            + [{"required": ["vehicle", part]} for part in _VEHICLE_PARTS],
        }
    )

    vehicle: Text = Field(None, pattern=VEHICLE_NAME_PATTERN, description="The vehicle edited")
    spec: CatalogueSpec = Field(
        None, description="Its new document: a catalogue name or an inline VehicleSpec"
    )
    sensors: tuple[SensorSpec, ...] = Field(
        None, max_length=64, description="Its new sensors (replacing the document's)"
    )
    controller: ControllerDocument = Field(None, description="Its new controller")
    environment: EnvironmentDocument = Field(None, description="The new environment")

    @model_validator(mode="after")
    def _something(self) -> EditRequest:
        parts = self._given(*_VEHICLE_PARTS)
        if parts and "vehicle" not in self.model_fields_set:
            raise ValueError(f"vehicle: name the vehicle whose {' and '.join(parts)} you replace")
        if not parts and "environment" not in self.model_fields_set:
            raise ValueError(
                "edit: nothing to change; give environment, or vehicle and its spec, sensors "
                "or controller"
            )
        return self


class PlayRequest(_Body):
    """Server-side Play: steps the World until paused, a limit, or ``until_tick``."""

    mode: Literal["realtime", "fast"] = Field(
        "realtime", description="'realtime' paces simulated time to the wall clock."
    )
    ticks_per_step: Integer = Field(1, ge=1, description="Ticks per committed step")
    rate: Real = Field(1.0, gt=0.0, le=1000.0, description="Simulated s per wall s (realtime)")
    until_tick: Integer = Field(None, ge=0, description="Stop at this tick; left out: no stop")
