"""Vehicle controllers with explicit, hashable state.

A controller is an immutable configuration plus an explicit state: a plain
JSON-like dict of floats and ints that the World commits and hashes with the
vehicle state. :meth:`Controller.command` is a pure function of its arguments;
it never mutates the state it is given and returns a new one::

    commands_n, controller_state = controller.command(
        model, vehicle_state, controller_state, time_ns=t, dt_ns=dt
    )

Controllers:

* :class:`DirectThrust` — constant thruster commands.
* :class:`Autopilot` — surge speed (PI), depth (cascaded PID) and heading (PD),
  plus a roll and pitch hold (PD to level), allocated with ``pinv(T)`` (exact
  rational arithmetic rounded once, so no BLAS/LAPACK kernel can change it).
* :class:`WaypointFollower` — line-of-sight guidance feeding the autopilot.

Gains are placed per vehicle from the model's diagonal mass and damping (the
pole-placement rules of Fossen 2011, §12.2): for an axis with inertia ``m``
(rigid body plus added mass) and linear damping ``d``, natural frequency
``ω_n`` and damping ratio ``ζ``: ``K_p = m ω_n²``, ``K_d = max(0, 2 ζ ω_n m − d)``,
``K_i = K_p ω_n / 10``. One set of frequencies therefore suits vehicles of
very different size.

Measured quantities are the true state (no sensor model): surge speed is ``u``,
the velocity over ground along body x (what a bottom-locked DVL measures), not
the speed through water; depth is the NED z of the CG.
"""

from leviathan.controllers._autopilot import Autopilot
from leviathan.controllers._direct_thrust import DirectThrust
from leviathan.controllers._guidance import WaypointFollower, lawnmower
from leviathan.controllers._protocol import Controller

__all__ = [
    "Autopilot",
    "Controller",
    "DirectThrust",
    "WaypointFollower",
    "lawnmower",
]
