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
  preview (:func:`camera_preview_png`);
* ``pressure`` — :class:`PressureSensor`, :func:`measure_pressure`: absolute pressure
  at the sensor from the committed depth, the water's density and the surface pressure;
* ``multibeam`` — :class:`MultibeamSensor`, :func:`measure_multibeam`: multibeam
  echosounder, the water column, bottom detections, soundings and per-beam truth
  (:func:`multibeam_sample` wraps a :func:`leviathan.multibeam.multibeam_ping`);
* ``side_scan`` — :class:`SideScanSensor`, lines from :func:`leviathan.side_scan.render`
  (a :class:`~leviathan.side_scan.SideScanLine`, port and starboard).

Each kind declares, next to its ``sample``, what is specific to it (channel
documentation, ROS 2 encoding, Viewport footprint, analytic-tier recorder,
preview): :class:`SensorKind` lists them and :func:`sensor_declarations` reads them.

The DVL, IMU, camera and pressure sensor return a :class:`SensorSample` (read-only channels,
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
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import (
    AnalyticTier,
    ChannelDoc,
    Footprint,
    FootprintPart,
    PinholeIntrinsics,
    RosEncoding,
    RosTopic,
    channel_doc,
    true_channel_errors,
)
from leviathan.sensors._dvl import (
    DVL_MODEL_VERSION,
    DVL_VELOCITY_EFFECT,
    MIN_BEAMS_FOR_LOCK,
    DVLSensor,
    measure_dvl,
)
from leviathan.sensors._dvl_noise import DVLNoiseModel, apply_dvl_noise
from leviathan.sensors._imaging_sonar import ImagingSonarSensor
from leviathan.sensors._imu import (
    IMU_ACCEL_EFFECT,
    IMU_GYRO_EFFECT,
    IMU_MODEL_VERSION,
    IMUSensor,
    measure_imu,
)
from leviathan.sensors._imu_noise import (
    ALLAN_PEAK_FACTOR,
    IMUNoise,
    IMUNoiseModel,
    gauss_markov_allan_deviation,
)
from leviathan.sensors._kinematics import GRAVITY_NED, BodyKinematics
from leviathan.sensors._multibeam import MultibeamSensor, measure_multibeam, multibeam_sample
from leviathan.sensors._pressure import (
    PRESSURE_EFFECT,
    PRESSURE_MODEL_VERSION,
    PressureNoiseModel,
    PressureSensor,
    measure_pressure,
    seawater_density_kg_m3,
)
from leviathan.sensors._previews import PreviewWriter
from leviathan.sensors._protocol import (
    SensorDeclarations,
    SensorKind,
    SensorProduct,
    kinds_producing,
    product_types,
    register_sensor_kind,
    registered_sensor_kinds,
    sample_sensor,
    sensor_declarations,
    sensor_kind_for,
    unregister_sensor_kind,
)
from leviathan.sensors._sample import SensorSample
from leviathan.sensors._side_scan import SideScanSensor
from leviathan.sensors._sonar_noise import (
    SonarNoiseEffect,
    SonarNoiseModel,
    apply_sonar_noise,
    sonar_noise_effect,
)

__all__ = [
    "ALLAN_PEAK_FACTOR",
    "CAMERA_MODEL_VERSION",
    "DVL_MODEL_VERSION",
    "DVL_VELOCITY_EFFECT",
    "GRAVITY_NED",
    "IMU_ACCEL_EFFECT",
    "IMU_GYRO_EFFECT",
    "IMU_MODEL_VERSION",
    "MIN_BEAMS_FOR_LOCK",
    "PRESSURE_EFFECT",
    "PRESSURE_MODEL_VERSION",
    "AnalyticTier",
    "BodyKinematics",
    "CameraSensor",
    "ChannelDoc",
    "DVLNoiseModel",
    "DVLSensor",
    "Footprint",
    "FootprintPart",
    "IMUNoise",
    "IMUNoiseModel",
    "IMUSensor",
    "ImagingSonarSensor",
    "MultibeamSensor",
    "PinholeIntrinsics",
    "PressureNoiseModel",
    "PressureSensor",
    "PreviewWriter",
    "RosEncoding",
    "RosTopic",
    "SampleContext",
    "SensorDeclarations",
    "SensorKind",
    "SensorProduct",
    "SensorSample",
    "SideScanSensor",
    "SonarNoiseEffect",
    "SonarNoiseModel",
    "apply_dvl_noise",
    "apply_sonar_noise",
    "camera_preview_png",
    "channel_doc",
    "gauss_markov_allan_deviation",
    "kinds_producing",
    "measure_dvl",
    "measure_imu",
    "measure_multibeam",
    "measure_pressure",
    "multibeam_sample",
    "product_types",
    "register_sensor_kind",
    "registered_sensor_kinds",
    "render_camera",
    "sample_sensor",
    "seawater_density_kg_m3",
    "sensor_declarations",
    "sensor_kind_for",
    "sonar_noise_effect",
    "true_channel_errors",
    "unregister_sensor_kind",
]
