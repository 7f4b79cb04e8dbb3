"""The imaging sonar behind the sensor protocol.

The physics lives in :mod:`leviathan.sonar` (:func:`leviathan.sonar.render`,
the list of ray-casting, per-sample physics and binning stages); this module
forms the sensor pose from the committed state, hands the sample context to it,
and declares what is specific to the kind: the channels' documentation, the
``marine_acoustic_msgs/ProjectedSonarImage`` encoding, the Viewport's fan and
volume, the analytic tier's noise (:mod:`leviathan.sensors._sonar_noise`) and
the fan preview. Speckle is keyed by the World's root seed, which enters the
frame (and its identity) only when the spec enables speckle.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan.acoustics import sound_speed_m_per_s
from leviathan.frames import sensor_pose
from leviathan.ros import float32_values, frd_to_acoustic, header, vector3
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import (
    AnalyticTier,
    Footprint,
    FootprintPart,
    RosEncoding,
    RosTopic,
    channel_doc,
)
from leviathan.sensors._protocol import register_sensor_kind
from leviathan.sensors._sonar_noise import SonarNoiseModel, sonar_level_change, sonar_recorder
from leviathan.sonar import CHANNEL_RULES, SonarFrame, render
from leviathan.specs import ImagingSonarSpec

__all__ = ["ImagingSonarSensor"]

_RB = "range_bin, bearing"
_RBK = "range_bin, bearing, k (dominance order)"
_NAN = "NaN: missing (no contributor)"
_NONE = "-1: no contributor"
_ELEVATION_FRAME = "sensor frame, elevation positive down"
_AXES = (_RB, _RBK, f"{_RB}, xyz")
"""The layouts of the frame's channels (for :func:`docs_on_axes`)."""

_CHANNELS = MappingProxyType(
    {
        "linear_return": channel_doc(
            "m^-2",
            "-",
            _RB,
            "linear return: sum over the cell's ray samples of mu cos^2(theta) G^2 (R^2 dOmega / "
            "cos theta) / R^4 10^(-alpha 2R / 10); 0 in empty cells",
            "NaN: a contributor's radiometry is unknown or the medium unsupported",
        ),
        "speckle_return": channel_doc(
            "m^-2",
            "-",
            _RB,
            "linear_return times unit-mean exponential speckle (keyed randomness); only when the "
            "spec enables speckle",
            "NaN where linear_return is NaN",
        ),
        "sample_count": channel_doc("1", "-", _RB, "ray samples integrated in the cell"),
        "validity": channel_doc(
            "-", "-", _RB, "bit flags, see leviathan.sonar.CELL_FLAGS (metadata cell_flags)"
        ),
        "primary_basis": channel_doc(
            "-",
            "-",
            _RB,
            "dominance rule: 0 empty, 1 contribution, 2 geometric weight, 3 geometric weight "
            "without absorption (unsupported medium)",
        ),
        "truncation": channel_doc(
            "1", "-", _RB, "share of the cell's return outside the top-K contributors", _NAN
        ),
        "primary_instance": channel_doc(
            "-", "-", _RB, "scene instance index of the dominant sample", _NONE
        ),
        "primary_object": channel_doc(
            "-", "-", _RB, "object index of the dominant sample, into metadata object_ids", _NONE
        ),
        "primary_triangle": channel_doc(
            "-", "-", _RB, "triangle index of the dominant sample in its instance's mesh", _NONE
        ),
        "primary_semantic": channel_doc(
            "-",
            "-",
            _RB,
            "semantic index of the dominant sample, into metadata semantic_labels",
            _NONE,
        ),
        "primary_range_m": channel_doc(
            "m", "-", _RB, "exact slant range of the dominant sample", _NAN
        ),
        "primary_elevation_rad": channel_doc(
            "rad", _ELEVATION_FRAME, _RB, "elevation of the dominant sample's ray", _NAN
        ),
        "primary_incidence_rad": channel_doc(
            "rad", "-", _RB, "angle between the surface normal and the reversed ray", _NAN
        ),
        "primary_hit_point_world": channel_doc(
            "m", "world NED", f"{_RB}, xyz", "hit point of the dominant sample", _NAN
        ),
        "primary_normal_world": channel_doc(
            "1", "world NED", f"{_RB}, xyz", "unit triangle normal (mesh winding) at the hit", _NAN
        ),
        "primary_acoustic_status": channel_doc(
            "-",
            "-",
            _RB,
            "leviathan.materials.AcousticStatus of the dominant sample (0 none, 1 known, "
            "2 unknown, 3 unsupported, 4 interface)",
            "0: empty cell",
        ),
        "primary_moving": channel_doc(
            "-", "-", _RB, "1 if the dominant sample's instance belongs to a moving body"
        ),
        "topk_instance": channel_doc("-", "-", _RBK, "instance index per contributor", _NONE),
        "topk_triangle": channel_doc("-", "-", _RBK, "triangle index per contributor", _NONE),
        "topk_range_m": channel_doc("m", "-", _RBK, "slant range per contributor", _NAN),
        "topk_elevation_rad": channel_doc(
            "rad", _ELEVATION_FRAME, _RBK, "ray elevation per contributor", _NAN
        ),
        "topk_contribution": channel_doc(
            "m^-2", "-", _RBK, "contribution to linear_return per contributor", _NAN
        ),
        "topk_geometric_weight": channel_doc(
            "m^-2", "-", _RBK, "geometric weight (contribution without the surface response)", _NAN
        ),
        "topk_energy_fraction": channel_doc(
            "1", "-", _RBK, "share of the cell's return per contributor", _NAN
        ),
    }
)


