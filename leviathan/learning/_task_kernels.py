"""Device code of the learning-tier tasks: keyed draws, resets and scoring, float32 Warp.

NOT CANONICAL. The definitions (rewards, terminations, truncations, draws) are documented
on the task classes of :mod:`leviathan.learning.tasks`, which launch these kernels; this
module holds only device functions and kernels.

Compile options: ``fuse_fp=False`` keeps the float32 arithmetic as written (no FMA
contraction), so the CPU and CUDA kernels round the same expressions the same way;
``fast_math=False`` keeps IEEE division, ``sqrt``, ``exp`` and the trigonometry;
``enable_backward=False``: nothing here is differentiated.
"""

from __future__ import annotations

import math

import warp as wp

from leviathan.learning._device_funcs import keyed_hash, keyed_uniform, rotation_unit, seabed_depth

wp.set_module_options({"fuse_fp": False, "fast_math": False, "enable_backward": False})

# Evaluate modes (see tasks.Task.launch_evaluate and leviathan.learning.env for when each runs).
MODE_SCORE = wp.constant(0)
MODE_OBSERVE = wp.constant(1)

# First keyed-draw parameter index of the tasks: the vehicles use 0..3 (never reorder).
_DRAW_BASE = wp.constant(64)
_PI = wp.constant(wp.float32(math.pi))


# --------------------------------------------------------------------------- device functions


@wp.func
def _episode_key(base: wp.uint32, env: wp.uint32, episode: wp.uint32) -> wp.uint32:
    """The key of env ``env``'s episode ``episode`` under base seed ``base``."""
    return keyed_hash(base, env, episode)


@wp.func
def _draw(key: wp.uint32, env: int, index: int, low: float, high: float) -> float:
    """Uniform in [low, high) from env ``env``'s task draw ``index`` of this episode."""
    u = keyed_uniform(key, wp.uint32(env), wp.uint32(_DRAW_BASE + index))
    return low + (high - low) * u


@wp.func
def _wrap(angle: float) -> float:
    """``angle`` wrapped to (−π, π]."""
    return wp.atan2(wp.sin(angle), wp.cos(angle))


@wp.func
def _heading(q: wp.vec4f) -> float:
    """Heading ψ [rad] of ``q_world_body``, in (−π, π]."""
    return wp.atan2(
        wp.float32(2.0) * (q[0] * q[3] + q[1] * q[2]),
        wp.float32(1.0) - wp.float32(2.0) * (q[2] * q[2] + q[3] * q[3]),
    )


@wp.func
def _cos_tilt(q: wp.vec4f) -> float:
    """``R[2, 2]``: cosine of the angle between body down and world down."""
    return wp.float32(1.0) - wp.float32(2.0) * (q[1] * q[1] + q[2] * q[2])


@wp.struct
class TaskState:
    """The arrays of one :class:`~leviathan.learning.tasks.TaskBuffers`, as kernels see them."""

    base_seed: wp.array(dtype=wp.uint32)
    episode: wp.array(dtype=wp.uint32)
    key: wp.array(dtype=wp.uint32)
    steps: wp.array(dtype=wp.int32)
    done: wp.array(dtype=wp.int32)
    reset_flags: wp.array(dtype=wp.int32)
    start_position: wp.array(dtype=wp.vec3f)
    start_yaw: wp.array(dtype=wp.float32)
    target: wp.array(dtype=wp.vec4f)
    previous: wp.array(dtype=wp.float32)
    reward: wp.array(dtype=wp.float32)
    terminated: wp.array(dtype=wp.bool)
    truncated: wp.array(dtype=wp.bool)
    observation: wp.array2d(dtype=wp.float32)


@wp.struct
class StepInputs:
    """What every evaluate kernel reads besides the task state (a ``TaskContext``'s arrays)."""

    episode_steps: int
    position_ned: wp.array(dtype=wp.vec3f)
    attitude_q: wp.array(dtype=wp.vec4f)
    linear_velocity: wp.array(dtype=wp.vec3f)
    thrust_n: wp.array2d(dtype=wp.float32)
    inv_max_n: wp.array(dtype=wp.float32)
    sensing: wp.array2d(dtype=wp.float32)


