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

from leviathan.learning.vehicles import _fmix32, _keyed_uniform

wp.set_module_options({"fuse_fp": False, "fast_math": False, "enable_backward": False})

# Evaluate modes (see tasks.Task.launch_evaluate and leviathan.learning.env for when each runs).
MODE_SCORE = wp.constant(0)
MODE_OBSERVE = wp.constant(1)

# First keyed-draw parameter index of the tasks: the vehicles use 0..3 (never reorder).
_DRAW_BASE = wp.constant(64)
_GOLDEN = wp.constant(wp.uint32(0x9E3779B9))
_PI = wp.constant(wp.float32(math.pi))


# --------------------------------------------------------------------------- device functions


@wp.func
def _episode_key(base: wp.uint32, env: wp.uint32, episode: wp.uint32) -> wp.uint32:
    """The key of env ``env``'s episode ``episode`` under base seed ``base``."""
    return _fmix32(_fmix32(_fmix32(base + _GOLDEN) + env + _GOLDEN) + episode + _GOLDEN)


@wp.func
def _draw(key: wp.uint32, env: wp.uint32, index: int, low: float, high: float) -> float:
    """Uniform in [low, high) from the task's draw ``index`` of this episode."""
    u = _keyed_uniform(key, env, wp.uint32(_DRAW_BASE + index))
    return low + (high - low) * u


@wp.func
def _wrap(angle: float) -> float:
    """``angle`` wrapped to (−π, π]."""
    return wp.atan2(wp.sin(angle), wp.cos(angle))


@wp.func
def _rotation(q: wp.vec4f) -> wp.mat33f:
    """``R_world_body`` of the unit quaternion ``(w, x, y, z)``."""
    qw = q[0]
    qx = q[1]
    qy = q[2]
    qz = q[3]
    one = wp.float32(1.0)
    two = wp.float32(2.0)
    return wp.mat33f(
        one - two * (qy * qy + qz * qz),
        two * (qx * qy - qz * qw),
        two * (qx * qz + qy * qw),
        two * (qx * qy + qz * qw),
        one - two * (qx * qx + qz * qz),
        two * (qy * qz - qx * qw),
        two * (qx * qz - qy * qw),
        two * (qy * qz + qx * qw),
        one - two * (qx * qx + qy * qy),
    )


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


@wp.func
def _effort(thrust_n: wp.array2d(dtype=wp.float32), inv_max_n: wp.array(dtype=float), i: int):
    """Mean over thrusters of ``(f / f_max)²`` for env ``i``, in [0, 1]."""
    total = wp.float32(0.0)
    count = thrust_n.shape[1]
    for j in range(count):
        x = thrust_n[i, j] * inv_max_n[j]
        total += x * x
    return total / wp.float32(count)


@wp.func
def _seabed_depth(mesh: wp.uint64, north: float, east: float, top: float, length: float):
    """Depth [m] of the seabed straight below (north, east); −1 when there is none.

    The ray starts at depth ``top`` (above the shallowest vertex) and runs ``length``
    down: starting close above the terrain keeps the float32 hit distance, and so the
    depth, to a few ulps of the terrain's depth.
    """
    hit = wp.mesh_query_ray(mesh, wp.vec3f(north, east, top), wp.vec3f(0.0, 0.0, 1.0), length)
    depth = wp.float32(-1.0)
    if hit.result:
        depth = top + hit.t
    return depth


@wp.func
def _copy_sensing(
    sensing: wp.array2d(dtype=wp.float32),
    observation: wp.array2d(dtype=wp.float32),
    i: int,
    offset: int,
):
    for j in range(sensing.shape[1]):
        observation[i, offset + j] = sensing[i, j]


