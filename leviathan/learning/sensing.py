"""Batched observations for the learning tier: state, DVL-like altitude and sonar, float32 Warp.

NOT CANONICAL. Every value here is single precision and ray casts use Warp's
float32 mesh BVH (``wp.Mesh`` / ``wp.mesh_query_ray``); the same device, Warp
build and inputs reproduce an observation bit for bit, other hardware does not.
Nothing here is content-hashed.

One :meth:`Sensing.observe` is one kernel launch (one thread per env: state,
attitude, depth and the four DVL beams) plus, with a sonar, one more (one
thread per env and sonar ray). The state is read directly from the
:class:`~leviathan.learning.vehicles.BatchedVehicles` device arrays; there is
no host round trip.

Compile options (``wp.set_module_options`` below): ``fuse_fp=False`` keeps the
float32 arithmetic as written (no FMA contraction), so the CPU and CUDA kernels
round the same expressions the same way and the tests' numpy references can be
compared tightly; ray casting dominates the cost, so the contraction would buy
nothing measurable. ``fast_math=False`` keeps IEEE division and ``sqrt``.
``enable_backward=False``: nothing here is differentiated, and it halves the
compile time.
"""

from __future__ import annotations

import functools
import itertools
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import warp as wp

from leviathan._cores import usable_cores
from leviathan._validation import check_finite, check_integer, check_pair, check_positive
from leviathan._warp_output import load_modules_quietly
from leviathan.kernels.backend import map_joined
from leviathan.learning._device_funcs import rotation_normalised
from leviathan.learning._terrain import Terrain
from leviathan.learning._vehicle_kernels import VehicleArrays
from leviathan.learning.vehicles import BatchedVehicles

wp.set_module_options({"fuse_fp": False, "fast_math": False, "enable_backward": False})

__all__ = [
    "DVL_BEAM_AZIMUTHS_RAD",
    "DVL_BEAM_COUNT",
    "DVL_BEAM_TILT_RAD",
    "DVL_LOCK_BEAMS",
    "OBS_ALTITUDE",
    "OBS_ANGULAR_VELOCITY",
    "OBS_BASE_SIZE",
    "OBS_BOTTOM_VELOCITY",
    "OBS_DEPTH",
    "OBS_DVL_VALID",
    "OBS_LINEAR_VELOCITY",
    "OBS_PITCH_COS",
    "OBS_PITCH_SIN",
    "OBS_QUATERNION",
    "OBS_ROLL_COS",
    "OBS_ROLL_SIN",
    "OBS_SONAR",
    "OBS_YAW_COS",
    "OBS_YAW_SIN",
    "Sensing",
    "Terrain",
]

# --------------------------------------------------------------------------- observation layout
# Column indices of one env's observation row (see Sensing's docstring). Vector entries are the
# index of their first component.
OBS_LINEAR_VELOCITY = 0  # u, v, w [m/s], body FRD, relative to the ground: 0, 1, 2
OBS_ANGULAR_VELOCITY = 3  # p, q, r [rad/s], body FRD: 3, 4, 5
OBS_QUATERNION = 6  # qw, qx, qy, qz of q_world_body as stored: 6, 7, 8, 9
OBS_ROLL_SIN = 10
OBS_ROLL_COS = 11
OBS_PITCH_SIN = 12
OBS_PITCH_COS = 13
OBS_YAW_SIN = 14
OBS_YAW_COS = 15
OBS_DEPTH = 16  # NED z of the vehicle origin [m], positive down
OBS_ALTITUDE = 17  # [m], dvl_range_m when no beam hits
OBS_BOTTOM_VELOCITY = 18  # body FRD [m/s], 0 without bottom lock: 18, 19, 20
OBS_DVL_VALID = 21  # 1.0 with bottom lock, else 0.0
OBS_BASE_SIZE = 22  # columns without the sonar
OBS_SONAR = 22  # first sonar column (only with a sonar)

# --------------------------------------------------------------------------- DVL geometry
DVL_BEAM_COUNT = 4
DVL_BEAM_TILT_RAD = math.radians(30.0)
"""Angle of each DVL beam from the body +z (down) axis."""
DVL_BEAM_AZIMUTHS_RAD = tuple(math.radians(45.0 + 90.0 * k) for k in range(DVL_BEAM_COUNT))
"""Beam azimuths about body +z from body +x (forward): the Janus X of 45, 135, 225, 315 deg."""
DVL_LOCK_BEAMS = 3
"""Beams that must hit the terrain within ``dvl_range_m`` for bottom lock (a 3-beam solution)."""

_MAX_SONAR_RAYS = 65536  # per env; bounds the observation width and the launch size


