"""Learning tier: float32 batched vehicles, observations and Gymnasium environments.

Not canonical: single precision, batched on a Warp device, never content-hashed. The same
device, Warp build and seed reproduce a rollout bit for bit; other hardware does not.

Example::

    from leviathan.learning import UnderwaterVectorEnv, baseline_depth_heading_policy

    env = UnderwaterVectorEnv("depth_heading_hold", num_envs=64, device="cpu")
    observations, infos = env.reset(seed=0)
    for _ in range(400):
        actions = baseline_depth_heading_policy(observations)
        observations, rewards, terminations, truncations, infos = env.step(actions)

The names below are imported on first use (PEP 562), so ``import leviathan.learning``
loads neither Warp nor Gymnasium.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "TASKS",
    "BatchedVehicles",
    "Randomization",
    "Sensing",
    "Terrain",
    "UnderwaterEnv",
    "UnderwaterVectorEnv",
    "baseline_depth_heading_policy",
]

# Public name -> the module that defines it (one import path per name).
_SOURCES = {
    "TASKS": "leviathan.learning.env",
    "UnderwaterEnv": "leviathan.learning.env",
    "UnderwaterVectorEnv": "leviathan.learning.env",
    "baseline_depth_heading_policy": "leviathan.learning.env",
    "BatchedVehicles": "leviathan.learning.vehicles",
    "Randomization": "leviathan.learning.vehicles",
    "Sensing": "leviathan.learning.sensing",
    "Terrain": "leviathan.learning.sensing",
}


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'leviathan.learning' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
