"""Bottom track over moving surfaces: per-beam Doppler relative to the surface each beam hit.

A bottom-track DVL measures, per beam ``k``, the Doppler shift of the echo from
the surface patch the beam hit: the radial velocity of the sensor relative to
that patch, along the beam::

    m_k = (v_sensor - u_k) · d_k

with ``v_sensor`` the sensor origin's velocity over ground and ``d_k`` the unit
beam direction (both in the sensor frame) and ``u_k`` the velocity of the hit
point (zero on static ground). For a rigid moving surface with committed
kinematics ``(T_world_body, v_body, ω_body)`` (a vehicle's hull: its CG velocity
and angular velocity; a moving environment object: its translation velocity
with ω = 0) the hit point ``p`` moves at::

    u = R_world_body (v_body + ω_body × R_world_body^T (p - t_world_body))

The DVL then solves the sensor-frame velocity ``x`` from the valid beams by
least squares, ``min Σ_k (d_k · x - m_k)²``: the normal equations
``N x = g`` with ``N = Σ d_k d_k^T`` and ``g = Σ m_k d_k`` summed in beam order,
solved by explicit cofactors (Cramer's rule). With every valid beam on one
rigidly translating surface the solution is ``v_sensor - u`` up to rounding.

All arithmetic is on Python floats in the order written here (canonical: no
reductions whose order numpy chooses).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan.scene import Scene
from leviathan.sensors._kinematics import BodyKinematics, _cross3, _rotate3, _rotate3_transposed

__all__ = [
    "beam_radial_velocity",
    "beam_surfaces",
    "relative_track",
    "solve_beam_velocity",
    "surface_point_velocity_world",
]


def surface_point_velocity_world(kin: BodyKinematics, point_world: list[float]) -> list[float]:
    """Velocity in world NED [m/s] of the point ``point_world`` [m] of a rigid surface.

    Args:
        kin: The surface's committed kinematics (pose, body velocity of its frame
            origin, body angular velocity).
        point_world: The point in world NED [m], three floats.

    Returns:
        ``R (v_body + ω_body × R^T (p - t))`` as three floats, in the module's order.
    """
    rows = kin.T_world_body.rotation.tolist()
    origin = kin.T_world_body.translation.tolist()
    r_world = [p - c for p, c in zip(point_world, origin, strict=True)]
    r_body = _rotate3_transposed(rows, r_world)
    lever = _cross3(kin.angular_velocity_body_rad_s.tolist(), r_body)
    v_body = [v + w for v, w in zip(kin.velocity_body_m_s.tolist(), lever, strict=True)]
    return _rotate3(rows, v_body)


def beam_radial_velocity(
    v_sensor: list[float], u_sensor: list[float], direction: list[float]
) -> float:
    """``(v_sensor - u_sensor) · direction`` [m/s] as ``(a0 d0 + a1 d1) + a2 d2``."""
    a0, a1, a2 = (v - u for v, u in zip(v_sensor, u_sensor, strict=True))
    d0, d1, d2 = direction
    return (a0 * d0 + a1 * d1) + a2 * d2


def solve_beam_velocity(directions: list[list[float]], radial: list[float]) -> list[float] | None:
    """Least-squares 3D velocity from beam radial velocities, by explicit cofactors.

    Args:
        directions: Unit beam directions of the valid beams, each three floats.
        radial: Their radial velocities [m/s], in the same order.

    Returns:
        The velocity ``x`` [m/s] minimising ``Σ (d_k · x - m_k)²``, or None when the
        normal matrix is singular (fewer than three non-coplanar directions; beams
        on one cone around the boresight are never coplanar, so three valid beams
        always suffice).
    """
    n00 = n01 = n02 = n11 = n12 = n22 = 0.0
    g0 = g1 = g2 = 0.0
    for (x, y, z), m in zip(directions, radial, strict=True):  # beam order, one add at a time
        n00 += x * x
        n01 += x * y
        n02 += x * z
        n11 += y * y
        n12 += y * z
        n22 += z * z
        g0 += x * m
        g1 += y * m
        g2 += z * m
    # Cofactors of the symmetric N (its adjugate is symmetric too).
    c00 = n11 * n22 - n12 * n12
    c01 = n02 * n12 - n01 * n22
    c02 = n01 * n12 - n02 * n11
    det = (n00 * c00 + n01 * c01) + n02 * c02
    if det == 0.0 or not math.isfinite(det):
        return None
    c11 = n00 * n22 - n02 * n02
    c12 = n01 * n02 - n00 * n12
    c22 = n00 * n11 - n01 * n01
    return [
        ((c00 * g0 + c01 * g1) + c02 * g2) / det,
        ((c01 * g0 + c11 * g1) + c12 * g2) / det,
        ((c02 * g0 + c12 * g1) + c22 * g2) / det,
    ]


def relative_track(
    scene: Scene,
    surface_kinematics: Mapping[str, BodyKinematics],
    T_world_sensor: Any,
    d_world: np.ndarray,
    hits: Any,
    valid: np.ndarray,
    dirs_sensor: np.ndarray,
    v_sensor: list[float],
) -> dict[str, Any] | None:
    """The relative track (the DVL module docstring), or None when no valid beam is on a
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


def beam_surfaces(scene: Scene, instance: np.ndarray) -> list[dict[str, Any] | None]:
    """What each beam hit (see the DVL module docstring), None where it hit nothing."""
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