@wp.func
def _begin_reset(
    i: int,
    reseed: int,
    new_base: wp.uint32,
    base_seed: wp.array(dtype=wp.uint32),
    episode: wp.array(dtype=wp.uint32),
    key: wp.array(dtype=wp.uint32),
    steps: wp.array(dtype=wp.int32),
    done: wp.array(dtype=wp.int32),
    reset_flags: wp.array(dtype=wp.int32),
) -> wp.uint32:
    """Bookkeeping every task's reset shares; returns the episode key."""
    if reseed != 0:
        base_seed[i] = new_base
        episode[i] = wp.uint32(0)
    k = _episode_key(base_seed[i], wp.uint32(i), episode[i])
    episode[i] = episode[i] + wp.uint32(1)
    key[i] = k
    steps[i] = 0
    done[i] = 0
    reset_flags[i] = 1
    return k


@wp.func
def _score_prologue(
    i: int,
    mode: int,
    fresh: int,
    steps: wp.array(dtype=wp.int32),
) -> int:
    """0: skip this env; 1: write features only; 2: write features and score the step."""
    action = 0
    if mode == MODE_OBSERVE:
        if fresh != 0:
            action = 1
    elif fresh != 0:
        action = 1  # reset in this step (next-step autoreset): its reset observation, reward 0
    else:
        steps[i] = steps[i] + 1
        action = 2
    return action


@wp.func
def _broken(
    i: int,
    p: wp.vec3f,
    q: wp.vec4f,
    steps: wp.array(dtype=wp.int32),
    episode_steps: int,
    reward: wp.array(dtype=wp.float32),
    terminated: wp.array(dtype=wp.bool),
    truncated: wp.array(dtype=wp.bool),
    done: wp.array(dtype=wp.int32),
) -> bool:
    """End a non-finite env (reward 0, terminated); True when it was one."""
    # One sum: NaN and infinity propagate through it, so a single test covers all seven.
    total = ((p[0] + p[1]) + p[2]) + (((q[0] + q[1]) + q[2]) + q[3])
    if wp.isfinite(total):
        return False
    reward[i] = wp.float32(0.0)
    terminated[i] = True
    truncated[i] = steps[i] >= episode_steps
    done[i] = 1
    return True


@wp.func
def _finish_unscored(
    i: int,
    mode: int,
    reward: wp.array(dtype=wp.float32),
    terminated: wp.array(dtype=wp.bool),
    truncated: wp.array(dtype=wp.bool),
):
    # A next-step autoreset: reward 0, neither terminated nor truncated (Gymnasium 1.x).
    if mode == MODE_SCORE:
        reward[i] = wp.float32(0.0)
        terminated[i] = False
        truncated[i] = False


# --------------------------------------------------------------------------- kernels


@wp.kernel
def _reset_depth_heading(
    mask: wp.array(dtype=wp.int32),
    reseed: int,
    new_base: wp.uint32,
    depth_low: float,
    depth_high: float,
    offset_low: float,
    offset_high: float,
    base_seed: wp.array(dtype=wp.uint32),
    episode: wp.array(dtype=wp.uint32),
    key: wp.array(dtype=wp.uint32),
    steps: wp.array(dtype=wp.int32),
    done: wp.array(dtype=wp.int32),
    reset_flags: wp.array(dtype=wp.int32),
    start_position: wp.array(dtype=wp.vec3f),
    start_yaw: wp.array(dtype=wp.float32),
    target: wp.array(dtype=wp.vec4f),
    previous: wp.array(dtype=wp.float32),
):
    i = wp.tid()
    if mask[i] == 0:
        reset_flags[i] = 0
        return
    k = _begin_reset(i, reseed, new_base, base_seed, episode, key, steps, done, reset_flags)
    env = wp.uint32(i)
    depth = _draw(k, env, 0, depth_low, depth_high)
    start_position[i] = wp.vec3f(0.0, 0.0, depth)
    start_yaw[i] = _draw(k, env, 1, -_PI, _PI)
    target_depth = depth + _draw(k, env, 2, offset_low, offset_high)
    target_heading = _draw(k, env, 3, -_PI, _PI)
    target[i] = wp.vec4f(target_depth, target_heading, 0.0, 0.0)
    previous[i] = wp.float32(0.0)


