"""The side-scan sonar behind the sensor protocol.

The physics lives in :mod:`leviathan.side_scan` (:func:`leviathan.side_scan.render`
on the acoustic fan render); this module forms the sensor pose, refuses a ping
period shorter than the two-way time ``2 R_max / c`` with ``c`` from the
World's water at the sensor's depth (``check_water``, which a World applies when it
is created or edited, and again at every ping), and declares what is specific to the kind:
the channels' documentation, the MCAP message, the Viewport's two fans and the
waterfall preview.

MCAP: ``marine_acoustic_msgs/ProjectedSonarImage`` with two beams, not
``RawSonarImage``. ``RawSonarImage`` is a time series per beam (``sample_rate``,
``sample0``, samples in time), so publishing a line there would convert LEVIATHAN's
geometric slant ranges into times with an assumed sound speed and back; a
``ProjectedSonarImage`` carries the ``ranges`` of its rows and a direction per
beam explicitly, and a side-scan line is exactly that: two beams (port,
starboard: the fans' axes) over one shared slant-range axis.
"""

from __future__ import annotations

import itertools
import math
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan.frames import sensor_pose
from leviathan.ros import float32_values, frd_to_acoustic, header, vector3
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import (
    Footprint,
    FootprintPart,
    RosEncoding,
    RosTopic,
    channel_doc,
    docs_on_axes,
)
from leviathan.sensors._imaging_sonar import _AXES as _SONAR_AXES
from leviathan.sensors._imaging_sonar import _CHANNELS as _SONAR_CHANNELS
from leviathan.sensors._imaging_sonar import _NAN, _ranges_and_sound_speed
from leviathan.sensors._protocol import fan_sonar_check_water, register_sensor_kind
from leviathan.side_scan import SIDE_SCAN_CHANNEL_NAMES, SideScanLine, render
from leviathan.specs import SideScanBeamPatternSpec, SideScanSonarSpec

__all__ = ["SideScanSensor"]

_SB = "side (0 port, 1 starboard), range_bin"
_SBK = "side, range_bin, k (dominance order)"
_ACROSS = "sensor frame, depression below the x-y plane, positive down"
_ALONG = "sensor frame, towards +x (along-track)"


def _line_docs() -> dict[str, Any]:
    """The line's channel docs: the imaging sonar's on the line's layout, its elevation
    channels replaced by the line's across- and along-track angles and ground ranges."""
    docs = docs_on_axes(
        _SONAR_CHANNELS,
        dict(zip(_SONAR_AXES, (_SB, _SBK, f"{_SB}, xyz"), strict=True)),
        drop="elevation",
    )
    docs.update(
        primary_across_track_rad=channel_doc(
            "rad", _ACROSS, _SB, "depression of the dominant sample's ray", _NAN
        ),
        primary_along_track_rad=channel_doc(
            "rad", _ALONG, _SB, "along-track angle of the dominant sample's ray", _NAN
        ),
        primary_ground_range_m=channel_doc(
            "m",
            "world NED",
            _SB,
            "exact horizontal distance from the sensor to the primary hit",
            _NAN,
        ),
        flat_bottom_ground_range_m=channel_doc(
            "m",
            "-",
            _SB,
            "sqrt(R_k^2 - a^2) from the bin centre R_k and the true altitude a "
            "(metadata altitude_m), as processing software computes it",
            "NaN: R_k < a or no altitude",
        ),
        topk_across_track_rad=channel_doc(
            "rad", _ACROSS, _SBK, "ray depression per contributor", _NAN
        ),
        topk_along_track_rad=channel_doc(
            "rad", _ALONG, _SBK, "ray along-track angle per contributor", _NAN
        ),
    )
    return {name: docs[name] for name in SIDE_SCAN_CHANNEL_NAMES}


_CHANNELS = MappingProxyType(_line_docs())


