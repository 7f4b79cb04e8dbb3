"""Canonical DVL, IMU and camera sensors: pure functions of the committed state.

Each sensor returns a :class:`SensorSample` (read-only channels, JSON-like
metadata, separately hashed display products):

* :func:`measure_dvl` — Janus bottom-track DVL, beams ray-cast into the scene;
* :func:`measure_imu` — specific force and angular rate at the mounted IMU;
* :func:`render_camera` — pinhole camera with exact per-pixel depth, range,
  normals and instance/semantic/object ids, plus an sRGB preview
  (:func:`preview_png`).
"""

from leviathan.sensors.camera import CAMERA_MODEL_VERSION, preview_png, render_camera
from leviathan.sensors.dvl import (
    DVL_MODEL_VERSION,
    DVL_VELOCITY_EFFECT,
    MIN_BEAMS_FOR_LOCK,
    measure_dvl,
)
from leviathan.sensors.imu import IMU_ACCEL_EFFECT, IMU_GYRO_EFFECT, IMU_MODEL_VERSION, measure_imu
from leviathan.sensors.sample import GRAVITY_NED, SENSOR_KINDS, BodyKinematics, SensorSample

__all__ = [
    "CAMERA_MODEL_VERSION",
    "DVL_MODEL_VERSION",
    "DVL_VELOCITY_EFFECT",
    "GRAVITY_NED",
    "IMU_ACCEL_EFFECT",
    "IMU_GYRO_EFFECT",
    "IMU_MODEL_VERSION",
    "MIN_BEAMS_FOR_LOCK",
    "SENSOR_KINDS",
    "BodyKinematics",
    "SensorSample",
    "measure_dvl",
    "measure_imu",
    "preview_png",
    "render_camera",
]
