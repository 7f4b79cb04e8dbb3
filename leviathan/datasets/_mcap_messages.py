"""The MCAP export's own ROS 2 messages (odometry, tf), built from LEVIATHAN records as dicts.

A sensor's messages are built by its kind (:class:`leviathan.sensors.RosEncoding`);
what each field holds, and why, is documented in :mod:`leviathan.datasets.mcap`.
Every frame conversion goes through :mod:`leviathan.ros`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan.datasets._errors import DatasetError
from leviathan.ros import (
    header,
    ned_to_enu,
    quaternion,
    quaternion_ned_frd_to_enu_flu,
    quaternion_to_ros,
    ros_stamp,
    twist_frd_to_flu,
    vector3,
)
from leviathan.world import VehicleTrackRecord

_TF = "tf2_msgs/msg/TFMessage"
_ODOMETRY = "nav_msgs/msg/Odometry"


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


# --------------------------------------------------------------------------- messages


def _odometry(time_ns: int, parent: str, child: str, p: Any, q: Any, twist: Any) -> dict:
    return {
        "header": header(time_ns, parent),
        "child_frame_id": child,
        "pose": {
            "pose": {"position": vector3(p), "orientation": quaternion(q)},
            "covariance": [0.0] * 36,
        },
        "twist": {
            "twist": {"linear": vector3(twist[:3]), "angular": vector3(twist[3:])},
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
