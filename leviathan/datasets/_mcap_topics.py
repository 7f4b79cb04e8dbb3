"""The MCAP export's topic and frame plan: every declared vehicle's topics and static tree.

Built once from the vehicle documents before anything is written, so that a name
that cannot be a ROS 2 topic or frame, or two that collide, refuse the whole
export; the topics and frames are documented in :mod:`leviathan.datasets.mcap`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import Any, NamedTuple

from leviathan.datasets._errors import DatasetError
from leviathan.datasets._mcap_messages import _ODOMETRY, _TF, _json
from leviathan.frames import R_SENSOR_CAMERA
from leviathan.ros import R_ENU_NED, R_FLU_FRD, R_FRD_ACOUSTIC
from leviathan.ros import static_transform as _transform
from leviathan.sensors import sensor_declarations
from leviathan.specs import VehicleSpec

# The header frame of each convention a kind's RosEncoding may name: the frame id's
# suffix after the sensor id, and its rotation from the sensor's FRD frame (None: the
# sensor's own FLU frame, which every sensor has).
_HEADER_FRAMES = {
    "sensor": ("", None),
    "acoustic": ("_acoustic", R_FRD_ACOUSTIC),
    "optical": ("_optical", R_SENSOR_CAMERA),
}

# A ROS 2 name token: letters, digits, underscores, not starting with a digit, no "__".
_ROS_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _TopicPlan(NamedTuple):
    """What :func:`_plan_topics` found for the declared vehicles."""

    topics: dict[str, tuple[str, str]]
    """Topic -> (its owner: sensor id, vehicle name for odometry, "" for tf; message type)."""
    sensors: dict[str, tuple[str, str | None, str | None]]
    """Sensor id -> (kind, topic, header frame id); topic and frame None for a kind without a
    ROS 2 encoding (its samples are not published)."""
    vehicle_json: dict[str, str]
    """Vehicle name -> its document as JSON text."""
    static: list[dict[str, Any]]
    """The static transforms (``/tf_static``), parents before children."""


def _plan_topics(vehicles: Any) -> _TopicPlan:
    """Topics, frames and static transforms for every declared vehicle and sensor."""
    if not isinstance(vehicles, Mapping):
        raise DatasetError(f"vehicles: expected a mapping of name to VehicleSpec, got {vehicles!r}")
    topics: dict[str, tuple[str, str]] = {"/tf_static": ("", _TF), "/tf": ("", _TF)}
    sensors: dict[str, tuple[str, str | None, str | None]] = {}  # id -> (kind, topic, frame)
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
            sid = f"{name}/{sensor.name}"
            sensor_frd = f"{sid}_frd"
            mount = sensor.mount.transform()
            static.append(_transform(base_frd, sensor_frd, mount.rotation, mount.translation))
            static.append(_transform(sensor_frd, sid, R_FLU_FRD, (0.0, 0.0, 0.0)))
            frames += [sensor_frd, sid]
            ros = sensor_declarations(sensor.kind).ros
            if ros is None:
                warnings.warn(
                    f"{where}: sensor kind {sensor.kind!r} declares no ROS 2 encoding, so the "
                    f"MCAP file carries no messages of {sid!r} (its frames are in /tf_static; "
                    "the HDF5 dataset holds its samples)",
                    stacklevel=3,
                )
                sensors[sid] = (sensor.kind, None, None)
                continue
            if ros.check_spec is not None:
                try:
                    ros.check_spec(sensor)
                except ValueError as error:
                    raise DatasetError(f"{where}.{error}") from None
            suffix, rotation = _HEADER_FRAMES[ros.frame]
            header_frame = f"{sid}{suffix}"
            if rotation is not None:
                static.append(_transform(sensor_frd, header_frame, rotation, (0.0, 0.0, 0.0)))
                frames.append(header_frame)
            topic = f"/{sid}"
            for declared in ros.topics:
                full = f"{topic}/{declared.suffix}" if declared.suffix else topic
                _add_topic(topics, full, sid, declared.message_type, where)
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
