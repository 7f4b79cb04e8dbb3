"""The device arrays a task's kernels share with the environment, built once per environment.

NOT CANONICAL (see :mod:`leviathan.learning.tasks`, whose tasks launch their kernels on them).
"""

from __future__ import annotations

from typing import Any

import warp as wp

from leviathan.learning._task_kernels import SeabedRay, StepInputs, TaskState


class TaskBuffers:
    """Per-env task state on the device, shared by a task's kernels and the environment.

    Attributes (all (N,) on ``device`` unless stated):
        base_seed: uint32 base seed ``b_i``; episode: uint32 episode counter ``e_i``;
        key: uint32 episode key handed to the vehicles' reset;
        start_position: ``vec3f`` start CG position in NED [m]; start_yaw: float32 [rad];
        target: ``vec4f`` task targets (layout per task); previous: float32 (the previous
        distance of ``waypoint_reach``);
        steps: int32 steps since reset; reward: float32; terminated, truncated: bool;
        done: int32, ``terminated or truncated`` of the last scored step (autoreset mask);
        reset_flags: int32, 1 for the envs reset by the latest reset launch (cleared by
        the environment before a step that scores before it resets);
        observation: (N, feature_count + sensing size) float32.
    """

    def __init__(self, num_envs: int, observation_size: int, device: str) -> None:
        # Every field of TaskState, zeroed: (N,) arrays, and the (N, D) observation rows.
        for name, var in TaskState.vars.items():
            shape = num_envs if var.type.ndim == 1 else (num_envs, observation_size)
            setattr(self, name, wp.zeros(shape, dtype=var.type.dtype, device=device))
        # Built once: the arrays are never rebound, so the kernels' view stays valid.
        self.state = TaskState()
        for name in TaskState.vars:
            setattr(self.state, name, getattr(self, name))


class TaskContext:
    """What a task's kernels read besides its own buffers (built once by the environment).

    Attributes:
        vehicles: The :class:`~leviathan.learning.vehicles.BatchedVehicles`.
        sensing_observation: (N, S) float32 sensing rows, filled before evaluation.
        inv_max_thrust_n: (T,) float32 ``1 / max(|min|, |max|)`` per thruster [1/N].
        episode_steps: Truncation length [steps].
        altitude_column: Column of the DVL altitude in the sensing row.
        terrain: The terrain or ``None``; mesh_id: its mesh's id (0 without one).
        ray_top_m, ray_length_m: Start depth [m] (1 m above the shallowest vertex) and
            length [m] (to 1 m below the deepest) of the tasks' vertical seabed rays;
            seabed_ray: the mesh and both, as the kernels' struct.
        survey_box, start_region: ``((north_low, north_high), (east_low, east_high))``
            [m] of a task that needs them (:class:`AltitudeSurvey`), else ``None``.
    """

    def __init__(
        self,
        *,
        vehicles: Any,
        sensing_observation: wp.array,
        inv_max_thrust_n: wp.array,
        episode_steps: int,
        altitude_column: int,
        terrain: Any = None,
        survey_box: tuple[tuple[float, float], tuple[float, float]] | None = None,
        start_region: tuple[tuple[float, float], tuple[float, float]] | None = None,
    ) -> None:
        self.vehicles = vehicles
        self.sensing_observation = sensing_observation
        self.inv_max_thrust_n = inv_max_thrust_n
        self.episode_steps = int(episode_steps)
        self.altitude_column = int(altitude_column)
        self.terrain = terrain
        self.mesh_id = 0 if terrain is None else int(terrain.mesh.id)
        self.ray_top_m = 0.0
        self.ray_length_m = 0.0
        if terrain is not None:
            depths = terrain.vertices_ned[:, 2]
            self.ray_top_m = float(depths.min()) - 1.0
            self.ray_length_m = float(depths.max() - depths.min()) + 2.0
        self.survey_box = survey_box
        self.start_region = start_region
        self.seabed_ray = SeabedRay()
        self.seabed_ray.mesh = wp.uint64(self.mesh_id)
        self.seabed_ray.top = self.ray_top_m
        self.seabed_ray.length = self.ray_length_m
        # Built once, as TaskBuffers.state: none of these arrays is ever rebound.
        self.inputs = StepInputs()
        self.inputs.episode_steps = self.episode_steps
        self.inputs.position_ned = vehicles.position_ned
        self.inputs.attitude_q = vehicles.attitude_q
        self.inputs.linear_velocity = vehicles.linear_velocity
        self.inputs.thrust_n = vehicles.thrust_n
        self.inputs.inv_max_n = inv_max_thrust_n
        self.inputs.sensing = sensing_observation