def _ranges_and_sound_speed(meta: Mapping[str, Any]) -> tuple[np.ndarray, float]:
    """A ping's ``ProjectedSonarImage`` ``ranges`` and ``sound_speed``, from its metadata.

    The ranges are the bin centres ``(e_k + e_{k+1}) / 2`` of ``range_bin_edges_m``; the
    sound speed is Mackenzie (1981) for the ping's water at the sensor's depth (the
    speed a real sonar would have used: LEVIATHAN's ranges are geometric).
    """
    edges = np.asarray(meta["range_bin_edges_m"], dtype=np.float64)
    centres = (edges[:-1] + edges[1:]) * 0.5
    water = meta["water"]
    sound_speed = sound_speed_m_per_s(
        temperature_c=float(water["temperature_c"]),
        salinity_psu=float(water["salinity_psu"]),
        depth_m=float(meta["T_world_sensor"]["translation"][2]),
    )
    return centres, sound_speed


def _sonar_message(frame: SonarFrame, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """``marine_acoustic_msgs/ProjectedSonarImage`` of one ping, in the acoustic frame.

    ``image`` is ``linear_return`` as little-endian float32 (``DTYPE_FLOAT32``), rows =
    range bins, the bearing index varying fastest (``data[(k * beam_count + b) * 4
    ...]``, as ``sonar_image_proc`` reads it); a NaN cell (radiometry unknown,
    unsupported medium) stays a float32 quiet NaN, empty cells are 0.
    ``beam_directions`` are the unit vectors of the bearings at elevation 0 in the
    acoustic frame, ``(0, sin b, cos b)``; ``ranges`` the bin centres ``(e_k +
    e_{k+1}) / 2`` of ``range_bin_edges_m`` (float32). ``ping_info``: the spec's
    frequency; ``sound_speed`` Mackenzie (1981) for the frame's water at the sonar's
    depth (LEVIATHAN's ranges are geometric, so no sound speed entered them: this is
    the speed a real sonar would have used); ``tx_beamwidths`` the vertical -3 dB
    width of every beam (the Gaussian pattern's elevation width, at most the
    aperture; the aperture for a uniform pattern); ``rx_beamwidths`` empty ("not
    reported": each column integrates rays at exactly its bearing).
    """
    meta = frame.metadata
    spec = meta["spec"]
    bearings = [float(b) for b in np.asarray(meta["bearing_rad"]).tolist()]
    fan = np.array([(math.cos(b), math.sin(b), 0.0) for b in bearings], dtype=np.float64)
    directions = frd_to_acoustic(fan.reshape(-1, 3))
    centres, sound_speed = _ranges_and_sound_speed(meta)
    pattern = spec["beam_pattern"]
    vertical_deg = float(spec["elevation_aperture_deg"])
    if pattern["kind"] == "gaussian":
        vertical_deg = min(float(pattern["elevation_3db_full_width_deg"]), vertical_deg)
    image = np.ascontiguousarray(frame.channels["linear_return"], dtype="<f4")
    beam_count = int(image.shape[1])
    message = {
        "header": header(frame.time_ns, frame_id),
        "ping_info": {
            "frequency": float32_values(float(spec["frequency_hz"])),
            "sound_speed": float32_values(sound_speed),
            "tx_beamwidths": float32_values([math.radians(vertical_deg)] * beam_count),
            "rx_beamwidths": [],
        },
        "beam_directions": [vector3(d) for d in directions.tolist()],
        "ranges": float32_values(centres),
        "image": {
            "is_bigendian": False,
            "dtype": 8,  # DTYPE_FLOAT32
            "beam_count": beam_count,
            "data": image.tobytes(),
        },
    }
    return [("", message)]


class ImagingSonarSensor:
    """Imaging-sonar pings: :func:`leviathan.sonar.render` on a sample context."""

    kind = "imaging_sonar"
    spec_type = ImagingSonarSpec
    product_type = SonarFrame
    # Sees the scene; the surfaces' motion never enters its product.
    reads_surfaces = False
    channels = _CHANNELS
    channel_rules = CHANNEL_RULES
    ros = RosEncoding(
        frame="acoustic",
        topics=(RosTopic("", "marine_acoustic_msgs/msg/ProjectedSonarImage"),),
        encode=_sonar_message,
    )
    analytic = AnalyticTier(
        noise_model=SonarNoiseModel,
        start=sonar_recorder,
        errors=sonar_level_change,
        plot_units={"mean_level_change_db": ("mean level change [dB]", 1.0)},
    )

    def sample(self, spec: ImagingSonarSpec, context: SampleContext) -> SonarFrame:
        """One ping of ``spec`` from the committed pose of ``context``."""
        return render(
            context.scene,
            spec,
            sensor_pose(context.T_world_body, spec.mount.transform()),
            **context.ping_keywords(speckle=spec.speckle),
        )

    def footprint(self, spec: ImagingSonarSpec) -> Footprint:
        """The centre fan (elevation 0) between the range window's edges, and the volume's
        edges at elevations ±aperture / 2, in sensor FRD (bearing about z, positive to
        starboard; elevation about y, positive down)."""
        half_az = math.radians(spec.azimuth_fov_deg) / 2.0
        half_el = math.radians(spec.elevation_aperture_deg) / 2.0
        r0, r1 = float(spec.range_min_m), float(spec.range_max_m)
        steps = 32
        bearings = [-half_az + 2.0 * half_az * i / steps for i in range(steps + 1)]

        def point(b: float, e: float, r: float) -> list[float]:
            return [r * math.cos(e) * math.cos(b), r * math.cos(e) * math.sin(b), r * math.sin(e)]

        surface = []
        for b0, b1 in itertools.pairwise(bearings):
            q = [point(b0, 0.0, r0), point(b0, 0.0, r1), point(b1, 0.0, r1), point(b1, 0.0, r0)]
            surface += [q[k] for k in (0, 1, 2, 0, 2, 3)]
        edges = []
        for e in (-half_el, half_el):
            for r in (r0, r1):
                for b0, b1 in itertools.pairwise(bearings):
                    edges += [point(b0, e, r), point(b1, e, r)]
            for b in (-half_az, half_az):
                edges += [point(b, e, r0), point(b, e, r1)]
        for b in (-half_az, half_az):
            for r in (r0, r1):
                edges += [point(b, -half_el, r), point(b, half_el, r)]
        return Footprint(
            legend="cyan: sonar fan and volume",
            parts=(
                FootprintPart("sonar-fan", "surface", np.array(surface), "#38d6ff", 0.22),
                FootprintPart("sonar-volume", "lines", np.array(edges), "#38d6ff", 0.7),
            ),
        )

    def summary(self, spec: ImagingSonarSpec) -> str:
        """Frequency, field of view, beam, range window and image size, in one line."""
        khz = spec.frequency_hz / 1e3
        frequency = f"{khz:g} kHz" if spec.frequency_hz >= 1e3 else f"{spec.frequency_hz:g} Hz"
        return (
            f"{frequency}, {spec.azimuth_fov_deg:g}° azimuth FOV, "
            f"{spec.elevation_aperture_deg:g}° elevation aperture, {spec.beam_pattern.kind} beam, "
            f"{spec.range_min_m:g}–{spec.range_max_m:g} m, "
            f"{spec.bearing_count} bearings × {spec.range_bin_count} range bins"
        )

    def preview(self, frame: SonarFrame) -> bytes:
        """The polar-to-Cartesian fan as PNG bytes (:meth:`SonarFrame.fan_png`)."""
        return frame.fan_png()


register_sensor_kind(ImagingSonarSensor())