@wp.struct
class ResetInputs:
    """What every reset kernel reads besides the task state: the mask and the reseed."""

    mask: wp.array(dtype=wp.int32)
    reseed: int
    new_base: wp.uint32


@wp.struct
class Limits:
    """The parameters every task's evaluate kernel shares."""

    effort_weight: float
    min_depth_m: float
    min_cos_tilt: float


@wp.struct
class SeabedRay:
    """The terrain mesh and the tasks' vertical seabed ray: start depth and length [m]."""

    mesh: wp.uint64
    top: float
    length: float


@wp.struct
class Box:
    """A north-east rectangle [m]."""

    north_low: float
    north_high: float
    east_low: float
    east_high: float


@wp.func
def _bell(error: float, scale: float) -> float:
    """``exp(−(error / scale)²)``: 1 on target, falling off over ``scale``."""
    a = error / scale
    return wp.exp(-a * a)


@wp.func
def _effort(v: StepInputs, i: int):
    """Mean over thrusters of ``(f / f_max)²`` for env ``i``, in [0, 1]."""
    total = wp.float32(0.0)
    count = v.thrust_n.shape[1]
    for j in range(count):
        x = v.thrust_n[i, j] * v.inv_max_n[j]
        total += x * x
    return total / wp.float32(count)


@wp.func
def _observe_tail(s: TaskState, v: StepInputs, i: int, column: int):
    """Write the elapsed fraction at ``column`` and the sensing row after it."""
    s.observation[i, column] = wp.float32(s.steps[i]) / wp.float32(v.episode_steps)
    for j in range(v.sensing.shape[1]):
        s.observation[i, column + 1 + j] = v.sensing[i, j]


@wp.func
def _begin_reset(i: int, r: ResetInputs, s: TaskState) -> wp.uint32:
    """Bookkeeping every task's reset shares; returns the episode key."""
    if r.reseed != 0:
        s.base_seed[i] = r.new_base
        s.episode[i] = wp.uint32(0)
    k = _episode_key(s.base_seed[i], wp.uint32(i), s.episode[i])
    s.episode[i] = s.episode[i] + wp.uint32(1)
    s.key[i] = k
    s.steps[i] = 0
    s.done[i] = 0
    s.reset_flags[i] = 1
    return k


@wp.func
def _open_water_start(i: int, k: wp.uint32, s: TaskState, depth_low: float, depth_high: float):
    """Start env ``i`` at NED ``(0, 0, d0)``, ``d0`` draw 0, heading draw 1; returns ``d0``."""
    depth = _draw(k, i, 0, depth_low, depth_high)
    s.start_position[i] = wp.vec3f(0.0, 0.0, depth)
    s.start_yaw[i] = _draw(k, i, 1, -_PI, _PI)
    return depth


@wp.func
def _skip_reset(r: ResetInputs, i: int, s: TaskState) -> bool:
    """True (and env ``i``'s reset flag cleared) when the mask leaves env ``i`` alone."""
    if r.mask[i] == 0:
        s.reset_flags[i] = 0
        return True
    return False


@wp.func
def _score_prologue(i: int, mode: int, s: TaskState) -> int:
    """0: skip this env; 1: write features only; 2: write features and score the step."""
    fresh = s.reset_flags[i]
    action = 0
    if mode == MODE_OBSERVE:
        if fresh != 0:
            action = 1
    elif fresh != 0:
        action = 1  # reset in this step (next-step autoreset): its reset observation, reward 0
    else:
        s.steps[i] = s.steps[i] + 1
        action = 2
    return action


@wp.func
def _unscored(i: int, action: int, mode: int, s: TaskState, v: StepInputs) -> bool:
    """Finish an env that is not scored this step; True when it was one.

    Unscored: a fresh reset (``action == 1``: in ``MODE_SCORE`` a next-step autoreset,
    reward 0, neither terminated nor truncated, as Gymnasium 1.x) or a non-finite state
    (reward 0, terminated).
    """
    if action == 1:
        if mode == MODE_SCORE:
            s.reward[i] = wp.float32(0.0)
            s.terminated[i] = False
            s.truncated[i] = False
        return True
    p = v.position_ned[i]
    q = v.attitude_q[i]
    # One sum: NaN and infinity propagate through it, so a single test covers all seven.
    total = ((p[0] + p[1]) + p[2]) + (((q[0] + q[1]) + q[2]) + q[3])
    if wp.isfinite(total):
        return False
    s.reward[i] = wp.float32(0.0)
    s.terminated[i] = True
    s.truncated[i] = s.steps[i] >= v.episode_steps
    s.done[i] = 1
    return True


