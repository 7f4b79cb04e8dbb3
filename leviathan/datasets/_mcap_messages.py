"""ROS 2 messages of the MCAP export, built from LEVIATHAN records as plain dicts.

One function per message type; what each field holds, and why, is documented in
:mod:`leviathan.datasets.mcap`. Every frame conversion goes through
:mod:`leviathan.datasets.ros_frames`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from leviathan.acoustics import sound_speed_m_per_s
from leviathan.datasets._errors import DatasetError
from leviathan.datasets.ros_frames import (
    frd_to_acoustic,
    frd_to_flu,
    ned_to_enu,
    quaternion_ned_frd_to_enu_flu,
    quaternion_to_ros,
    ros_stamp,
    twist_frd_to_flu,
)
from leviathan.frames import quaternion_from_rotation
from leviathan.sensors import SensorSample
from leviathan.sonar import SonarFrame
from leviathan.world import VehicleTrackRecord

_TF = "tf2_msgs/msg/TFMessage"
_ODOMETRY = "nav_msgs/msg/Odometry"
_IMAGE = "sensor_msgs/msg/Image"
_CAMERA_INFO = "sensor_msgs/msg/CameraInfo"
_KIND_TYPES = {
    "imaging_sonar": ("marine_acoustic_msgs/msg/ProjectedSonarImage",),
    "dvl": ("marine_acoustic_msgs/msg/Dvl",),
    "imu": ("sensor_msgs/msg/Imu",),
    "camera": (_IMAGE, _CAMERA_INFO),
}
_DVL_BEAMS = 4
_UNKNOWN_3X3 = [-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


def _json(value: Any, field: str) -> str:
    """Compact, key-sorted JSON text of ``value``, or a DatasetError naming ``field``."""

    def plain(obj: Any) -> Any:
        if isinstance(obj, np.generic | np.ndarray):
            return obj.tolist()
        if isinstance(obj, Mapping):
            return dict(obj)
        if isinstance(obj, set | frozenset):
            return sorted(obj)
        raise TypeError(f"{type(obj).__name__} is not JSON")

    try:
        return json.dumps(value, sort_keys=True, allow_nan=False, default=plain)
    except (TypeError, ValueError) as error:
        raise DatasetError(
            f"{field}: expected a JSON-like mapping (str keys; str, int, finite float, bool, "
            f"None, lists and mappings of those), got one that cannot be stored: {error}"
        ) from None


def _check_time(where: str, time_ns: int) -> None:
    """Refuses a time that no ROS stamp (int32 seconds) or MCAP log time (uint64) can hold."""
    try:
        ros_stamp(time_ns)
    except (TypeError, ValueError) as error:
        raise DatasetError(f"{where}: {error}") from None


def _header(time_ns: int, frame_id: str) -> dict[str, Any]:
    sec, nanosec = ros_stamp(time_ns)
    return {"stamp": {"sec": sec, "nanosec": nanosec}, "frame_id": frame_id}


def _vector3(v: Sequence[float]) -> dict[str, float]:
    return {"x": float(v[0]), "y": float(v[1]), "z": float(v[2])}


def _quaternion(q_xyzw: Sequence[float]) -> dict[str, float]:
    return {
        "x": float(q_xyzw[0]),
        "y": float(q_xyzw[1]),
        "z": float(q_xyzw[2]),
        "w": float(q_xyzw[3]),
    }


def _float32(values: Any) -> list[float]:
    """Values rounded to float32 (numpy's cast), as Python floats that CDR packs exactly."""
    return np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64).tolist()


def _diagonal(variance: float) -> list[float]:
    return [variance, 0.0, 0.0, 0.0, variance, 0.0, 0.0, 0.0, variance]


def _transform(parent: str, child: str, rotation: Any, translation: Any) -> dict[str, Any]:
    """A static TransformStamped (stamp filled in when written) from ``T_parent_child``."""
    q = quaternion_to_ros(quaternion_from_rotation(rotation))
    return {
        "parent": parent,
        "child": child,
        "translation": _vector3(np.asarray(translation, dtype=np.float64)),
        "rotation": _quaternion(q),
    }


# --------------------------------------------------------------------------- messages


def _sonar_message(frame: SonarFrame, frame_id: str) -> dict[str, Any]:
    meta = frame.metadata
    spec = meta["spec"]
    bearings = [float(b) for b in np.asarray(meta["bearing_rad"]).tolist()]
    fan = np.array([(math.cos(b), math.sin(b), 0.0) for b in bearings], dtype=np.float64)
    directions = frd_to_acoustic(fan.reshape(-1, 3))
    edges = np.asarray(meta["range_bin_edges_m"], dtype=np.float64)
    centres = (edges[:-1] + edges[1:]) * 0.5
    water = meta["water"]
    sound_speed = sound_speed_m_per_s(
        temperature_c=float(water["temperature_c"]),
        salinity_psu=float(water["salinity_psu"]),
        depth_m=float(meta["T_world_sensor"]["translation"][2]),
    )
    pattern = spec["beam_pattern"]
    vertical_deg = float(spec["elevation_aperture_deg"])
    if pattern["kind"] == "gaussian":
        vertical_deg = min(float(pattern["elevation_3db_full_width_deg"]), vertical_deg)
    image = np.ascontiguousarray(frame.channels["linear_return"], dtype="<f4")
    beam_count = int(image.shape[1])
    return {
        "header": _header(frame.time_ns, frame_id),
        "ping_info": {
            "frequency": _float32(float(spec["frequency_hz"])),
            "sound_speed": _float32(sound_speed),
            "tx_beamwidths": _float32([math.radians(vertical_deg)] * beam_count),
            "rx_beamwidths": [],
        },
        "beam_directions": [_vector3(d) for d in directions.tolist()],
        "ranges": _float32(centres),
        "image": {
            "is_bigendian": False,
            "dtype": 8,  # DTYPE_FLOAT32
            "beam_count": beam_count,
            "data": image.tobytes(),
        },
    }