def _side_scan_message(line: SideScanLine, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """``marine_acoustic_msgs/ProjectedSonarImage`` of one line, two beams, acoustic frame.

    ``image``: ``linear_return`` as little-endian float32 (``DTYPE_FLOAT32``), rows =
    slant-range bins, the beam (0 port, 1 starboard) fastest: ``data[(k * 2 + s) * 4]``.
    ``beam_directions``: the two fans' axes ``(0, ∓cos δ, sin δ)`` in FRD converted to
    the acoustic frame; ``ranges``: the bin centres of ``range_bin_edges_m``;
    ``ping_info``: frequency, Mackenzie sound speed at the sensor's depth, the
    across-track (vertical) −3 dB width as ``tx_beamwidths`` and the along-track one
    as ``rx_beamwidths`` (the sampled apertures for a uniform pattern).
    """
    meta = line.metadata
    spec = meta["spec"]
    dep = math.radians(float(spec["depression_deg"]))
    axes = np.array(
        [[0.0, -math.cos(dep), math.sin(dep)], [0.0, math.cos(dep), math.sin(dep)]],
        dtype=np.float64,
    )
    directions = frd_to_acoustic(axes)
    centres, c = _ranges_and_sound_speed(meta)
    pattern = SideScanBeamPatternSpec.model_validate(spec["beam_pattern"])
    widths = pattern.stated_widths_deg(float(spec["frequency_hz"]))
    if widths is None:
        widths = (
            float(spec["along_track_aperture_deg"]),
            float(spec["aperture_max_depression_deg"]) - float(spec["aperture_min_depression_deg"]),
        )
    image = np.ascontiguousarray(line.channels["linear_return"].T, dtype="<f4")
    message = {
        "header": header(line.time_ns, frame_id),
        "ping_info": {
            "frequency": float32_values(float(spec["frequency_hz"])),
            "sound_speed": float32_values(c),
            "tx_beamwidths": float32_values([math.radians(widths[1])] * 2),
            "rx_beamwidths": float32_values([math.radians(widths[0])] * 2),
        },
        "beam_directions": [vector3(d) for d in directions.tolist()],
        "ranges": float32_values(centres),
        "image": {"is_bigendian": False, "dtype": 8, "beam_count": 2, "data": image.tobytes()},
    }
    return [("", message)]


class SideScanSensor:
    """Side-scan pings: :func:`leviathan.side_scan.render` on a sample context."""

    kind = "side_scan"
    spec_type = SideScanSonarSpec
    product_type = SideScanLine
    reads_surfaces = False
    channels = _CHANNELS
    ros = RosEncoding(
        frame="acoustic",
        topics=(RosTopic("", "marine_acoustic_msgs/msg/ProjectedSonarImage"),),
        encode=_side_scan_message,
    )

    check_water = staticmethod(fan_sonar_check_water)

    def sample(self, spec: SideScanSonarSpec, context: SampleContext) -> SideScanLine:
        """One ping of ``spec``; refuses a period below ``2 R_max / c`` in this water
        at the sensor's depth now (the vehicle may have risen since it was checked)."""
        self.check_water(spec, context.water, context.T_world_body, context.sensor_id)
        pose = sensor_pose(context.T_world_body, spec.mount.transform())
        return render(context.scene, spec, pose, **context.ping_keywords(speckle=spec.speckle))

    def footprint(self, spec: SideScanSonarSpec) -> Footprint:
        """Each side's fan in its own plane (along-track 0) between the range window's
        edges, over the sampled depressions, and the axis at the fan's depression."""
        r0, r1 = float(spec.range_min_m), float(spec.range_max_m)
        lo = math.radians(spec.aperture_min_depression_deg)
        hi = math.radians(spec.aperture_max_depression_deg)
        steps = 24
        depressions = [lo + (hi - lo) * i / steps for i in range(steps + 1)]
        dep = math.radians(spec.depression_deg)
        parts = []
        for side, sign, colour in (("port", -1.0, "#ff6b6b"), ("starboard", 1.0, "#5cd65c")):

            def point(d: float, r: float, sign: float = sign) -> list[float]:
                return [0.0, sign * r * math.cos(d), r * math.sin(d)]

            surface = []
            for d0, d1 in itertools.pairwise(depressions):
                q = [point(d0, r0), point(d0, r1), point(d1, r1), point(d1, r0)]
                surface += [q[k] for k in (0, 1, 2, 0, 2, 3)]
            edges = [point(dep, r0), point(dep, r1), point(lo, r0), point(lo, r1)]
            edges += [point(hi, r0), point(hi, r1)]
            parts.append(
                FootprintPart(f"side-scan-{side}", "surface", np.array(surface), colour, 0.2)
            )
            parts.append(
                FootprintPart(f"side-scan-{side}-axis", "lines", np.array(edges), colour, 0.8)
            )
        return Footprint(legend="red: side-scan port fan, green: starboard fan", parts=tuple(parts))

    def summary(self, spec: SideScanSonarSpec) -> str:
        """Frequency, fans, beam, range window and line size, in one line."""
        return (
            f"{spec.frequency_hz / 1e3:g} kHz, two fans depressed {spec.depression_deg:g}° "
            f"sampled {spec.aperture_min_depression_deg:g}–{spec.aperture_max_depression_deg:g}°, "
            f"{spec.beam_pattern.kind} beam, {spec.range_min_m:g}–{spec.range_max_m:g} m, "
            f"2 × {spec.range_bin_count} range bins"
        )

    def preview(self, line: SideScanLine) -> bytes:
        """The one line as a waterfall row, drawn 32 pixels tall (PNG; port left, nadir centre)."""
        from leviathan._files import encode_png
        from leviathan.side_scan.display import waterfall

        return encode_png(np.repeat(waterfall([line]).pixels, 32, axis=0))


register_sensor_kind(SideScanSensor())
