"""Canonical Doppler velocity log (bottom track) over a canonical scene.

Geometry. The DVL's sensor frame is FRD with x along the boresight; its pose is
``T_world_sensor = T_world_body @ T_body_sensor`` with ``T_body_sensor =
spec.mount.transform()``. The Janus beams ``k = 0 .. beam_count - 1`` point, in
the sensor frame, along the unit vectors::

    d_k = (cos a, sin a cos φ_k, sin a sin φ_k),   a = beam_angle_deg,
    φ_k = 45° + k · 360° / beam_count

so each beam makes the angle ``a`` with the boresight and, for the usual four
beams, they sit at 45°, 135°, 225° and 315° around it (between the sensor's
y and z axes, never in the vehicle's plane of symmetry).

Beams. Each beam is ray-cast from the sensor origin with the reference tracer
(nearest hit, meshes and the sea surface, ``t_max = max_range_m``). A beam is
valid when its nearest hit is a mesh instance (the sea surface is an interface
the DVL cannot lock on) at a slant range ``min_range_m <= R <= max_range_m``.

Velocity. Bottom track measures the velocity of the sensor origin relative to
the static ground, in the sensor frame::

    v_sensor = R_sensor_body (v_body + ω × r_body_sensor)

with ``r_body_sensor`` the mount's translation. The DVL locks with at least
:data:`MIN_BEAMS_FOR_LOCK` valid beams; then the measured velocity is
``v_sensor + std · n`` with ``n = normal(seed, sensor_id, sample_index,
"dvl_velocity", [0, 1, 2])`` (drawn only when ``std > 0``). Without a lock the
measured velocity is missing (NaN) and no noise is drawn.

Altitude is the mean over valid beams of ``R_k cos a``, the beams' range
projected on the boresight (the vertical altitude for a vertical boresight over
level ground), summed in beam order.

Surfaces. ``beam_instance`` is the scene instance each beam hit. When the scene
holds another vehicle's hull (a World with several vehicles), a beam can lock on
it like on any mesh, and the metadata's ``beam_surfaces`` names what each beam
hit: ``object_id``, ``semantic_label``, ``vehicle`` (the World name of the
vehicle whose hull it is, or None) and ``moving``, or None for a beam that hit
nothing (the key is absent from samples over scenes without vehicles, which keep
their identity).

Moving surfaces. A real bottom-track DVL measures each beam's Doppler relative
to the surface it hit. ``surface_kinematics`` (a World's
:attr:`~leviathan.sensors.SampleContext.surface_kinematics`) gives the committed
kinematics of moving surfaces by ``object_id``: every hull's vehicle, every
moving environment object. When the DVL locks and at least one valid beam hit a
``moving`` instance listed there, the velocity is the relative track of
:mod:`leviathan.sensors._dvl_relative`: per-beam radial velocities
``m_k = (v_sensor - u_k) · d_k`` (``u_k`` the hit point's velocity, zero on
static surfaces) solved by least squares; ``true_velocity_sensor_m_s`` is that
noise-free solution and the noise is added to it as above. The metadata then
carries ``relative_track``: ``ground_velocity_sensor_m_s`` (``v_sensor``),
``beam_radial_velocity_m_s`` and ``beam_surface_velocity_world_m_s`` per beam
(None for invalid beams; zeros on static surfaces). Otherwise (every valid beam
on static surfaces, a moving surface of unknown motion, or no lock) the velocity
is ``v_sensor`` over ground exactly as above and the sample carries no such key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._validation import check_seed
from leviathan.frames import sensor_pose
from leviathan.random import normal
from leviathan.raycast import PreparedScene, trace_rays
from leviathan.ros import diagonal_covariance, frd_to_acoustic, header, vector3
from leviathan.scene import Scene
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import (
    AnalyticTier,
    Footprint,
    FootprintPart,
    RosEncoding,
    RosTopic,
    channel_doc,
)
from leviathan.sensors._dvl_noise import DVLNoiseModel, dvl_recorder
from leviathan.sensors._dvl_relative import beam_surfaces, relative_track
from leviathan.sensors._kinematics import (
    BodyKinematics,
    _cross3,
    _float_vector,
    _rotate3,
)
from leviathan.sensors._protocol import register_sensor_kind
from leviathan.sensors._sample import (
    SensorSample,
    _check_sample_inputs,
    _mount_constants,
    _noise_record,
    _prepared_for,
    _spec_derived,
)
from leviathan.specs import DVLSpec

__all__ = [
    "DVL_MODEL_VERSION",
    "DVL_VELOCITY_EFFECT",
    "MIN_BEAMS_FOR_LOCK",
    "DVLSensor",
    "dvl_beam_directions",
    "measure_dvl",
]

DVL_MODEL_VERSION = "leviathan.dvl.v1"
"""Name and version of the DVL model; part of every DVL sample's identity."""

