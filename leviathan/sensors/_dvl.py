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
from typing import Any

import numpy as np

from leviathan._frozen import freeze, frozen_array
from leviathan._validation import check_sample_identifiers, check_seed
from leviathan.frames import sensor_pose
from leviathan.random import normal
from leviathan.raycast import PreparedScene, trace_rays
from leviathan.scene import Scene
from leviathan.sensors._dvl_relative import (
    beam_radial_velocity,
    solve_beam_velocity,
    surface_point_velocity_world,
)
from leviathan.sensors._kinematics import (
    BodyKinematics,
    _cross3,
    _float_vector,
    _rotate3,
    _rotate3_transposed,
)
from leviathan.sensors._protocol import SampleContext, register_sensor_kind
from leviathan.sensors._sample import (
    SensorSample,
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


def _physics_spec(spec: DVLSpec) -> dict[str, Any]:
    """The spec fields that define the output (the mount enters through the pose)."""
    return {
        "beam_count": int(spec.beam_count),
        "beam_angle_deg": float(spec.beam_angle_deg),
        "min_range_m": float(spec.min_range_m),
        "max_range_m": float(spec.max_range_m),
        "velocity_noise_std_m_per_s": float(spec.velocity_noise_std_m_per_s),
    }


def _spec_constants(spec: DVLSpec) -> tuple[Any, ...]:
    """Per-spec constants: ``T_body_sensor``, ``R_sensor_body`` rows, the lever arm [m],
    the frozen beam directions and the frozen mount and spec metadata records."""
    T_body_sensor = spec.mount.transform()
    return (
        T_body_sensor,
        T_body_sensor.inverse().rotation.tolist(),
        T_body_sensor.translation.tolist(),
        frozen_array(dvl_beam_directions(spec)),
        freeze(T_body_sensor.to_dict()),
        freeze(_physics_spec(spec)),
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
    if not isinstance(spec, DVLSpec):
        raise TypeError(f"spec: expected a DVLSpec, got {type(spec).__name__}")
    if not isinstance(kin, BodyKinematics):
        raise TypeError(f"kin: expected a BodyKinematics, got {type(kin).__name__}")
    check_sample_identifiers(sensor_id, sample_index, time_ns)
    std = float(spec.velocity_noise_std_m_per_s)
    check_seed(seed, needed_by="DVL velocity noise (std > 0)" if std > 0.0 else None)
    prepared = _prepared_for(scene, prepared)

    T_body_sensor, R_sensor_body, r_body_sensor, dirs_sensor, mount_record, spec_record = (
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
        _relative_track(
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

    channels = {
        "velocity_sensor_m_s": velocity,
        "true_velocity_sensor_m_s": _float_vector(true_velocity),
        "beam_range_m": beam_range,
        "beam_valid": valid.astype(np.uint8),
        "beam_instance": hits.instance.astype(np.int32),
        "altitude_m": np.array(altitude, dtype=np.float64),
        "lock": np.array(1 if lock else 0, dtype=np.uint8),
    }
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
        metadata["beam_surfaces"] = _beam_surfaces(scene, hits.instance)
    if relative is not None:
        metadata["relative_track"] = relative
    return SensorSample(
        kind="dvl",
        sensor_id=sensor_id,
        sample_index=sample_index,
        time_ns=time_ns,
        channels=channels,
        metadata=metadata,
    )


def _relative_track(
    scene: Scene,
    surface_kinematics: Mapping[str, BodyKinematics],
    T_world_sensor: Any,
    d_world: np.ndarray,
    hits: Any,
    valid: np.ndarray,
    dirs_sensor: np.ndarray,
    v_sensor: list[float],
) -> dict[str, Any] | None:
    """The relative track (module docstring), or None when no valid beam is on a
    moving surface of known motion (the ground-track path is then taken unchanged)."""
    instances = scene.instances
    beam_kin: list[BodyKinematics | None] = []
    for k, ok in zip(hits.instance.tolist(), valid.tolist(), strict=True):
        # A valid beam's instance is a mesh instance (never the sea surface).
        entry = instances[k] if ok else None
        kin = None
        if entry is not None and entry.moving:
            kin = surface_kinematics.get(entry.object_id)
        beam_kin.append(kin)
    if all(kin is None for kin in beam_kin):
        return None
    R_world_sensor = T_world_sensor.rotation.tolist()
    origin = T_world_sensor.translation.tolist()
    ranges = hits.t.tolist()
    directions, radial = [], []
    radial_out: list[float | None] = []
    surface_out: list[list[float] | None] = []
    for k, ok in enumerate(valid.tolist()):
        if not ok:
            radial_out.append(None)
            surface_out.append(None)
            continue
        kin = beam_kin[k]
        if kin is None:
            u_world = [0.0, 0.0, 0.0]
            u_sensor = [0.0, 0.0, 0.0]
        else:
            t = ranges[k]
            point = [o + t * di for o, di in zip(origin, d_world[k].tolist(), strict=True)]
            u_world = surface_point_velocity_world(kin, point)
            u_sensor = _rotate3_transposed(R_world_sensor, u_world)
        direction = dirs_sensor[k].tolist()
        m = beam_radial_velocity(v_sensor, u_sensor, direction)
        directions.append(direction)
        radial.append(m)
        radial_out.append(m)
        surface_out.append(u_world)
    solution = solve_beam_velocity(directions, radial)
    return {
        "solution": [math.nan] * 3 if solution is None else solution,
        "ground_velocity_sensor_m_s": list(v_sensor),
        "beam_radial_velocity_m_s": radial_out,
        "beam_surface_velocity_world_m_s": surface_out,
    }


def _beam_surfaces(scene: Scene, instance: np.ndarray) -> list[dict[str, Any] | None]:
    """What each beam hit (see the module docstring), None where it hit nothing."""
    entries = [*scene.instances, scene.sea_surface]
    surfaces: list[dict[str, Any] | None] = []
    for k in instance.tolist():
        if k < 0:
            surfaces.append(None)
            continue
        entry = entries[k]
        surfaces.append(
            {
                "object_id": entry.object_id,
                "semantic_label": entry.semantic_label,
                "vehicle": getattr(entry, "vehicle", None),
                "moving": bool(entry.moving),
            }
        )
    return surfaces


class DVLSensor:
    """Bottom-track DVL samples: :func:`measure_dvl` on a sample context."""

    kind = "dvl"
    spec_type = DVLSpec
    product_type = SensorSample

    def sample(self, spec: DVLSpec, context: SampleContext) -> SensorSample:
        """One DVL sample of ``spec`` from the committed kinematics of ``context``."""
        return measure_dvl(
            context.scene,
            spec,
            context.kinematics,
            **context.ids(),
            seed=context.root_seed,
            backend=context.backend,
            device=context.device,
            surface_kinematics=context.surface_kinematics,
        )


register_sensor_kind(DVLSensor())
