"""The vehicle spec: mass properties, thrusters, sensors and hull (:class:`VehicleSpec`).

Body FRD has its origin at the centre of gravity, so every position (centre of
buoyancy, thrusters, sensor mounts, hull geometry) is relative to the CG.

A vehicle without a ``hull`` is not geometry: no sensor sees it. Its document
and its identity are exactly those it had before hulls existed, because an
absent hull is left out of the spec's dump (and so of its content hash).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from leviathan.specs._base import (
    NonNegativeVec6,
    PositiveVec3,
    Real,
    SpecModel,
    Text,
    Vec3,
    _name_field,
    _omitted_while_none,
)
from leviathan.specs._hull import HullSpec
from leviathan.specs._sensors import SensorSpec


class MassPropertiesSpec(SpecModel):
    """Rigid-body and hydrodynamic parameters (Fossen-style diagonal model)."""

    __content_type__ = "leviathan.specs.MassPropertiesSpec"

    mass_kg: Real = Field(gt=0, description="Dry mass [kg]")
    inertia_kg_m2: PositiveVec3 = Field(
        description="Principal moments of inertia (Ixx, Iyy, Izz) about the CG in body FRD [kg m²]"
    )
    cg_m: Vec3 = Field(
        default=(0.0, 0.0, 0.0),
        description=(
            "Centre of gravity in body FRD [m]; the body origin IS the CG, so this must be "
            "(0, 0, 0) (shift the other positions instead)"
        ),
    )
    cb_m: Vec3 = Field(description="Centre of buoyancy in body FRD [m]")
    displaced_volume_m3: Real = Field(gt=0, description="Displaced water volume [m³]")
    added_mass: NonNegativeVec6 = Field(
        description=(
            "Diagonal added mass (X, Y, Z, K, M, N) [kg, kg, kg, kg m², kg m², kg m²], >= 0"
        )
    )
    linear_damping: NonNegativeVec6 = Field(
        description=(
            "Diagonal linear damping (surge, sway, heave, roll, pitch, yaw) "
            "[N s/m, N s/m, N s/m, N m s/rad, N m s/rad, N m s/rad], >= 0"
        )
    )
    quadratic_damping: NonNegativeVec6 = Field(
        description=(
            "Diagonal quadratic damping (surge, sway, heave, roll, pitch, yaw) "
            "[N s²/m², N s²/m², N s²/m², N m s²/rad², N m s²/rad², N m s²/rad²], >= 0"
        )
    )

    @field_validator("cg_m")
    @classmethod
    def _cg_is_origin(cls, value: Vec3) -> Vec3:
        if any(c != 0.0 for c in value):
            raise ValueError(
                f"the body frame origin is the centre of gravity, so cg_m must be (0, 0, 0), "
                f"got {value!r}; express cb_m, thruster and sensor positions relative to the CG"
            )
        return value

    @field_validator("inertia_kg_m2")
    @classmethod
    def _triangle_inequality(cls, value: Vec3) -> Vec3:
        ixx, iyy, izz = value
        if ixx + iyy < izz or iyy + izz < ixx or izz + ixx < iyy:
            raise ValueError(
                f"principal moments {value!r} violate the triangle inequality "
                "(each must be <= the sum of the other two), so no rigid body has them"
            )
        return value


class ThrusterSpec(SpecModel):
    """A fixed thruster producing force along a body-frame direction."""

    __content_type__ = "leviathan.specs.ThrusterSpec"

    name: Text = _name_field("Thruster name, unique on its vehicle")
    position_m: Vec3 = Field(description="Point of force application in body FRD [m]")
    direction: Vec3 = Field(
        description="Unit vector of positive thrust in body FRD [-], norm 1 within 1e-9"
    )
    max_thrust_n: Real = Field(gt=0, description="Maximum (forward) thrust [N]")
    min_thrust_n: Real = Field(
        description="Minimum thrust [N], negative for reverse thrust; < max_thrust_n"
    )
    time_constant_s: Real = Field(
        default=0.0, ge=0, description="First-order response time constant [s]; 0 = instant"
    )

    @field_validator("direction")
    @classmethod
    def _unit_direction(cls, value: Vec3) -> Vec3:
        norm = math.hypot(*value)
        if not abs(norm - 1.0) <= 1e-9:
            raise ValueError(
                f"direction must be a unit vector (norm 1 within 1e-9), got {value!r} with "
                f"norm {norm!r}; normalise it (divide each component by the norm)"
            )
        return value

    @field_validator("min_thrust_n")
    @classmethod
    def _thrust_range(cls, value: float, info: ValidationInfo) -> float:
        upper = info.data.get("max_thrust_n")
        if upper is not None and not value < upper:
            raise ValueError(f"min_thrust_n ({value!r}) must be less than max_thrust_n ({upper!r})")
        return value


class VehicleSpec(SpecModel):
    """A vehicle: mass properties, thrusters and sensors."""

    __content_type__ = "leviathan.specs.VehicleSpec"

    name: Text = _name_field("Vehicle name, e.g. 'torpedo_auv'")
    description: Text = Field(description="Human-readable description [-]")
    role: Literal["production", "test_reference"] = Field(
        description=(
            "'production' for a vehicle model meant for use, 'test_reference' for a "
            "test and reference model whose values are declared, not measured"
        )
    )
    mass: MassPropertiesSpec = Field(description="Rigid-body and hydrodynamic parameters")
    thrusters: tuple[ThrusterSpec, ...] = Field(
        default=(), description="Thrusters, names unique on the vehicle"
    )
    sensors: tuple[SensorSpec, ...] = Field(
        default=(), description="Sensors, names unique on the vehicle"
    )
    reference_note: Text = Field(
        default="",
        description="Why this is a test/reference model; required when role is 'test_reference'",
    )
    hull: HullSpec | None = Field(
        default=None,
        description=(
            "Hull geometry the other vehicles' sensors see (body FRD, metres, origin at the "
            "CG); absent: the vehicle is not geometry"
        ),
    )

    # An absent hull is omitted, so a document without one dumps, saves and
    # hashes exactly as it did before the field existed.
    _omit_absent_hull = _omitted_while_none("hull")

    @field_validator("thrusters", "sensors")
    @classmethod
    def _unique_names(cls, items: tuple[Any, ...], info: ValidationInfo) -> tuple[Any, ...]:
        seen: set[str] = set()
        for item in items:
            if item.name in seen:
                raise ValueError(
                    f"duplicate name {item.name!r} in {info.field_name}; names must be unique "
                    "within a vehicle"
                )
            seen.add(item.name)
        return items

    @model_validator(mode="after")
    def _reference_is_labelled(self) -> VehicleSpec:
        if self.role == "test_reference" and not self.reference_note.strip():
            raise ValueError(
                "role 'test_reference' needs a non-empty reference_note saying that the "
                "vehicle's rates and hardware are declared test values"
            )
        return self

    def sensor(self, name: str) -> SensorSpec:
        """Return the sensor called ``name``.

        Raises:
            KeyError: If the vehicle has no such sensor; the message lists those it has.
        """
        for sensor in self.sensors:
            if sensor.name == name:
                return sensor
        available = ", ".join(sorted(s.name for s in self.sensors)) or "none"
        raise KeyError(f"vehicle {self.name!r} has no sensor {name!r}; available: {available}")

    @property
    def sensor_ids(self) -> tuple[str, ...]:
        """Sorted sensor identifiers ``"<vehicle>/<sensor>"``."""
        return tuple(sorted(f"{self.name}/{sensor.name}" for sensor in self.sensors))