DVL_VELOCITY_EFFECT = "dvl_velocity"
"""Keyed-randomness effect name of the velocity noise (indices 0, 1, 2 = sensor x, y, z)."""

MIN_BEAMS_FOR_LOCK = 3
"""Valid beams needed for a bottom lock (three non-coplanar beams fix a 3D velocity)."""

_AXES = frozen_array(np.arange(3))


def dvl_beam_directions(spec: DVLSpec) -> np.ndarray:
    """Unit beam directions in the sensor FRD frame (x = boresight).

    Args:
        spec: The DVL spec (``beam_count``, ``beam_angle_deg``).

    Returns:
        float64 array, shape [beam_count, 3]; row k is
        ``(cos a, sin a cos φ_k, sin a sin φ_k)`` with ``φ_k = 45° + k·360°/beam_count``.
    """
    if not isinstance(spec, DVLSpec):
        raise TypeError(f"spec: expected a DVLSpec, got {type(spec).__name__}")
    a = math.radians(spec.beam_angle_deg)
    cos_a, sin_a = math.cos(a), math.sin(a)
    rows = []
    for k in range(spec.beam_count):
        phi = math.radians(45.0 + k * 360.0 / spec.beam_count)
        rows.append((cos_a, sin_a * math.cos(phi), sin_a * math.sin(phi)))
    return np.array(rows, dtype=np.float64)


def _spec_constants(spec: DVLSpec) -> tuple[Any, ...]:
    """Per-spec constants: the mount's and the spec's
    (:func:`~leviathan.sensors._sample._mount_constants`), then the frozen beam directions."""
    # The spec fields that define the output (the mount enters through the pose).
    physics_fields = (
        "beam_count",
        "beam_angle_deg",
        "min_range_m",
        "max_range_m",
        "velocity_noise_std_m_per_s",
    )
    return (
        *_mount_constants(spec, physics_fields),
        frozen_array(dvl_beam_directions(spec)),
    )


