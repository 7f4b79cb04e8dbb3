"""Gymnasium environments of the learning tier: many vehicles per Warp launch, float32.

NOT CANONICAL. :class:`UnderwaterVectorEnv` is a Gymnasium 1.x ``VectorEnv`` whose
``num_envs`` vehicles, observations, rewards and resets all live on one Warp device;
:class:`UnderwaterEnv` is its single-env ``gymnasium.Env`` view.

Control step. One :meth:`UnderwaterVectorEnv.step` maps the normalised actions to
thruster commands, holds them for ``dt_s`` while the vehicles take ``substeps`` RK4 steps
of ``dt_s / substeps``, then senses and scores. Action ``a ∈ [-1, 1]`` of thruster ``j``
commands ``min_j + (a + 1) / 2 · (max_j − min_j)`` [N] (so ``a = 0`` is the middle of the
range, not zero thrust when the range is asymmetric); values outside [-1, 1] are clipped.

Observation row: ``[task features, sensing row]`` (see :mod:`leviathan.learning.tasks`
for the features of each task and :class:`leviathan.learning.sensing.Sensing` for the
sensing layout); :attr:`UnderwaterVectorEnv.observation_names` names every column.

Autoreset (``metadata["autoreset_mode"]``, Gymnasium's :class:`~gymnasium.vector.AutoresetMode`):

* ``NEXT_STEP`` (default): the step after an env's episode ended ignores that env's
  action, resets it and returns its first observation with reward 0 and both flags False.
* ``SAME_STEP``: the step that ends an episode resets the env at once and returns the new
  episode's first observation; the ended episode's last observation is in
  ``infos["final_obs"]`` (an (N, D) array: every row is the pre-reset observation, rows
  with ``infos["_final_obs"]`` False equal the returned ones), with ``infos["final_info"]``
  ``{}`` and the same mask in ``infos["_final_info"]``.
* ``DISABLED``: nothing resets by itself; stepping an env whose episode ended before it
  is reset (``reset(options={"reset_mask": mask})``) raises ``RuntimeError``. This check
  reads the done flags on the host, one device synchronisation per step.

Arrays: on ``device="cpu"`` observations, rewards (float32) and flags (bool) are fresh
NumPy arrays; on CUDA they are fresh Warp arrays on the device (exchange them zero-copy with
``wp.to_torch``/``wp.to_jax`` or ``__dlpack__``). Actions may be NumPy (copied to the
device and checked: shape, real dtype, finite), Warp arrays (float32, on the device) or any
DLPack tensor (PyTorch, JAX) on the device; device arrays are not checked for finiteness
(that would cost a host round trip per step), an env whose state becomes non-finite is
terminated with reward 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
import warp as wp
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from leviathan._validation import check_count, check_finite
from leviathan.learning._baseline import BASELINE_GAINS, baseline_depth_heading_policy
from leviathan.learning._device_inputs import base_seed, reset_mask_option, vehicle_spec
from leviathan.learning._env_kernels import commands_from_actions, ended_flags
from leviathan.learning.tasks import (
    MODE_OBSERVE,
    MODE_SCORE,
    AltitudeSurvey,
    DepthHeadingHold,
    Task,
    TaskBuffers,
    TaskContext,
    WaypointReach,
)
from leviathan.learning.vehicles import BatchedVehicles, Randomization
from leviathan.specs import VehicleSpec

__all__ = [
    "BASELINE_GAINS",
    "REPRODUCIBILITY",
    "TASKS",
    "UnderwaterEnv",
    "UnderwaterVectorEnv",
    "baseline_depth_heading_policy",
]

#: The default instance of every task, by name.
TASKS: Mapping[str, Task] = {
    task.name: task for task in (DepthHeadingHold(), WaypointReach(), AltitudeSurvey())
}

REPRODUCIBILITY = (
    "Learning tier, float32, not canonical: the same device, Warp build, arguments and "
    "seed reproduce a rollout bit for bit (tested on Warp's CPU device); other hardware, "
    "drivers or Warp builds do not reproduce it bitwise. Nothing from this tier carries a "
    "content hash."
)


# --------------------------------------------------------------------------- host


def _autoreset_mode(value: Any) -> AutoresetMode:
    if isinstance(value, AutoresetMode):
        return value
    for mode in AutoresetMode:
        if value == mode.value:
            return mode
    names = ", ".join(f"AutoresetMode.{m.name}" for m in AutoresetMode)
    raise ValueError(f"autoreset_mode: expected one of {names}, got {value!r}")


def _task(value: Any) -> Task:
    if isinstance(value, Task):
        return value
    if isinstance(value, str) and value in TASKS:
        return TASKS[value]
    raise ValueError(
        f"task: expected one of {', '.join(map(repr, TASKS))} or a Task instance, got {value!r}"
    )


class UnderwaterVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` underwater vehicles on one Warp device behind Gymnasium's vector API.

    Args:
        task: A name in :data:`TASKS` (``"depth_heading_hold"``, ``"waypoint_reach"``,
            ``"altitude_survey"``) or a :class:`~leviathan.learning.tasks.Task` instance.
        num_envs: Number of envs N, >= 1.
        vehicle: A catalogue vehicle name or a :class:`~leviathan.specs.VehicleSpec`.
        device: Warp device, ``"cpu"`` or ``"cuda:i"``.
        dt_s: Control step [s], finite and > 0.
        substeps: RK4 steps per control step, >= 1.
        episode_steps: Truncation length [control steps], >= 1.
        sonar: ``(bearings, elevations)`` of the sonar observation, or ``None``.
        randomization: Per-env vehicle parameter ranges, re-drawn at every reset.
        terrain: A :class:`~leviathan.learning.sensing.Terrain` for the ray casts; ``None``
            uses the task's own (generated terrain for ``altitude_survey``, open water
            otherwise).
        autoreset_mode: When ended envs reset (module docstring).

    Attributes:
        task, vehicles, sensing, terrain, device, dt_s, substeps, episode_steps.
        observation_names: Name of every observation column.

    Raises:
        TypeError, ValueError: On a bad argument, naming it.
    """

    def __init__(
        self,
        task: str | Task = "depth_heading_hold",
        *,
        num_envs: int = 64,
        vehicle: str | VehicleSpec = "reference_survey_vehicle",
        device: str = "cpu",
        dt_s: float = 0.05,
        substeps: int = 2,
        episode_steps: int = 400,
        sonar: tuple[int, int] | None = None,
        randomization: Randomization | None = None,
        terrain: Any = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    ) -> None:
        from leviathan.learning.sensing import OBS_ALTITUDE, Sensing, Terrain, _sensing_layout

        self.task = _task(task)
        spec = vehicle_spec(vehicle)
        num_envs = check_count("num_envs", num_envs, minimum=1)
        self.dt_s = check_finite("dt_s", dt_s, unit="s", above=0.0)
        self.substeps = check_count("substeps", substeps, minimum=1)
        self.episode_steps = check_count("episode_steps", episode_steps, minimum=1)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        if terrain is not None and not isinstance(terrain, Terrain):
            raise TypeError(f"terrain: expected a Terrain or None, got {type(terrain).__name__}")

        self.vehicles = BatchedVehicles(spec, num_envs, device=device, randomization=randomization)
        self.device = self.vehicles.device
        if terrain is not None and terrain.device != self.device:
            raise ValueError(
                f"terrain: built on {terrain.device!r}, the env runs on {self.device!r}; "
                "build it with device=" + repr(self.device)
            )
        self.terrain = terrain if terrain is not None else self.task.make_terrain(self.device)
        if self.task.needs_terrain and self.terrain is None:
            raise ValueError(f"terrain: task {self.task.name!r} needs a Terrain, got None")
        self.sensing = Sensing(self.vehicles, self.terrain, sonar=sonar)

        self.num_envs = num_envs
        features = self.task.feature_count
        sensing_size = self.sensing.observation_size
        size = features + sensing_size
        sensing_names, sensing_low, sensing_high = _sensing_layout(self.sensing)
        self.observation_names = (*self.task.feature_names, *sensing_names)
        low = np.concatenate([self.task.feature_low, sensing_low]).astype(np.float32)
        high = np.concatenate([self.task.feature_high, sensing_high]).astype(np.float32)
        self.single_observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        t = self.vehicles.thruster_count
        self.single_action_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(t,), dtype=np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = {
            "autoreset_mode": self.autoreset_mode,
            "render_modes": [],
            "reproducibility": REPRODUCIBILITY,
            "precision": "float32",
            "canonical": False,
        }

        dev = self.device
        self._buffers = TaskBuffers(num_envs, size, dev)
        self._sensing_observation = wp.zeros((num_envs, sensing_size), dtype=wp.float32, device=dev)
        self._final_observation = wp.zeros((num_envs, size), dtype=wp.float32, device=dev)
        self._final_mask = wp.zeros(num_envs, dtype=wp.bool, device=dev)
        self._actions = wp.zeros((num_envs, t), dtype=wp.float32, device=dev)
        self._commands = wp.zeros((num_envs, t), dtype=wp.float32, device=dev)
        self._all = wp.full(num_envs, 1, dtype=wp.int32, device=dev)
        low_n = self.vehicles.thrust_min_n
        high_n = self.vehicles.thrust_max_n
        self._low_n = wp.array(low_n, dtype=wp.float32, device=dev)
        self._high_n = wp.array(high_n, dtype=wp.float32, device=dev)
        inv_max = (1.0 / np.maximum(np.abs(low_n), np.abs(high_n))).astype(np.float32)
        survey_box, start_region = (
            self.task.regions(self.terrain) if self.terrain is not None else (None, None)
        )
        self._context = TaskContext(
            vehicles=self.vehicles,
            sensing_observation=self._sensing_observation,
            inv_max_thrust_n=wp.array(inv_max, dtype=wp.float32, device=dev),
            episode_steps=self.episode_steps,
            altitude_column=OBS_ALTITUDE,
            terrain=self.terrain,
            survey_box=survey_box,
            start_region=start_region,
        )
        self._seeded = False
        self._has_reset = False

    def __repr__(self) -> str:
        return (
            f"UnderwaterVectorEnv({self.task.name!r}, num_envs={self.num_envs}, "
            f"device={self.device!r}, autoreset_mode={self.autoreset_mode})"
        )

    # ------------------------------------------------------------------ reset

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset all envs, or those of ``options["reset_mask"]``, and observe.

        Args:
            seed: ``None`` continues each reset env's keyed sequence (its next episode; the
                first unseeded reset draws a base seed from :attr:`np_random`); an int >= 0
                makes every reset env's episode a pure function of ``(seed, env index)``
                and restarts its episode counter.
            options: ``{"reset_mask": mask}`` with ``mask`` a (N,) bool NumPy array (or a
                Warp bool/int32 array on the device) with at least one True: only those
                envs reset; the others keep their state and observation.

        Returns:
            ``(observations, {})``: (N, D) float32, every env's current observation.

        Raises:
            TypeError, ValueError: On a bad seed or option, naming it; nothing is changed.
        """
        base = None if seed is None else base_seed(seed)
        mask = self._reset_mask(options)
        if mask is not self._all and not self._has_reset:
            raise RuntimeError(
                "reset: the first reset must reset every env; call reset() without "
                "options['reset_mask'] first"
            )
        super().reset(seed=seed)
        if base is None and not self._seeded:
            base = int(self.np_random.integers(0, 2**32, dtype=np.uint64))
        self._seeded = True
        self._reset_launch(mask, base)
        self._sense_and_evaluate(MODE_OBSERVE)
        self._has_reset = True
        return self._out(self._buffers.observation), {}

    def _reset_mask(self, options: dict[str, Any] | None) -> wp.array:
        mask = reset_mask_option(options, self.num_envs, self.device)
        return self._all if mask is None else mask

    def _reset_launch(self, mask: wp.array, base: int | None) -> None:
        """Draw the masked envs' episodes and reset their vehicles (two launches)."""
        b = self._buffers
        self.task.launch_reset(b, self._context, mask, base)
        self.vehicles.reset(
            b.reset_flags, position_ned=b.start_position, yaw_rad=b.start_yaw, seeds=b.key
        )

    def _sense_and_evaluate(self, mode: int) -> None:
        """Sense every env, then write the task features and (``MODE_SCORE``) score."""
        self.sensing.observe(self._sensing_observation)
        self.task.launch_evaluate(self._buffers, self._context, mode)

    # ------------------------------------------------------------------ step

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Advance every env one control step (module docstring: autoreset, arrays).

        Args:
            actions: (N, T) normalised thruster commands in [-1, 1].

        Returns:
            ``(observations (N, D) float32, rewards (N,) float32, terminations (N,) bool,
            truncations (N,) bool, infos)``.

        Raises:
            RuntimeError: Before the first :meth:`reset`, or (``DISABLED``) when an env
                whose episode ended has not been reset.
            TypeError, ValueError: On a bad ``actions`` array.
        """
        if not self._has_reset:
            raise RuntimeError("step: call reset() before the first step")
        self._load_actions(actions)
        b = self._buffers
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED:
            ended = np.flatnonzero(b.done.numpy())
            if ended.size:
                raise RuntimeError(
                    f"step: envs {ended.tolist()} ended and autoreset_mode is DISABLED; "
                    "reset them with reset(options={'reset_mask': mask}) first"
                )
        wp.launch(
            commands_from_actions,
            dim=(self.num_envs, self.vehicles.thruster_count),
            inputs=[self._actions, self._low_n, self._high_n],
            outputs=[self._commands],
            device=self.device,
        )
        h = self.dt_s / self.substeps
        for _ in range(self.substeps):
            self.vehicles.step(self._commands, h)

        infos: dict[str, Any] = {}
        if mode == AutoresetMode.NEXT_STEP:
            # Envs that ended last step: their stepped state is overwritten by the reset,
            # which is what "the action is ignored" means here.
            self._reset_launch(b.done, None)
            self._sense_and_evaluate(MODE_SCORE)
        else:
            b.reset_flags.zero_()
            self._sense_and_evaluate(MODE_SCORE)
            if mode == AutoresetMode.SAME_STEP:
                wp.copy(self._final_observation, b.observation)
                wp.launch(
                    ended_flags,
                    dim=self.num_envs,
                    inputs=[b.terminated, b.truncated],
                    outputs=[self._final_mask],
                    device=self.device,
                )
                self._reset_launch(b.done, None)
                self._sense_and_evaluate(MODE_OBSERVE)
                mask = self._out(self._final_mask)
                infos = {
                    "final_obs": self._out(self._final_observation),
                    "_final_obs": mask,
                    "final_info": {},
                    "_final_info": self._out(self._final_mask),
                }
        return (
            self._out(b.observation),
            self._out(b.reward),
            self._out(b.terminated),
            self._out(b.truncated),
            infos,
        )

    def _load_actions(self, actions: Any) -> None:
        n, t = self.num_envs, self.vehicles.thruster_count
        what = f"({n}, {t}) normalised thruster commands in [-1, 1]"
        if isinstance(actions, np.ndarray):
            if actions.shape != (n, t) or actions.dtype.kind not in "iuf":
                raise ValueError(
                    f"actions: expected {what}, got dtype {actions.dtype} shape {actions.shape}"
                )
            if not np.all(np.isfinite(actions)):
                bad = np.argwhere(~np.isfinite(actions))[0].tolist()
                raise ValueError(
                    f"actions: expected finite {what}, got {actions[tuple(bad)]!r} at {bad}"
                )
            self._actions.assign(np.ascontiguousarray(actions, dtype=np.float32))
            return
        if not isinstance(actions, wp.array):
            if not hasattr(actions, "__dlpack__"):
                raise TypeError(
                    f"actions: expected {what} as a NumPy, Warp or DLPack array, got "
                    f"{type(actions).__name__}"
                )
            actions = wp.from_dlpack(actions)
        if actions.dtype != wp.float32 or tuple(actions.shape) != (n, t):
            raise ValueError(
                f"actions: expected {what} (float32), got dtype "
                f"{getattr(actions.dtype, '__name__', actions.dtype)} shape {actions.shape}"
            )
        if str(actions.device) != self.device:
            raise ValueError(
                f"actions: expected an array on {self.device!r}, got one on {str(actions.device)!r}"
            )
        wp.copy(self._actions, actions)

    def _out(self, array: wp.array) -> Any:
        # Fresh arrays every call: a caller may keep them across steps.
        if self.device == "cpu":
            return array.numpy().copy()
        return wp.clone(array)

    def close_extras(self, **kwargs: Any) -> None:
        """After :meth:`close`, :meth:`step` raises until the next :meth:`reset`."""
        self._has_reset = False


class UnderwaterEnv(gymnasium.Env):
    """One underwater vehicle as a ``gymnasium.Env`` (an :class:`UnderwaterVectorEnv` of 1).

    The arguments are those of :class:`UnderwaterVectorEnv` without ``num_envs`` and
    ``autoreset_mode`` (the wrapped env never resets by itself; stepping after the episode
    ended raises ``RuntimeError`` until :meth:`reset`). Observations are NumPy float32 on
    every device.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": [],
        "reproducibility": REPRODUCIBILITY,
    }

    def __init__(self, task: str | Task = "depth_heading_hold", **kwargs: Any) -> None:
        for name in ("num_envs", "autoreset_mode"):
            if name in kwargs:
                raise TypeError(f"UnderwaterEnv: {name} is fixed (1 env, no autoreset)")
        self.vector_env = UnderwaterVectorEnv(
            task, num_envs=1, autoreset_mode=AutoresetMode.DISABLED, **kwargs
        )
        self.observation_space = self.vector_env.single_observation_space
        self.action_space = self.vector_env.single_action_space

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode (``seed`` as :meth:`UnderwaterVectorEnv.reset`; no options)."""
        if options:
            raise ValueError(f"options: UnderwaterEnv takes no options, got {options!r}")
        super().reset(seed=seed)
        observation, _ = self.vector_env.reset(seed=seed)
        return _host(observation)[0], {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Advance one control step with ``action`` (T,) in [-1, 1]."""
        t = self.vector_env.vehicles.thruster_count
        array = np.asarray(action)
        if array.shape != (t,):
            raise ValueError(f"action: expected shape ({t},), got {array.shape}")
        observation, reward, terminated, truncated, _ = self.vector_env.step(array[None, :])
        return (
            _host(observation)[0],
            float(_host(reward)[0]),
            bool(_host(terminated)[0]),
            bool(_host(truncated)[0]),
            {},
        )

    def close(self) -> None:
        """Close the wrapped vector env."""
        self.vector_env.close()


def _host(array: Any) -> np.ndarray:
    return array if isinstance(array, np.ndarray) else array.numpy()
