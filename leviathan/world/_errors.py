"""World limits and the errors a World raises for them."""

__all__ = [
    "MAX_STEPS_PER_WORLD",
    "ThrusterFaultRefusedError",
    "WorldDivergedError",
    "WorldLimitError",
]

MAX_STEPS_PER_WORLD = 2_000_000
"""Most ticks one World may reach (a registry may lower it)."""


class WorldLimitError(RuntimeError):
    """A World limit (steps, registry capacity) would be exceeded."""


class ThrusterFaultRefusedError(RuntimeError):
    """Thruster faults are refused on a live World."""


class WorldDivergedError(RuntimeError):
    """A vehicle's dynamics left the finite numbers (e.g. from an absurd initial velocity):
    the step is refused and the World stays as it was before it (as after any failure)."""
