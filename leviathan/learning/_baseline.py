"""A hand-written baseline policy for ``depth_heading_hold``: PD control through the allocation.

Host NumPy code, float64 inside, float32 actions out; it reads the observation layout of
:mod:`leviathan.learning.tasks` and :mod:`leviathan.learning.sensing`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from leviathan.catalogue import get_vehicle
from leviathan.dynamics import RigidBodyModel
from leviathan.learning.tasks import DepthHeadingHold

#: Gains of :func:`baseline_depth_heading_policy`: depth [N/m, N s/m], pitch [N m/rad,
#: N m s/rad], heading [N m/rad, N m s/rad]; hand-tuned on ``reference_survey_vehicle``.
BASELINE_GAINS = (30.0, 80.0, 30.0, 15.0, 15.0, 25.0)


@functools.cache
def _allocation(vehicle: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    model = RigidBodyModel.from_spec(get_vehicle(vehicle))
    return (
        np.asarray(model.thrust_allocation),
        np.asarray(model.thrust_min_n),
        np.asarray(model.thrust_max_n),
        float(model.buoyancy_n - model.weight_n),
    )


def baseline_depth_heading_policy(
    observations: Any,
    *,
    vehicle: str = "reference_survey_vehicle",
    gains: Any = BASELINE_GAINS,
) -> np.ndarray:
    """A hand-written PD controller for ``depth_heading_hold`` (the smoke test's baseline).

    The desired body wrench (FRD) is heave ``Z = (B − W) − k_d e_d − k_ḋ w`` (the net
    buoyancy fed forward, so a positively buoyant vehicle is held down), pitch
    ``M = −k_θ θ − k_q q`` (level), yaw ``N = −k_ψ e_ψ − k_r r`` and zero surge, sway and
    roll; it is mapped to thrusts by the vehicle's minimum-norm allocation, saturated, and
    normalised to the env's [-1, 1] actions.

    Args:
        observations: (N, D) observations of ``UnderwaterVectorEnv("depth_heading_hold")``
            (NumPy, or a Warp array, copied to the host).
        vehicle: The env's catalogue vehicle.
        gains: ``(k_d, k_ḋ, k_θ, k_q, k_ψ, k_r)``, shape (6,) or (N, 6) (one row per env,
            e.g. for a policy search).

    Returns:
        (N, T) float32 actions in [-1, 1].
    """
    from leviathan.learning.sensing import OBS_ANGULAR_VELOCITY, OBS_LINEAR_VELOCITY, OBS_PITCH_SIN

    obs = observations if isinstance(observations, np.ndarray) else observations.numpy()
    obs = np.asarray(obs, dtype=np.float64)
    if obs.ndim != 2:
        raise ValueError(f"observations: expected shape (N, D), got {obs.shape}")
    k = np.asarray(gains, dtype=np.float64)
    if k.shape not in ((6,), (obs.shape[0], 6)):
        raise ValueError(f"gains: expected shape (6,) or ({obs.shape[0]}, 6), got {k.shape}")
    k = np.broadcast_to(k, (obs.shape[0], 6))
    allocation, low_n, high_n, net_buoyancy_n = _allocation(vehicle)
    offset = len(DepthHeadingHold.feature_names)
    depth_error = obs[:, 0]
    heading_error = np.arctan2(obs[:, 1], obs[:, 2])
    heave = obs[:, offset + OBS_LINEAR_VELOCITY + 2]
    pitch_rate = obs[:, offset + OBS_ANGULAR_VELOCITY + 1]
    yaw_rate = obs[:, offset + OBS_ANGULAR_VELOCITY + 2]
    pitch = np.arcsin(np.clip(obs[:, offset + OBS_PITCH_SIN], -1.0, 1.0))
    wrench = np.zeros((obs.shape[0], 6))
    wrench[:, 2] = net_buoyancy_n - k[:, 0] * depth_error - k[:, 1] * heave
    wrench[:, 4] = -k[:, 2] * pitch - k[:, 3] * pitch_rate
    wrench[:, 5] = -k[:, 4] * heading_error - k[:, 5] * yaw_rate
    thrust = np.clip(wrench @ allocation.T, low_n, high_n)
    return (2.0 * (thrust - low_n) / (high_n - low_n) - 1.0).astype(np.float32)
