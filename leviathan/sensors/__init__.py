"""Canonical sensors behind one protocol: spec in, immutable sample context in, product out.

Every sensor kind is one module that implements :class:`SensorKind` and
registers itself under its spec's ``kind`` (:func:`register_sensor_kind`); a
World samples a spec with :func:`sample_sensor` on a :class:`SampleContext`
and never branches on sensor types. The built-in kinds:

* ``imaging_sonar`` — :class:`ImagingSonarSensor`, pings from :func:`leviathan.sonar.render`
  (a :class:`~leviathan.sonar.SonarFrame`);
* ``dvl`` — :class:`DVLSensor`, :func:`measure_dvl`: Janus bottom-track DVL, beams
  ray-cast into the scene;
* ``imu`` — :class:`IMUSensor`, :func:`measure_imu`: specific force and angular rate at
  the mounted IMU;
* ``camera`` — :class:`CameraSensor`, :func:`render_camera`: pinhole camera with exact
  per-pixel depth, range, normals and instance/semantic/object ids, plus an sRGB
  preview (:func:`camera_preview_png`).

The DVL, IMU and camera return a :class:`SensorSample` (read-only channels,
JSON-like metadata, separately hashed display products); its ``kind`` is any
registered kind whose product is a ``SensorSample`` (:func:`kinds_producing`).
The functions are pure functions of the committed state and can be called
directly.

This package's ``__init__`` is its public face: the modules behind it
(``_protocol``, ``_kinematics``, ``_sample`` and one per kind) are internal.
"""

# Importing each kind module registers its sensor, in this order.
from leviathan.sensors._camera import (
    CAMERA_MODEL_VERSION,
    CameraSensor,
    camera_preview_png,
    render_camera,
)
from leviathan.sensors._dvl import (
    DVL_MODEL_VERSION,
    DVL_VELOCITY_EFFECT,
    MIN_BEAMS_FOR_LOCK,
    DVLSensor,
    measure_dvl,
)
from leviathan.sensors._imaging_sonar import ImagingSonarSensor
from leviathan.sensors._imu import (
    IMU_ACCEL_EFFECT,
    IMU_GYRO_EFFECT,
    IMU_MODEL_VERSION,
    IMUSensor,
    measure_imu,
)
from leviathan.sensors._kinematics import GRAVITY_NED, BodyKinematics
from leviathan.sensors._protocol import (
    SampleContext,
    SensorKind,
    SensorProduct,
    kinds_producing,
    product_types,
    register_sensor_kind,
    registered_sensor_kinds,
    sample_sensor,
    sensor_kind_for,
    unregister_sensor_kind,
)
from leviathan.sensors._sample import SensorSample

__all__ = [
    "CAMERA_MODEL_VERSION",
    "DVL_MODEL_VERSION",
    "DVL_VELOCITY_EFFECT",
    "GRAVITY_NED",
    "IMU_ACCEL_EFFECT",
    "IMU_GYRO_EFFECT",
    "IMU_MODEL_VERSION",
    "MIN_BEAMS_FOR_LOCK",
    "BodyKinematics",
    "CameraSensor",
    "DVLSensor",
    "IMUSensor",
    "ImagingSonarSensor",
    "SampleContext",
    "SensorKind",
    "SensorProduct",
    "SensorSample",
    "camera_preview_png",
    "kinds_producing",
    "measure_dvl",
    "measure_imu",
    "product_types",
    "register_sensor_kind",
    "registered_sensor_kinds",
    "render_camera",
    "sample_sensor",
    "sensor_kind_for",
    "unregister_sensor_kind",
]
