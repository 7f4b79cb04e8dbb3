"""What a World has recorded: vehicle tracks, snapshots and the USD export.

Plain functions of the World's :class:`~leviathan.world._state.WorldState`;
:class:`leviathan.world.World` documents each as the method of the same name.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import numpy as np

from leviathan._version import __version__
from leviathan.identity import content_hash
from leviathan.world._records import VehicleTrackRecord, WorldSnapshot
from leviathan.world._state import WorldState, live_vehicle

__all__ = ["export_usd", "snapshot", "track", "track_states"]


def track(state: WorldState, vehicle: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The recorded poses of a vehicle: :meth:`~leviathan.world.World.track`."""
    v = live_vehicle(state, vehicle)
    matrices = [T.matrix for T in v.track.transforms()]
    return (
        v.track.ticks,
        v.track.times_ns,
        np.array(matrices, dtype=np.float64).reshape(-1, 4, 4),
    )


def track_states(state: WorldState, vehicle: str, *, from_tick: int = 0) -> VehicleTrackRecord:
    """A vehicle's committed states from a tick: :meth:`~leviathan.world.World.track_states`."""
    v = live_vehicle(state, vehicle)
    if isinstance(from_tick, bool) or not isinstance(from_tick, int):
        raise TypeError(f"from_tick: expected an int tick index, got {from_tick!r}")
    if not 0 <= from_tick <= state.clock.tick:
        raise ValueError(f"from_tick: expected a tick in [0, {state.clock.tick}], got {from_tick}")
    # Every committed tick from 0 has one row, in order, so the row index is the tick.
    tick_rows, time_rows, states = v.track.rows(from_tick)
    return VehicleTrackRecord(
        name=v.name,
        ticks=tick_rows,
        times_ns=time_rows,
        position_ned_m=states[:, :3],
        attitude_q=states[:, 3:7],
        velocity_body=states[:, 7:],
    )


def snapshot(state: WorldState) -> WorldSnapshot:
    """The committed state as a hashed record: :meth:`~leviathan.world.World.snapshot`."""
    vehicles = {}
    for v in state.vehicles.values():
        vehicles[v.name] = {
            "spec": content_hash(v.spec),
            "state": v.state.__content__(),
            "controller": content_hash(v.controller),
            "controller_state": v.controller_state,
        }
    return WorldSnapshot(
        tick=state.clock.tick,
        time_ns=state.clock.time_ns,
        epochs=tuple(state.clock.provenance()["epochs"]),
        root_seed=state.root_seed,
        vehicles=MappingProxyType(vehicles),
        environment_hash=state.environment.content_hash,
        off_tick=state.off_tick.records(),
    )


def export_usd(state: WorldState, path: str | Path) -> Path:
    """The World as an OpenUSD stage: :meth:`~leviathan.world.World.export_usd`."""
    from leviathan.usd import VehicleTrack, export_stage

    tracks = [
        VehicleTrack(
            name=v.name,
            spec=v.spec,
            times_ns=v.track.times_ns.tolist(),
            poses=v.track.transforms(),
        )
        for v in state.vehicles.values()
    ]
    first = next(iter(state.vehicles.values()))
    snap = snapshot(state)
    return export_stage(
        path,
        scene=state.environment.scene_at(state.clock.time_ns),
        vehicles=tracks,
        ticks=first.track.ticks.tolist(),
        epochs=list(state.clock.provenance()["epochs"]),
        provenance={
            "snapshot_hash": snap.content_hash,
            "root_seed": state.root_seed,
            "leviathan_version": __version__,
        },
    )
