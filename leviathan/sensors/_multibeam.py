"""The multibeam echosounder behind the sensor protocol.

The physics is :func:`leviathan.multibeam.multibeam_ping` (water column on the shared fan
render, the reference bottom detector, soundings and per-beam truth); this module forms
the sensor pose from the committed state, wraps the ping in a :class:`SensorSample`
(its content hash covers the water column, the detections, the soundings and the
truth) and declares the channels, the ROS 2 messages (``marine_acoustic_msgs/
SonarDetections`` for the detections, ``sensor_msgs/PointCloud2`` for the soundings in
the sensor frame, ``marine_acoustic_msgs/ProjectedSonarImage`` for the water column)
and the Viewport's footprint. Sound speed is the water's, constant along every ray (no
refraction): the metadata's ``refraction`` says so.
"""

from __future__ import annotations

import itertools
import math
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan.frames import sensor_pose
from leviathan.multibeam import MultibeamPing, multibeam_ping
from leviathan.reference_cpu.multibeam import DETECTION_FLAGS
from leviathan.ros import float32_values, frd_to_flu, header, vector3
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
from leviathan.sensors._protocol import fan_sonar_check_water, register_sensor_kind
from leviathan.sensors._sample import SensorSample
from leviathan.specs import MultibeamSpec

__all__ = ["MultibeamSensor", "measure_multibeam", "multibeam_sample", "water_column_png"]

_RB = "range_bin, beam"
_RBK = "range_bin, beam, k (dominance order)"
_B = "beam (port to starboard)"
_B3 = "beam, xyz"
_NAN = "NaN: missing"
_NONE = "-1: none"


def _water_column_docs() -> dict[str, Any]:
    docs = docs_on_axes(
        _SONAR_CHANNELS,
        {layout: layout.replace("range_bin, bearing", "range_bin, beam") for layout in _SONAR_AXES},
        drop="elevation",
    )
    across = "sensor frame, across-track positive to starboard"
    along = "sensor frame, along-track positive forward"
    docs["primary_across_track_rad"] = channel_doc(
        "rad", across, _RB, "across-track angle of the dominant sample's ray", _NAN
    )
    docs["primary_along_track_rad"] = channel_doc(
        "rad", along, _RB, "along-track angle of the dominant sample's ray", _NAN
    )
    docs["topk_across_track_rad"] = channel_doc(
        "rad", across, _RBK, "across-track ray angle per contributor", _NAN
    )
    docs["topk_along_track_rad"] = channel_doc(
        "rad", along, _RBK, "along-track ray angle per contributor", _NAN
    )
    return docs


_BEAM_CHANNELS = {
    "beam_angle_rad": channel_doc("rad", "sensor frame", _B, "across-track beam angle theta_k"),
    "beam_width_rad": channel_doc("rad", "-", _B, "across-track -3 dB width w0 / cos(theta_k)"),
    "detection_range_m": channel_doc(
        "m", "-", _B, "detected slant range: return-weighted mean over the window", _NAN
    ),
    "two_way_travel_time_s": channel_doc(
        "s", "-", _B, "2 R / c, c the water's sound speed at the sensor", _NAN
    ),
    "intensity": channel_doc("m^-2", "-", _B, "the beam's peak return", _NAN),
    "peak_bin": channel_doc("1", "-", _B, "range bin of the peak", _NONE),
    "window_first_bin": channel_doc("1", "-", _B, "first bin averaged", _NONE),
    "window_last_bin": channel_doc("1", "-", _B, "last bin averaged", _NONE),
    "quality": channel_doc(
        "-", "-", _B, "bit flags, see metadata quality_flags (reference_cpu.multibeam)"
    ),
    "sounding_sensor_m": channel_doc("m", "sensor FRD", _B3, "R u_k, the sounding", _NAN),
    "sounding_ned_m": channel_doc("m", "world NED", _B3, "the sounding in the world", _NAN),
    "truth_range_m": channel_doc("m", "-", _B, "beam axis ray's nearest hit range", _NAN),
    "truth_point_ned_m": channel_doc("m", "world NED", _B3, "its point", _NAN),
    "truth_instance": channel_doc("-", "-", _B, "its scene instance", _NONE),
    "truth_object": channel_doc("-", "-", _B, "its object (into metadata object_ids)", _NONE),
    "truth_triangle": channel_doc("-", "-", _B, "its triangle", _NONE),
    "truth_semantic": channel_doc("-", "-", _B, "its label (into metadata semantic_labels)", _NONE),
    "footprint_deviation_m": channel_doc(
        "m", "-", _B, "largest distance of a -3 dB footprint point from its chord", _NAN
    ),
    "error_along_beam_m": channel_doc("m", "-", _B, "detected minus axis-truth range", _NAN),
    "error_vertical_m": channel_doc(
        "m", "world NED z", _B, "sounding z minus axis-truth z (positive: too deep)", _NAN
    ),
}

_CHANNELS = MappingProxyType({**_water_column_docs(), **_BEAM_CHANNELS})


