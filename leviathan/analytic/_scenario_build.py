"""Building a scenario's canonical parts: environment, vehicles, controllers, the reference World.

Analytic tier (not canonical): the documents are :mod:`leviathan.specs`' one
schema and the objects come from :mod:`leviathan.documents`' one builder, the
same a Python user and the service use, so :func:`canonical_world` is the
canonical World a fault-free run must equal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leviathan._validation import refusals_at
from leviathan.analytic._scenario import ScenarioDocument
from leviathan.documents import build_environment as _build_environment
from leviathan.documents import build_vehicle_setup

__all__ = ["build_environment", "build_vehicle_setups", "canonical_world"]


def build_environment(doc: ScenarioDocument):
    """The :class:`~leviathan.world.Environment` the document's ``environment`` declares
    (named after the scenario unless it names itself)."""
    with refusals_at("environment."):
        return _build_environment(doc.environment, default_name=doc.name)


def build_vehicle_setups(doc: ScenarioDocument) -> list[Any]:
    """The :class:`~leviathan.world.VehicleSetup` of every vehicle, sorted by name.

    Raises:
        ValueError, TypeError: Naming ``vehicles[i].<field>`` for a bad spec or controller.
    """
    base = getattr(doc, "_base_dir", None) or Path.cwd()
    setups = []
    for i, v in enumerate(doc.vehicles):
        with refusals_at(f"vehicles[{i}]: "):
            setups.append(build_vehicle_setup(v, base_dir=base))
    return sorted(setups, key=lambda s: s.name)


def canonical_world(doc: ScenarioDocument):
    """The canonical World with the document's vehicles, controllers and environment.

    No faults and no analytic noise: the reference a fault-free run must equal.
    """
    from leviathan.world import World

    return World.create(
        vehicles=build_vehicle_setups(doc),
        environment=build_environment(doc),
        root_seed=doc.root_seed,
        step_ns=doc.step_ns,
        tracing_backend=doc.tracing_backend,
    )
