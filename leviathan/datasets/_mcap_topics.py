"""The MCAP export's topic and frame plan: every declared vehicle's topics and static tree.

Built once from the vehicle documents before anything is written, so that a name
that cannot be a ROS 2 topic or frame, or two that collide, refuse the whole
export; the topics and frames are documented in :mod:`leviathan.datasets.mcap`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from leviathan.datasets._errors import DatasetError
from leviathan.datasets._mcap_messages import (
    _CAMERA_INFO,
    _DVL_BEAMS,
    _IMAGE,
    _KIND_TYPES,
    _ODOMETRY,
    _TF,
    _json,
    _transform,
)
from leviathan.datasets.ros_frames import R_ENU_NED, R_FLU_FRD, R_FRD_ACOUSTIC
from leviathan.frames import R_SENSOR_CAMERA
from leviathan.specs import VehicleSpec

# A ROS 2 name token: letters, digits, underscores, not starting with a digit, no "__".
_ROS_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _TopicPlan(NamedTuple):
    """What :func:`_plan_topics` found for the declared vehicles."""

    topics: dict[str, tuple[str, str]]
    """Topic -> (its owner: sensor id, vehicle name for odometry, "" for tf; message type)."""
    sensors: dict[str, tuple[str, str, str]]
    """Sensor id -> (kind, topic, header frame id)."""
    vehicle_json: dict[str, str]
    """Vehicle name -> its document as JSON text."""
    static: list[dict[str, Any]]
    """The static transforms (``/tf_static``), parents before children."""


def _plan_topics(vehicles: Any) -> _TopicPlan:
    """Topics, frames and static transforms for every declared vehicle and sensor."""
    if not isinstance(vehicles, Mapping):
        raise DatasetError(f"vehicles: expected a mapping of name to VehicleSpec, got {vehicles!r}")
    topics: dict[str, tuple[str, str]] = {"/tf_static": ("", _TF), "/tf": ("", _TF)}
    sensors: dict[str, tuple[str, str, str]] = {}  # sensor id -> (kind, topic, frame)
    vehicle_json: dict[str, str] = {}
    frames = ["map", "world_ned"]
    static = [_transform("map", "world_ned", R_ENU_NED, (0.0, 0.0, 0.0))]
    for name in vehicles:
        if not isinstance(name, str) or not _ROS_TOKEN.match(name) or "__" in name:
            raise DatasetError(
                f"vehicles: vehicle name {name!r} cannot name ROS 2 topics and frames; "
                "expected letters, digits and underscores, not starting with a digit, no '__'"
            )
    for name in sorted(vehicles):
        spec = vehicles[name]
        if not isinstance(spec, VehicleSpec):
            raise DatasetError(
                f"vehicles[{name!r}]: expected a VehicleSpec, got {type(spec).__name__}"
            )
        vehicle_json[name] = _json(spec.model_dump(mode="json"), f"vehicles[{name!r}]")
        base, base_frd = f"{name}/base_link", f"{name}/base_link_frd"
        frames += [base, base_frd]
        static.append(_transform(base, base_frd, R_FLU_FRD, (0.0, 0.0, 0.0)))
        topics[f"/{name}/odometry"] = (name, _ODOMETRY)
        topics[f"/{name}/odometry_ned"] = (name, _ODOMETRY)
        for sensor in spec.sensors:
            where = f"vehicles[{name!r}].sensors[{sensor.name!r}]"
            if not _ROS_TOKEN.match(sensor.name) or "__" in sensor.name:
                raise DatasetError(
                    f"{where}: sensor name {sensor.name!r} cannot name a ROS 2 topic; expected "
                    "letters, digits and underscores, not starting with a digit, no '__'"
                )
            if sensor.kind == "dvl" and sensor.beam_count != _DVL_BEAMS:
                raise DatasetError(
                    f"{where}.beam_count: marine_acoustic_msgs/Dvl carries exactly "
                    f"{_DVL_BEAMS} beams, got {sensor.beam_count}"
                )
            sid = f"{name}/{sensor.name}"
            sensor_frd = f"{sid}_frd"
            mount = sensor.mount.transform()
            static.append(_transform(base_frd, sensor_frd, mount.rotation, mount.translation))
            static.append(_transform(sensor_frd, sid, R_FLU_FRD, (0.0, 0.0, 0.0)))
            frames += [sensor_frd, sid]
            topic = f"/{sid}"
            if sensor.kind == "camera":
                header_frame = f"{sid}_optical"
                static.append(_transform(sensor_frd, header_frame, R_SENSOR_CAMERA, (0, 0, 0)))
                frames.append(header_frame)
                for suffix, type_name in (
                    ("image", _IMAGE),
                    ("depth", _IMAGE),
                    ("camera_info", _CAMERA_INFO),
                ):
                    _add_topic(topics, f"{topic}/{suffix}", sid, type_name, where)
            else:
                if sensor.kind == "imu":
                    header_frame = sid
                else:
                    header_frame = f"{sid}_acoustic"
                    static.append(_transform(sensor_frd, header_frame, R_FRD_ACOUSTIC, (0, 0, 0)))
                    frames.append(header_frame)
                _add_topic(topics, topic, sid, _KIND_TYPES[sensor.kind][0], where)
            sensors[sid] = (sensor.kind, topic, header_frame)
    duplicates = sorted({f for f in frames if frames.count(f) > 1})
    if duplicates:
        raise DatasetError(
            f"vehicles: frame ids {duplicates} would name two frames (a sensor named like "
            "'base_link' or '<other sensor>_frd'); rename the sensor"
        )
    return _TopicPlan(topics, sensors, vehicle_json, static)


def _add_topic(
    topics: dict[str, tuple[str, str]], topic: str, sid: str, type_name: str, where: str
) -> None:
    if topic in topics:
        raise DatasetError(
            f"{where}: topic {topic} is already used by {topics[topic][0] or 'tf'}; "
            "rename the sensor"
        )
    topics[topic] = (sid, type_name)
