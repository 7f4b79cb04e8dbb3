"""Declarative specifications: vehicles, sensors, mounts, schedules and water.

Everything a user can declare is a frozen pydantic model that refuses unknown
keys and non-finite floats, so a bad document fails at the boundary with the
field path and what was expected, never deep inside a simulation. Every field
description states its meaning and its unit.

Frames follow the project conventions: world NED, body FRD with its origin at
the centre of gravity, sensor FRD with x along the boresight. Mount angles are
roll, pitch, yaw in degrees applied in ZYX order, R = Rz(yaw) Ry(pitch) Rx(roll).

Documents are read and written as JSON or TOML with :func:`load_spec` and
:func:`save_spec`; :func:`spec_from_dict` validates an already-parsed mapping.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import tempfile
import tomllib
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import tomli_w
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

if TYPE_CHECKING:
    from leviathan.frames import Transform
    from leviathan.schedule import SensorSchedule

__all__ = [
    "BeamPatternSpec",
    "CameraSpec",
    "CurrentLayer",
    "DVLSpec",
    "IMUSpec",
    "ImagingSonarSpec",
    "MassPropertiesSpec",
    "MountSpec",
    "ScheduleSpec",
    "SensorSpec",
    "SpecError",
    "SpecModel",
    "ThrusterSpec",
    "VehicleSpec",
    "WaterSpec",
    "load_spec",
    "save_spec",
    "spec_from_dict",
]

M = TypeVar("M", bound="SpecModel")

# Names end up in identifiers such as "<vehicle>/<sensor>", so they may not
# contain "/" or whitespace.
_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$"
_NAME_HINT = "letters, digits, '_', '.', '-'; no '/' or spaces"

Vec3 = tuple[float, float, float]
PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
PositiveVec3 = tuple[PositiveFloat, PositiveFloat, PositiveFloat]
NonNegativeVec6 = tuple[
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
]

_SUFFIXES = (".json", ".toml")


class SpecError(ValueError):
    """A specification document failed validation.

    Attributes:
        errors: One line per problem, each ``field.path: message (got value)``.
        source: The file the document came from, or ``None``.
    """

    def __init__(self, message: str, *, errors: tuple[str, ...] = (), source: str | None = None):
        super().__init__(message)
        self.errors = errors
        self.source = source


class SpecModel(BaseModel):
    """Common base of every specification model.

    Frozen (specs are values, safe to share and hash), refuses unknown keys
    (a typo is an error, not a silently ignored setting) and refuses NaN and
    infinities in every float field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


# --------------------------------------------------------------------------- time


class ScheduleSpec(SpecModel):
    """When a sensor samples: ``t_n = phase_ns + n * period_ns`` in integer nanoseconds."""

    period_ns: int = Field(gt=0, description="Sampling period [ns], a whole number > 0")
    phase_ns: int = Field(
        default=0, ge=0, description="Time of the first sample after t = 0 [ns], >= 0"
    )

    @classmethod
    def from_rate_hz(cls, rate_hz: float, phase_ns: int = 0) -> ScheduleSpec:
        """Build a schedule from a rate whose period is a whole number of nanoseconds.

        Args:
            rate_hz: Sampling rate [Hz]; 1e9 / rate_hz must be an integer.
            phase_ns: Time of the first sample [ns].

        Returns:
            The schedule, e.g. 5 Hz gives ``period_ns=200_000_000``.

        Raises:
            ValueError: If the rate is not positive and finite, or its period
                is not a whole number of nanoseconds (e.g. 3 Hz).
        """
        if isinstance(rate_hz, bool) or not isinstance(rate_hz, int | float):
            raise ValueError(f"rate_hz must be a number [Hz], got {rate_hz!r}")
        if not math.isfinite(rate_hz) or rate_hz <= 0:
            raise ValueError(f"rate_hz must be finite and > 0 [Hz], got {rate_hz!r}")
        # str() gives the shortest decimal that round-trips, so 0.5 and 2.5 are
        # taken as the exact decimals the user wrote, not binary approximations.
        period = Fraction(10**9) / Fraction(str(rate_hz))
        if period.denominator != 1:
            raise ValueError(
                f"a rate of {rate_hz!r} Hz has a period of 1e9/{rate_hz!r} = {float(period)!r} ns, "
                "which is not a whole number of nanoseconds; simulation time is integer "
                "nanoseconds, so declare period_ns directly (e.g. "
                f"{math.floor(period)}) or choose a rate that divides 1e9 ns"
            )
        return cls(period_ns=int(period), phase_ns=phase_ns)

    @property
    def rate_hz(self) -> float:
        """Sampling rate [Hz] (derived; the period is authoritative)."""
        return 1e9 / self.period_ns

    def schedule(self) -> SensorSchedule:
        """Return the runtime :class:`leviathan.schedule.SensorSchedule`."""
        from leviathan.schedule import SensorSchedule

        return SensorSchedule(period_ns=self.period_ns, phase_ns=self.phase_ns)