def measure_multibeam(
    spec: MultibeamSpec,
    context: SampleContext,
) -> SensorSample:
    """One multibeam ping of ``spec`` from the committed pose of ``context``."""
    ping = multibeam_ping(
        context.scene,
        spec,
        sensor_pose(context.T_world_body, spec.mount.transform()),
        **context.ping_keywords(speckle=spec.speckle),
    )
    return multibeam_sample(ping, **context.ids())


def multibeam_sample(
    ping: MultibeamPing, *, sensor_id: str, sample_index: int, time_ns: int
) -> SensorSample:
    """``ping`` as the multibeam kind's :class:`SensorSample` (its channels and metadata)."""
    return SensorSample(
        kind="multibeam",
        sensor_id=sensor_id,
        sample_index=sample_index,
        time_ns=time_ns,
        channels=ping.channels,
        metadata=ping.metadata,
    )


def water_column_png(sample: SensorSample, *, dynamic_range_db: float = 60.0) -> bytes:
    """The water column picture of :meth:`MultibeamSensor.preview` (a display product)."""
    from leviathan._files import encode_png

    linear = np.asarray(sample.channels["linear_return"], dtype=np.float64)
    missing = ~np.isfinite(linear)
    positive = np.where(missing, 0.0, linear)
    peak = float(positive.max()) if positive.size else 0.0
    grey = np.zeros(linear.shape, dtype=np.float64)
    if peak > 0.0:
        # libm one value at a time (numpy's SIMD log10 may differ in the last bit).
        ratio = (positive / peak).ravel().tolist()
        floor = -dynamic_range_db
        level = [10.0 * math.log10(r) if r > 0.0 else floor for r in ratio]
        grey = np.clip(1.0 + np.array(level).reshape(linear.shape) / dynamic_range_db, 0.0, 1.0)
    rgb = np.repeat((grey * 255.0).astype(np.uint8)[:, :, None], 3, axis=2)
    rgb[missing] = (10, 20, 80)
    first = np.asarray(sample.channels["window_first_bin"])
    last = np.asarray(sample.channels["window_last_bin"])
    for beam in range(linear.shape[1]):
        if first[beam] >= 0:
            rgb[first[beam] : last[beam] + 1, beam] = (230, 40, 40)
    return encode_png(rgb)


# --------------------------------------------------------------------------- ROS 2

_DEFINITIONS = {
    "marine_acoustic_msgs/DetectionFlag": (
        "uint8 DETECT_OK = 0\nuint8 DETECT_BAD_SONAR = 1\nuint8 DETECT_BAD_FILTER = 2\n"
        "uint8 DETECT_BAD_USER = 4\nuint8 flag\n"
    ),
    "marine_acoustic_msgs/SonarDetections": (
        "std_msgs/Header header\nPingInfo ping_info\nDetectionFlag[] flags\n"
        "float32[] two_way_travel_times\nfloat32[] tx_delays\nfloat32[] intensities\n"
        "float32[] tx_angles\nfloat32[] rx_angles\n"
    ),
    "sensor_msgs/PointField": (
        "uint8 INT8 = 1\nuint8 UINT8 = 2\nuint8 INT16 = 3\nuint8 UINT16 = 4\nuint8 INT32 = 5\n"
        "uint8 UINT32 = 6\nuint8 FLOAT32 = 7\nuint8 FLOAT64 = 8\nstring name\nuint32 offset\n"
        "uint8 datatype\nuint32 count\n"
    ),
    "sensor_msgs/PointCloud2": (
        "std_msgs/Header header\nuint32 height\nuint32 width\nPointField[] fields\n"
        "bool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n"
    ),
}

_GOOD = DETECTION_FLAGS["DETECTED"]
_BAD_SURFACE = DETECTION_FLAGS["SEA_SURFACE"] | DETECTION_FLAGS["MOVING_BODY"]


def _ping_info(sample: SensorSample) -> dict[str, Any]:
    meta = sample.metadata
    widths = sample.channels["beam_width_rad"]
    return {
        "frequency": float32_values(float(meta["spec"]["frequency_hz"])),
        "sound_speed": float32_values(float(meta["sound_speed_m_per_s"])),
        "tx_beamwidths": float32_values(
            [math.radians(float(meta["spec"]["along_track_width_deg"]))] * int(widths.shape[0])
        ),
        "rx_beamwidths": float32_values(widths),
    }


