"""Building blocks of ROS 2 messages as the plain dicts ``mcap-ros2-support`` serialises.

Each sensor kind builds its own messages (its module's ``ros_messages``) from
these, so that a header, a vector or a covariance is written the same way by
every kind; the MCAP writer (:mod:`leviathan.datasets.mcap`) builds the
``/tf``, ``/tf_static`` and odometry messages from them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from leviathan.frames import quaternion_from_rotation
from leviathan.ros._frames import quaternion_to_ros, ros_stamp

__all__ = [
    "UNKNOWN_COVARIANCE_3X3",
    "diagonal_covariance",
    "float32_values",
    "header",
    "quaternion",
    "static_transform",
    "vector3",
]

UNKNOWN_COVARIANCE_3X3: tuple[float, ...] = (-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
"""A 3 x 3 covariance whose first element is -1: "no estimate" (sensor_msgs/Imu's convention)."""


def header(time_ns: int, frame_id: str) -> dict[str, Any]:
    """A ``std_msgs/Header`` stamped from integer nanoseconds (never through float seconds)."""
    sec, nanosec = ros_stamp(time_ns)
    return {"stamp": {"sec": sec, "nanosec": nanosec}, "frame_id": frame_id}


def vector3(v: Sequence[float]) -> dict[str, float]:
    """A ``geometry_msgs/Vector3`` (or ``Point``) from three components."""
    return {"x": float(v[0]), "y": float(v[1]), "z": float(v[2])}


def quaternion(q_xyzw: Sequence[float]) -> dict[str, float]:
    """A ``geometry_msgs/Quaternion`` from ROS-ordered components ``(x, y, z, w)``."""
    return {
        "x": float(q_xyzw[0]),
        "y": float(q_xyzw[1]),
        "z": float(q_xyzw[2]),
        "w": float(q_xyzw[3]),
    }


def float32_values(values: Any) -> list[float]:
    """Values rounded to float32 (numpy's cast), as Python floats that CDR packs exactly."""
    return np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64).tolist()


def diagonal_covariance(variance: float) -> list[float]:
    """A row-major 3 x 3 covariance with ``variance`` on the diagonal."""
    return [variance, 0.0, 0.0, 0.0, variance, 0.0, 0.0, 0.0, variance]


def static_transform(parent: str, child: str, rotation: Any, translation: Any) -> dict[str, Any]:
    """A static transform ``T_parent_child`` (its stamp is filled in when written).

    Args:
        parent: Parent frame id.
        child: Child frame id.
        rotation: ``R_parent_child``, shape [3, 3].
        translation: ``t_parent_child`` [m], shape [3].

    Returns:
        ``{"parent", "child", "translation", "rotation"}`` with a ``Vector3`` and a
        ``Quaternion`` message dict.
    """
    q = quaternion_to_ros(quaternion_from_rotation(rotation))
    return {
        "parent": parent,
        "child": child,
        "translation": vector3(np.asarray(translation, dtype=np.float64)),
        "rotation": quaternion(q),
    }