# ------------------------------------------------------------------------- frames


class MountSpec(SpecModel):
    """Pose of a sensor frame relative to its parent link: ``T_link_sensor``."""

    translation_m: Vec3 = Field(
        description="Sensor origin in the parent link (body) FRD frame, (x, y, z) [m]"
    )
    rpy_deg: Vec3 = Field(
        default=(0.0, 0.0, 0.0),
        description=(
            "Roll, pitch, yaw of the sensor frame relative to the link [deg], applied ZYX: "
            "R_link_sensor = Rz(yaw) Ry(pitch) Rx(roll); in FRD, negative pitch tilts x down"
        ),
    )

    def transform(self) -> Transform:
        """Return ``T_link_sensor``, mapping sensor-frame points into the link frame."""
        from leviathan.frames import Transform

        roll_deg, pitch_deg, yaw_deg = self.rpy_deg
        return Transform.from_euler(
            math.radians(roll_deg),
            math.radians(pitch_deg),
            math.radians(yaw_deg),
            translation=self.translation_m,
        )


# -------------------------------------------------------------------------- water


class CurrentLayer(SpecModel):
    """One knot of a piecewise-linear current profile."""

    depth_m: float = Field(ge=0, description="Depth below the sea surface [m], >= 0")
    current_ned_m_per_s: Vec3 = Field(
        description="Water velocity at this depth in world NED (north, east, down) [m/s]"
    )


class WaterSpec(SpecModel):
    """Properties of the water column.

    Only physically impossible values are refused here. Whether a medium lies
    inside an acoustic model's validity range is decided by that model, which
    reports out-of-range media as unsupported rather than invalid.
    """

    temperature_c: float = Field(
        default=10.0, ge=-5.0, le=40.0, description="Water temperature [°C], in [-5, 40]"
    )
    salinity_psu: float = Field(default=35.0, ge=0.0, description="Practical salinity [PSU], >= 0")
    ph: float = Field(default=8.0, ge=0.0, le=14.0, description="pH [-], in [0, 14]")
    current_ned_m_per_s: Vec3 = Field(
        default=(0.0, 0.0, 0.0),
        description=(
            "Uniform water velocity in world NED [m/s]; used when current_profile is empty "
            "and must stay zero when a profile is given"
        ),
    )
    current_profile: tuple[CurrentLayer, ...] = Field(
        default=(),
        description=(
            "Piecewise-linear current over depth, layers in strictly increasing depth [m]; "
            "linear between layers, held constant above the first and below the last"
        ),
    )

    @field_validator("current_profile")
    @classmethod
    def _depths_increase(cls, layers: tuple[CurrentLayer, ...]) -> tuple[CurrentLayer, ...]:
        for index in range(1, len(layers)):
            if not layers[index].depth_m > layers[index - 1].depth_m:
                raise ValueError(
                    "layer depths must be strictly increasing, but layer "
                    f"{index} has depth_m={layers[index].depth_m!r} after "
                    f"{layers[index - 1].depth_m!r}; sort the layers and remove duplicates"
                )
        return layers

    @model_validator(mode="after")
    def _one_current_source(self) -> WaterSpec:
        if self.current_profile and any(v != 0.0 for v in self.current_ned_m_per_s):
            raise ValueError(
                "give either a uniform current_ned_m_per_s or a current_profile, not both; "
                "with a profile, leave current_ned_m_per_s at (0, 0, 0)"
            )
        return self

    def current_at_depth(self, depth_m: float) -> Vec3:
        """Water velocity at a depth.

        Args:
            depth_m: Depth below the surface [m]; values outside the profile are
                clamped to the nearest layer.

        Returns:
            Current in world NED [m/s]. At a layer's depth the layer's value is
            returned exactly.

        Raises:
            ValueError: If ``depth_m`` is not finite.
        """
        if not math.isfinite(depth_m):
            raise ValueError(f"depth_m must be finite [m], got {depth_m!r}")
        layers = self.current_profile
        if not layers:
            return self.current_ned_m_per_s
        depths = [layer.depth_m for layer in layers]
        if depth_m <= depths[0]:
            return layers[0].current_ned_m_per_s
        if depth_m >= depths[-1]:
            return layers[-1].current_ned_m_per_s
        upper = bisect.bisect_right(depths, depth_m)
        lower = upper - 1
        d0, d1 = depths[lower], depths[upper]
        c0 = layers[lower].current_ned_m_per_s
        c1 = layers[upper].current_ned_m_per_s
        weight = (depth_m - d0) / (d1 - d0)
        return (
            c0[0] + weight * (c1[0] - c0[0]),
            c0[1] + weight * (c1[1] - c0[1]),
            c0[2] + weight * (c1[2] - c0[2]),
        )