def _messages(sample: SensorSample, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The detections, the soundings (sensor frame, FLU) and the water column of one ping.

    ``DetectionFlag.flag`` is ``DETECT_OK`` for a detected beam whose axis met neither the
    sea surface nor a moving body, else ``DETECT_BAD_SONAR``; undetected beams carry NaN
    travel times. The point cloud holds the detected beams' soundings as float32
    ``x, y, z`` (FLU) and ``intensity``. The water column's ``beam_directions`` are the
    beam axes in the header frame (FLU).
    """
    ch = sample.channels
    stamp = header(sample.time_ns, frame_id)
    quality = ch["quality"].tolist()
    flags = [{"flag": 0 if (q & _GOOD) and not (q & _BAD_SURFACE) else 1} for q in quality]
    n = len(quality)
    detections = {
        "header": stamp,
        "ping_info": _ping_info(sample),
        "flags": flags,
        "two_way_travel_times": float32_values(ch["two_way_travel_time_s"]),
        "tx_delays": float32_values([0.0] * n),
        "intensities": float32_values(ch["intensity"]),
        "tx_angles": float32_values([0.0] * n),
        "rx_angles": float32_values(ch["beam_angle_rad"]),
    }
    detected = np.isfinite(ch["detection_range_m"])
    points = frd_to_flu(ch["sounding_sensor_m"][detected].reshape(-1, 3))
    rows = np.empty((points.shape[0], 4), dtype="<f4")
    rows[:, :3] = points
    rows[:, 3] = ch["intensity"][detected]
    cloud = {
        "header": stamp,
        "height": 1,
        "width": int(rows.shape[0]),
        "fields": [
            {"name": name, "offset": 4 * k, "datatype": 7, "count": 1}
            for k, name in enumerate(("x", "y", "z", "intensity"))
        ],
        "is_bigendian": False,
        "point_step": 16,
        "row_step": 16 * int(rows.shape[0]),
        "data": rows.tobytes(),
        "is_dense": True,
    }
    angles = ch["beam_angle_rad"].tolist()
    axes = frd_to_flu(np.array([(0.0, math.sin(a), math.cos(a)) for a in angles]).reshape(-1, 3))
    edges = np.asarray(sample.metadata["range_bin_edges_m"], dtype=np.float64)
    image = np.ascontiguousarray(ch["linear_return"], dtype="<f4")
    water_column = {
        "header": stamp,
        "ping_info": _ping_info(sample),
        "beam_directions": [vector3(d) for d in axes.tolist()],
        "ranges": float32_values((edges[:-1] + edges[1:]) * 0.5),
        "image": {
            "is_bigendian": False,
            "dtype": 8,  # DTYPE_FLOAT32
            "beam_count": int(image.shape[1]),
            "data": image.tobytes(),
        },
    }
    return [("detections", detections), ("soundings", cloud), ("water_column", water_column)]


class MultibeamSensor:
    """Multibeam pings: :func:`measure_multibeam` on a sample context."""

    kind = "multibeam"
    spec_type = MultibeamSpec
    product_type = SensorSample
    reads_surfaces = False
    channels = _CHANNELS
    ros = RosEncoding(
        frame="sensor",
        topics=(
            RosTopic("detections", "marine_acoustic_msgs/msg/SonarDetections"),
            RosTopic("soundings", "sensor_msgs/msg/PointCloud2"),
            RosTopic("water_column", "marine_acoustic_msgs/msg/ProjectedSonarImage"),
        ),
        encode=_messages,
        definitions=_DEFINITIONS,
    )

    check_water = staticmethod(fan_sonar_check_water)

    def sample(self, spec: MultibeamSpec, context: SampleContext) -> SensorSample:
        """One ping of ``spec``; refuses a period below ``2 R_max / c`` in this water
        at the sensor's depth now (the vehicle may have risen since it was checked)."""
        self.check_water(spec, context.water, context.T_world_body, context.sensor_id)
        return measure_multibeam(spec, context)

    def footprint(self, spec: MultibeamSpec) -> Footprint:
        """The swath fan in the across-track plane between the range window's edges
        (sensor FRD: ``(0, r sin theta, r cos theta)``)."""
        half = math.radians(spec.swath_deg) / 2.0
        r0, r1 = float(spec.range_min_m), float(spec.range_max_m)
        steps = 32
        angles = [-half + 2.0 * half * i / steps for i in range(steps + 1)]

        def point(a: float, r: float) -> list[float]:
            return [0.0, r * math.sin(a), r * math.cos(a)]

        surface = []
        for a0, a1 in itertools.pairwise(angles):
            q = [point(a0, r0), point(a0, r1), point(a1, r1), point(a1, r0)]
            surface += [q[k] for k in (0, 1, 2, 0, 2, 3)]
        return Footprint(
            legend="orange: multibeam swath",
            parts=(
                FootprintPart("multibeam-swath", "surface", np.array(surface), "#ffa040", 0.25),
            ),
        )

    def preview(self, sample: SensorSample) -> bytes:
        """The water column as PNG bytes: range bins down, beams port to starboard, 60 dB of
        ``linear_return`` in grey (missing: dark blue), each detection's window in red."""
        return water_column_png(sample)

    def summary(self, spec: MultibeamSpec) -> str:
        """Frequency, swath, beams, range window, in one line."""
        return (
            f"{spec.frequency_hz / 1e3:g} kHz, {spec.swath_deg:g}° swath, {spec.beam_count} "
            f"{spec.beam_spacing} beams ({spec.across_track_width_deg:g}° × "
            f"{spec.along_track_width_deg:g}°), {spec.range_min_m:g}–{spec.range_max_m:g} m in "
            f"{spec.range_bin_count} bins"
        )


register_sensor_kind(MultibeamSensor())
