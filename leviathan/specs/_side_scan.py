"""Side-scan sonar spec: two fans, port and starboard, narrow along-track and wide across-track.

Geometry in sensor FRD (x along the boresight, i.e. along-track; y starboard; z
down). Each side's fan axis is depressed ``depression_deg`` below the sensor's
x–y plane, on that side (port −y, starboard +y). A ray is named by its along-track
angle ``a`` (towards +x, out of the side's y–z plane) and its depression ``δ``
below the x–y plane; its direction is ``(sin a, ±cos a cos δ, cos a sin δ)``.
The sampled vertical aperture runs from ``aperture_min_depression_deg`` to
``aperture_max_depression_deg`` (90: nadir; wide enough to include nadir so the
nadir gap comes from geometry, not a cut-off), the along-track aperture over
``±along_track_aperture_deg / 2``.

The beam pattern (:class:`SideScanBeamPatternSpec`) is evaluated at the
along-track angle ``a`` and the across-track offset ``δ − depression``.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, model_validator

from leviathan.specs._base import (
    Flag,
    Integer,
    Real,
    SpecModel,
    Text,
    _above,
    _hardware_note_field,
    _mount_field,
    _name_field,
    _range_bin_width,
    _range_max_field,
    _range_min_field,
    _RangeMax,
    _refuse_oversized_sonar,
    _schedule_field,
)
from leviathan.specs._mount import MountSpec
from leviathan.specs._schedule import ScheduleSpec

__all__ = ["SideScanBeamPatternSpec", "SideScanSonarSpec"]

_SINC2_HALF_POWER_U = 1.39155737825151  # (sin u / u)^2 = 1/2; leviathan.sonar.beams computes it
_NOMINAL_C = 1500.0  # leviathan.sonar.beams.NOMINAL_SOUND_SPEED_M_PER_S


class SideScanBeamPatternSpec(SpecModel):
    """One-way beam pattern of each side-scan array (two-way is its square).

    ``uniform``: gain 1, no widths. ``gaussian``: the two −3 dB full widths.
    ``sinc2``: the two array lengths (the widths follow, ``2 asin(u½ λ / (π L))``
    with ``λ = 1500 m/s / f``; see :mod:`leviathan.sonar.beams`).
    """

    __content_type__ = "leviathan.specs.SideScanBeamPatternSpec"

    kind: Literal["uniform", "gaussian", "sinc2"] = Field(
        description="Pattern shape: 'uniform', 'gaussian' (declared widths) or 'sinc2' "
        "(uniform line arrays of declared lengths)"
    )
    along_track_3db_full_width_deg: Real | None = Field(
        default=None, gt=0, lt=90, description="Gaussian along-track -3 dB full width [deg]"
    )
    across_track_3db_full_width_deg: Real | None = Field(
        default=None, gt=0, lt=180, description="Gaussian across-track -3 dB full width [deg]"
    )
    along_track_array_length_m: Real | None = Field(
        default=None, gt=0, description="sinc2: array length along-track (horizontal) [m]"
    )
    across_track_array_length_m: Real | None = Field(
        default=None, gt=0, description="sinc2: array height across-track (vertical) [m]"
    )

    @model_validator(mode="after")
    def _fields_match_kind(self) -> SideScanBeamPatternSpec:
        widths = ("along_track_3db_full_width_deg", "across_track_3db_full_width_deg")
        lengths = ("along_track_array_length_m", "across_track_array_length_m")
        needed = {"uniform": (), "gaussian": widths, "sinc2": lengths}[self.kind]
        missing = [f for f in needed if getattr(self, f) is None]
        if missing:
            raise ValueError(f"a {self.kind} beam needs {' and '.join(missing)} (> 0)")
        extra = [f for f in (*widths, *lengths) if f not in needed and getattr(self, f) is not None]
        if extra:
            raise ValueError(f"a {self.kind} beam takes no {' or '.join(extra)}: remove it")
        return self

    def stated_widths_deg(self, frequency_hz: float) -> tuple[float, float] | None:
        """The (along-track, across-track) −3 dB full widths [deg]; ``None`` for uniform."""
        if self.kind == "uniform":
            return None
        if self.kind == "gaussian":
            return (
                float(self.along_track_3db_full_width_deg),
                float(self.across_track_3db_full_width_deg),
            )
        wavelength = _NOMINAL_C / frequency_hz
        out = []
        for name in ("along_track_array_length_m", "across_track_array_length_m"):
            s = (_SINC2_HALF_POWER_U * wavelength) / (math.pi * float(getattr(self, name)))
            if not s < 1.0:
                raise ValueError(
                    f"beam_pattern.{name}: expected an array longer than "
                    f"{_SINC2_HALF_POWER_U * wavelength / math.pi!r} m at {frequency_hz!r} Hz "
                    f"(else it has no -3 dB point), got {getattr(self, name)!r}"
                )
            out.append(math.degrees(2.0 * math.asin(s)))
        return out[0], out[1]


class SideScanSonarSpec(SpecModel):
    """Side-scan sonar: per ping one line of ``2 x range_bin_count`` cells (port, starboard).

    Rays per ping ``2 * along_track_sample_count * across_track_sample_count`` at most
    :data:`MAX_SONAR_RAY_COUNT`; cells ``2 * range_bin_count`` (times ``top_k``) within
    the imaging sonar's bounds. The ping period is checked against the two-way time
    ``2 R_max / c`` with ``c`` from the World's water at the sensor's depth when a World
    is created or edited, and at every ping (:func:`leviathan.sonar.beams.check_ping_period`).
    """

    __content_type__ = "leviathan.specs.SideScanSonarSpec"

    kind: Literal["side_scan"] = Field(default="side_scan", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'side_scan'")
    frequency_hz: Real = Field(gt=0, description="Acoustic operating frequency [Hz]")
    depression_deg: Real = Field(
        ge=0, le=90, description="Depression of each fan's axis below the sensor x-y plane [deg]"
    )
    aperture_min_depression_deg: Real = Field(
        ge=-90, lt=90, description="Shallowest sampled depression [deg] (negative: above)"
    )
    aperture_max_depression_deg: Annotated[Real, _above("aperture_min_depression_deg")] = Field(
        le=90, description="Steepest sampled depression [deg], 90 = nadir, > the minimum"
    )
    across_track_sample_count: Integer = Field(
        ge=2, le=65536, description="Rays across the vertical aperture per side [-]"
    )
    along_track_aperture_deg: Real = Field(
        gt=0, lt=90, description="Sampled along-track aperture, centred on the side's plane [deg]"
    )
    along_track_sample_count: Integer = Field(
        ge=1, le=64, description="Rays along-track per depression [-]"
    )
    range_min_m: Real = _range_min_field("slant-range window")
    range_max_m: _RangeMax = _range_max_field("slant-range window")
    range_bin_count: Integer = Field(ge=1, description="Slant-range bins per side [-]")
    beam_pattern: SideScanBeamPatternSpec = Field(description="One-way beam pattern of each side")
    top_k: Integer = Field(ge=1, le=64, description="Contributors kept per cell [-], 1..64")
    speckle: Flag = Field(default=False, description="Exponential speckle channel [-]")
    dynamic_range_db: Real = Field(
        default=60.0, gt=0, description="Display dynamic range [dB]; display products only"
    )
    schedule: ScheduleSpec = _schedule_field("Ping schedule in integer nanoseconds")
    mount: MountSpec = _mount_field("Mount T_link_sensor (sensor FRD, x along-track)")
    hardware_note: Text = _hardware_note_field("Provenance of the hardware values")

    @model_validator(mode="after")
    def _checks(self) -> SideScanSonarSpec:
        if not (
            self.aperture_min_depression_deg
            <= self.depression_deg
            <= self.aperture_max_depression_deg
        ):
            raise ValueError(
                f"depression_deg ({self.depression_deg!r}) must lie in the sampled aperture "
                f"[{self.aperture_min_depression_deg!r}, {self.aperture_max_depression_deg!r}]"
            )
        self.beam_pattern.stated_widths_deg(self.frequency_hz)  # sinc2 arrays long enough
        rays = {
            "sides": 2,
            "along_track_sample_count": self.along_track_sample_count,
            "across_track_sample_count": self.across_track_sample_count,
        }
        _refuse_oversized_sonar(
            rays,
            {"sides": 2, "range_bin_count": self.range_bin_count},
            self.top_k,
            "reduce along_track_sample_count, across_track_sample_count, range_bin_count or top_k",
        )
        return self

    range_bin_width_m = property(_range_bin_width, doc="Width of one slant-range bin [m].")

    @property
    def across_track_spacing_rad(self) -> float:
        """Depression spacing of adjacent rays ``Δψ`` [rad]."""
        span = math.radians(self.aperture_max_depression_deg - self.aperture_min_depression_deg)
        return span / float(self.across_track_sample_count - 1)

    @property
    def fill_altitude_m(self) -> float:
        """The lowest altitude at which a line fills every bin of its swath on a flat seabed.

        Adjacent rays at altitude ``h`` differ in range by at most ``R_max² / h · Δψ``;
        every bin is reached when that is at most half a bin, ``Δψ <= ½ Δr h / R_max²``,
        i.e. ``h >= 2 R_max² Δψ / Δr``.
        """
        r = float(self.range_max_m)
        return (2.0 * (r * r) * self.across_track_spacing_rad) / self.range_bin_width_m
