"""Sensor specs: imaging sonar, DVL, IMU, camera, pressure, and the :data:`SensorSpec` union.

The multibeam's and the side-scan's specs are in ``_multibeam`` and ``_side_scan``.

Each sensor carries a ``kind`` tag (the union's discriminator), a name unique on
its vehicle, a schedule, a mount and a note on where its hardware values come
from. Sensors whose arrays would exceed a stated bound are refused here, with
the size they would need.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    Discriminator,
    Field,
    PlainValidator,
    Tag,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from leviathan.specs._base import (
    MAX_CAMERA_PIXEL_COUNT,
    MAX_DVL_BEAM_COUNT,
    Flag,
    Integer,
    Real,
    SpecModel,
    Text,
    _above,
    _hardware_note_field,
    _mount_field,
    _name_field,
    _oversized,
    _range_bin_width,
    _range_max_field,
    _range_min_field,
    _RangeMax,
    _refuse_oversized,
    _refuse_oversized_sonar,
    _schedule_field,
)
from leviathan.specs._mount import MountSpec
from leviathan.specs._multibeam import MultibeamSpec
from leviathan.specs._schedule import ScheduleSpec
from leviathan.specs._side_scan import SideScanSonarSpec


def _noise_std_field(noise: str) -> Any:
    """A sensor's noise level: a standard deviation >= 0, 0 (no noise) by default."""
    return Field(default=0.0, ge=0, description=f"Standard deviation of {noise}")


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
    range_min_m: Real = _range_min_field()
    range_max_m: _RangeMax = _range_max_field()
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

    @model_validator(mode="after")
    def _bounded_arrays(self) -> ImagingSonarSpec:
        _refuse_oversized_sonar(
            {
                "bearing_count": self.bearing_count,
                "elevation_sample_count": self.elevation_sample_count,
            },
            {"range_bin_count": self.range_bin_count, "bearing_count": self.bearing_count},
            self.top_k,
            "reduce bearing_count, elevation_sample_count, range_bin_count or top_k",
        )
        return self

    range_bin_width_m = property(_range_bin_width, doc="Width of one range bin [m].")


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
    max_range_m: Annotated[Real, _above("min_range_m")] = Field(
        description="Maximum altitude / range for a lock [m], > min"
    )
    velocity_noise_std_m_per_s: Real = _noise_std_field("velocity noise [m/s]")
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: Text = _hardware_note_field()