# ------------------------------------------------------------------------ sensors


class BeamPatternSpec(SpecModel):
    """One-way intensity beam pattern relative to the boresight (two-way is its square)."""

    kind: Literal["uniform", "gaussian"] = Field(
        description="Pattern shape: 'uniform' (gain 1 everywhere) or 'gaussian'"
    )
    azimuth_3db_full_width_deg: float | None = Field(
        default=None,
        gt=0,
        description="Gaussian -3 dB (half-power) full width in azimuth [deg]; None for uniform",
    )
    elevation_3db_full_width_deg: float | None = Field(
        default=None,
        gt=0,
        description="Gaussian -3 dB (half-power) full width in elevation [deg]; None for uniform",
    )

    @model_validator(mode="after")
    def _widths_match_kind(self) -> BeamPatternSpec:
        widths = {
            "azimuth_3db_full_width_deg": self.azimuth_3db_full_width_deg,
            "elevation_3db_full_width_deg": self.elevation_3db_full_width_deg,
        }
        if self.kind == "gaussian":
            missing = [key for key, value in widths.items() if value is None]
            if missing:
                raise ValueError(
                    f"a gaussian beam needs {' and '.join(missing)} (-3 dB full width > 0 [deg])"
                )
        else:
            present = [key for key, value in widths.items() if value is not None]
            if present:
                raise ValueError(
                    f"a uniform beam has no widths: remove {' and '.join(present)} "
                    "or use kind='gaussian'"
                )
        return self


def _name_field(what: str) -> Any:
    return Field(
        min_length=1,
        pattern=_NAME_PATTERN,
        description=f"{what} ({_NAME_HINT})",
    )


def _schedule_field() -> Any:
    return Field(description="Sampling schedule in integer nanoseconds")


def _mount_field() -> Any:
    return Field(description="Mount T_link_sensor of the sensor FRD frame (x along the boresight)")


def _hardware_note_field() -> Any:
    return Field(
        min_length=1,
        description=(
            "Provenance of the hardware values, e.g. 'declared test value, not a device "
            "specification'"
        ),
    )


def _must_exceed(value: float, info: ValidationInfo, other: str) -> float:
    """Refuse ``value <= info.data[other]``; skipped when ``other`` itself failed."""
    lower = info.data.get(other)
    if lower is not None and not value > lower:
        raise ValueError(f"{info.field_name} ({value!r}) must be greater than {other} ({lower!r})")
    return value