@wp.func
def _end_step(i: int, task_ended: bool, s: TaskState, v: StepInputs, c: Limits):
    """Write a scored step's terminated, truncated and done flags.

    Terminated: the task's own ``task_ended``, or broached (depth < ``min_depth_m``), or
    tilted past the limit (``cos tilt < min_cos_tilt``), as every task defines it.
    """
    ended = task_ended or v.position_ned[i][2] < c.min_depth_m
    ended = ended or _cos_tilt(v.attitude_q[i]) < c.min_cos_tilt
    out_of_time = s.steps[i] >= v.episode_steps
    s.terminated[i] = ended
    s.truncated[i] = out_of_time
    s.done[i] = wp.where(ended or out_of_time, 1, 0)


# --------------------------------------------------------------------------- kernels


@wp.kernel
def _reset_depth_heading(
    r: ResetInputs,
    s: TaskState,
    depth_low: float,
    depth_high: float,
    offset_low: float,
    offset_high: float,
):
    i = wp.tid()
    if _skip_reset(r, i, s):
        return
    k = _begin_reset(i, r, s)
    depth = _open_water_start(i, k, s, depth_low, depth_high)
    target_depth = depth + _draw(k, i, 2, offset_low, offset_high)
    target_heading = _draw(k, i, 3, -_PI, _PI)
    s.target[i] = wp.vec4f(target_depth, target_heading, 0.0, 0.0)
    s.previous[i] = wp.float32(0.0)


@wp.kernel
def _evaluate_depth_heading(
    mode: int,
    s: TaskState,
    v: StepInputs,
    c: Limits,
    depth_scale_m: float,
    heading_scale_rad: float,
    max_depth_error_m: float,
):
    i = wp.tid()
    action = _score_prologue(i, mode, s)
    if action == 0:
        return
    q = v.attitude_q[i]
    goal = s.target[i]
    depth_error = v.position_ned[i][2] - goal[0]
    heading_error = _wrap(_heading(q) - goal[1])
    s.observation[i, 0] = depth_error
    s.observation[i, 1] = wp.sin(heading_error)
    s.observation[i, 2] = wp.cos(heading_error)
    _observe_tail(s, v, i, 3)
    if _unscored(i, action, mode, s, v):
        return
    s.reward[i] = (
        wp.float32(0.5) * _bell(depth_error, depth_scale_m)
        + wp.float32(0.5) * _bell(heading_error, heading_scale_rad)
        - c.effort_weight * _effort(v, i)
    )
    _end_step(i, wp.abs(depth_error) > max_depth_error_m, s, v, c)


@wp.kernel
def _reset_waypoint(
    r: ResetInputs,
    s: TaskState,
    depth_low: float,
    depth_high: float,
    distance_low: float,
    distance_high: float,
    depth_offset_low: float,
    depth_offset_high: float,
    min_target_depth_m: float,
):
    i = wp.tid()
    if _skip_reset(r, i, s):
        return
    k = _begin_reset(i, r, s)
    depth = _open_water_start(i, k, s, depth_low, depth_high)
    bearing = _draw(k, i, 2, -_PI, _PI)
    distance = _draw(k, i, 3, distance_low, distance_high)
    goal_depth = wp.max(
        depth + _draw(k, i, 4, depth_offset_low, depth_offset_high), min_target_depth_m
    )
    goal = wp.vec3f(distance * wp.cos(bearing), distance * wp.sin(bearing), goal_depth)
    s.target[i] = wp.vec4f(goal[0], goal[1], goal[2], 0.0)
    s.previous[i] = wp.length(goal - s.start_position[i])


