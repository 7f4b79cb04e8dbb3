"""Constant thruster commands: the controller with no state."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leviathan._validation import float_array
from leviathan.controllers._protocol import _ControllerBase
from leviathan.dynamics import RigidBodyModel, VehicleState


class DirectThrust(_ControllerBase):
    """Constant thruster commands.

    Args:
        commands_n: Commanded force per thruster [N], in the vehicle's thruster
            order. Checked against the thruster count at the first command.
    """

    __content_type__ = "leviathan.controllers.DirectThrust"

    kind = "direct_thrust"

    def __init__(self, commands_n: Sequence[float]) -> None:
        array = float_array("commands_n", commands_n, "a sequence of real numbers [N]")
        if array.ndim != 1:
            raise ValueError(
                f"commands_n must be a flat sequence of finite forces [N], got {commands_n!r}"
            )
        array.flags.writeable = False
        self._commands = array

    @property
    def commands_n(self) -> np.ndarray:
        """Commanded forces [N], read-only float64, shape (n,)."""
        return self._commands

    def initial_state(self) -> dict:
        """Return ``{}``: direct thrust has no state."""
        return {}

    def _command(
        self, model: RigidBodyModel, state: VehicleState, controller_state: dict, dt_s: float
    ) -> tuple[np.ndarray, dict]:
        """The configured commands [N], shape (n,), and ``{}``.

        Raises:
            ValueError: If the number of commands differs from the vehicle's thrusters.
        """
        if self._commands.shape != (model.thruster_count,):
            raise ValueError(
                f"DirectThrust has {self._commands.shape[0]} commands but vehicle "
                f"{model.name!r} has {model.thruster_count} thrusters; give one force [N] "
                "per thruster in the vehicle's thruster order"
            )
        return self._commands.copy(), {}

    def __content__(self) -> dict:
        """Configuration for content hashing."""
        return {"kind": self.kind, "commands_n": self._commands}

    def __repr__(self) -> str:
        return f"DirectThrust(commands_n={self._commands.tolist()!r})"
