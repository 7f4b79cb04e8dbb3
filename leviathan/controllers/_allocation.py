"""Thrust allocation: a generalised force to thruster commands within their limits.

The minimum-norm inverse ``pinv(T)`` itself is computed once per vehicle, in exact
rational arithmetic rounded once, by :meth:`leviathan.dynamics.RigidBodyModel.from_spec`
(``model.thrust_allocation``); this module only applies it, in a fixed order.
"""

from __future__ import annotations

from leviathan.dynamics import RigidBodyModel


def _allocate(model: RigidBodyModel, tau: tuple[float, ...]) -> list[float]:
    """Prioritised minimum-norm allocation of ``τ`` [N, N m], shape (6,), to thrusters.

    ``f = pinv(T) τ`` split by axis: the moments (K, M, N) are allocated
    first; then heave (Z), surge (X) and sway (Y) in that order, each scaled
    by the largest factor in [0, 1] that keeps every thruster within its
    limits given what is already allocated. The result is finally clipped, so
    a moment demand beyond the thrusters' authority is saturated. Sums run in
    a fixed order.
    """
    allocation = model.thrust_allocation.tolist()
    limits = model.thrust_limits_n
    forces = []
    for row in allocation:
        force = 0.0
        for axis in (3, 4, 5):
            force += row[axis] * tau[axis]
        forces.append(force)
    for axis in (2, 0, 1):
        demand = tau[axis]
        if demand == 0.0:
            continue
        scale = 1.0
        for row, force, (lo, hi) in zip(allocation, forces, limits, strict=True):
            extra = row[axis] * demand
            if extra > 0.0 and force + extra > hi:
                scale = min(scale, max(0.0, (hi - force) / extra))
            elif extra < 0.0 and force + extra < lo:
                scale = min(scale, max(0.0, (lo - force) / extra))
        forces = [
            force + scale * (row[axis] * demand)
            for row, force in zip(allocation, forces, strict=True)
        ]
    return [min(max(force, lo), hi) for force, (lo, hi) in zip(forces, limits, strict=True)]
