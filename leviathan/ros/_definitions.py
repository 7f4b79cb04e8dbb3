"""The ROS 2 message definitions LEVIATHAN writes, as the ``ros2msg`` text a ROS 2 bag stores.

Each definition below has the field and constant lines of the published ``.msg``
file, in its order and with its default values; the comments of the originals
are left out (they do not change the type, its CDR encoding or its type hash).
Sources (the ROS 2 packages as released):

* ``builtin_interfaces/Time``: ros2/rcl_interfaces ``builtin_interfaces/msg/Time.msg``;
* ``std_msgs/Header``: ros2/common_interfaces ``std_msgs/msg/Header.msg``;
* ``geometry_msgs/{Point, Quaternion, Vector3, Pose, PoseWithCovariance, Twist,
  TwistWithCovariance, Transform, TransformStamped}``: ros2/common_interfaces
  ``geometry_msgs/msg/*.msg`` (``Quaternion`` declares ``x y z`` default 0 and ``w``
  default 1);
* ``nav_msgs/Odometry``: ros2/common_interfaces ``nav_msgs/msg/Odometry.msg``;
* ``sensor_msgs/{Imu, Image, CameraInfo, RegionOfInterest}``: ros2/common_interfaces
  ``sensor_msgs/msg/*.msg``;
* ``tf2_msgs/TFMessage``: ros2/geometry2 ``tf2_msgs/msg/TFMessage.msg``;
* ``marine_acoustic_msgs/{ProjectedSonarImage, PingInfo, SonarImageData, Dvl}``:
  apl-ocean-engineering/marine_msgs ``marine_acoustic_msgs/msg/*.msg`` (the ROS 2
  package; ``PingInfo`` there has only ``frequency``, ``sound_speed`` and the two
  beam-width arrays, unlike the older ``acoustic_msgs`` one).

The standard ones are checked field by field against the ROS 2 Humble type store
shipped with ``rosbags`` (tests/test_datasets_mcap.py).

Concatenation (:func:`message_definition`) follows rosbag2's
``LocalMessageDefinitionSource``: the top-level text first, then every
dependency once, depth first, each in sorted name order and preceded by a line
of 80 ``=`` and ``MSG: <package>/<Type>``, the dependency named as its field
type names it (``PingInfo`` inside ``marine_acoustic_msgs`` is
``marine_acoustic_msgs/PingInfo``). The MCAP schema is named
``<package>/msg/<Type>`` with encoding ``ros2msg`` (MCAP's ``ros2`` profile).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "MESSAGE_DEFINITIONS",
    "SCHEMA_ENCODING",
    "SEPARATOR",
    "message_definition",
    "message_dependencies",
    "register_message_definitions",
    "ros_type_name",
]

SCHEMA_ENCODING = "ros2msg"
"""MCAP schema encoding of the definitions (the ``ros2`` profile's ``.msg`` text)."""

SEPARATOR = "=" * 80
"""The line that opens each dependency's section in a concatenated definition."""

# Field and constant lines of each published definition, keyed "package/Type": the
# messages the writer itself needs (tf, odometry) and those the built-in sensor kinds
# publish. A sensor kind may add the definitions of its own messages with
# register_message_definitions (its module declares them next to its encoder).
_DEFINITIONS: dict[str, str] = {
    "builtin_interfaces/Time": "int32 sec\nuint32 nanosec\n",
    "std_msgs/Header": "builtin_interfaces/Time stamp\nstring frame_id\n",
    "geometry_msgs/Point": "float64 x\nfloat64 y\nfloat64 z\n",
    "geometry_msgs/Quaternion": "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
    "geometry_msgs/Vector3": "float64 x\nfloat64 y\nfloat64 z\n",
    "geometry_msgs/Pose": "Point position\nQuaternion orientation\n",
    "geometry_msgs/PoseWithCovariance": "Pose pose\nfloat64[36] covariance\n",
    "geometry_msgs/Twist": "Vector3 linear\nVector3 angular\n",
    "geometry_msgs/TwistWithCovariance": "Twist twist\nfloat64[36] covariance\n",
    "geometry_msgs/Transform": "Vector3 translation\nQuaternion rotation\n",
    "geometry_msgs/TransformStamped": (
        "std_msgs/Header header\nstring child_frame_id\nTransform transform\n"
    ),
    "nav_msgs/Odometry": (
        "std_msgs/Header header\n"
        "string child_frame_id\n"
        "geometry_msgs/PoseWithCovariance pose\n"
        "geometry_msgs/TwistWithCovariance twist\n"
    ),
    "sensor_msgs/Imu": (
        "std_msgs/Header header\n"
        "geometry_msgs/Quaternion orientation\n"
        "float64[9] orientation_covariance\n"
        "geometry_msgs/Vector3 angular_velocity\n"
        "float64[9] angular_velocity_covariance\n"
        "geometry_msgs/Vector3 linear_acceleration\n"
        "float64[9] linear_acceleration_covariance\n"
    ),
    "sensor_msgs/Image": (
        "std_msgs/Header header\n"
        "uint32 height\n"
        "uint32 width\n"
        "string encoding\n"
        "uint8 is_bigendian\n"
        "uint32 step\n"
        "uint8[] data\n"
    ),
    "sensor_msgs/RegionOfInterest": (
        "uint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify\n"
    ),
    "sensor_msgs/CameraInfo": (
        "std_msgs/Header header\n"
        "uint32 height\n"
        "uint32 width\n"
        "string distortion_model\n"
        "float64[] d\n"
        "float64[9] k\n"
        "float64[9] r\n"
        "float64[12] p\n"
        "uint32 binning_x\n"
        "uint32 binning_y\n"
        "RegionOfInterest roi\n"
    ),
    "tf2_msgs/TFMessage": "geometry_msgs/TransformStamped[] transforms\n",
    "marine_acoustic_msgs/PingInfo": (
        "float32 frequency\nfloat32 sound_speed\nfloat32[] tx_beamwidths\nfloat32[] rx_beamwidths\n"
    ),
    "marine_acoustic_msgs/SonarImageData": (
        "bool is_bigendian\n"
        "uint32 DTYPE_UINT8 = 0\n"
        "uint32 DTYPE_INT8 = 1\n"
        "uint32 DTYPE_UINT16 = 2\n"
        "uint32 DTYPE_INT16 = 3\n"
        "uint32 DTYPE_UINT32 = 4\n"
        "uint32 DTYPE_INT32 = 5\n"
        "uint32 DTYPE_UINT64 = 6\n"
        "uint32 DTYPE_INT64 = 7\n"
        "uint32 DTYPE_FLOAT32 = 8\n"
        "uint32 DTYPE_FLOAT64 = 9\n"
        "uint32 dtype\n"
        "uint32 beam_count\n"
        "uint8[] data\n"
    ),
    "marine_acoustic_msgs/ProjectedSonarImage": (
        "std_msgs/Header header\n"
        "PingInfo ping_info\n"
        "geometry_msgs/Vector3[] beam_directions\n"
        "float32[] ranges\n"
        "SonarImageData image\n"
    ),
    "marine_acoustic_msgs/Dvl": (
        "uint8 DVL_MODE_BOTTOM=1\n"
        "uint8 DVL_MODE_WATER=2\n"
        "uint8 DVL_TYPE_PISTON=0\n"
        "uint8 DVL_TYPE_PHASED_ARRAY=1\n"
        "std_msgs/Header header\n"
        "uint8 velocity_mode\n"
        "uint8 dvl_type\n"
        "geometry_msgs/Vector3 velocity\n"
        "float64[9] velocity_covar\n"
        "float64 altitude\n"
        "float64 course_gnd\n"
        "float64 speed_gnd\n"
        "uint8 num_good_beams\n"
        "float32 sound_speed\n"
        "bool beam_ranges_valid\n"
        "bool beam_velocities_valid\n"
        "geometry_msgs/Vector3[4] beam_unit_vec\n"
        "float64[4] range\n"
        "float32[4] range_covar\n"
        "float32[4] beam_quality\n"
        "float32[4] beam_velocity\n"
        "float32[4] beam_velocity_covar\n"
    ),
}

MESSAGE_DEFINITIONS: Mapping[str, str] = MappingProxyType(_DEFINITIONS)
"""Every known definition, ``package/Type`` -> its field and constant lines; read-only."""

_TYPE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*/[A-Za-z][A-Za-z0-9_]*$")


def register_message_definitions(definitions: Mapping[str, str]) -> None:
    """Adds message definitions (``package/Type`` -> ``.msg`` field and constant lines).

    A sensor kind whose messages are not among the built-in ones declares them
    here, with the text of the published ``.msg`` file (comments left out).
    Registering the same text again is a no-op; a different text for a known
    type is refused, so two kinds cannot disagree on what a type is.

    Raises:
        TypeError: If a name or a text is not a string.
        ValueError: If a name is not ``package/Type``, a text is empty, or a known
            type would get another definition.
    """
    checked = {}
    for name, text in definitions.items():
        if not isinstance(name, str) or not isinstance(text, str):
            raise TypeError(
                f"definitions: expected str 'package/Type' -> str .msg text, got "
                f"{type(name).__name__} -> {type(text).__name__}"
            )
        if not _TYPE_NAME.match(name):
            raise ValueError(f"definitions: expected a 'package/Type' name, got {name!r}")
        if not text.strip():
            raise ValueError(f"definitions[{name!r}]: the definition text is empty")
        known = _DEFINITIONS.get(name)
        if known is not None and known != text:
            raise ValueError(
                f"definitions[{name!r}]: {name} is already defined with other fields; "
                "use the registered definition (leviathan.ros.MESSAGE_DEFINITIONS) or another name"
            )
        checked[name] = text
    _DEFINITIONS.update(checked)


_PRIMITIVES = frozenset(
    {
        "bool",
        "byte",
        "char",
        "float32",
        "float64",
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "string",
        "wstring",
    }
)

# The type token at the start of a line, as rosbag2 finds dependencies ("pkg/Type[4] name").
_FIELD_TYPE = re.compile(r"^\s*([A-Za-z0-9_/]+)(?:\[[^\]]*\])?\s+", re.MULTILINE)


def _short_name(type_name: str) -> str:
    """``pkg/msg/Type`` or ``pkg/Type`` -> ``pkg/Type``; refuses anything else."""
    parts = type_name.split("/")
    if len(parts) == 3 and parts[1] == "msg":
        parts = [parts[0], parts[2]]
    if len(parts) != 2 or not all(parts):
        raise ValueError(
            f"type_name: expected 'package/msg/Type' or 'package/Type', got {type_name!r}"
        )
    short = "/".join(parts)
    if short not in _DEFINITIONS:
        raise KeyError(
            f"type_name: no definition of {type_name!r}; defined: {sorted(_DEFINITIONS)}; a "
            "sensor kind declares its own with register_message_definitions"
        )
    return short


def ros_type_name(type_name: str) -> str:
    """The ROS 2 name ``package/msg/Type`` of a defined message (the MCAP schema name).

    Args:
        type_name: ``package/Type`` or ``package/msg/Type``.

    Raises:
        ValueError: If the name has another shape.
        KeyError: If the type is not one of :data:`MESSAGE_DEFINITIONS`.
    """
    package, name = _short_name(type_name).split("/")
    return f"{package}/msg/{name}"


def message_dependencies(type_name: str) -> tuple[str, ...]:
    """The message types a definition's fields name directly, as ``package/Type``, sorted.

    A type without a package (``Pose`` inside ``geometry_msgs``) is in the same package.

    Args:
        type_name: ``package/Type`` or ``package/msg/Type``.
    """
    short = _short_name(type_name)
    package = short.split("/")[0]
    found = set()
    for token in _FIELD_TYPE.findall(_DEFINITIONS[short]):
        if token in _PRIMITIVES:
            continue
        found.add(token if "/" in token else f"{package}/{token}")
    return tuple(sorted(found))


def message_definition(type_name: str) -> str:
    """The complete ``ros2msg`` definition of a type: its text and every dependency's, once.

    Args:
        type_name: ``package/Type`` or ``package/msg/Type``.

    Returns:
        The concatenated text (see the module docstring for the order and separators).
    """
    root = _short_name(type_name)
    seen: set[str] = set()

    def append(name: str) -> str:
        text = _DEFINITIONS[name]
        for dependency in message_dependencies(name):
            if dependency not in seen:
                seen.add(dependency)
                text += f"{SEPARATOR}\nMSG: {dependency}\n{append(dependency)}"
        return text

    return append(root)