# --------------------------------------------------------------------------- kernels


@wp.kernel
def _observe_state_kernel(
    vehicles: VehicleArrays,
    mesh: wp.uint64,
    has_terrain: wp.int32,
    beam_body: wp.array(dtype=wp.vec3f),
    dvl_range_m: wp.float32,
    out: wp.array2d(dtype=wp.float32),
):
    env = wp.tid()
    p = vehicles.position_ned[env]
    q = vehicles.attitude_q[env]
    v = vehicles.linear_velocity[env]
    w = vehicles.angular_velocity[env]
    rot = rotation_normalised(q)

    for k in range(3):
        out[env, OBS_LINEAR_VELOCITY + k] = v[k]
        out[env, OBS_ANGULAR_VELOCITY + k] = w[k]
    for k in range(4):
        out[env, OBS_QUATERNION + k] = q[k]

    # ZYX Euler angles as leviathan.frames.euler_from_rotation (away from gimbal lock).
    roll = wp.atan2(rot[2, 1], rot[2, 2])
    pitch = wp.atan2(-rot[2, 0], wp.sqrt(rot[0, 0] * rot[0, 0] + rot[1, 0] * rot[1, 0]))
    yaw = wp.atan2(rot[1, 0], rot[0, 0])
    out[env, OBS_ROLL_SIN] = wp.sin(roll)
    out[env, OBS_ROLL_COS] = wp.cos(roll)
    out[env, OBS_PITCH_SIN] = wp.sin(pitch)
    out[env, OBS_PITCH_COS] = wp.cos(pitch)
    out[env, OBS_YAW_SIN] = wp.sin(yaw)
    out[env, OBS_YAW_COS] = wp.cos(yaw)
    out[env, OBS_DEPTH] = p[2]

    altitude = dvl_range_m
    hits = wp.int32(0)
    if has_terrain != 0:
        for k in range(beam_body.shape[0]):
            d = rot * beam_body[k]
            hit = wp.mesh_query_ray(mesh, p, d, dvl_range_m)
            if hit.result:
                hits += 1
                # Vertical distance to the beam's footprint: right for any attitude.
                altitude = wp.min(altitude, hit.t * d[2])
    out[env, OBS_ALTITUDE] = altitude
    locked = hits >= DVL_LOCK_BEAMS
    for k in range(3):
        if locked:
            out[env, OBS_BOTTOM_VELOCITY + k] = v[k]
        else:
            out[env, OBS_BOTTOM_VELOCITY + k] = 0.0
    if locked:
        out[env, OBS_DVL_VALID] = 1.0
    else:
        out[env, OBS_DVL_VALID] = 0.0


@wp.kernel
def _observe_sonar_kernel(
    vehicles: VehicleArrays,
    mesh: wp.uint64,
    has_terrain: wp.int32,
    ray_body: wp.array(dtype=wp.vec3f),
    range_m: wp.float32,
    env_first: wp.int32,
    out: wp.array2d(dtype=wp.float32),
):
    chunk_env, ray = wp.tid()
    env = env_first + chunk_env
    ray_count = ray_body.shape[0]
    range_column = OBS_SONAR + ray
    intensity_column = OBS_SONAR + ray_count + ray
    out[env, range_column] = 1.0
    out[env, intensity_column] = 0.0
    if has_terrain != 0:
        d = rotation_normalised(vehicles.attitude_q[env]) * ray_body[ray]
        hit = wp.mesh_query_ray(mesh, vehicles.position_ned[env], d, range_m)
        if hit.result:
            out[env, range_column] = hit.t / range_m
            out[env, intensity_column] = wp.abs(wp.dot(hit.normal, d))


# --------------------------------------------------------------------------- host classes


@functools.lru_cache(maxsize=1)
def _sonar_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=usable_cores(), thread_name_prefix="leviathan-sonar")


