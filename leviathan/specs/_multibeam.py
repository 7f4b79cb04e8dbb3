"""The multibeam echosounder's spec, :class:`MultibeamSpec` (in ``_sensors``' sensor union)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from leviathan.specs._base import (
    Flag,
    Integer,
    Real,
    SpecModel,
    Text,
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

__all__ = ["MultibeamSpec"]


class MultibeamSpec(SpecModel):
    """Multibeam echosounder: a swath of receive beams across-track, bottom detections.

    The sensor frame is FRD with the swath centred on its +z (down): mount it with
    the identity rotation to look straight down under a level vehicle; the mount's
    roll rolls the swath. Beam geometry, the water column's rays and the bottom
    detector are documented in :mod:`leviathan.reference_cpu.multibeam`. Sound
    speed is the water's (Mackenzie 1981 at the sensor's depth), constant along
    every ray: no refraction (a sound-speed profile is a later, analytic-tier
    feature).

    Its arrays are bounded at validation: ``beam_count * along_track_sample_count *
    across_track_sample_count`` rays per ping at most :data:`MAX_SONAR_RAY_COUNT`,
    ``range_bin_count * beam_count`` water-column cells at most
    :data:`MAX_SONAR_CELL_COUNT`, and cells times ``top_k`` at most
    :data:`MAX_SONAR_TOPK_SLOT_COUNT`. The ping period is checked against the two-way
    time ``2 R_max / c`` with ``c`` from the World's water at the sensor's depth when a
    World is created or edited, and at every ping
    (:func:`leviathan.sonar.beams.check_ping_period`, the side-scan's rule).
    """

    __content_type__ = "leviathan.specs.MultibeamSpec"

    kind: Literal["multibeam"] = Field(default="multibeam", description="Sensor type tag")
    name: Text = _name_field("Sensor name, unique on its vehicle, e.g. 'multibeam'")
    frequency_hz: Real = Field(gt=0, description="Acoustic operating frequency [Hz]")
    swath_deg: Real = Field(
        gt=0, lt=180, description="Full across-track swath centred on the sensor's +z [deg]"
    )
    beam_count: Integer = Field(ge=1, le=1024, description="Receive beams across the swath [-]")
    beam_spacing: Literal["equiangular", "equidistant"] = Field(
        description="'equiangular' (equal angles) or 'equidistant' (equal spacing on a flat "
        "bottom under a level sensor)"
    )
    along_track_width_deg: Real = Field(
        gt=0, lt=45, description="Transmit fan's along-track -3 dB full width [deg]"
    )
    across_track_width_deg: Real = Field(
        gt=0,
        lt=45,
        description="Receive beam's across-track -3 dB full width at nadir [deg]; "
        "w0 / cos(theta) off nadir",
    )
    beam_pattern: Literal["uniform", "gaussian"] = Field(
        description="One-way intensity pattern of the transmit and receive beams"
    )
    along_track_sample_count: Integer = Field(
        ge=1, le=64, description="Rays per beam along-track over twice the transmit width [-]"
    )
    across_track_sample_count: Integer = Field(
        ge=1, le=64, description="Rays per beam across-track over twice its width [-]"
    )
    range_min_m: Real = _range_min_field()
    range_max_m: _RangeMax = _range_max_field()
    range_bin_count: Integer = Field(ge=1, description="Range bins of the water column [-]")
    top_k: Integer = Field(default=4, ge=1, le=64, description="Contributors kept per cell [-]")
    speckle: Flag = Field(
        default=False,
        description="Apply fully developed (exponential) speckle to the water column; "
        "the detector then runs on the speckled return [-]",
    )
    detection_threshold_db: Real = Field(
        default=-200.0,
        description="Smallest beam peak accepted as the bottom, 10 log10 of the return [dB]",
    )
    detection_window_db: Real = Field(
        default=10.0,
        gt=0,
        description="Bins around the peak are averaged while within this many dB of it [dB]",
    )
    detection_max_half_window_bins: Integer = Field(
        default=8, ge=0, le=4096, description="At most this many bins each side of the peak [-]"
    )
    schedule: ScheduleSpec = _schedule_field()
    mount: MountSpec = _mount_field(
        "Mount T_link_sensor of the sensor FRD frame (the swath centred on its +z)"
    )
    hardware_note: Text = _hardware_note_field()

    @model_validator(mode="after")
    def _bounded_arrays(self) -> MultibeamSpec:
        rays = {
            "beam_count": self.beam_count,
            "along_track_sample_count": self.along_track_sample_count,
            "across_track_sample_count": self.across_track_sample_count,
        }
        _refuse_oversized_sonar(
            rays,
            {"range_bin_count": self.range_bin_count, "beam_count": self.beam_count},
            self.top_k,
            "reduce beam_count, the sample counts, range_bin_count or top_k",
        )
        return self

    range_bin_width_m = property(_range_bin_width, doc="Width of one range bin [m].")
