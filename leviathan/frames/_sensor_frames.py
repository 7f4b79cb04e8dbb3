"""Sensor and camera axes, and the one function that forms a sensor's world pose."""

from __future__ import annotations

import numpy as np

from leviathan.frames._arithmetic import _read_only
from leviathan.frames._transform import Transform

# Sensor FRD and camera optical axes, looking along the boresight:
#
#        sensor FRD                      camera (OpenCV optical)
#        x = boresight (forward)         z = forward (optical axis)
#        y = starboard (right)   ----->  x = right
#        z = down                        y = down
#
# so v_camera = R_CAMERA_SENSOR v_sensor, with rows picking sensor (y, z, x).
R_CAMERA_SENSOR: np.ndarray = _read_only(
    np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype=np.float64)
)
"""Rotation mapping sensor-FRD vectors to OpenCV camera axes, shape (3, 3), read-only."""

R_SENSOR_CAMERA: np.ndarray = _read_only(R_CAMERA_SENSOR.T.copy())
"""Rotation mapping OpenCV camera vectors to sensor-FRD axes (transpose of
``R_CAMERA_SENSOR``), shape (3, 3), read-only."""

T_SENSOR_CAMERA: Transform = Transform(R_SENSOR_CAMERA, (0.0, 0.0, 0.0))
"""Maps camera-optical points into the sensor FRD frame (shared origin). A
camera's world pose is ``sensor_pose(T_world_body, T_body_sensor) @ T_SENSOR_CAMERA``."""


def sensor_pose(T_world_body: Transform, T_body_sensor: Transform) -> Transform:
    """Form a sensor's world pose; the only way sensor poses are formed.

    Args:
        T_world_body: Vehicle body pose in world NED.
        T_body_sensor: Sensor mount in the body frame.

    Returns:
        ``T_world_sensor = T_world_body @ T_body_sensor``.

    Raises:
        TypeError: If either argument is not a :class:`Transform`.
    """
    for name, value in (("T_world_body", T_world_body), ("T_body_sensor", T_body_sensor)):
        if not isinstance(value, Transform):
            raise TypeError(
                f"{name} must be a Transform, got {type(value).__name__}; "
                "build one with Transform(rotation, translation) or Transform.from_euler(...)"
            )
    return T_world_body @ T_body_sensor