@wp.kernel
def _evaluate_depth_heading(
    mode: int,
    reset_flags: wp.array(dtype=wp.int32),
    episode_steps: int,
    depth_scale_m: float,
    heading_scale_rad: float,
    effort_weight: float,
    max_depth_error_m: float,
    min_depth_m: float,
    min_cos_tilt: float,
    position_ned: wp.array(dtype=wp.vec3f),
    attitude_q: wp.array(dtype=wp.vec4f),
    thrust_n: wp.array2d(dtype=wp.float32),
    inv_max_n: wp.array(dtype=wp.float32),
    sensing: wp.array2d(dtype=wp.float32),
    target: wp.array(dtype=wp.vec4f),
    steps: wp.array(dtype=wp.int32),
    reward: wp.array(dtype=wp.float32),
    terminated: wp.array(dtype=wp.bool),
    truncated: wp.array(dtype=wp.bool),
    done: wp.array(dtype=wp.int32),
    observation: wp.array2d(dtype=wp.float32),
):
    i = wp.tid()
    action = _score_prologue(i, mode, reset_flags[i], steps)
    if action == 0:
        return
    q = attitude_q[i]
    goal = target[i]
    depth_error = position_ned[i][2] - goal[0]
    heading_error = _wrap(_heading(q) - goal[1])
    observation[i, 0] = depth_error
    observation[i, 1] = wp.sin(heading_error)
    observation[i, 2] = wp.cos(heading_error)
    observation[i, 3] = wp.float32(steps[i]) / wp.float32(episode_steps)
    _copy_sensing(sensing, observation, i, 4)
    if action == 1:
        _finish_unscored(i, mode, reward, terminated, truncated)
        return
    if _broken(i, position_ned[i], q, steps, episode_steps, reward, terminated, truncated, done):
        return
    a = depth_error / depth_scale_m
    b = heading_error / heading_scale_rad
    effort = _effort(thrust_n, inv_max_n, i)
    reward[i] = (
        wp.float32(0.5) * wp.exp(-a * a) + wp.float32(0.5) * wp.exp(-b * b) - effort_weight * effort
    )
    ended = (
        wp.abs(depth_error) > max_depth_error_m
        or position_ned[i][2] < min_depth_m
        or _cos_tilt(q) < min_cos_tilt
    )
    out_of_time = steps[i] >= episode_steps
    terminated[i] = ended
    truncated[i] = out_of_time
    done[i] = wp.where(ended or out_of_time, 1, 0)


@wp.kernel
def _reset_waypoint(
    mask: wp.array(dtype=wp.int32),
    reseed: int,
    new_base: wp.uint32,
    depth_low: float,
    depth_high: float,
    distance_low: float,
    distance_high: float,
    depth_offset_low: float,
    depth_offset_high: float,
    min_target_depth_m: float,
    base_seed: wp.array(dtype=wp.uint32),
    episode: wp.array(dtype=wp.uint32),
    key: wp.array(dtype=wp.uint32),
    steps: wp.array(dtype=wp.int32),
    done: wp.array(dtype=wp.int32),
    reset_flags: wp.array(dtype=wp.int32),
    start_position: wp.array(dtype=wp.vec3f),
    start_yaw: wp.array(dtype=wp.float32),
    target: wp.array(dtype=wp.vec4f),
    previous: wp.array(dtype=wp.float32),
):
    i = wp.tid()
    if mask[i] == 0:
        reset_flags[i] = 0
        return
    k = _begin_reset(i, reseed, new_base, base_seed, episode, key, steps, done, reset_flags)
    env = wp.uint32(i)
    depth = _draw(k, env, 0, depth_low, depth_high)
    start = wp.vec3f(0.0, 0.0, depth)
    start_position[i] = start
    start_yaw[i] = _draw(k, env, 1, -_PI, _PI)
    bearing = _draw(k, env, 2, -_PI, _PI)
    distance = _draw(k, env, 3, distance_low, distance_high)
    goal_depth = wp.max(
        depth + _draw(k, env, 4, depth_offset_low, depth_offset_high), min_target_depth_m
    )
    goal = wp.vec3f(distance * wp.cos(bearing), distance * wp.sin(bearing), goal_depth)
    target[i] = wp.vec4f(goal[0], goal[1], goal[2], 0.0)
    previous[i] = wp.length(goal - start)


