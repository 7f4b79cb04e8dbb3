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

Validation is strict, for documents and for Python construction alike: a
number field takes an ``int`` or a ``float`` (numpy's included) and nothing
else, so ``true`` or ``"45"`` is refused rather than read as 1.0 or 45.0; an
integer field (a period, a count) refuses floats, even ``2.0``; a bool field
takes only ``True``/``False`` and a text field only ``str``. Arrays (JSON/TOML
arrays, Python lists) are accepted wherever a tuple is declared. Documents are
refused before or while parsing when they exceed :data:`MAX_DOCUMENT_BYTES`,
:data:`MAX_DOCUMENT_DEPTH` or :data:`MAX_DOCUMENT_ELEMENTS`, and sensors whose
arrays would exceed a stated bound (e.g. :data:`MAX_SONAR_RAY_COUNT`) are
refused at validation with the size they would need.
"""

from __future__ import annotations

import bisect
import json
import math
import numbers
import os
import re
import reprlib
import tomllib
from collections.abc import Mapping
from difflib import get_close_matches
from fractions import Fraction
from pathlib import Path
from types import UnionType
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import tomli_w
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from leviathan._files import write_atomically
from leviathan.time import MAX_PERIOD_NS, MIN_PERIOD_NS

if TYPE_CHECKING:
    from leviathan.frames import Transform
    from leviathan.schedule import SensorSchedule

__all__ = [
    "MAX_CAMERA_PIXEL_COUNT",
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_DEPTH",
    "MAX_DOCUMENT_ELEMENTS",
    "MAX_DVL_BEAM_COUNT",
    "MAX_SONAR_CELL_COUNT",
    "MAX_SONAR_RAY_COUNT",
    "MAX_SONAR_TOPK_SLOT_COUNT",
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
    "format_validation_error",
    "load_spec",
    "save_spec",
    "spec_from_dict",
]

M = TypeVar("M", bound="SpecModel")

# Names end up in identifiers such as "<vehicle>/<sensor>", so they may not
# contain "/" or whitespace.
_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$"
_NAME_HINT = "letters, digits, '_', '.', '-'; no '/' or spaces"

# ------------------------------------------------------------- strict scalars
#
# pydantic's lax mode turns True into 1.0 and "45" into 45.0. Its strict mode
# is no cure: a strict model refuses lists for tuple fields (every JSON/TOML
# array), a strict float still takes numpy.bool_ and any object with
# __float__, and a strict int refuses numpy integers. So number fields carry
# their own before-validators (the tuple and model fields stay lax, so arrays
# and nested mappings are accepted), and bool/str fields pydantic's Strict.


def _kind(value: Any) -> str:
    return type(value).__name__


def _hint(value: Any) -> str:
    # numpy's bool is no subclass of bool; its type is named "bool" (numpy 2) or "bool_".
    if isinstance(value, bool) or _kind(value) in ("bool", "bool_"):
        return "; a boolean is not a number"
    if isinstance(value, str | bytes):
        return "; write the number without quotes"
    return ""


def _real(value: Any) -> float:
    """Accept an int or float (numpy's too) as a float; refuse bool, str and the rest."""
    if type(value) is float:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise PydanticCustomError(
            "real_number_expected",
            "expected a number (int or float), not {kind}{hint}",
            {"kind": _kind(value), "hint": _hint(value)},
        )
    try:
        return float(value)
    except OverflowError:
        raise PydanticCustomError(
            "real_number_overflow",
            "expected a number within the float64 range (magnitude below 1.8e308)",
        ) from None


def _integer(value: Any) -> int:
    """Accept an int (numpy's too); refuse bool, float (even 2.0), str and the rest."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        hint = _hint(value)
        if isinstance(value, numbers.Real) and not hint:
            hint = "; a whole number is written without a decimal point or exponent"
        raise PydanticCustomError(
            "integer_expected",
            "expected a whole number (int), not {kind}{hint}",
            {"kind": _kind(value), "hint": hint},
        )
    return int(value)


Real = Annotated[float, BeforeValidator(_real)]
"""A float field that also takes ints, never bools or strings."""
Integer = Annotated[int, BeforeValidator(_integer)]
"""An int field that takes ints only, never bools, floats or strings."""
Flag = Annotated[bool, Strict()]
"""A bool field that takes ``True``/``False`` only, never 1, 0 or "yes"."""
Text = Annotated[str, Strict()]
"""A str field that takes ``str`` only, never bytes."""

Vec3 = tuple[Real, Real, Real]
PositiveFloat = Annotated[Real, Field(gt=0)]
NonNegativeFloat = Annotated[Real, Field(ge=0)]
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

# ------------------------------------------------------------------ bounds
#
# Generous limits: each is far above every catalogue vehicle and every frozen
# fixture scene, and far below what would exhaust memory or hang a process.

MAX_DOCUMENT_BYTES = 1 << 20
"""Largest spec file :func:`load_spec` reads [bytes] (1 MiB; a catalogue vehicle is 3-4 kB)."""

MAX_DOCUMENT_DEPTH = 32
"""Deepest nesting of objects/tables and arrays in a document [-], the root counting as 1.

A vehicle document nests 5 deep (vehicle, sensors, sensor, mount, vector). The
limit is checked before parsing, so a document nested 100,000 deep is refused
with :class:`SpecError` instead of exhausting the parser's recursion.
"""

MAX_DOCUMENT_ELEMENTS = 100_000
"""Most values in one document [-]: every object/table, array and scalar counts once
(keys are not counted separately). A catalogue vehicle has 132 to 178."""

MAX_SONAR_RAY_COUNT = 1 << 22
"""Most rays one imaging-sonar ping may trace, ``bearing_count * elevation_sample_count``
[-] (4,194,304; the reference survey sonar traces 256 x 64 = 16,384)."""

MAX_SONAR_CELL_COUNT = 1 << 22
"""Most image cells of one sonar frame, ``range_bin_count * bearing_count`` [-]
(4,194,304, e.g. 4,096 bins x 1,024 bearings; the reference sonar has 512 x 256).
Every per-cell channel of a frame (returns, primary contributor, validity) has this size."""

MAX_SONAR_TOPK_SLOT_COUNT = 1 << 24
"""Most top-K contributor slots of one sonar frame, ``range_bin_count * bearing_count *
top_k`` [-] (16,777,216; the reference sonar has 131,072 x 4 = 524,288). Every top-K
channel of a frame has this size."""

MAX_CAMERA_PIXEL_COUNT = 1 << 25
"""Most pixels (and rays) of one camera image, ``width_px * height_px`` [-]
(33,554,432, above 8K UHD 7680 x 4320; the catalogue cameras have 1280 x 720)."""

MAX_DVL_BEAM_COUNT = 256
"""Most acoustic beams of one DVL [-] (a Janus DVL has 4)."""


class SpecError(ValueError):
    """A specification document failed validation.

    Attributes:
        errors: One line per problem, each ``field.path: message (got value)``
            (see :func:`format_validation_error`); ``<root>`` for the document as
            a whole, e.g. when it exceeds a size limit. Empty when the document
            could not be parsed (the message says why).
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
    infinities in every float field. Fields are typed with :data:`Real`,
    :data:`Integer`, :data:`Flag` and :data:`Text`, so no value is coerced from
    another kind (a bool or a string is never a number, a float never an int).
    """

    __content_type__ = "leviathan.specs.SpecModel"

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


# --------------------------------------------------------------------------- time


class ScheduleSpec(SpecModel):
    """When a sensor samples: ``t_n = phase_ns + n * period_ns`` in integer nanoseconds."""

    __content_type__ = "leviathan.specs.ScheduleSpec"

    period_ns: Integer = Field(
        ge=MIN_PERIOD_NS,
        le=MAX_PERIOD_NS,
        description=(
            "Sampling period [ns], a whole number in [MIN_PERIOD_NS, MAX_PERIOD_NS] "
            "(1 ns to one day)"
        ),
    )
    phase_ns: Integer = Field(
        default=0,
        ge=0,
        le=MAX_PERIOD_NS,
        description="Time of the first sample after t = 0 [ns], in [0, MAX_PERIOD_NS]",
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
                is not a whole number of nanoseconds (e.g. 3 Hz), or (a pydantic
                ``ValidationError``) the period or phase lies outside
                [MIN_PERIOD_NS, MAX_PERIOD_NS].
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

    __content_type__ = "leviathan.specs.MountSpec"

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

    __content_type__ = "leviathan.specs.CurrentLayer"

    depth_m: Real = Field(ge=0, description="Depth below the sea surface [m], >= 0")
    current_ned_m_per_s: Vec3 = Field(
        description="Water velocity at this depth in world NED (north, east, down) [m/s]"
    )


class WaterSpec(SpecModel):
    """Properties of the water column.

    Only physically impossible values are refused here. Whether a medium lies
    inside an acoustic model's validity range is decided by that model, which
    reports out-of-range media as unsupported rather than invalid.
    """

    __content_type__ = "leviathan.specs.WaterSpec"

    temperature_c: Real = Field(
        default=10.0, ge=-5.0, le=40.0, description="Water temperature [°C], in [-5, 40]"
    )
    salinity_psu: Real = Field(default=35.0, ge=0.0, description="Practical salinity [PSU], >= 0")
    ph: Real = Field(default=8.0, ge=0.0, le=14.0, description="pH [-], in [0, 14]")
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

    __content_type__ = "leviathan.specs.BeamPatternSpec"

    kind: Literal["uniform", "gaussian"] = Field(
        description="Pattern shape: 'uniform' (gain 1 everywhere) or 'gaussian'"
    )
    azimuth_3db_full_width_deg: Real | None = Field(
        default=None,
        gt=0,
        description="Gaussian -3 dB (half-power) full width in azimuth [deg]; None for uniform",
    )
    elevation_3db_full_width_deg: Real | None = Field(
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


def _oversized(factors: Mapping[str, int], what: str, bound_name: str, bound: int) -> str | None:
    """Describe a product of sizes above its bound, e.g. ``a x b = 3 x 4 = 12 rays``; else None."""
    size = math.prod(factors.values())
    if size <= bound:
        return None
    return (
        f"{' x '.join(factors)} = {' x '.join(f'{v:,}' for v in factors.values())} = "
        f"{size:,} {what}, more than {bound_name} = {bound:,}"
    )


def _refuse_oversized(problems: list[str | None], fix: str) -> None:
    found = [problem for problem in problems if problem is not None]
    if found:
        raise ValueError("; ".join(found) + f"; {fix}")


class ImagingSonarSpec(SpecModel):
    """Forward-looking imaging sonar producing a range x azimuth image.

    Its arrays are bounded at validation: ``bearing_count * elevation_sample_count``
    rays per ping at most :data:`MAX_SONAR_RAY_COUNT`, ``range_bin_count *
    bearing_count`` cells at most :data:`MAX_SONAR_CELL_COUNT`, and cells times
    ``top_k`` at most :data:`MAX_SONAR_TOPK_SLOT_COUNT`.
    """

    __content_type__ = "leviathan.specs.ImagingSonarSpec"

    kind: Literal["imaging_sonar"] = Field(default="imaging_sonar", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'sonar'")
    frequency_hz: Real = Field(gt=0, description="Acoustic operating frequency [Hz]")
    azimuth_fov_deg: Real = Field(
        gt=0, lt=180, description="Full azimuth field of view centred on the boresight [deg]"
    )
    elevation_aperture_deg: Real = Field(
        gt=0, lt=180, description="Full vertical aperture centred on the boresight [deg]"
    )
    bearing_count: Integer = Field(ge=1, description="Number of bearings (image columns) [-]")
    elevation_sample_count: Integer = Field(
        ge=1, le=4096, description="Rays per bearing across the elevation aperture [-]"
    )
    range_min_m: Real = Field(ge=0, description="Near edge of the range window [m]")
    range_max_m: Real = Field(description="Far edge of the range window [m], > range_min_m")
    range_bin_count: Integer = Field(ge=1, description="Number of range bins (image rows) [-]")
    beam_pattern: BeamPatternSpec = Field(description="One-way intensity beam pattern")
    top_k: Integer = Field(ge=1, le=64, description="Contributors kept per cell [-], 1..64")
    speckle: Flag = Field(
        default=False, description="Apply fully developed (exponential) speckle [-]"
    )
    dynamic_range_db: Real = Field(
        default=60.0, gt=0, description="Display dynamic range [dB]; display products only"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: Text = _hardware_note_field()

    @field_validator("range_max_m")
    @classmethod
    def _range_window(cls, value: float, info: ValidationInfo) -> float:
        return _must_exceed(value, info, "range_min_m")

    @model_validator(mode="after")
    def _bounded_arrays(self) -> ImagingSonarSpec:
        rays = {
            "bearing_count": self.bearing_count,
            "elevation_sample_count": self.elevation_sample_count,
        }
        cells = {"range_bin_count": self.range_bin_count, "bearing_count": self.bearing_count}
        _refuse_oversized(
            [
                _oversized(rays, "rays per ping", "MAX_SONAR_RAY_COUNT", MAX_SONAR_RAY_COUNT),
                _oversized(cells, "cells", "MAX_SONAR_CELL_COUNT", MAX_SONAR_CELL_COUNT),
                _oversized(
                    {**cells, "top_k": self.top_k},
                    "top-K slots",
                    "MAX_SONAR_TOPK_SLOT_COUNT",
                    MAX_SONAR_TOPK_SLOT_COUNT,
                ),
            ],
            "reduce bearing_count, elevation_sample_count, range_bin_count or top_k",
        )
        return self

    @property
    def range_bin_width_m(self) -> float:
        """Width of one range bin [m]."""
        return (self.range_max_m - self.range_min_m) / self.range_bin_count


class DVLSpec(SpecModel):
    """Doppler velocity log in a Janus configuration."""

    __content_type__ = "leviathan.specs.DVLSpec"

    kind: Literal["dvl"] = Field(default="dvl", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'dvl'")
    beam_count: Integer = Field(
        default=4,
        ge=1,
        le=MAX_DVL_BEAM_COUNT,
        description="Number of acoustic beams [-], 1..MAX_DVL_BEAM_COUNT (256)",
    )
    beam_angle_deg: Real = Field(
        default=30.0,
        gt=0,
        lt=90,
        description="Angle of each beam from the sensor x (boresight) axis [deg]",
    )
    min_range_m: Real = Field(ge=0, description="Minimum altitude / range for a lock [m]")
    max_range_m: Real = Field(description="Maximum altitude / range for a lock [m], > min")
    velocity_noise_std_m_per_s: Real = Field(
        default=0.0, ge=0, description="Standard deviation of velocity noise [m/s]"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: Text = _hardware_note_field()

    @field_validator("max_range_m")
    @classmethod
    def _range_window(cls, value: float, info: ValidationInfo) -> float:
        return _must_exceed(value, info, "min_range_m")


class IMUSpec(SpecModel):
    """Inertial measurement unit (specific force and angular rate in the sensor frame)."""

    __content_type__ = "leviathan.specs.IMUSpec"

    kind: Literal["imu"] = Field(default="imu", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'imu'")
    accel_noise_std_m_per_s2: Real = Field(
        default=0.0, ge=0, description="Standard deviation of accelerometer noise [m/s²]"
    )
    gyro_noise_std_rad_per_s: Real = Field(
        default=0.0, ge=0, description="Standard deviation of gyroscope noise [rad/s]"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: Text = _hardware_note_field()


class CameraSpec(SpecModel):
    """Pinhole camera.

    The mount places the sensor FRD frame (x along the optical axis); the
    OpenCV optical frame follows from it by the fixed rotation defined in
    :mod:`leviathan.frames`. ``width_px * height_px`` is at most
    :data:`MAX_CAMERA_PIXEL_COUNT`.
    """

    __content_type__ = "leviathan.specs.CameraSpec"

    kind: Literal["camera"] = Field(default="camera", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'front_camera'")
    width_px: Integer = Field(ge=1, description="Image width [px]")
    height_px: Integer = Field(ge=1, description="Image height [px]")
    fx_px: Real = Field(gt=0, description="Focal length along image x [px]")
    fy_px: Real = Field(gt=0, description="Focal length along image y [px]")
    cx_px: Real = Field(description="Principal point x, from the left edge [px]")
    cy_px: Real = Field(description="Principal point y, from the top edge [px]")
    near_m: Real = Field(gt=0, description="Near clipping distance along the optical axis [m]")
    far_m: Real = Field(description="Far clipping distance along the optical axis [m], > near_m")
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: Text = _hardware_note_field()

    @field_validator("far_m")
    @classmethod
    def _depth_window(cls, value: float, info: ValidationInfo) -> float:
        return _must_exceed(value, info, "near_m")

    @model_validator(mode="after")
    def _bounded_image(self) -> CameraSpec:
        pixels = {"width_px": self.width_px, "height_px": self.height_px}
        _refuse_oversized(
            [_oversized(pixels, "pixels", "MAX_CAMERA_PIXEL_COUNT", MAX_CAMERA_PIXEL_COUNT)],
            "reduce width_px or height_px",
        )
        return self


SensorSpec = Annotated[
    ImagingSonarSpec | DVLSpec | IMUSpec | CameraSpec, Field(discriminator="kind")
]
"""Any sensor, selected by its ``kind`` tag."""


# ------------------------------------------------------------------------ vehicle


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


def _strip_annotated(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _discriminator_tags(member: Any) -> tuple[Any, ...]:
    """The ``kind`` values that select ``member`` in a discriminated union, or ()."""
    member = _strip_annotated(member)
    if isinstance(member, type) and issubclass(member, BaseModel):
        kind = member.model_fields.get("kind")
        if kind is not None and get_origin(kind.annotation) is Literal:
            return get_args(kind.annotation)
    return ()


def _step(tp: Any, item: int | str) -> tuple[Any, FieldInfo | None, bool]:
    """Follow one location item from type ``tp``: (next type, its field, item is a union tag)."""
    tp = _strip_annotated(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        field = tp.model_fields.get(item) if isinstance(item, str) else None
        return (None if field is None else field.annotation), field, False
    origin = get_origin(tp)
    if origin is tuple and isinstance(item, int):
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0], None, False
        return (args[item] if 0 <= item < len(args) else None), None, False
    if origin in (Union, UnionType) and isinstance(item, str):
        for member in get_args(tp):
            if item in _discriminator_tags(member):
                return member, None, True
    return None, None, False


def _format_location(
    loc: tuple[int | str, ...], model: type[BaseModel] | None = None
) -> tuple[str, FieldInfo | None]:
    """Format a pydantic error location as a document path, e.g. ``sensors[0].schedule.period_ns``.

    A discriminated union puts the tag it chose (e.g. ``imaging_sonar``) into the
    location; it names no key of the document, so when ``model`` is known it is
    left out. Also returns the field the path ends at, when known.
    """
    parts: list[str] = []
    tp: Any = model
    field: FieldInfo | None = None
    for item in loc:
        tp, field, is_tag = _step(tp, item)
        if is_tag:
            continue
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(f".{item}" if parts else str(item))
    return "".join(parts) or "<root>", field


# Bounded in depth, length and width, so quoting a huge or deeply nested input
# in an error message costs little and never recurses far.
_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = 6
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40


def _short_repr(value: Any, limit: int = 80) -> str:
    try:
        text = _REPR.repr(value)
    except (ValueError, RecursionError):
        # An int beyond Python's str-conversion digit limit cannot be shown at all.
        text = f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _problem(err: Mapping[str, Any], model: type[BaseModel] | None) -> str:
    path, field = _format_location(tuple(err["loc"]), model)
    message = str(err["msg"])
    kind = err.get("type")
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
        if isinstance(err.get("input"), Mapping):
            # A check across fields (e.g. bounded arrays): the message quotes the
            # values that matter; the whole object would only bury them.
            return f"{path}: {message}"
    if kind == "missing":
        expected = f": {field.description}" if field is not None and field.description else ""
        return f"{path}: Field required{expected} (not given)"
    if kind == "extra_forbidden" and model is not None:
        parent = model
        for item in err["loc"][:-1]:
            parent = _step(parent, item)[0]
        parent = _strip_annotated(parent)
        if isinstance(parent, type) and issubclass(parent, BaseModel):
            known = get_close_matches(str(err["loc"][-1]), list(parent.model_fields), n=1)
            if known:
                message += f"; did you mean {known[0]!r}?"
    return f"{path}: {message} (got {_short_repr(err.get('input'))})"


def format_validation_error(
    exc: ValidationError, model: type[BaseModel] | None = None
) -> tuple[str, ...]:
    """Format each problem of a pydantic ``ValidationError`` as one line.

    Args:
        exc: The error raised by validating ``model``.
        model: The model that was validated; with it, paths leave out the tags of
            discriminated unions and a missing field is described.

    Returns:
        One line per problem, ``field.path: what was expected (got value)``, e.g.
        ``mass.mass_kg: expected a number (int or float), not str; write the number
        without quotes (got '45')``; values are shortened to at most 80 characters.
    """
    return tuple(_problem(err, model) for err in exc.errors(include_url=False))


def _is_container(node: Any) -> bool:
    # The exact types first: they are what parsers produce, and cheaper to test.
    return isinstance(node, dict | list | tuple) or isinstance(node, Mapping)


def _document_problems(data: Any) -> list[str]:
    """Problems with the size of a parsed document: nesting depth and value count.

    Walks the document without recursion, so any depth is measured safely. The
    walk stops once it has seen more than MAX_DOCUMENT_ELEMENTS values (the
    message then gives the count so far as "at least"), so a cyclic or enormous
    Python structure is refused in bounded time.
    """
    ceiling = MAX_DOCUMENT_ELEMENTS
    values = 1
    deepest = 0
    too_deep_at: Any = None  # (parent link, key) chain of the first too-deep container
    # Containers still to visit: (container, its depth, link to its location).
    pending: list[tuple[Any, int, Any]] = [(data, 1, ())] if _is_container(data) else []
    while pending and values <= ceiling:
        node, depth, link = pending.pop()
        deepest = max(deepest, depth)
        if too_deep_at is None and depth > MAX_DOCUMENT_DEPTH:
            too_deep_at = link
        values += len(node)
        for key, child in node.items() if isinstance(node, Mapping) else enumerate(node):
            if _is_container(child):
                pending.append((child, depth + 1, (link, key)))
    at_least = "at least " if pending else ""
    problems = []
    if too_deep_at is not None:
        keys: list[Any] = []
        while too_deep_at:
            too_deep_at, key = too_deep_at
            keys.append(key)
        path = _format_location(tuple(reversed(keys)))[0]
        path = path if len(path) <= 120 else path[:117] + "..."
        problems.append(
            f"{path}: nesting depth {at_least}{deepest:,} exceeds MAX_DOCUMENT_DEPTH = "
            f"{MAX_DOCUMENT_DEPTH} (objects/tables and arrays inside each other)"
        )
    if values > MAX_DOCUMENT_ELEMENTS:
        problems.append(
            f"<root>: {at_least}{values:,} values, more than MAX_DOCUMENT_ELEMENTS = "
            f"{MAX_DOCUMENT_ELEMENTS:,}"
        )
    return problems


def _refuse(model: type[BaseModel], where: str, lines: tuple[str, ...], source: Any) -> SpecError:
    message = f"invalid {model.__name__}{where}: {len(lines)} problem(s)\n  " + "\n  ".join(lines)
    return SpecError(message, errors=lines, source=None if source is None else os.fspath(source))


def spec_from_dict(data: Any, model: type[M], *, source: str | os.PathLike[str] | None = None) -> M:
    """Validate a parsed document into a spec model.

    Args:
        data: The parsed document, normally a mapping.
        model: The spec class to build, e.g. :class:`VehicleSpec`.
        source: File the document came from, named in the error message.

    Returns:
        The validated, frozen spec.

    Raises:
        SpecError: If validation fails, or the document nests deeper than
            :data:`MAX_DOCUMENT_DEPTH` or holds more than
            :data:`MAX_DOCUMENT_ELEMENTS` values; one line per problem, each
            formatted ``field.path: message (got value)``.
    """
    where = f" in {os.fspath(source)!s}" if source is not None else ""
    problems = _document_problems(data)
    if problems:
        raise _refuse(model, where, tuple(problems), source)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _refuse(model, where, format_validation_error(exc, model), source) from None


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(
            f"unsupported spec file extension {path.suffix!r} for {path}; "
            f"use one of {', '.join(_SUFFIXES)}"
        )
    return suffix


_JSON_OUTSIDE = re.compile(r'["\[\]{}]')
_JSON_IN_STRING = re.compile(r'["\\]')


def _json_depth(text: str) -> int:
    """Deepest nesting of objects and arrays in JSON text, strings skipped [-].

    A linear scan that needs no parse, so it is safe on any input. On invalid
    JSON it may overestimate, never underestimate, the depth the parser reaches.
    """
    depth = deepest = pos = 0
    while (match := _JSON_OUTSIDE.search(text, pos)) is not None:
        char, pos = match.group(), match.end()
        if char == '"':
            while (inner := _JSON_IN_STRING.search(text, pos)) is not None:
                pos = inner.end() + (1 if inner.group() == "\\" else 0)
                if inner.group() == '"':
                    break
            else:
                return deepest  # unterminated string: the parser stops here too
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


_TOML_OUTSIDE = re.compile(r"[\"'#\[\]{}]")
_TOML_IN_BASIC = re.compile(r'["\\\n]')
_TOML_IN_MULTILINE_BASIC = re.compile(r'["\\]')
_TOML_IN_LITERAL = re.compile(r"['\n]")
_TOML_IN_MULTILINE_LITERAL = re.compile("'")


def _quote_run(text: str, pos: int, quote: str) -> int:
    """Length of the run of ``quote`` characters starting at ``pos``."""
    end = pos
    while end < len(text) and text[end] == quote:
        end += 1
    return end - pos


def _toml_depth(text: str) -> int:
    """Deepest nesting of tables and arrays in TOML text, strings and comments skipped [-].

    The root table counts as 1; inline arrays and tables add one level each
    (table headers such as ``[a]`` open and close on their line). A linear scan
    that needs no parse; the parsed document is measured again exactly. A
    multi-line string closes at the last quote of a run of 3 to 5 (TOML lets
    one or two quotes sit just before the closing delimiter).
    """
    depth = deepest = pos = 0
    while (match := _TOML_OUTSIDE.search(text, pos)) is not None:
        char, pos = match.group(), match.end()
        if char == "#":
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end
        elif char in "\"'":
            multiline = _quote_run(text, match.start(), char) >= 3
            if multiline:
                pos = match.start() + 3
                inside = _TOML_IN_MULTILINE_BASIC if char == '"' else _TOML_IN_MULTILINE_LITERAL
            else:
                inside = _TOML_IN_BASIC if char == '"' else _TOML_IN_LITERAL
            while (inner := inside.search(text, pos)) is not None:
                found, pos = inner.group(), inner.end()
                if found == "\\" and char == '"':
                    pos += 1  # the escaped character, whatever it is
                elif found == "\n":
                    return deepest + 1  # unterminated string: the parser stops here
                elif not multiline:
                    break
                else:
                    run = _quote_run(text, inner.start(), char)
                    pos = inner.start() + min(run, 5)
                    if run >= 3:
                        break
            else:
                break  # unterminated string: the parser stops here
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest + 1


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r} in one object; each key may appear once")
        obj[key] = value
    return obj


def load_spec(path: str | os.PathLike[str], model: type[M]) -> M:
    """Read a JSON or TOML spec document (chosen by extension) and validate it.

    Args:
        path: A ``.json`` or ``.toml`` file of at most :data:`MAX_DOCUMENT_BYTES`.
        model: The spec class to build, e.g. :class:`VehicleSpec`.

    Returns:
        The validated spec.

    Raises:
        ValueError: If the extension is not ``.json`` or ``.toml``.
        SpecError: If the file is larger than :data:`MAX_DOCUMENT_BYTES`, nests
            deeper than :data:`MAX_DOCUMENT_DEPTH`, holds more than
            :data:`MAX_DOCUMENT_ELEMENTS` values, cannot be parsed (a JSON
            object with a repeated key included) or fails validation; the
            message names the file and the limit or field.
        FileNotFoundError: If the file does not exist.
    """
    path = Path(path)
    suffix = _suffix(path)
    where = f" in {path}"
    with path.open("rb") as handle:
        # Read one byte past the cap: enough to know the file is too large
        # without reading all of an arbitrarily large (or endless) file.
        raw = handle.read(MAX_DOCUMENT_BYTES + 1)
        size = os.fstat(handle.fileno()).st_size
    if len(raw) > MAX_DOCUMENT_BYTES:
        measured = f"{size:,} bytes" if size > MAX_DOCUMENT_BYTES else "more than that"
        line = f"<root>: the file holds {measured}, more than MAX_DOCUMENT_BYTES = "
        line += f"{MAX_DOCUMENT_BYTES:,} bytes"
        raise _refuse(model, where, (line,), path)
    kind = suffix[1:].upper()
    try:
        text = raw.decode("utf-8")
        depth = _json_depth(text) if suffix == ".json" else _toml_depth(text)
        if depth > MAX_DOCUMENT_DEPTH:
            line = f"<root>: nesting depth {depth:,} exceeds MAX_DOCUMENT_DEPTH = "
            line += f"{MAX_DOCUMENT_DEPTH} (objects/tables and arrays inside each other)"
            raise _refuse(model, where, (line,), path)
        if suffix == ".json":
            data = json.loads(text, object_pairs_hook=_json_object)
        else:
            data = tomllib.loads(text)
    # JSONDecodeError, TOMLDecodeError and UnicodeDecodeError are ValueErrors, as
    # is an integer literal beyond Python's digit limit; RecursionError is a
    # backstop should the depth scan ever underestimate.
    except SpecError:
        raise
    except (ValueError, RecursionError) as exc:
        raise SpecError(f"cannot parse {path} as {kind}: {exc}", source=os.fspath(path)) from exc
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
    try:
        return write_atomically(path, payload, overwrite=overwrite)
    except FileExistsError:
        raise FileExistsError(f"{path} already exists; pass overwrite=True to replace it") from None
