"""The protocol every controller implements (see :mod:`leviathan.controllers`)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

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