@wp.kernel
def _evaluate_waypoint(
    mode: int,
    reset_flags: wp.array(dtype=wp.int32),
    episode_steps: int,
    reach_radius_m: float,
    reach_bonus: float,
    time_penalty: float,
    effort_weight: float,
    max_distance_m: float,
    min_depth_m: float,
    min_cos_tilt: float,
    position_ned: wp.array(dtype=wp.vec3f),
    attitude_q: wp.array(dtype=wp.vec4f),
    thrust_n: wp.array2d(dtype=wp.float32),
    inv_max_n: wp.array(dtype=wp.float32),
    sensing: wp.array2d(dtype=wp.float32),
    target: wp.array(dtype=wp.vec4f),
    previous: wp.array(dtype=wp.float32),
    steps: wp.array(dtype=wp.int32),
    reward: wp.array(dtype=wp.float32),
    terminated: wp.array(dtype=wp.bool),
    truncated: wp.array(dtype=wp.bool),
    done: wp.array(dtype=wp.int32),
    observation: wp.array2d(dtype=wp.float32),
):
    i = wp.tid()
    action = _score_prologue(i, mode, reset_flags[i], steps)
    if action == 0:
        return
    q = attitude_q[i]
    p = position_ned[i]
    goal = target[i]
    offset_ned = wp.vec3f(goal[0], goal[1], goal[2]) - p
    offset_body = wp.transpose(_rotation(q)) @ offset_ned
    distance = wp.length(offset_ned)
    observation[i, 0] = offset_body[0]
    observation[i, 1] = offset_body[1]
    observation[i, 2] = offset_body[2]
    observation[i, 3] = distance
    observation[i, 4] = wp.float32(steps[i]) / wp.float32(episode_steps)
    _copy_sensing(sensing, observation, i, 5)
    if action == 1:
        _finish_unscored(i, mode, reward, terminated, truncated)
        return
    if _broken(i, position_ned[i], q, steps, episode_steps, reward, terminated, truncated, done):
        return
    reached = distance < reach_radius_m
    r = (previous[i] - distance) - time_penalty - effort_weight * _effort(thrust_n, inv_max_n, i)
    if reached:
        r += reach_bonus
    reward[i] = r
    previous[i] = distance
    ended = reached or distance > max_distance_m or p[2] < min_depth_m
    ended = ended or _cos_tilt(q) < min_cos_tilt
    out_of_time = steps[i] >= episode_steps
    terminated[i] = ended
    truncated[i] = out_of_time
    done[i] = wp.where(ended or out_of_time, 1, 0)


@wp.kernel
def _reset_altitude_survey(
    mask: wp.array(dtype=wp.int32),
    reseed: int,
    new_base: wp.uint32,
    mesh: wp.uint64,
    ray_top: float,
    ray_length: float,
    north_low: float,
    north_high: float,
    east_low: float,
    east_high: float,
    altitude_low: float,
    altitude_high: float,
    start_altitude_offset_m: float,
    start_yaw_offset_rad: float,
    speed_m_s: float,
    base_seed: wp.array(dtype=wp.uint32),
    episode: wp.array(dtype=wp.uint32),
    key: wp.array(dtype=wp.uint32),
    steps: wp.array(dtype=wp.int32),
    done: wp.array(dtype=wp.int32),
    reset_flags: wp.array(dtype=wp.int32),
    start_position: wp.array(dtype=wp.vec3f),
    start_yaw: wp.array(dtype=wp.float32),
    target: wp.array(dtype=wp.vec4f),
    previous: wp.array(dtype=wp.float32),
):
    i = wp.tid()
    if mask[i] == 0:
        reset_flags[i] = 0
        return
    k = _begin_reset(i, reseed, new_base, base_seed, episode, key, steps, done, reset_flags)
    env = wp.uint32(i)
    north = _draw(k, env, 0, north_low, north_high)
    east = _draw(k, env, 1, east_low, east_high)
    altitude = _draw(k, env, 2, altitude_low, altitude_high)
    heading = _draw(k, env, 3, -_PI, _PI)
    start_altitude = altitude + _draw(k, env, 4, -start_altitude_offset_m, start_altitude_offset_m)
    seabed = _seabed_depth(mesh, north, east, ray_top, ray_length)
    # The start region lies inside the terrain, so the ray hits; the guard keeps a user
    # mesh with holes from starting a vehicle above the surface.
    depth = wp.max(seabed - start_altitude, wp.float32(1.0))
    start_position[i] = wp.vec3f(north, east, depth)
    start_yaw[i] = _wrap(heading + _draw(k, env, 5, -start_yaw_offset_rad, start_yaw_offset_rad))
    target[i] = wp.vec4f(altitude, heading, speed_m_s, 0.0)
    previous[i] = wp.float32(0.0)