def _dvl_message(sample: SensorSample, frame_id: str) -> dict[str, Any]:
    ch = sample.channels
    velocity = frd_to_acoustic(ch["velocity_sensor_m_s"]).tolist()
    valid = [bool(v) for v in ch["beam_valid"].tolist()]
    lock = bool(ch["lock"])
    std = float(sample.metadata["spec"]["velocity_noise_std_m_per_s"])
    vx, vy = velocity[0], velocity[1]
    return {
        "header": _header(sample.time_ns, frame_id),
        "velocity_mode": 1,  # DVL_MODE_BOTTOM
        "dvl_type": 0,  # DVL_TYPE_PISTON: one transducer per Janus beam
        "velocity": _vector3(velocity),
        "velocity_covar": _diagonal(std * std) if lock else [-1.0] * 9,
        "altitude": float(ch["altitude_m"]),
        "course_gnd": math.atan2(vy, vx),
        "speed_gnd": math.sqrt(vx * vx + vy * vy),
        "num_good_beams": sum(valid),
        "sound_speed": 0.0,
        "beam_ranges_valid": True,
        "beam_velocities_valid": False,
        "beam_unit_vec": [
            _vector3(d)
            for d in frd_to_acoustic(np.asarray(sample.metadata["beam_directions_sensor"])).tolist()
        ],
        "range": ch["beam_range_m"].tolist(),
        "range_covar": [0.0 if v else -1.0 for v in valid],
        "beam_quality": [1.0 if v else 0.0 for v in valid],
        "beam_velocity": [math.nan] * _DVL_BEAMS,
        "beam_velocity_covar": [-1.0] * _DVL_BEAMS,
    }


def _imu_message(sample: SensorSample, frame_id: str) -> dict[str, Any]:
    ch = sample.channels
    spec = sample.metadata["spec"]
    gyro = float(spec["gyro_noise_std_rad_per_s"])
    accel = float(spec["accel_noise_std_m_per_s2"])
    return {
        "header": _header(sample.time_ns, frame_id),
        "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0},
        "orientation_covariance": list(_UNKNOWN_3X3),
        "angular_velocity": _vector3(frd_to_flu(ch["angular_rate_sensor_rad_s"])),
        "angular_velocity_covariance": _diagonal(gyro * gyro),
        "linear_acceleration": _vector3(frd_to_flu(ch["specific_force_sensor_m_s2"])),
        "linear_acceleration_covariance": _diagonal(accel * accel),
    }


def _camera_messages(sample: SensorSample, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """``(topic suffix, message)`` for the preview, the depth image and the camera info."""
    header = _header(sample.time_ns, frame_id)
    rgb = np.ascontiguousarray(sample.display["preview_srgb"], dtype=np.uint8)
    height, width = int(rgb.shape[0]), int(rgb.shape[1])
    depth = np.asarray(sample.channels["depth_z_m"], dtype=np.float64).astype("<f4")
    depth[np.isnan(depth)] = np.inf
    intrinsics = sample.metadata["intrinsics"]
    fx, fy = float(intrinsics["fx_px"]), float(intrinsics["fy_px"])
    cx, cy = float(intrinsics["cx_px"]), float(intrinsics["cy_px"])
    image = {"header": header, "height": height, "width": width, "is_bigendian": 0}
    return [
        ("image", {**image, "encoding": "rgb8", "step": 3 * width, "data": rgb.tobytes()}),
        ("depth", {**image, "encoding": "32FC1", "step": 4 * width, "data": depth.tobytes()}),
        (
            "camera_info",
            {
                "header": header,
                "height": int(intrinsics["height_px"]),
                "width": int(intrinsics["width_px"]),
                "distortion_model": "plumb_bob",
                "d": [0.0, 0.0, 0.0, 0.0, 0.0],
                "k": [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0],
                "r": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                "p": [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0],
                "binning_x": 0,
                "binning_y": 0,
                "roi": {"x_offset": 0, "y_offset": 0, "height": 0, "width": 0, "do_rectify": False},
            },
        ),
    ]


def _odometry(time_ns: int, parent: str, child: str, p: Any, q: Any, twist: Any) -> dict:
    return {
        "header": _header(time_ns, parent),
        "child_frame_id": child,
        "pose": {
            "pose": {"position": _vector3(p), "orientation": _quaternion(q)},
            "covariance": [0.0] * 36,
        },
        "twist": {
            "twist": {"linear": _vector3(twist[:3]), "angular": _vector3(twist[3:])},
            "covariance": [0.0] * 36,
        },
    }


class _Rows:
    """One vehicle's track rows of one call, converted to both frame conventions at once."""

    def __init__(self, track: VehicleTrackRecord) -> None:
        self.name = track.name
        self.last_tick = int(track.ticks[-1])
        self.times_ns = track.times_ns.tolist()
        self.position_ned = track.position_ned_m.tolist()
        self.position_enu = ned_to_enu(track.position_ned_m).tolist()
        self.q_ned = quaternion_to_ros(track.attitude_q).tolist()
        self.q_enu = quaternion_ned_frd_to_enu_flu(track.attitude_q).tolist()
        self.twist_frd = track.velocity_body.tolist()
        self.twist_flu = twist_frd_to_flu(track.velocity_body).tolist()
