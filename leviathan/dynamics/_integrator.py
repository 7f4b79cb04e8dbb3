"""Fixed-step RK4 integration of the vehicle state (see :mod:`leviathan.dynamics`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from leviathan._validation import is_integer
from leviathan.dynamics._equations import (
    CurrentInput,
    _check_thrust_state,
    _current_source,
    _derivative,
    _saturated_command,
)
from leviathan.dynamics._model import RigidBodyModel
from leviathan.dynamics._state import VehicleState
from leviathan.time import NS_PER_SECOND


def step(
    model: RigidBodyModel,
    state: VehicleState,
    thrust_command_n: Sequence[float] | np.ndarray,
    current_ned_m_per_s: CurrentInput,
    *,
    dt_ns: int,
) -> VehicleState:
    """Advance one fixed RK4 step with the command held constant.

    A pure function: the same inputs give a bit-identical result.

    Args:
        model: The vehicle model.
        state: The state at the start of the step.
        thrust_command_n: Commanded thruster forces [N], shape (n,); saturated.
        current_ned_m_per_s: Water current in world NED [m/s]: a constant (3,)
            or ``current_ned(depth_m) -> (3,)``, evaluated at each stage's depth.
        dt_ns: Step length [ns], a positive int; ``dt = dt_ns / 1e9`` s.

    Returns:
        The state at the end of the step, quaternion renormalised to unit norm.

    Raises:
        TypeError: If ``dt_ns`` is not an int (bool refused).
        ValueError: If ``dt_ns <= 0`` or an array has the wrong shape.
    """
    if not is_integer(dt_ns):
        raise TypeError(
            f"dt_ns must be an int of nanoseconds, got {type(dt_ns).__name__} {dt_ns!r}; "
            "convert seconds with leviathan.time.seconds_to_ns"
        )
    if dt_ns <= 0:
        raise ValueError(f"dt_ns must be a positive number of nanoseconds, got {dt_ns}")
    _check_thrust_state(model, state)
    h = int(dt_ns) / NS_PER_SECOND
    half = 0.5 * h
    command = _saturated_command(model, thrust_command_n)
    current = _current_source(current_ned_m_per_s)

    # Exact first-order response at the stage times 0, h/2, h.
    f_start, f_half, f_end = [], [], []
    for f0, c, tc in zip(state.thrust_n.tolist(), command, model._time_constants, strict=True):
        if tc > 0.0:
            offset = f0 - c
            f_start.append(f0)
            f_half.append(c + offset * math.exp(-half / tc))
            f_end.append(c + offset * math.exp(-h / tc))
        else:
            f_start.append(c)
            f_half.append(c)
            f_end.append(c)

    p0 = state.position_ned_m.tolist()
    q0 = state.attitude_q.tolist()
    v0 = state.velocity_body.tolist()

    def advance(k: tuple[list[float], list[float], list[float]], scale: float) -> tuple:
        kp, kq, kv = k
        return (
            [a + scale * b for a, b in zip(p0, kp, strict=True)],
            [a + scale * b for a, b in zip(q0, kq, strict=True)],
            [a + scale * b for a, b in zip(v0, kv, strict=True)],
        )

    k1 = _derivative(model, p0, q0, v0, f_start, current)
    k2 = _derivative(model, *advance(k1, half), f_half, current)
    k3 = _derivative(model, *advance(k2, half), f_half, current)
    k4 = _derivative(model, *advance(k3, h), f_end, current)

    sixth = h / 6.0
    combined = []
    for y0, a, b, c, d in zip((p0, q0, v0), k1, k2, k3, k4, strict=True):
        combined.append(
            [
                y + sixth * (((ka + 2.0 * kb) + 2.0 * kc) + kd)
                for y, ka, kb, kc, kd in zip(y0, a, b, c, d, strict=True)
            ]
        )
    position, quaternion, velocity = combined
    qw, qx, qy, qz = quaternion
    norm = math.sqrt(((qw * qw + qx * qx) + qy * qy) + qz * qz)
    if not (norm > 0.0 and math.isfinite(norm)):
        # A run-away stage (rates near the float range): no attitude to normalise.
        raise ValueError(f"attitude_q: the integrated quaternion {quaternion!r} has norm {norm!r}")
    quaternion = [qw / norm, qx / norm, qy / norm, qz / norm]
    return VehicleState._trusted(position, quaternion, velocity, f_end)