class ImagingSonarSpec(SpecModel):
    """Forward-looking imaging sonar producing a range x azimuth image."""

    kind: Literal["imaging_sonar"] = Field(default="imaging_sonar", description="Sensor type tag")
    name: str = _name_field("Sensor name, unique on its vehicle, e.g. 'sonar'")
    frequency_hz: float = Field(gt=0, description="Acoustic operating frequency [Hz]")
    azimuth_fov_deg: float = Field(
        gt=0, lt=180, description="Full azimuth field of view centred on the boresight [deg]"
    )
    elevation_aperture_deg: float = Field(
        gt=0, lt=180, description="Full vertical aperture centred on the boresight [deg]"
    )
    bearing_count: int = Field(ge=1, description="Number of bearings (image columns) [-]")
    elevation_sample_count: int = Field(
        ge=1, le=4096, description="Rays per bearing across the elevation aperture [-]"
    )
    range_min_m: float = Field(ge=0, description="Near edge of the range window [m]")
    range_max_m: float = Field(description="Far edge of the range window [m], > range_min_m")
    range_bin_count: int = Field(ge=1, description="Number of range bins (image rows) [-]")
    beam_pattern: BeamPatternSpec = Field(description="One-way intensity beam pattern")
    top_k: int = Field(ge=1, le=64, description="Contributors kept per cell [-], 1..64")
    speckle: bool = Field(
        default=False, description="Apply fully developed (exponential) speckle [-]"
    )
    dynamic_range_db: float = Field(
        default=60.0, gt=0, description="Display dynamic range [dB]; display products only"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: str = _hardware_note_field()

    @field_validator("range_max_m")
    @classmethod
    def _range_window(cls, value: float, info: ValidationInfo) -> float:
        return _must_exceed(value, info, "range_min_m")

    @property
    def range_bin_width_m(self) -> float:
        """Width of one range bin [m]."""
        return (self.range_max_m - self.range_min_m) / self.range_bin_count


class DVLSpec(SpecModel):
    """Doppler velocity log in a Janus configuration."""

    kind: Literal["dvl"] = Field(default="dvl", description="Sensor type tag")
    name: str = _name_field("Sensor name, unique on its vehicle, e.g. 'dvl'")
    beam_count: int = Field(default=4, ge=1, description="Number of acoustic beams [-]")
    beam_angle_deg: float = Field(
        default=30.0,
        gt=0,
        lt=90,
        description="Angle of each beam from the sensor x (boresight) axis [deg]",
    )
    min_range_m: float = Field(ge=0, description="Minimum altitude / range for a lock [m]")
    max_range_m: float = Field(description="Maximum altitude / range for a lock [m], > min")
    velocity_noise_std_m_per_s: float = Field(
        default=0.0, ge=0, description="Standard deviation of velocity noise [m/s]"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: str = _hardware_note_field()

    @field_validator("max_range_m")
    @classmethod
    def _range_window(cls, value: float, info: ValidationInfo) -> float:
        return _must_exceed(value, info, "min_range_m")


class IMUSpec(SpecModel):
    """Inertial measurement unit (specific force and angular rate in the sensor frame)."""

    kind: Literal["imu"] = Field(default="imu", description="Sensor type tag")
    name: str = _name_field("Sensor name, unique on its vehicle, e.g. 'imu'")
    accel_noise_std_m_per_s2: float = Field(
        default=0.0, ge=0, description="Standard deviation of accelerometer noise [m/s²]"
    )
    gyro_noise_std_rad_per_s: float = Field(
        default=0.0, ge=0, description="Standard deviation of gyroscope noise [rad/s]"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: str = _hardware_note_field()


class CameraSpec(SpecModel):
    """Pinhole camera.

    The mount places the sensor FRD frame (x along the optical axis); the
    OpenCV optical frame follows from it by the fixed rotation defined in
    :mod:`leviathan.frames`.
    """

    kind: Literal["camera"] = Field(default="camera", description="Sensor type tag")
    name: str = _name_field("Sensor name, unique on its vehicle, e.g. 'front_camera'")
    width_px: int = Field(ge=1, description="Image width [px]")
    height_px: int = Field(ge=1, description="Image height [px]")
    fx_px: float = Field(gt=0, description="Focal length along image x [px]")
    fy_px: float = Field(gt=0, description="Focal length along image y [px]")
    cx_px: float = Field(description="Principal point x, from the left edge [px]")
    cy_px: float = Field(description="Principal point y, from the top edge [px]")
    near_m: float = Field(gt=0, description="Near clipping distance along the optical axis [m]")
    far_m: float = Field(description="Far clipping distance along the optical axis [m], > near_m")
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: str = _hardware_note_field()

    @field_validator("far_m")
    @classmethod
    def _depth_window(cls, value: float, info: ValidationInfo) -> float:
        return _must_exceed(value, info, "near_m")


SensorSpec = Annotated[
    ImagingSonarSpec | DVLSpec | IMUSpec | CameraSpec, Field(discriminator="kind")
]
"""Any sensor, selected by its ``kind`` tag."""


# ------------------------------------------------------------------------ vehicle


class MassPropertiesSpec(SpecModel):
    """Rigid-body and hydrodynamic parameters (Fossen-style diagonal model)."""

    mass_kg: float = Field(gt=0, description="Dry mass [kg]")
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
    displaced_volume_m3: float = Field(gt=0, description="Displaced water volume [m³]")
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

    name: str = _name_field("Thruster name, unique on its vehicle")
    position_m: Vec3 = Field(description="Point of force application in body FRD [m]")
    direction: Vec3 = Field(
        description="Unit vector of positive thrust in body FRD [-], norm 1 within 1e-9"
    )
    max_thrust_n: float = Field(gt=0, description="Maximum (forward) thrust [N]")
    min_thrust_n: float = Field(
        description="Minimum thrust [N], negative for reverse thrust; < max_thrust_n"
    )
    time_constant_s: float = Field(
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

    name: str = _name_field("Vehicle name, e.g. 'torpedo_auv'")
    description: str = Field(description="Human-readable description [-]")
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
    reference_note: str = Field(
        default="",
        description="Why this is a test/reference model; required when role is 'test_reference'",
    )

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

    def sensor(self, name: str) -> ImagingSonarSpec | DVLSpec | IMUSpec | CameraSpec:
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


# -------------------------------------------------------------------------- files


def _format_location(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(f".{item}" if parts else str(item))
    return "".join(parts) or "<root>"


def _short_repr(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def spec_from_dict(data: Any, model: type[M], *, source: str | os.PathLike[str] | None = None) -> M:
    """Validate a parsed document into a spec model.

    Args:
        data: The parsed document, normally a mapping.
        model: The spec class to build, e.g. :class:`VehicleSpec`.
        source: File the document came from, named in the error message.

    Returns:
        The validated, frozen spec.

    Raises:
        SpecError: If validation fails; one line per problem, each formatted
            ``field.path: message (got value)``.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        lines = tuple(
            f"{_format_location(err['loc'])}: {err['msg']} (got {_short_repr(err.get('input'))})"
            for err in exc.errors(include_url=False)
        )
        where = f" in {os.fspath(source)!s}" if source is not None else ""
        message = f"invalid {model.__name__}{where}: {len(lines)} problem(s)\n  " + "\n  ".join(
            lines
        )
        raise SpecError(
            message, errors=lines, source=None if source is None else os.fspath(source)
        ) from None


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(
            f"unsupported spec file extension {path.suffix!r} for {path}; "
            f"use one of {', '.join(_SUFFIXES)}"
        )
    return suffix


def load_spec(path: str | os.PathLike[str], model: type[M]) -> M:
    """Read a JSON or TOML spec document (chosen by extension) and validate it.

    Args:
        path: A ``.json`` or ``.toml`` file.
        model: The spec class to build, e.g. :class:`VehicleSpec`.

    Returns:
        The validated spec.

    Raises:
        ValueError: If the extension is not ``.json`` or ``.toml``.
        SpecError: If the file cannot be parsed or fails validation; the
            message names the file.
        FileNotFoundError: If the file does not exist.
    """
    path = Path(path)
    suffix = _suffix(path)
    raw = path.read_bytes()
    try:
        if suffix == ".json":
            data = json.loads(raw.decode("utf-8"))
        else:
            data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(
            f"cannot parse {path} as {suffix[1:].upper()}: {exc}", source=os.fspath(path)
        ) from exc
    return spec_from_dict(data, model, source=path)


def _drop_none(value: Any, where: str = "") -> Any:
    """Remove None-valued keys (TOML has no null; field defaults restore them on load)."""
    if isinstance(value, Mapping):
        return {
            k: _drop_none(v, f"{where}.{k}" if where else k)
            for k, v in value.items()
            if v is not None
        }
    if isinstance(value, list | tuple):
        if any(item is None for item in value):
            raise ValueError(f"{where}: TOML cannot hold None inside an array; save as .json")
        return [_drop_none(item, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def _serialise(spec: SpecModel, suffix: str) -> bytes:
    data = spec.model_dump(mode="json")
    if suffix == ".json":
        return (json.dumps(data, sort_keys=True, indent=2, allow_nan=False) + "\n").encode("utf-8")
    return tomli_w.dumps(_drop_none(data)).encode("utf-8")


def save_spec(spec: SpecModel, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write a spec as JSON (sorted keys, indent 2) or TOML, chosen by extension.

    The document is written to a temporary file in the target directory and
    moved into place, so readers never see a half-written file and nothing is
    left behind when writing fails.

    Args:
        spec: The spec to write.
        path: Destination ``.json`` or ``.toml`` file.
        overwrite: Replace an existing file; by default an existing file is refused.

    Returns:
        The path written.

    Raises:
        ValueError: If the extension is not ``.json`` or ``.toml``.
        FileExistsError: If the file exists and ``overwrite`` is False.
    """
    path = Path(path)
    suffix = _suffix(path)
    if not overwrite and path.exists():
        raise FileExistsError(f"{path} already exists; pass overwrite=True to replace it")
    payload = _serialise(spec, suffix)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp_name, path)
        else:
            # link() fails if the target appeared meanwhile, so a file created by
            # someone else between the check above and now is never clobbered.
            try:
                os.link(tmp_name, path)
            except FileExistsError:
                raise FileExistsError(
                    f"{path} already exists; pass overwrite=True to replace it"
                ) from None
            os.unlink(tmp_name)
    except BaseException:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
        raise
    return path
