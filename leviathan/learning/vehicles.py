"""Batched vehicles for the learning tier: N copies of one vehicle stepped in float32 Warp.

NOT CANONICAL. This module implements the model and the integrator of
:mod:`leviathan.dynamics` (read its docstring for the equations, frames and
integrator) in single precision for ``num_envs`` vehicles at once, with the
state kept on one Warp device. Nothing here is content-hashed; the same device,
Warp build and inputs reproduce a run bit for bit, other hardware does not.

Model (the canonical one, term by term): rigid-body and added mass, the
Coriolis and centripetal terms of both (``C_RB`` in its
linear-velocity-independent form, ``C_A`` for diagonal added mass), linear plus
quadratic damping of the velocity relative to the water, restoring forces from
weight at the CG and buoyancy at the CB, and ``M_A ν̇_c`` for a current that is
constant in NED. Thruster commands are saturated to each thruster's limits and
the actual force follows the exact solution of its first-order response,
evaluated at the RK4 stage times (time constant 0: the force is the command).
One fixed RK4 step per :meth:`BatchedVehicles.step` with the command held, the
quaternion renormalised once per step.

Differences from the canonical tier, all deliberate:

* float32 arithmetic (``wp.float32``) instead of float64;
* the current is one constant NED vector per env (no depth profile);
* the step length is a float [s] (the canonical step takes integer ns);
* commands are not checked for finiteness on the device (that would cost a
  host round trip per step); a non-finite command spoils only its own env.

Randomisation (:class:`Randomization`) is drawn per env at reset from a keyed
integer hash of ``(seed, env index, parameter index)`` (MurmurHash3's 32-bit
finaliser, three rounds) mapped to ``[0, 1)`` with 24 bits, so the draws are
integer arithmetic and identical on every device.

Compile options (of :mod:`leviathan.learning._vehicle_kernels`): ``fuse_fp=False`` keeps the
float32 arithmetic exactly as written (no FMA contraction), so the error
measured against the canonical float64 model is the error of this code and
the randomisation draws round identically on the CPU and CUDA; it costs little
because the step is dominated by memory traffic and ``exp``. ``fast_math=False``
keeps IEEE division, ``sqrt`` and ``exp``. ``enable_backward=False``: nothing
here is differentiated, and it halves the compile time.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import warp as wp

from leviathan._validation import check_count, check_finite, check_interval
from leviathan._warp_output import load_modules_quietly
from leviathan.dynamics import RigidBodyModel
from leviathan.kernels.backend import check_device
from leviathan.kernels.physics import struct_of
from leviathan.learning._device_inputs import device_array
from leviathan.learning._vehicle_kernels import (
    Body,
    DrawRanges,
    Thrusters,
    VehicleArrays,
    reset_kernel,
    step_kernel,
)
from leviathan.specs import VehicleSpec

__all__ = ["BatchedVehicles", "Randomization", "bench_vehicles"]

# --------------------------------------------------------------------------- host


# The learning tier's Warp kernel modules; each is imported by the time an env is built
# (vehicles, tasks and sensing import them), and loaded quietly on its device.
_KERNEL_MODULES = (
    "leviathan.learning._vehicle_kernels",
    "leviathan.learning._task_kernels",
    "leviathan.learning._env_kernels",
)


def _device_state(name: str, doc: str) -> property:
    """A read-only property returning the device array ``self._<name>`` (never rebound)."""

    def getter(self: Any) -> wp.array:
        return getattr(self, "_" + name)

    getter.__name__ = name
    return property(getter, doc=doc)


@dataclass(frozen=True)
class Randomization:
    """Per-env parameter ranges, drawn uniformly at each reset from keyed seeds.

    Each range is ``(low, high)``; equal ends give that value exactly. Never hashed:
    the learning tier has no content identity.

    Attributes:
        mass_scale: Factor on the rigid-body mass and inertia, the added mass, the weight
            and the buoyancy (so the vehicle keeps its trim and only its inertia
            changes), > 0.
        damping_scale: Factor on the linear and quadratic damping, > 0.
        current_speed_m_s: Horizontal current speed [m/s], >= 0, in a uniformly random
            direction in the NED north-east plane, constant over the episode.

    Raises:
        TypeError, ValueError: On a malformed range, naming the field.
    """

    mass_scale: tuple[float, float] = (1.0, 1.0)
    damping_scale: tuple[float, float] = (1.0, 1.0)
    current_speed_m_s: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        set_field(
            self,
            "mass_scale",
            check_interval("Randomization.mass_scale", self.mass_scale, above=0.0),
        )
        set_field(
            self,
            "damping_scale",
            check_interval("Randomization.damping_scale", self.damping_scale, above=0.0),
        )
        set_field(
            self,
            "current_speed_m_s",
            check_interval("Randomization.current_speed_m_s", self.current_speed_m_s, at_least=0.0),
        )


class BatchedVehicles:
    """N copies of one vehicle document, state on the device, float32.

    Every env starts at the NED origin, level, heading north, at rest, with nominal
    parameters (scale 1, no current) until :meth:`reset` draws its pose and parameters.

    Args:
        spec: The vehicle; at least one thruster.
        num_envs: Number of copies N, >= 1.
        device: Warp device, ``"cpu"`` or ``"cuda:i"``.
        randomization: Per-env parameter ranges used by :meth:`reset`; ``None`` keeps
            the nominal vehicle.
        water_density_kg_m3: Water density ρ [kg/m³] for the buoyancy.
        gravity_m_s2: Gravitational acceleration g [m/s²].

    Attributes:
        num_envs: N.
        thruster_count: T.
        device: The Warp device name.
        spec: The vehicle document.
        model: The canonical :class:`~leviathan.dynamics.RigidBodyModel` (float64) the
            float32 parameters are rounded from.
        randomization: The ranges in use.
        thrust_min_n, thrust_max_n: Saturation limits [N], float32 host arrays (T,).

    State and parameters live on :attr:`device` as read-only properties holding Warp
    arrays that the kernels write in place: ``position_ned``, ``attitude_q``,
    ``linear_velocity``, ``angular_velocity``, ``thrust_n``, ``current_ned``,
    ``mass_scale``, ``damping_scale``. Read them (or write into them with
    ``array.assign``); never rebind them.

    Raises:
        TypeError, ValueError: On a bad argument, naming it.
    """

    def __init__(
        self,
        spec: VehicleSpec,
        num_envs: int,
        *,
        device: str = "cpu",
        randomization: Randomization | None = None,
        water_density_kg_m3: float = 1025.0,
        gravity_m_s2: float = 9.81,
    ) -> None:
        if not isinstance(spec, VehicleSpec):
            raise TypeError(f"spec: expected a VehicleSpec, got {type(spec).__name__}")
        num_envs = check_count("num_envs", num_envs, minimum=1)
        if randomization is None:
            randomization = Randomization()
        if not isinstance(randomization, Randomization):
            raise TypeError(
                f"randomization: expected a Randomization or None, got "
                f"{type(randomization).__name__}"
            )
        if not spec.thrusters:
            raise ValueError(
                f"spec: vehicle {spec.name!r} has no thrusters; a batched vehicle needs at "
                "least one to be actuated"
            )
        model = RigidBodyModel.from_spec(
            spec, water_density_kg_m3=water_density_kg_m3, gravity_m_s2=gravity_m_s2
        )
        device = check_device(device)
        # Loaded before the first launch, so that Warp's "Module ... load" lines stay
        # away (leviathan._warp_output; LEVIATHAN_VERBOSE=1 shows them).
        load_modules_quietly(_KERNEL_MODULES, device)

        self.spec = spec
        self.model = model
        self.num_envs = int(num_envs)
        self.thruster_count = model.thruster_count
        self.device = device
        self.randomization = randomization

        n, t = self.num_envs, self.thruster_count
        # The canonical model's public float64 parameters, each rounded once to float32.
        rigid = np.diag(model.M_RB).tolist()
        added = list(model.added_mass_diagonal)
        inv_mass = np.diag(model.M_inv).tolist()
        d_linear = list(model.linear_damping_diagonal)
        d_quadratic = list(model.quadratic_damping_diagonal)
        body = Body()
        body.mass_kg = wp.float32(model.mass_kg)
        body.inertia_kg_m2 = wp.vec3f(*rigid[3:])
        body.added_linear = wp.vec3f(*added[:3])
        body.added_angular = wp.vec3f(*added[3:])
        body.inv_mass_linear = wp.vec3f(*inv_mass[:3])
        body.inv_mass_angular = wp.vec3f(*inv_mass[3:])
        body.damping_linear_v = wp.vec3f(*d_linear[:3])
        body.damping_linear_w = wp.vec3f(*d_linear[3:])
        body.damping_quadratic_v = wp.vec3f(*d_quadratic[:3])
        body.damping_quadratic_w = wp.vec3f(*d_quadratic[3:])
        body.weight_n = wp.float32(model.weight_n)
        body.buoyancy_n = wp.float32(model.buoyancy_n)
        body.cb_m = wp.vec3f(*model.cb_m.tolist())
        self._body = body

        # One row per thruster: direction (3) then moment arm r x d (3), the columns of T.
        columns = np.array(model.thruster_matrix.T, dtype=np.float32).reshape(t, 6)
        limits = np.array(model.thrust_limits_n, dtype=np.float32).reshape(t, 2)
        self.thrust_min_n = limits[:, 0].copy()
        self.thrust_max_n = limits[:, 1].copy()
        self.thrust_min_n.flags.writeable = False
        self.thrust_max_n.flags.writeable = False
        thrusters = Thrusters()
        thrusters.column = wp.array(columns, dtype=wp.spatial_vectorf, device=device)
        thrusters.min_n = wp.array(self.thrust_min_n, dtype=wp.float32, device=device)
        thrusters.max_n = wp.array(self.thrust_max_n, dtype=wp.float32, device=device)
        thrusters.time_constant_s = wp.array(
            np.array(model.time_constants_s, dtype=np.float32), dtype=wp.float32, device=device
        )
        self._thrusters = thrusters

        self._position_ned = wp.zeros(n, dtype=wp.vec3f, device=device)
        level = np.zeros((n, 4), dtype=np.float32)
        level[:, 0] = 1.0
        self._attitude_q = wp.array(level, dtype=wp.vec4f, device=device)
        self._linear_velocity = wp.zeros(n, dtype=wp.vec3f, device=device)
        self._angular_velocity = wp.zeros(n, dtype=wp.vec3f, device=device)
        self._thrust_n = wp.zeros((n, t), dtype=wp.float32, device=device)
        self._current_ned = wp.zeros(n, dtype=wp.vec3f, device=device)
        self._mass_scale = wp.full(n, 1.0, dtype=wp.float32, device=device)
        self._damping_scale = wp.full(n, 1.0, dtype=wp.float32, device=device)

        # Built once: the arrays above are never rebound, so every kernel's view stays valid.
        self._arrays = VehicleArrays()
        for name in VehicleArrays.vars:
            setattr(self._arrays, name, getattr(self, "_" + name))

        # The launch is recorded once: packing its arguments anew would cost more than the
        # kernel itself for small N. Only the commands and dt_s change between steps.
        self._commands_bound = wp.zeros((n, t), dtype=wp.float32, device=device)
        self._dt_bound = 0.01
        self._step_launch = wp.launch(
            step_kernel,
            dim=n,
            inputs=[
                self._commands_bound,
                self._body,
                self._thrusters,
                self._dt_bound,
                self._arrays,
            ],
            device=device,
            record_cmd=True,
        )

    position_ned = _device_state(
        "position_ned",
        "CG positions in world NED [m], (N,) ``vec3f`` (written in place by the kernels).",
    )
    attitude_q = _device_state(
        "attitude_q", "``q_world_body`` as ``(w, x, y, z)``, (N,) ``vec4f``."
    )
    linear_velocity = _device_state(
        "linear_velocity", "``(u, v, w)`` [m/s] relative to the world, in body FRD, (N,) ``vec3f``."
    )
    angular_velocity = _device_state(
        "angular_velocity", "``(p, q, r)`` [rad/s] in body FRD, (N,) ``vec3f``."
    )
    thrust_n = _device_state(
        "thrust_n", "Actual thruster forces [N] after the first-order response, (N, T) float32."
    )
    current_ned = _device_state(
        "current_ned", "Water current in world NED [m/s], (N,) ``vec3f``, constant between resets."
    )
    mass_scale = _device_state("mass_scale", "Drawn mass factor per env, (N,) float32.")
    damping_scale = _device_state("damping_scale", "Drawn damping factor per env, (N,) float32.")

    def __repr__(self) -> str:
        return (
            f"BatchedVehicles({self.spec.name!r}, num_envs={self.num_envs}, device={self.device!r})"
        )

    def step(self, commands_n: wp.array, dt_s: float) -> None:
        """Advance every env one RK4 step with its command held (one kernel launch).

        Args:
            commands_n: Commanded thruster forces [N], (N, T) float32 on
                :attr:`device`; saturated to each thruster's limits inside the kernel.
                A NumPy array is accepted and copied to the device.
            dt_s: Step length [s], finite and > 0.

        Raises:
            TypeError, ValueError: On a wrong type, shape, dtype, device or step length.
        """
        check_finite("dt_s", dt_s, unit="s", above=0.0)
        n, t = self.num_envs, self.thruster_count
        commands = device_array(
            "commands_n",
            commands_n,
            (wp.float32,),
            (n, t),
            self.device,
            f"thruster commands [N] of shape ({n}, {t})",
        )
        if commands is not self._commands_bound:
            self._step_launch.set_param_at_index(0, commands)
            # Holding the array keeps the memory the recorded launch points at alive.
            self._commands_bound = commands
        if float(dt_s) != self._dt_bound:
            self._step_launch.set_param_by_name("dt_s", float(dt_s))
            self._dt_bound = float(dt_s)
        self._step_launch.launch()

    def reset(
        self,
        env_mask: wp.array,
        *,
        position_ned: wp.array,
        yaw_rad: wp.array,
        seeds: wp.array,
    ) -> None:
        """Reset the masked envs: new level pose at rest, parameters re-drawn (one launch).

        Args:
            env_mask: (N,) int32, nonzero = reset that env; the others are untouched.
            position_ned: (N,) ``vec3f`` new CG positions in world NED [m] (read for
                masked envs only).
            yaw_rad: (N,) float32 new headings ψ [rad] (roll and pitch are zero).
            seeds: (N,) uint32 or int32 keys: env i's draws are a pure function of
                ``(seeds[i], i)`` and the ranges of :attr:`randomization`.

        NumPy arrays are accepted and copied to the device.

        Raises:
            TypeError, ValueError: On a wrong type, shape, dtype or device, naming the
                argument; nothing is changed then.
        """
        n, dev = self.num_envs, self.device
        mask = device_array("env_mask", env_mask, (wp.int32,), (n,), dev, f"({n},) int32 flags")
        position = device_array(
            "position_ned", position_ned, (wp.vec3f,), (n,), dev, f"({n},) vec3f positions [m]"
        )
        yaw = device_array("yaw_rad", yaw_rad, (wp.float32,), (n,), dev, f"({n},) float32 [rad]")
        if isinstance(seeds, np.ndarray) and seeds.dtype.kind in "iu":
            seeds = seeds.astype(np.int64).astype(np.uint32)
        keys = device_array(
            "seeds", seeds, (wp.uint32, wp.int32), (n,), dev, f"({n},) uint32 or int32 seeds"
        )
        if keys.dtype == wp.int32:
            keys = keys.view(wp.uint32)
        # Randomization's fields by name; struct_of refuses a field either side lacks.
        ranges = struct_of(
            DrawRanges, **{k: wp.vec2f(*v) for k, v in asdict(self.randomization).items()}
        )
        wp.launch(
            reset_kernel,
            dim=n,
            inputs=[
                mask,
                position,
                yaw,
                keys,
                ranges,
                self._arrays,
            ],
            device=dev,
        )

    def set_current(self, current_ned: wp.array | np.ndarray) -> None:
        """Overwrite every env's water current (e.g. to replay a canonical run).

        Args:
            current_ned: (N,) ``vec3f`` currents in world NED [m/s] (NumPy (N, 3) accepted).
        """
        n = self.num_envs
        current = device_array(
            "current_ned", current_ned, (wp.vec3f,), (n,), self.device, f"({n},) vec3f [m/s]"
        )
        wp.copy(self._current_ned, current)

    def state_numpy(self) -> dict[str, np.ndarray]:
        """Host copies of the state (synchronises with the device).

        Returns:
            ``position`` (N, 3) [m] NED, ``attitude_q`` (N, 4) as ``(w, x, y, z)``,
            ``velocity_body`` (N, 6) ``(u, v, w, p, q, r)`` [m/s, rad/s], ``thrust``
            (N, T) [N]; all float32, owned by the caller (later steps do not change them).
        """
        n = self.num_envs
        return {
            "position": _host_copy(self._position_ned, (n, 3)),
            "attitude_q": _host_copy(self._attitude_q, (n, 4)),
            "velocity_body": np.concatenate(
                [
                    _host_copy(self._linear_velocity, (n, 3)),
                    _host_copy(self._angular_velocity, (n, 3)),
                ],
                axis=1,
            ),
            "thrust": _host_copy(self._thrust_n, (n, self.thruster_count)),
        }

    def parameters_numpy(self) -> dict[str, np.ndarray]:
        """Host copies of the drawn parameters, owned by the caller.

        Returns:
            ``mass_scale`` (N,), ``damping_scale`` (N,), ``current_ned`` (N, 3) [m/s]; float32.
        """
        n = self.num_envs
        return {
            "mass_scale": _host_copy(self._mass_scale, (n,)),
            "damping_scale": _host_copy(self._damping_scale, (n,)),
            "current_ned": _host_copy(self._current_ned, (n, 3)),
        }


def _host_copy(array: wp.array, shape: tuple[int, ...]) -> np.ndarray:
    # On the CPU device wp.array.numpy() is a view of the live memory: copy it, so that a
    # returned state never changes under the caller when the kernels write in place.
    return np.array(array.numpy(), dtype=np.float32, copy=True).reshape(shape)


def bench_vehicles(num_envs: int, steps: int, device: str = "cpu") -> float:
    """Env-steps per second of :meth:`BatchedVehicles.step` (one timed run).

    ``reference_survey_vehicle`` at 10 ms steps with fixed commands of about half
    the thrust range; one warm-up step (kernel load) is not timed; the device is
    synchronised before and after the timed loop. Never asserted anywhere.

    Args:
        num_envs: Number of envs N, >= 1.
        steps: Timed steps, >= 1.
        device: Warp device.

    Returns:
        ``num_envs * steps / elapsed_s``.
    """
    from leviathan.catalogue import get_vehicle

    check_count("steps", steps, minimum=1)
    vehicles = BatchedVehicles(get_vehicle("reference_survey_vehicle"), num_envs, device=device)
    fraction = np.linspace(0.2, 0.6, vehicles.thruster_count, dtype=np.float32)
    per_env = vehicles.thrust_min_n + fraction * (vehicles.thrust_max_n - vehicles.thrust_min_n)
    commands = wp.array(
        np.tile(per_env, (vehicles.num_envs, 1)), dtype=wp.float32, device=vehicles.device
    )
    vehicles.step(commands, 0.01)
    wp.synchronize_device(vehicles.device)
    start = time.perf_counter()
    for _ in range(int(steps)):
        vehicles.step(commands, 0.01)
    wp.synchronize_device(vehicles.device)
    elapsed = time.perf_counter() - start
    return vehicles.num_envs * int(steps) / elapsed