class IMUSpec(SpecModel):
    """Inertial measurement unit (specific force and angular rate in the sensor frame)."""

    __content_type__ = "leviathan.specs.IMUSpec"

    kind: Literal["imu"] = Field(default="imu", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'imu'")
    accel_noise_std_m_per_s2: Real = _noise_std_field("accelerometer noise [m/s²]")
    gyro_noise_std_rad_per_s: Real = _noise_std_field("gyroscope noise [rad/s]")
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
    far_m: Annotated[Real, _above("near_m")] = Field(
        description="Far clipping distance along the optical axis [m], > near_m"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: Text = _hardware_note_field()

    @model_validator(mode="after")
    def _bounded_image(self) -> CameraSpec:
        pixels = {"width_px": self.width_px, "height_px": self.height_px}
        _refuse_oversized(
            [_oversized(pixels, "pixels", "MAX_CAMERA_PIXEL_COUNT", MAX_CAMERA_PIXEL_COUNT)],
            "reduce width_px or height_px",
        )
        return self


class PressureSpec(SpecModel):
    """Pressure (depth) sensor: absolute pressure at the sensor from the committed depth.

    The model (:mod:`leviathan.sensors`, ``measure_pressure``) is hydrostatic:
    ``p = surface_pressure_pa + rho(T, S) g d`` at the sensor's depth ``d``.
    """

    __content_type__ = "leviathan.specs.PressureSpec"

    kind: Literal["pressure"] = Field(default="pressure", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'pressure'")
    surface_pressure_pa: Real = Field(
        default=101_325.0,
        ge=0,
        description="Absolute pressure at the sea surface (the atmosphere's) [Pa]; 101325 Pa "
        "is one standard atmosphere",
    )
    noise_std_pa: Real = _noise_std_field("the keyed pressure noise [Pa]")
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field()
    hardware_note: Text = _hardware_note_field()


# The sensor kinds vehicle documents know statically: pydantic validates them against
# this discriminated union, which is also what the JSON schema (and the service's
# OpenAPI) describes. A new built-in kind adds its spec here: the one line outside its
# own module.
BUILT_IN_SENSOR_SPECS: tuple[type[SpecModel], ...] = (
    ImagingSonarSpec,
    DVLSpec,
    IMUSpec,
    CameraSpec,
    PressureSpec,
    MultibeamSpec,
    SideScanSonarSpec,
)
"""The spec types of the built-in sensor kinds, in the union's order."""

_BUILT_IN_KINDS = {cls.model_fields["kind"].default: cls for cls in BUILT_IN_SENSOR_SPECS}

# Kinds registered at run time (leviathan.sensors.register_sensor_kind with a spec type
# outside the union, e.g. a kind defined in a test or a plug-in): spec kind -> spec type.
_RUN_TIME_SPECS: dict[str, type[BaseModel]] = {}


def register_sensor_spec(spec_type: type[BaseModel]) -> None:
    """Lets vehicle documents declare sensors of a kind registered at run time.

    :func:`leviathan.sensors.register_sensor_kind` calls it for a kind whose spec
    is not one of the built-in union's members. Such sensors validate against
    ``spec_type`` (errors keep their field paths); the JSON schema describes the
    built-in kinds only.

    Raises:
        TypeError: If ``spec_type`` is not a pydantic model with a ``kind`` default.
        ValueError: If its kind is a built-in kind with another spec type.
    """
    kind_field = getattr(spec_type, "model_fields", {}).get("kind")
    if kind_field is None or not isinstance(kind_field.default, str):
        raise TypeError(
            f"spec_type: expected a pydantic model with a 'kind' default, got {spec_type!r}"
        )
    kind = kind_field.default
    built_in = _BUILT_IN_KINDS.get(kind)
    if built_in is not None:
        if built_in is not spec_type:
            raise ValueError(
                f"spec_type: kind {kind!r} is a built-in kind validated as "
                f"{built_in.__name__}, not {spec_type.__name__}"
            )
        return
    _RUN_TIME_SPECS[kind] = spec_type


def unregister_sensor_spec(kind: str) -> None:
    """Forgets a run-time sensor kind (:func:`register_sensor_spec`); built-ins stay."""
    _RUN_TIME_SPECS.pop(kind, None)


def _kind_of(value: Any) -> Any:
    return value.get("kind") if isinstance(value, Mapping) else getattr(value, "kind", None)


def _sensor_tag(value: Any) -> str:
    kind = _kind_of(value)
    return kind if isinstance(kind, str) and kind in _BUILT_IN_KINDS else "run_time_kind"


def _run_time_sensor(value: Any) -> Any:
    kind = _kind_of(value)
    spec_type = _RUN_TIME_SPECS.get(kind) if isinstance(kind, str) else None
    if spec_type is None:
        if kind is None:
            raise PydanticCustomError(
                "union_tag_not_found", "Unable to extract tag using discriminator 'kind'"
            )
        expected = ", ".join(repr(k) for k in (*_BUILT_IN_KINDS, *_RUN_TIME_SPECS))
        raise PydanticCustomError(
            "union_tag_invalid",
            "Input tag {tag} found using 'kind' does not match any of the expected tags: "
            "{expected_tags}",
            {"tag": repr(kind), "expected_tags": expected},
        )
    if isinstance(value, spec_type):
        return value
    return spec_type.model_validate(value)


SensorSpec = Annotated[
    Annotated[ImagingSonarSpec, Tag("imaging_sonar")]
    | Annotated[DVLSpec, Tag("dvl")]
    | Annotated[IMUSpec, Tag("imu")]
    | Annotated[CameraSpec, Tag("camera")]
    | Annotated[PressureSpec, Tag("pressure")]
    | Annotated[MultibeamSpec, Tag("multibeam")]
    | Annotated[SideScanSonarSpec, Tag("side_scan")]
    | Annotated[
        Annotated[Any, PlainValidator(_run_time_sensor), WithJsonSchema({"not": {}})],
        Tag("run_time_kind"),
    ],
    Discriminator(_sensor_tag),
]
"""Any sensor, selected by its ``kind`` tag: a built-in kind, or one registered at run time."""