def _env_chunks(num_envs: int) -> list[tuple[int, int]]:
    """``[first, end)`` env ranges: four per core (for balance), at least 16 envs each."""
    count = max(1, min(4 * usable_cores(), num_envs // 16))
    bounds = [num_envs * k // count for k in range(count + 1)]
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


class Sensing:
    """Batched observations of ``vehicles`` against ``terrain``, float32, on the device.

    Observation row of env ``i`` (``out[i, :]``, float32; indices are the
    module's ``OBS_*`` constants)::

        0  1  2   u v w           body linear velocity, FRD, over ground [m/s]
        3  4  5   p q r           body angular velocity, FRD [rad/s]
        6 .. 9    qw qx qy qz     q_world_body as stored (Hamilton, scalar first)
        10 11     sin, cos roll   ZYX Euler angles of R_world_body, as
        12 13     sin, cos pitch  leviathan.frames.euler_from_rotation
        14 15     sin, cos yaw    (yaw from north towards east)
        16        depth [m]       NED z of the vehicle origin, positive down
        17        altitude [m]    DVL, see below; dvl_range_m when no beam hits
        18 19 20  bottom velocity body FRD [m/s]: u v w with bottom lock, else 0 0 0
        21        dvl_valid       1.0 with bottom lock, else 0.0
        22 ..     sonar           only with ``sonar``, see below

    DVL: four beams from the vehicle origin at ``DVL_BEAM_TILT_RAD`` (30 deg)
    from body +z, azimuths 45, 135, 225 and 315 deg from body +x, each cast up
    to ``dvl_range_m`` along the beam. The altitude is the minimum over the
    beams that hit of the hit's vertical distance ``t * d_world.z`` (``t * cos
    30 deg`` when level; over a flat seabed it is the depth difference at any
    attitude). Bottom lock: at least ``DVL_LOCK_BEAMS`` (3) beams hit. Without
    a terrain no beam hits. Every value is finite (NaN-free); the altitude lies
    in ``[-dvl_range_m, dvl_range_m]`` (negative only for a beam pointing up at
    terrain above the vehicle, e.g. upside down under an overhang).

    Sonar (``sonar=(bearings, elevations)``, ``B`` and ``E``): ``B * E`` rays
    from the vehicle origin with body FRD direction ``(cos el cos az, cos el sin
    az, sin el)``, where ``az_b = fov_h * ((b + 0.5) / B - 0.5)`` (port to
    starboard, ``b = 0 .. B-1``) and ``el_e = tilt + fov_v * ((e + 0.5) / E -
    0.5)`` (positive down, row ``e = 0`` the highest), ``(fov_h, fov_v) =
    sonar_fov_rad``, ``tilt = sonar_tilt_rad``. Two channel images follow,
    each ``E`` rows by ``B`` columns, row-major::

        OBS_SONAR + e * B + b          range of ray (e, b) / sonar_range_m, 1.0 when no hit
        OBS_SONAR + B*E + e * B + b    intensity proxy |cos incidence| = |n . d|, 0.0 when no hit

    so ``out[:, OBS_SONAR:].reshape(N, 2, E, B)`` is the (channel, elevation,
    bearing) image. The intensity proxy is Lambertian without spreading loss
    (the range channel carries distance); it lies in [0, 1].

    Attributes:
        vehicles: The batched vehicles read at each :meth:`observe`.
        terrain: The terrain, or None (no hits: altitude ``dvl_range_m``,
            sonar ranges 1, intensities 0).
        device: Warp device of the vehicles (and the terrain).
        num_envs: Number of envs N.
        observation_size: Columns of one observation row: 22, plus ``2 * B * E``.
        sonar: ``(B, E)`` or None.
        dvl_beam_directions_body: Unit beam directions, body FRD, float32, [4, 3].
        sonar_ray_directions_body: Unit ray directions, body FRD, float32,
            [E, B, 3] (empty [0, 0, 3] without a sonar).
    """

    def __init__(
        self,
        vehicles: BatchedVehicles,
        terrain: Terrain | None,
        *,
        sonar: tuple[int, int] | None = None,
        sonar_fov_rad: tuple[float, float] = (1.57, 0.35),
        sonar_range_m: float = 50.0,
        dvl_range_m: float = 60.0,
        sonar_tilt_rad: float = 0.35,
    ) -> None:
        """Prepares the ray directions; launches nothing.

        Args:
            vehicles: Batched vehicles whose device arrays are read.
            terrain: Seabed on the same device, or None.
            sonar: ``(bearings, elevations)``, each an integer >= 1 with at most
                65536 rays, or None for no sonar columns.
            sonar_fov_rad: Horizontal field of view in (0, 2 pi] and vertical in
                (0, pi] [rad].
            sonar_range_m: Sonar maximum range [m], finite and > 0.
            dvl_range_m: DVL maximum slant range per beam [m], finite and > 0.
            sonar_tilt_rad: Downward tilt of the sonar's centre row from body +x
                [rad], in [-pi/2, pi/2]. The default 0.35 rad (20 deg, a usual
                forward-looking-sonar mounting) lets the +/-10 deg default fan see
                the seabed from 20 to 57 m ahead at 10 m altitude; 0 looks level and
                sees a flat seabed only beyond 57 m (past the 50 m default range).

        Raises:
            TypeError: If an argument has the wrong type.
            ValueError: If a value is out of range or the terrain is on another device.
        """
        if not isinstance(vehicles, BatchedVehicles):
            raise TypeError(f"vehicles: expected a BatchedVehicles, got {type(vehicles).__name__}")
        if terrain is not None and not isinstance(terrain, Terrain):
            raise TypeError(f"terrain: expected a Terrain or None, got {type(terrain).__name__}")
        if terrain is not None and terrain.device != vehicles.device:
            raise ValueError(
                f"terrain.device: {terrain.device!r} differs from vehicles.device "
                f"{vehicles.device!r}; build the terrain with device={vehicles.device!r}"
            )
        if sonar is not None:
            bearings_in, elevations_in = check_pair("sonar", sonar)
            bearings = check_integer(
                "sonar[0] (bearings)", bearings_in, low=1, high=_MAX_SONAR_RAYS
            )
            elevations = check_integer(
                "sonar[1] (elevations)", elevations_in, low=1, high=_MAX_SONAR_RAYS
            )
            if bearings * elevations > _MAX_SONAR_RAYS:
                raise ValueError(
                    f"sonar: {bearings} x {elevations} = {bearings * elevations} rays per env, "
                    f"expected at most {_MAX_SONAR_RAYS}"
                )
            sonar = (bearings, elevations)
        fov_h_in, fov_v_in = check_pair("sonar_fov_rad", sonar_fov_rad)
        fov_h = check_finite("sonar_fov_rad[0]", fov_h_in, above=0.0, at_most=2.0 * math.pi)
        fov_v = check_finite("sonar_fov_rad[1]", fov_v_in, above=0.0, at_most=math.pi)
        self.sonar_range_m = check_positive("sonar_range_m", sonar_range_m)
        self.dvl_range_m = check_positive("dvl_range_m", dvl_range_m)
        tilt = check_finite(
            "sonar_tilt_rad", sonar_tilt_rad, at_least=-0.5 * math.pi, at_most=0.5 * math.pi
        )
        self.vehicles = vehicles
        self.terrain = terrain
        self.device = vehicles.device
        load_modules_quietly((__name__,), self.device)  # Warp's load lines stay away
        self.num_envs = vehicles.num_envs
        self.sonar = sonar
        self.sonar_fov_rad = (fov_h, fov_v)
        self.sonar_tilt_rad = tilt

        s, c = math.sin(DVL_BEAM_TILT_RAD), math.cos(DVL_BEAM_TILT_RAD)
        beams = np.array(
            [[s * math.cos(a), s * math.sin(a), c] for a in DVL_BEAM_AZIMUTHS_RAD], dtype=np.float32
        )
        beams.setflags(write=False)
        self.dvl_beam_directions_body = beams
        if sonar is None:
            rays = np.zeros((0, 0, 3), dtype=np.float32)
        else:
            bearings, elevations = sonar
            rays64 = np.empty((elevations, bearings, 3), dtype=np.float64)
            for e in range(elevations):
                el = tilt + fov_v * ((e + 0.5) / elevations - 0.5)
                for b in range(bearings):
                    az = fov_h * ((b + 0.5) / bearings - 0.5)
                    rays64[e, b] = (
                        math.cos(el) * math.cos(az),
                        math.cos(el) * math.sin(az),
                        math.sin(el),
                    )
            rays = rays64.astype(np.float32)
        rays.setflags(write=False)
        self.sonar_ray_directions_body = rays
        self.observation_size = OBS_BASE_SIZE + 2 * rays.shape[0] * rays.shape[1]

        self._beams = wp.array(beams, dtype=wp.vec3f, device=self.device)
        self._rays = wp.array(rays.reshape(-1, 3), dtype=wp.vec3f, device=self.device)
        self._mesh_id = terrain.mesh.id if terrain is not None else wp.uint64(0)
        self._has_terrain = 1 if terrain is not None else 0
        self._scratch: wp.array | None = None

    def __repr__(self) -> str:
        return (
            f"Sensing(num_envs={self.num_envs}, sonar={self.sonar}, "
            f"observation_size={self.observation_size}, device={self.device!r})"
        )

    def observe(self, out: wp.array) -> None:
        """Writes every env's observation row into ``out`` (one or two launches, no sync).

        Args:
            out: float32 Warp array of shape [num_envs, observation_size] on
                :attr:`device`; every column is overwritten.

        Raises:
            TypeError: If ``out`` is not a float32 Warp array.
            ValueError: If its shape or device is wrong.
        """
        self._check_out(out)
        self._launch_state(out)
        if self.sonar is not None:
            self._launch_sonar(out)

    def altitude_numpy(self) -> np.ndarray:
        """DVL altitudes now [m], float32, shape [num_envs] (host copy; the sonar is not cast)."""
        if self._scratch is None:
            self._scratch = wp.zeros(
                (self.num_envs, self.observation_size), dtype=wp.float32, device=self.device
            )
        self._launch_state(self._scratch)
        return self._scratch.numpy()[:, OBS_ALTITUDE].copy()

    def _launch_sonar(self, out: wp.array) -> None:
        """The sonar rays of every env: one launch on CUDA; on the CPU, chunks of envs
        launched from a pool of one thread per allowed core (a Warp CPU launch runs on
        one core; each chunk writes only its envs' rows, so the rows are the same)."""
        rays = self._rays.shape[0]
        chunks = _env_chunks(self.num_envs) if self.device == "cpu" else [(0, self.num_envs)]

        def launch(chunk: tuple[int, int]) -> None:
            first, end = chunk
            wp.launch(
                _observe_sonar_kernel,
                dim=(end - first, rays),
                inputs=[
                    self.vehicles._arrays,
                    self._mesh_id,
                    self._has_terrain,
                    self._rays,
                    self.sonar_range_m,
                    first,
                ],
                outputs=[out],
                device=self.device,
            )

        if len(chunks) == 1:
            launch(chunks[0])
        else:
            # Every chunk is finished before this returns, even on Ctrl-C: the
            # kernels write ``out`` through a raw pointer.
            map_joined(_sonar_pool(), launch, chunks)

    def _launch_state(self, out: wp.array) -> None:
        self._launch(_observe_state_kernel, self.num_envs, self._beams, self.dvl_range_m, out)

    def _launch(
        self, kernel: Any, dim: Any, directions: wp.array, range_m: float, out: wp.array
    ) -> None:
        """Launch an observe kernel: vehicles and terrain, then body directions and range."""
        wp.launch(
            kernel,
            dim=dim,
            inputs=[self.vehicles._arrays, self._mesh_id, self._has_terrain, directions, range_m],
            outputs=[out],
            device=self.device,
        )

    def _check_out(self, out: Any) -> None:
        if not isinstance(out, wp.array):
            raise TypeError(f"out: expected a float32 Warp array, got {type(out).__name__}")
        if out.dtype != wp.float32:
            raise TypeError(f"out: expected dtype float32, got {wp.types.type_repr(out.dtype)}")
        expected = (self.num_envs, self.observation_size)
        if tuple(out.shape) != expected:
            raise ValueError(
                f"out: expected shape {expected} (num_envs, observation_size), got "
                f"{tuple(out.shape)}"
            )
        if str(out.device) != self.device:
            raise ValueError(f"out: on device {str(out.device)!r}, expected {self.device!r}")


def _sensing_layout(sensing: Any) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """Names and bounds of the sensing columns (layout of :class:`Sensing`)."""
    inf = np.inf
    base = (
        ("u_m_s", -inf, inf),
        ("v_m_s", -inf, inf),
        ("w_m_s", -inf, inf),
        ("p_rad_s", -inf, inf),
        ("q_rad_s", -inf, inf),
        ("r_rad_s", -inf, inf),
        # A renormalised float32 quaternion may exceed 1 by an ulp: no bound claimed.
        ("qw", -inf, inf),
        ("qx", -inf, inf),
        ("qy", -inf, inf),
        ("qz", -inf, inf),
        ("sin_roll", -1.0, 1.0),
        ("cos_roll", -1.0, 1.0),
        ("sin_pitch", -1.0, 1.0),
        ("cos_pitch", -1.0, 1.0),
        ("sin_yaw", -1.0, 1.0),
        ("cos_yaw", -1.0, 1.0),
        ("depth_m", -inf, inf),
        ("altitude_m", -inf, inf),
        ("bottom_u_m_s", -inf, inf),
        ("bottom_v_m_s", -inf, inf),
        ("bottom_w_m_s", -inf, inf),
        ("dvl_valid", 0.0, 1.0),
    )
    assert len(base) == OBS_BASE_SIZE, "sensing layout changed: update _sensing_layout"
    names = [b[0] for b in base]
    low = [b[1] for b in base]
    high = [b[2] for b in base]
    if sensing.sonar is not None:
        bearings, elevations = sensing.sonar
        for channel in ("sonar_range", "sonar_intensity"):
            names += [f"{channel}[{e},{b}]" for e in range(elevations) for b in range(bearings)]
        low += [0.0] * (2 * bearings * elevations)
        high += [1.0] * (2 * bearings * elevations)
    return tuple(names), np.array(low), np.array(high)
