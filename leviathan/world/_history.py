"""What a World has recorded: vehicle tracks, off-tick runs, snapshots and the USD export."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan.identity import content_hash
from leviathan.specs import VehicleSpec
from leviathan.time import Clock
from leviathan.world._environment import Environment
from leviathan.world._records import VehicleTrackRecord, WorldSnapshot
from leviathan.world._sampling import OffTickLog
from leviathan.world._vehicles import LiveVehicle

__all__ = ["WorldHistory"]


class WorldHistory:
    """The record queries of a World (mixed into :class:`~leviathan.world.World`)."""

    # Provided by World.
    clock: Clock
    environment: Environment
    root_seed: int
    tick: int
    time_ns: int
    _vehicles: dict[str, LiveVehicle]
    _off_tick: OffTickLog
    _vehicle: Callable[[str], LiveVehicle]

    def track(self, vehicle: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The recorded track of a vehicle over every committed tick.

        Returns:
            ``(ticks, times_ns, T_world_body)``: int64 [n], int64 [n] and float64
            [n, 4, 4] homogeneous matrices of ``T_world_body``.
        """
        v = self._vehicle(vehicle)
        matrices = [T.matrix for T in v.track.transforms()]
        return (
            v.track.ticks,
            v.track.times_ns,
            np.array(matrices, dtype=np.float64).reshape(-1, 4, 4),
        )

    def track_states(self, vehicle: str, *, from_tick: int = 0) -> VehicleTrackRecord:
        """The committed ground-truth states of a vehicle at every tick from ``from_tick``.

        Cost is O(ticks returned), so a recorder can take each new stretch of the
        track after every ``step`` without copying the whole history again.

        Args:
            vehicle: Vehicle name.
            from_tick: First tick wanted (0 .. :attr:`tick`); ticks before it are left out.

        Returns:
            A :class:`~leviathan.world.VehicleTrackRecord` with ticks, times
            [ns], NED positions [m], attitude quaternions ``q_world_body`` ``(w, x, y,
            z)`` and body velocities ``(u, v, w, p, q, r)`` [m/s, rad/s].
        """
        v = self._vehicle(vehicle)
        if isinstance(from_tick, bool) or not isinstance(from_tick, int):
            raise TypeError(f"from_tick: expected an int tick index, got {from_tick!r}")
        if not 0 <= from_tick <= self.tick:
            raise ValueError(f"from_tick: expected a tick in [0, {self.tick}], got {from_tick}")
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

    def vehicle_spec(self, vehicle: str) -> VehicleSpec:
        """The current document of a vehicle."""
        return self._vehicle(vehicle).spec

    @property
    def off_tick_samples(self) -> tuple[dict, ...]:
        """Scheduled samples refused because they fell between committed ticks.

        Stored compactly as runs, one per sensor, epoch and schedule (and restarted
        after an edit that removed the sensor): each run is a dict with
        ``sensor_id``, ``period_ns``, ``phase_ns``, ``epoch_start_tick``,
        ``epoch_start_time_ns``, ``step_ns``, ``from_tick``, ``through_tick``,
        ``first_sample_index``, ``last_sample_index``, ``first_time_ns``,
        ``last_time_ns`` and ``refused_count``. Every sample ``n`` in ``first_sample_index..
        last_sample_index`` whose time ``phase_ns + n * period_ns`` is not a tick
        time was refused (the others were taken); see :meth:`refused_sample_indices`.
        """
        return self._off_tick.records()  # fresh dicts: changing them cannot reach the World

    @staticmethod
    def refused_sample_indices(run: Mapping[str, Any], *, limit: int = 10_000) -> list[int]:
        """The sample indices of one off-tick run, expanded (at most ``limit`` of them).

        Sample ``n`` of the run was refused exactly when its time ``phase_ns + n *
        period_ns`` is not a tick time of the run's epoch, i.e. when
        ``(t_n - epoch_start_time_ns) % step_ns != 0``.

        Args:
            run: One of :attr:`off_tick_samples`.
            limit: Largest number of indices returned (a run may hold billions).
        """
        period, phase = run["period_ns"], run["phase_ns"]
        origin, step = run["epoch_start_time_ns"], run["step_ns"]
        out: list[int] = []
        n = run["first_sample_index"]
        while n <= run["last_sample_index"] and len(out) < limit:
            if (phase + n * period - origin) % step:
                out.append(n)
            n += 1
        return out

    def snapshot(self) -> WorldSnapshot:
        """Freezes the committed state at the current tick into an immutable, hashed record."""
        vehicles = {}
        for v in self._vehicles.values():
            vehicles[v.name] = {
                "spec": content_hash(v.spec),
                "state": v.state.__content__(),
                "controller": content_hash(v.controller),
                "controller_state": v.controller_state,
            }
        return WorldSnapshot(
            tick=self.tick,
            time_ns=self.time_ns,
            epochs=tuple(self.clock.provenance()["epochs"]),
            root_seed=self.root_seed,
            vehicles=MappingProxyType(vehicles),
            environment_hash=self.environment.content_hash,
            off_tick=self._off_tick.records(),
        )

    def export_usd(self, path: str | Path) -> Path:
        """Writes the World (scene, vehicles with their track over every committed tick,
        sensors, provenance) as an OpenUSD stage (``.usda`` or ``.usdc``)."""
        from leviathan import __version__
        from leviathan.usd import VehicleTrack, export_stage

        tracks = [
            VehicleTrack(
                name=v.name,
                spec=v.spec,
                times_ns=v.track.times_ns.tolist(),
                poses=v.track.transforms(),
            )
            for v in self._vehicles.values()
        ]
        first = next(iter(self._vehicles.values()))
        snap = self.snapshot()
        return export_stage(
            path,
            scene=self.environment.scene_at(self.time_ns),
            vehicles=tracks,
            ticks=first.track.ticks.tolist(),
            epochs=list(self.clock.provenance()["epochs"]),
            provenance={
                "snapshot_hash": snap.content_hash,
                "root_seed": self.root_seed,
                "leviathan_version": __version__,
            },
        )