def measure_dvl(
    scene: Scene,
    spec: DVLSpec,
    kin: BodyKinematics,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
    seed: int | None = None,
    prepared: PreparedScene | None = None,
    backend: str = "auto",
    device: str | None = None,
    surface_kinematics: Mapping[str, BodyKinematics] | None = None,
) -> SensorSample:
    """Take one bottom-track DVL sample.

    Args:
        scene: The canonical scene at the sample instant (the ground is static).
        spec: DVL spec (beam geometry, range window, noise, mount).
        kin: Committed body kinematics (pose, CG velocity, angular velocity).
        sensor_id: Stable sensor id, ``"vehicle/sensor"``; part of the noise key.
        sample_index: Index n of the sample in the sensor's schedule, >= 0.
        time_ns: Sample time [ns].
        seed: Root seed for keyed noise; required when
            ``spec.velocity_noise_std_m_per_s > 0``, ignored (and left out of the
            identity) otherwise.
        prepared: ``prepare_scene(scene)`` if already computed; prepared here otherwise.
        backend: Tracing backend (:data:`leviathan.raycast.BACKENDS`); every backend
            gives the same sample, bit for bit.
        device: Device for the backend (``None``: its default).
        surface_kinematics: Committed kinematics of moving surfaces by ``object_id``
            (see "Moving surfaces" in the module docstring); ``None``: every surface
            is static ground.

    Returns:
        A ``kind="dvl"`` :class:`SensorSample` with channels

        * ``velocity_sensor_m_s`` float64 (3,): measured velocity in the sensor
          frame [m/s]; NaN without a lock;
        * ``true_velocity_sensor_m_s`` float64 (3,): noise-free ``v_sensor`` [m/s],
          given with or without a lock (relative to the surfaces hit when a valid
          beam is on a moving surface of known motion);
        * ``beam_range_m`` float64 [beam_count]: slant range of valid beams [m], NaN
          elsewhere;
        * ``beam_valid`` uint8 [beam_count]: 1 for a valid beam;
        * ``beam_instance`` int32 [beam_count]: instance index of each beam's
          nearest hit within ``max_range_m`` (including the sea surface and hits
          nearer than ``min_range_m``), -1 where nothing was hit;
        * ``altitude_m`` float64 (): mean of ``R_k cos a`` over valid beams [m], NaN
          if none;
        * ``lock`` uint8 (): 1 when at least :data:`MIN_BEAMS_FOR_LOCK` beams are valid.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If an identifier is malformed, ``prepared`` belongs to another
            scene, or noise is enabled without a ``seed``.
    """
    ids = _check_sample_inputs(spec, DVLSpec, (sensor_id, sample_index, time_ns), kin=kin)
    std = float(spec.velocity_noise_std_m_per_s)
    check_seed(seed, needed_by="DVL velocity noise (std > 0)" if std > 0.0 else None)
    prepared = _prepared_for(scene, prepared)

    T_body_sensor, R_sensor_body, r_body_sensor, mount_record, spec_record, dirs_sensor = (
        _spec_derived(spec, _spec_constants)
    )
    T_world_sensor = sensor_pose(kin.T_world_body, T_body_sensor)

    # Beams.
    d = T_world_sensor.apply_direction(dirs_sensor)
    o = np.ascontiguousarray(np.broadcast_to(T_world_sensor.translation, d.shape))
    hits = trace_rays(
        prepared,
        o,
        d,
        t_max=float(spec.max_range_m),
        sea_surface_instance=scene.sea_surface_instance,
        backend=backend,
        device=device,
    )
    valid = (
        (hits.instance >= 0)
        & (hits.instance != scene.sea_surface_instance)
        & (hits.t >= spec.min_range_m)
        & (hits.t <= spec.max_range_m)
    )
    beam_range = np.where(valid, hits.t, np.nan)
    valid_count = int(np.count_nonzero(valid))
    lock = valid_count >= MIN_BEAMS_FOR_LOCK

    cos_a = math.cos(math.radians(spec.beam_angle_deg))
    if valid_count:
        total = 0.0
        for range_m in beam_range[valid].tolist():  # beam order, one add at a time
            total += range_m * cos_a
        altitude = total / valid_count
    else:
        altitude = math.nan

    # Bottom-track velocity of the sensor origin, on Python floats in the order of the
    # element-wise numpy and Transform.apply_direction arithmetic (bitwise the same).
    velocity_body = kin.velocity_body_m_s.tolist()
    omega = kin.angular_velocity_body_rad_s.tolist()
    lever = _cross3(omega, r_body_sensor)
    v_origin_body = [v + w for v, w in zip(velocity_body, lever, strict=True)]
    true_velocity = _rotate3(R_sensor_body, v_origin_body)
    relative = (
        relative_track(
            scene, surface_kinematics, T_world_sensor, d, hits, valid, dirs_sensor, true_velocity
        )
        if lock and surface_kinematics
        else None
    )
    if relative is not None:
        true_velocity = relative.pop("solution")

    drawn = lock and std > 0.0
    if not lock:
        velocity = np.full(3, np.nan)
    elif drawn:
        noise = normal(seed, sensor_id, sample_index, DVL_VELOCITY_EFFECT, _AXES).tolist()
        velocity = _float_vector([v + n * std for v, n in zip(true_velocity, noise, strict=True)])
    else:
        velocity = _float_vector(true_velocity)

    channels = MappingProxyType(
        {
            "velocity_sensor_m_s": velocity,
            "true_velocity_sensor_m_s": _float_vector(true_velocity),
            "beam_range_m": beam_range,
            "beam_valid": valid.astype(np.uint8),
            "beam_instance": hits.instance.astype(np.int32),
            "altitude_m": np.array(altitude, dtype=np.float64),
            "lock": np.array(1 if lock else 0, dtype=np.uint8),
        }
    )
    metadata = {
        "model": DVL_MODEL_VERSION,
        "spec": spec_record,
        "T_world_sensor": T_world_sensor.to_dict(),
        "T_body_sensor": mount_record,
        "kinematics": {
            "velocity_body_m_s": velocity_body,
            "angular_velocity_body_rad_s": omega,
        },
        "beam_directions_sensor": dirs_sensor,
        "min_beams_for_lock": MIN_BEAMS_FOR_LOCK,
        "scene_hash": scene.content_hash,
        "sea_surface_instance": scene.sea_surface_instance,
        "noise": [_noise_record(DVL_VELOCITY_EFFECT, drawn=drawn, seed=seed)],
    }
    if scene.vehicle_names:
        metadata["beam_surfaces"] = beam_surfaces(scene, hits.instance)
    if relative is not None:
        metadata["relative_track"] = relative
    return SensorSample(
        kind="dvl",
        **ids,
        channels=channels,
        metadata=metadata,
    )


