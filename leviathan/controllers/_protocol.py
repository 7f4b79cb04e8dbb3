"""The protocol every controller implements, and the base of the built-in ones.

See :mod:`leviathan.controllers`. :class:`_ControllerBase` holds the part of
:meth:`Controller.command` that every built-in controller shares: the check of
the time arguments, then the controller's own law.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from leviathan._validation import tick_seconds
from leviathan.dynamics import RigidBodyModel, VehicleState


@runtime_checkable
class Controller(Protocol):
    """What the World needs from a controller."""

    kind: str

    def initial_state(self) -> dict:
        """Return the controller state at reset: a JSON-like dict of floats and ints."""
        ...

    def command(
        self,
        model: RigidBodyModel,
        state: VehicleState,
        controller_state: dict,
        *,
        time_ns: int,
        dt_ns: int,
    ) -> tuple[np.ndarray, dict]:
        """Return thruster commands [N], shape (n,), and the new controller state."""
        ...

    def __content__(self) -> dict:
        """Return the configuration for content hashing."""
        ...


class _ControllerBase:
    """:meth:`Controller.command` for the built-in controllers.

    A subclass implements :meth:`_command`, its control law over one step of
    ``dt_s`` seconds, and the rest of the :class:`Controller` protocol.
    """

    def command(
        self,
        model: RigidBodyModel,
        state: VehicleState,
        controller_state: dict,
        *,
        time_ns: int,
        dt_ns: int,
    ) -> tuple[np.ndarray, dict]:
        """Return thruster commands [N], shape (n,), and the new controller state.

        Raises:
            TypeError: If ``time_ns`` or ``dt_ns`` is not an int of nanoseconds.
            ValueError: If ``dt_ns`` is not positive, or the controller refuses
                ``controller_state`` or the vehicle (see its ``_command``).
        """
        return self._command(model, state, controller_state, tick_seconds(time_ns, dt_ns))

    def _command(
        self, model: RigidBodyModel, state: VehicleState, controller_state: dict, dt_s: float
    ) -> tuple[np.ndarray, dict]:
        raise NotImplementedError
