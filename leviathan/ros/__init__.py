"""ROS 2 conventions, in one place: frames (NED/FRD <-> ENU/FLU), stamps and message building.

* Frames and stamps (every conversion between LEVIATHAN's NED/FRD and REP 103's
  ENU/FLU, the acoustic-message axes, integer-nanosecond stamps) —
  ``leviathan/ros/_frames.py`` documents them and their exactness.
* Message definitions (the ``ros2msg`` text a bag stores, and
  :func:`register_message_definitions` for a sensor kind's own messages).
* Message building blocks (:func:`header`, :func:`vector3`, ...), which every
  sensor kind's encoder and the MCAP writer use.

Nothing here imports a sensor or a writer, so a sensor kind's module can build
its own messages (see :class:`leviathan.sensors.SensorKind`) and
:mod:`leviathan.datasets.mcap` can publish them.
"""

from leviathan.ros._definitions import (
    MESSAGE_DEFINITIONS,
    SCHEMA_ENCODING,
    SEPARATOR,
    message_definition,
    message_dependencies,
    register_message_definitions,
    ros_type_name,
)
from leviathan.ros._frames import (
    R_ENU_NED,
    R_FLU_FRD,
    R_FRD_ACOUSTIC,
    T_BASE_LINK_FRD,
    T_MAP_WORLD_NED,
    acoustic_to_frd,
    enu_to_ned,
    flu_to_frd,
    frd_to_acoustic,
    frd_to_flu,
    ned_to_enu,
    pose_enu_flu_to_ned_frd,
    pose_ned_frd_to_enu_flu,
    quaternion_enu_flu_to_ned_frd,
    quaternion_ned_frd_to_enu_flu,
    quaternion_to_ros,
    ros_stamp,
    rotation_enu_flu_to_ned_frd,
    rotation_ned_frd_to_enu_flu,
    twist_frd_to_flu,
)
from leviathan.ros._messages import (
    UNKNOWN_COVARIANCE_3X3,
    diagonal_covariance,
    float32_values,
    header,
    quaternion,
    static_transform,
    vector3,
)

__all__ = [
    "MESSAGE_DEFINITIONS",
    "R_ENU_NED",
    "R_FLU_FRD",
    "R_FRD_ACOUSTIC",
    "SCHEMA_ENCODING",
    "SEPARATOR",
    "T_BASE_LINK_FRD",
    "T_MAP_WORLD_NED",
    "UNKNOWN_COVARIANCE_3X3",
    "acoustic_to_frd",
    "diagonal_covariance",
    "enu_to_ned",
    "float32_values",
    "flu_to_frd",
    "frd_to_acoustic",
    "frd_to_flu",
    "header",
    "message_definition",
    "message_dependencies",
    "ned_to_enu",
    "pose_enu_flu_to_ned_frd",
    "pose_ned_frd_to_enu_flu",
    "quaternion",
    "quaternion_enu_flu_to_ned_frd",
    "quaternion_ned_frd_to_enu_flu",
    "quaternion_to_ros",
    "register_message_definitions",
    "ros_stamp",
    "ros_type_name",
    "rotation_enu_flu_to_ned_frd",
    "rotation_ned_frd_to_enu_flu",
    "static_transform",
    "twist_frd_to_flu",
    "vector3",
]