@wp.kernel
def _evaluate_altitude_survey(
    mode: int,
    reset_flags: wp.array(dtype=wp.int32),
    episode_steps: int,
    mesh: wp.uint64,
    ray_top: float,
    ray_length: float,
    altitude_column: int,
    north_low: float,
    north_high: float,
    east_low: float,
    east_high: float,
    altitude_scale_m: float,
    heading_scale_rad: float,
    speed_scale_m_s: float,
    effort_weight: float,
    min_clearance_m: float,
    min_depth_m: float,
    min_cos_tilt: float,
    position_ned: wp.array(dtype=wp.vec3f),
    attitude_q: wp.array(dtype=wp.vec4f),
    linear_velocity: wp.array(dtype=wp.vec3f),
    thrust_n: wp.array2d(dtype=wp.float32),
    inv_max_n: wp.array(dtype=wp.float32),
    sensing: wp.array2d(dtype=wp.float32),
    target: wp.array(dtype=wp.vec4f),
    steps: wp.array(dtype=wp.int32),
    reward: wp.array(dtype=wp.float32),
    terminated: wp.array(dtype=wp.bool),
    truncated: wp.array(dtype=wp.bool),
    done: wp.array(dtype=wp.int32),
    observation: wp.array2d(dtype=wp.float32),
):
    i = wp.tid()
    action = _score_prologue(i, mode, reset_flags[i], steps)
    if action == 0:
        return
    q = attitude_q[i]
    p = position_ned[i]
    goal = target[i]
    measured_altitude = sensing[i, altitude_column]
    heading_error = _wrap(_heading(q) - goal[1])
    speed_error = linear_velocity[i][0] - goal[2]
    observation[i, 0] = measured_altitude - goal[0]
    observation[i, 1] = wp.sin(heading_error)
    observation[i, 2] = wp.cos(heading_error)
    observation[i, 3] = speed_error
    observation[i, 4] = wp.float32(steps[i]) / wp.float32(episode_steps)
    _copy_sensing(sensing, observation, i, 5)
    if action == 1:
        _finish_unscored(i, mode, reward, terminated, truncated)
        return
    if _broken(i, position_ned[i], q, steps, episode_steps, reward, terminated, truncated, done):
        return
    # Reward and termination use the true vertical clearance under the CG, not the DVL's
    # beam altitude the policy sees: the score is ground truth, the observation a sensor.
    seabed = _seabed_depth(mesh, p[0], p[1], ray_top, ray_length)
    clearance = seabed - p[2]
    a = (clearance - goal[0]) / altitude_scale_m
    b = heading_error / heading_scale_rad
    c = speed_error / speed_scale_m_s
    reward[i] = (
        wp.float32(0.4) * wp.exp(-a * a)
        + wp.float32(0.3) * wp.exp(-b * b)
        + wp.float32(0.3) * wp.exp(-c * c)
        - effort_weight * _effort(thrust_n, inv_max_n, i)
    )
    outside = p[0] < north_low or p[0] > north_high or p[1] < east_low or p[1] > east_high
    ended = outside or seabed < wp.float32(0.0) or clearance < min_clearance_m
    ended = ended or p[2] < min_depth_m or _cos_tilt(q) < min_cos_tilt
    out_of_time = steps[i] >= episode_steps
    terminated[i] = ended
    truncated[i] = out_of_time
    done[i] = wp.where(ended or out_of_time, 1, 0)