@wp.kernel
def _evaluate_waypoint(
    mode: int,
    s: TaskState,
    v: StepInputs,
    c: Limits,
    reach_radius_m: float,
    reach_bonus: float,
    time_penalty: float,
    max_distance_m: float,
):
    i = wp.tid()
    action = _score_prologue(i, mode, s)
    if action == 0:
        return
    goal = s.target[i]
    offset_ned = wp.vec3f(goal[0], goal[1], goal[2]) - v.position_ned[i]
    offset_body = wp.transpose(rotation_unit(v.attitude_q[i])) @ offset_ned
    distance = wp.length(offset_ned)
    s.observation[i, 0] = offset_body[0]
    s.observation[i, 1] = offset_body[1]
    s.observation[i, 2] = offset_body[2]
    s.observation[i, 3] = distance
    _observe_tail(s, v, i, 4)
    if _unscored(i, action, mode, s, v):
        return
    reached = distance < reach_radius_m
    reward = (s.previous[i] - distance) - time_penalty - c.effort_weight * _effort(v, i)
    if reached:
        reward += reach_bonus
    s.reward[i] = reward
    s.previous[i] = distance
    _end_step(i, reached or distance > max_distance_m, s, v, c)


@wp.kernel
def _reset_altitude_survey(
    r: ResetInputs,
    s: TaskState,
    ray: SeabedRay,
    region: Box,
    altitude_low: float,
    altitude_high: float,
    start_altitude_offset_m: float,
    start_yaw_offset_rad: float,
    speed_m_s: float,
):
    i = wp.tid()
    if _skip_reset(r, i, s):
        return
    k = _begin_reset(i, r, s)
    north = _draw(k, i, 0, region.north_low, region.north_high)
    east = _draw(k, i, 1, region.east_low, region.east_high)
    altitude = _draw(k, i, 2, altitude_low, altitude_high)
    heading = _draw(k, i, 3, -_PI, _PI)
    start_altitude = altitude + _draw(k, i, 4, -start_altitude_offset_m, start_altitude_offset_m)
    seabed = seabed_depth(ray.mesh, north, east, ray.top, ray.length, wp.float32(-1.0))
    # The start region lies inside the terrain, so the ray hits; the guard keeps a user
    # mesh with holes from starting a vehicle above the surface.
    depth = wp.max(seabed - start_altitude, wp.float32(1.0))
    s.start_position[i] = wp.vec3f(north, east, depth)
    s.start_yaw[i] = _wrap(heading + _draw(k, i, 5, -start_yaw_offset_rad, start_yaw_offset_rad))
    s.target[i] = wp.vec4f(altitude, heading, speed_m_s, 0.0)
    s.previous[i] = wp.float32(0.0)


@wp.kernel
def _evaluate_altitude_survey(
    mode: int,
    s: TaskState,
    v: StepInputs,
    c: Limits,
    ray: SeabedRay,
    altitude_column: int,
    box: Box,
    altitude_scale_m: float,
    heading_scale_rad: float,
    speed_scale_m_s: float,
    min_clearance_m: float,
):
    i = wp.tid()
    action = _score_prologue(i, mode, s)
    if action == 0:
        return
    q = v.attitude_q[i]
    p = v.position_ned[i]
    goal = s.target[i]
    measured_altitude = v.sensing[i, altitude_column]
    heading_error = _wrap(_heading(q) - goal[1])
    speed_error = v.linear_velocity[i][0] - goal[2]
    s.observation[i, 0] = measured_altitude - goal[0]
    s.observation[i, 1] = wp.sin(heading_error)
    s.observation[i, 2] = wp.cos(heading_error)
    s.observation[i, 3] = speed_error
    _observe_tail(s, v, i, 4)
    if _unscored(i, action, mode, s, v):
        return
    # Reward and termination use the true vertical clearance under the CG, not the DVL's
    # beam altitude the policy sees: the score is ground truth, the observation a sensor.
    seabed = seabed_depth(ray.mesh, p[0], p[1], ray.top, ray.length, wp.float32(-1.0))
    clearance = seabed - p[2]
    s.reward[i] = (
        wp.float32(0.4) * _bell(clearance - goal[0], altitude_scale_m)
        + wp.float32(0.3) * _bell(heading_error, heading_scale_rad)
        + wp.float32(0.3) * _bell(speed_error, speed_scale_m_s)
        - c.effort_weight * _effort(v, i)
    )
    outside = p[0] < box.north_low or p[0] > box.north_high
    outside = outside or p[1] < box.east_low or p[1] > box.east_high
    _end_step(i, outside or seabed < wp.float32(0.0) or clearance < min_clearance_m, s, v, c)