# --------------------------------------------------------------------------- declarations

_ROS_BEAMS = 4  # marine_acoustic_msgs/Dvl carries exactly four beams
_S_FRD = "sensor FRD (x along the boresight)"


def _ros_check_spec(spec: DVLSpec) -> None:
    if spec.beam_count != _ROS_BEAMS:
        # mcap-ros2-support pads or cuts fixed-size arrays silently: refuse instead.
        raise ValueError(
            f"beam_count: marine_acoustic_msgs/Dvl carries exactly {_ROS_BEAMS} beams, got "
            f"{spec.beam_count}"
        )


def _dvl_message(sample: SensorSample, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """``marine_acoustic_msgs/Dvl`` of one sample: bottom track, in the acoustic frame.

    ``DVL_MODE_BOTTOM``, Janus piston array. ``velocity`` is the measured velocity in
    the acoustic frame, NaN without a lock; ``velocity_covar`` the noise variance on
    the diagonal (0 for a noise-free DVL), all -1 without a lock ("not known", as
    the message asks). ``range`` the beams' slant ranges (NaN for an invalid beam),
    ``range_covar`` 0 (ranges are exact) or -1 for an invalid beam, ``beam_quality``
    1 for a valid beam, 0 otherwise; no beam velocities (``beam_velocities_valid``
    false, NaN, covariance -1); ``sound_speed`` 0 (the DVL model uses none). The
    message has exactly 4 beams, so a DVL with another ``beam_count`` is refused.
    """
    ch = sample.channels
    if ch["beam_range_m"].shape != (_ROS_BEAMS,):
        raise ValueError(
            f"channels['beam_range_m']: expected {_ROS_BEAMS} beams as declared, got shape "
            f"{ch['beam_range_m'].shape}"
        )
    velocity = frd_to_acoustic(ch["velocity_sensor_m_s"]).tolist()
    valid = [bool(v) for v in ch["beam_valid"].tolist()]
    lock = bool(ch["lock"])
    std = float(sample.metadata["spec"]["velocity_noise_std_m_per_s"])
    vx, vy = velocity[0], velocity[1]
    directions = frd_to_acoustic(np.asarray(sample.metadata["beam_directions_sensor"]))
    message = {
        "header": header(sample.time_ns, frame_id),
        "velocity_mode": 1,  # DVL_MODE_BOTTOM
        "dvl_type": 0,  # DVL_TYPE_PISTON: one transducer per Janus beam
        "velocity": vector3(velocity),
        "velocity_covar": diagonal_covariance(std * std) if lock else [-1.0] * 9,
        "altitude": float(ch["altitude_m"]),
        "course_gnd": math.atan2(vy, vx),
        "speed_gnd": math.sqrt(vx * vx + vy * vy),
        "num_good_beams": sum(valid),
        "sound_speed": 0.0,
        "beam_ranges_valid": True,
        "beam_velocities_valid": False,
        "beam_unit_vec": [vector3(d) for d in directions.tolist()],
        "range": ch["beam_range_m"].tolist(),
        "range_covar": [0.0 if v else -1.0 for v in valid],
        "beam_quality": [1.0 if v else 0.0 for v in valid],
        "beam_velocity": [math.nan] * _ROS_BEAMS,
        "beam_velocity_covar": [-1.0] * _ROS_BEAMS,
    }
    return [("", message)]


class DVLSensor:
    """Bottom-track DVL samples: :func:`measure_dvl` on a sample context."""

    kind = "dvl"
    spec_type = DVLSpec
    product_type = SensorSample
    channels = MappingProxyType(
        {
            "velocity_sensor_m_s": channel_doc(
                "m/s", _S_FRD, "xyz", "measured bottom-track velocity of the sensor", "NaN: no lock"
            ),
            "true_velocity_sensor_m_s": channel_doc(
                "m/s", _S_FRD, "xyz", "noise-free velocity of the sensor origin over ground"
            ),
            "beam_range_m": channel_doc(
                "m", "-", "beam", "slant range of each valid beam", "NaN: invalid"
            ),
            "beam_valid": channel_doc("-", "-", "beam", "1 for a valid beam, else 0"),
            "beam_instance": channel_doc(
                "-",
                "-",
                "beam",
                "scene instance index of each beam's nearest hit",
                "-1: nothing hit",
            ),
            "altitude_m": channel_doc(
                "m",
                "-",
                "scalar",
                "mean of R_k cos(beam angle) over valid beams",
                "NaN: no valid beam",
            ),
            "lock": channel_doc("-", "-", "scalar", "1 when enough beams are valid for a lock"),
        }
    )
    ros = RosEncoding(
        frame="acoustic",
        topics=(RosTopic("", "marine_acoustic_msgs/msg/Dvl"),),
        encode=_dvl_message,
        check_spec=_ros_check_spec,
    )
    analytic = AnalyticTier(
        noise_model=DVLNoiseModel,
        start=dvl_recorder,
        plot_units={"velocity_sensor_m_s": ("velocity error [mm/s]", 1e3)},
    )

    def summary(self, spec: DVLSpec) -> str:
        """Beams and range window, in one line."""
        return (
            f"{spec.beam_count} beams at {spec.beam_angle_deg:g}°, "
            f"{spec.min_range_m:g}–{spec.max_range_m:g} m"
        )

    def footprint(self, spec: DVLSpec) -> Footprint:
        """The beams, each from ``min_range_m`` to ``max_range_m`` along its direction."""
        segments = [
            row * r
            for row in dvl_beam_directions(spec)
            for r in (spec.min_range_m, spec.max_range_m)
        ]
        return Footprint(
            legend="green: DVL beams",
            parts=(FootprintPart("dvl-beams", "lines", np.array(segments), "#9dff6a", 0.25),),
        )

    def sample(self, spec: DVLSpec, context: SampleContext) -> SensorSample:
        """One DVL sample of ``spec`` from the committed kinematics of ``context``."""
        return measure_dvl(
            context.scene,
            spec,
            context.kinematics,
            **context.ids(),
            seed=context.root_seed,
            **context.tracing(),
            surface_kinematics=context.surface_kinematics,
        )


register_sensor_kind(DVLSensor())
