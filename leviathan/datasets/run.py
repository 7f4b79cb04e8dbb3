"""Recording a World into dataset files, and exporting a recorded run again.

Two writers share one interface (:class:`~leviathan.datasets.mcap.McapWriter`,
:class:`~leviathan.datasets.hdf5.Hdf5Writer`): they stream capture groups and
the vehicles' ground-truth tracks to a temporary sibling file and rename it into
place when closed. This module feeds them:

* :class:`DatasetRecorder` follows a live World: after each ``step`` it hands the
  new capture groups and the track rows since the last call to every writer, so
  nothing accumulates in memory (the survey demo records 20 s this way);
* :func:`export_world` writes a World's whole history at once, from the capture
  groups its ``step`` calls returned;
* :func:`export_dataset` reads a run's lossless HDF5 store (``dataset.h5`` in a
  demo output folder, or any file :func:`~leviathan.datasets.hdf5.read_hdf5`
  accepts) and writes MCAP and/or HDF5 from it, one capture group at a time; or
  an analytic scenario run's folder (its vehicles and tracks).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from leviathan._interrupt import checkpoint
from leviathan.datasets._writer import _ClosesOnExit
from leviathan.identity import content_hash
from leviathan.world import CaptureGroup, VehicleTrackRecord, World

__all__ = ["RUN_DATASET_NAME", "DatasetRecorder", "RecordBatch", "export_dataset", "export_world"]

RUN_DATASET_NAME = "dataset.h5"
"""File name of the lossless record store in a run folder (the survey demo writes it)."""

# Capture groups handed to the writers per call when exporting from a file.
_BATCH = 16


class _Outputs:
    """The requested writers, each writing into one :class:`~leviathan._files.AtomicFileSet`.

    All paths are checked before the first writer opens; the files appear together
    at :meth:`close` (an MCAP without its HDF5 twin, or the reverse, never does),
    and :meth:`abort` leaves every target as it was.
    """

    def __init__(
        self,
        *,
        mcap: str | os.PathLike[str] | None,
        hdf5: str | os.PathLike[str] | None,
        vehicles: Mapping[str, Any],
        manifest: Mapping[str, Any],
    ) -> None:
        from leviathan._files import AtomicFileSet

        if mcap is None and hdf5 is None:
            raise ValueError("mcap/hdf5: give at least one output file (e.g. mcap='run.mcap')")
        paths = [Path(p) for p in (mcap, hdf5) if p is not None]
        if len(paths) == 2 and paths[0].resolve() == paths[1].resolve():
            raise ValueError(f"mcap/hdf5: the two outputs must be different files, got {paths[0]}")
        self.targets: dict[str, Path] = {}
        for label, path, suffixes in (
            ("hdf5", hdf5, (".h5", ".hdf5")),
            ("mcap", mcap, (".mcap",)),
        ):
            if path is not None:
                if Path(path).suffix.lower() not in suffixes:
                    raise ValueError(
                        f"{label}: expected a file ending in {' or '.join(suffixes)}, "
                        f"got {str(path)!r}"
                    )
                self.targets[label] = Path(path)
        self._files = AtomicFileSet(list(self.targets.values()))
        self._writers: list[Any] = []
        try:
            if hdf5 is not None:
                from leviathan.datasets.hdf5 import Hdf5Writer

                staged = self._files.staged(self.targets["hdf5"])
                self._writers.append(Hdf5Writer(staged, vehicles=vehicles, manifest=manifest))
            if mcap is not None:
                from leviathan.datasets.mcap import McapWriter

                staged = self._files.staged(self.targets["mcap"])
                self._writers.append(McapWriter(staged, vehicles=vehicles, manifest=manifest))
        except BaseException:
            self.abort()
            raise

    def write(self, groups: Sequence[CaptureGroup], tracks: Sequence[VehicleTrackRecord]) -> None:
        """Hands the groups and track rows to every writer."""
        for writer in self._writers:
            writer.write(groups, tracks)

    def close(self, *, manifest: Mapping[str, Any]) -> dict[str, Path]:
        """Finalises every file, then puts them all in place; ``{"hdf5": path, "mcap": path}``."""
        try:
            for writer in self._writers:
                writer.close(manifest=manifest)
            self._files.commit()
        except BaseException:
            self.abort()
            raise
        return dict(self.targets)

    def abort(self) -> None:
        """Removes every file not yet in place; files that were at the targets are kept."""
        for writer in self._writers:
            writer.abort()
        self._files.discard()


class RecordBatch(NamedTuple):
    """One step's capture groups and the track rows since the last, from ``prepare``."""

    groups: tuple[CaptureGroup, ...]
    tracks: tuple[VehicleTrackRecord, ...]


class DatasetRecorder(_ClosesOnExit):
    """Streams a live World into MCAP and/or HDF5 files while it steps.

    Call :meth:`record` with the capture groups of every ``world.step(...)``
    (and of nothing else), then :meth:`close`. Used as a context manager, an
    exception aborts every writer: no partial file is left, and files that were
    there before are kept.

    Args:
        world: The World to record, from its current tick. Its vehicles and their
            documents must stay as they are while recording (no ``edit``).
        mcap: Path of the ``.mcap`` file to write, or None.
        hdf5: Path of the ``.h5``/``.hdf5`` file to write, or None.
        manifest: JSON-like provenance stored in the files (job, notes, ...);
            the World's seed, tick and tracing are added.
        from_tick: First tick whose ground-truth state is written (default: the
            World's current tick; 0 writes its history since the last reset too).
    """

    def __init__(
        self,
        world: World,
        *,
        mcap: str | os.PathLike[str] | None = None,
        hdf5: str | os.PathLike[str] | None = None,
        manifest: Mapping[str, Any] | None = None,
        from_tick: int | None = None,
    ) -> None:
        if not isinstance(world, World):
            raise TypeError(f"world: expected a World, got {type(world).__name__}")
        first = world.tick if from_tick is None else from_tick
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first <= world.tick:
            raise ValueError(f"from_tick: expected a tick in [0, {world.tick}], got {from_tick!r}")
        self._world = world
        self._vehicles = {name: world.vehicle_spec(name) for name in world.vehicle_names}
        self._spec_hashes = {name: content_hash(s) for name, s in self._vehicles.items()}
        self._next_tick = first
        self._last_time_ns: int | None = None
        self._groups: list[str] = []
        self._manifest = {**_run_manifest(world, manifest), "first_tick": first}
        self._outputs = _Outputs(
            mcap=mcap, hdf5=hdf5, vehicles=self._vehicles, manifest=self._manifest
        )
        self._closed = False

    @property
    def group_hashes(self) -> tuple[str, ...]:
        """Content hashes of the capture groups recorded so far, in time order."""
        return tuple(self._groups)

    def record(self, groups: Sequence[CaptureGroup]) -> None:
        """Writes the capture groups one ``step`` returned and the track since the last call.

        The same as ``write(prepare(groups))``.

        Raises:
            ValueError: If the World was reset or edited since the last call, or the
                groups are not newer than the ones already recorded.
        """
        self.write(self.prepare(groups))

    def prepare(self, groups: Sequence[CaptureGroup]) -> RecordBatch:
        """The part of :meth:`record` that reads the World: its checks and the track rows.

        Call it right after the ``step`` that returned ``groups``, before the World
        steps on; :meth:`write` may then run on another thread while it does (the
        survey demo writes each step's groups behind the next step).

        Raises:
            ValueError: As :meth:`record`.
        """
        if self._closed:
            raise ValueError("record: this recorder is closed")
        checkpoint()  # a stopped command (Ctrl-C) writes nothing more
        world = self._world
        if world.tick < self._next_tick - 1 or world.vehicle_names != tuple(self._vehicles):
            raise ValueError(
                f"record: the World went back to tick {world.tick} (reset?) after tick "
                f"{self._next_tick - 1} was recorded; start a new recorder"
            )
        for name in world.vehicle_names:
            if content_hash(world.vehicle_spec(name)) != self._spec_hashes[name]:
                raise ValueError(
                    f"record: vehicle {name!r} was edited while recording; the files declare "
                    "each vehicle's document once, so start a new recorder after an edit"
                )
        groups = tuple(groups)
        for i, group in enumerate(groups):
            if not isinstance(group, CaptureGroup):
                raise TypeError(f"groups[{i}]: expected a CaptureGroup, got {type(group).__name__}")
            if self._last_time_ns is not None and group.time_ns <= self._last_time_ns:
                raise ValueError(
                    f"groups[{i}]: capture group at {group.time_ns} ns is not after the last one "
                    f"recorded ({self._last_time_ns} ns); record each step's groups once, in order"
                )
            self._last_time_ns = group.time_ns
        tracks: tuple[VehicleTrackRecord, ...] = ()
        if world.tick >= self._next_tick:
            tracks = tuple(
                world.track_states(n, from_tick=self._next_tick) for n in world.vehicle_names
            )
        self._next_tick = world.tick + 1
        return RecordBatch(groups, tracks)

    def write(self, batch: RecordBatch) -> None:
        """Writes a batch from :meth:`prepare`: its groups, their hashes, its track rows.

        Batches are written one at a time, in the order they were prepared; this
        touches the files and the batch's immutable records only, never the World.
        """
        if self._closed:
            raise ValueError("record: this recorder is closed")
        if not isinstance(batch, RecordBatch):
            raise TypeError(f"batch: expected a RecordBatch from prepare(), got {batch!r}")
        self._outputs.write(batch.groups, list(batch.tracks))
        self._groups.extend(g.content_hash for g in batch.groups)

    def close(self, *, manifest: Mapping[str, Any] | None = None) -> dict[str, Path]:
        """Finalises every file and renames it into place.

        Args:
            manifest: Entries to add to the stored manifest (e.g. a run hash).

        Returns:
            ``{"hdf5": path, "mcap": path}`` for the files written.
        """
        if self._closed:
            raise ValueError("close: this recorder is closed already")
        final = {**self._manifest, **(manifest or {}), "run_hash": content_hash(self._groups)}
        try:
            out = self._outputs.close(manifest=final)
        finally:
            self._closed = True
        return out

    def abort(self) -> None:
        """Removes every file not yet closed; earlier files at the targets are kept."""
        self._closed = True
        self._outputs.abort()


def _run_manifest(world: World, extra: Mapping[str, Any] | None) -> dict[str, Any]:
    from leviathan import __version__

    base = {
        "root_seed": world.root_seed,
        "tick_ns": world.clock.step_ns,
        "first_tick": world.tick,
        "epochs": world.state()["epochs"],
        "environment_hash": world.environment.content_hash,
        "tracing": {"backend": world.tracing[0], "device": world.tracing[1]},
        "leviathan_version": __version__,
    }
    return {**base, **dict(extra or {})}


def export_world(
    world: World,
    groups: Iterable[CaptureGroup],
    *,
    mcap: str | os.PathLike[str] | None = None,
    hdf5: str | os.PathLike[str] | None = None,
    manifest: Mapping[str, Any] | None = None,
) -> dict[str, Path]:
    """Writes a World's history since tick 0 and its capture groups as MCAP and/or HDF5.

    Args:
        world: The World (its track from tick 0 to now is written).
        groups: Every capture group its ``step`` calls returned since tick 0 (or since
            its last ``reset``), in time order.
        mcap, hdf5: Output paths (at least one).
        manifest: Extra JSON-like provenance to store.

    Returns:
        ``{"hdf5": path, "mcap": path}`` for the files written.
    """
    if not isinstance(world, World):
        raise TypeError(f"world: expected a World, got {type(world).__name__}")
    groups = list(groups)
    if any(g.tick > world.tick for g in groups):
        raise ValueError("groups: a capture group is newer than the World's current tick")
    with DatasetRecorder(world, mcap=mcap, hdf5=hdf5, manifest=manifest, from_tick=0) as recorder:
        recorder.record(groups)
        return recorder.close()


def export_dataset(
    source: str | os.PathLike[str],
    *,
    mcap: str | os.PathLike[str] | None = None,
    hdf5: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Path]:
    """Exports a recorded run (a run folder or a ``dataset.h5``) as MCAP and/or HDF5.

    A survey demo folder (or any file :func:`~leviathan.datasets.read_hdf5` reads) is
    read one capture group at a time and every record's content hash is verified
    against the stored one before it is written again. An analytic scenario run's
    folder (``leviathan scenario run --out``) gives its vehicles' documents and
    ground-truth tracks (odometry and TF in MCAP, tracks in HDF5); its sensor
    streams are analytic-tier arrays with no canonical sample behind them, so they
    are not written as sensor messages: a :class:`UserWarning` names them, and they
    stay in the folder's ``streams/*.npz``.

    Args:
        source: A run folder (the survey demo's, holding ``dataset.h5``, or a
            scenario run's), or the path of a dataset ``.h5`` file.
        mcap, hdf5: Output paths (at least one).
        progress: Called as ``progress(done, total)`` after each batch of groups.

    Returns:
        ``{"hdf5": path, "mcap": path}`` for the files written.

    Raises:
        FileNotFoundError: If there is no dataset at ``source``.
        leviathan.datasets.DatasetError: If the file is not a LEVIATHAN dataset or a
            record fails verification.
    """
    from leviathan.datasets.hdf5 import read_hdf5

    path = Path(source)
    if path.is_dir() and not (path / RUN_DATASET_NAME).is_file() and _is_scenario_run(path):
        dataset: Any = _ScenarioRun(path)
    else:
        if path.is_dir():
            path = path / RUN_DATASET_NAME
        if not path.is_file():
            raise FileNotFoundError(
                2,
                f"no recorded run here (expected a run folder: the survey demo's, with "
                f"{RUN_DATASET_NAME}, or a scenario run's, with manifest.json and tracks/; or "
                "an .h5 file)",
                str(path),
            )
        for out in (mcap, hdf5):
            if out is not None and Path(out).resolve() == path.resolve():
                raise ValueError(f"{out}: the output would overwrite the dataset being read")
        dataset = read_hdf5(path, verify=True)
    outputs = _Outputs(mcap=mcap, hdf5=hdf5, vehicles=dataset.vehicles, manifest=dataset.manifest)
    try:
        # Track rows go out beside the groups of the same times, so each file's
        # messages stay in time order as they would have been while recording.
        tracks = _TrackCursor(dataset.tracks.values())
        total = len(dataset)
        done = 0
        batch: list[CaptureGroup] = []
        for group in dataset.groups():
            checkpoint()
            batch.append(group)
            if len(batch) == _BATCH:
                outputs.write(batch, tracks.through(batch[-1].time_ns))
                done += len(batch)
                batch = []
                if progress is not None:
                    progress(done, total)
        rows = tracks.rest()
        if batch or rows:
            outputs.write(batch, rows)
            done += len(batch)
            if progress is not None:
                progress(done, total)
        return outputs.close(manifest=dataset.manifest)
    except BaseException:
        outputs.abort()
        raise


def _is_scenario_run(folder: Path) -> bool:
    from leviathan.analytic import SCENARIO_JOB

    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("job") == SCENARIO_JOB


class _ScenarioRun:
    """An analytic scenario run's folder, read as a dataset: vehicles and tracks, no groups.

    The vehicles' documents are those the run's manifest declares (its scenario
    document, built as the run built them); each track is ``tracks/<name>.npz``,
    the committed state at every tick.
    """

    def __init__(self, folder: Path) -> None:
        from leviathan.analytic import ScenarioDocument, canonical_world

        self.manifest = json.loads((folder / "manifest.json").read_text())
        doc = ScenarioDocument.model_validate(self.manifest["scenario"])
        world = canonical_world(doc)
        self.vehicles = {name: world.vehicle_spec(name) for name in world.vehicle_names}
        self.tracks: dict[str, VehicleTrackRecord] = {}
        for name in self.vehicles:
            file = folder / "tracks" / f"{name}.npz"
            with np.load(file, allow_pickle=False) as arrays:
                states = np.asarray(arrays["states"], dtype=np.float64)
                self.tracks[name] = VehicleTrackRecord(
                    name=name,
                    ticks=np.asarray(arrays["ticks"], dtype=np.int64),
                    times_ns=np.asarray(arrays["time_ns"], dtype=np.int64),
                    position_ned_m=np.ascontiguousarray(states[:, 0:3]),
                    attitude_q=np.ascontiguousarray(states[:, 3:7]),
                    velocity_body=np.ascontiguousarray(states[:, 7:13]),
                )
        streams = sorted(self.manifest.get("sensors", {}))
        if streams:
            warnings.warn(
                f"export-dataset: {folder} is an analytic scenario run: its vehicles' tracks are "
                f"exported; its sensor streams ({', '.join(streams)}) are analytic-tier arrays, "
                f"not canonical samples, so they are not written as sensor messages (they stay "
                f"in {folder / 'streams'})",
                UserWarning,
                stacklevel=3,
            )

    def __len__(self) -> int:
        return 0

    def groups(self) -> Iterator[CaptureGroup]:
        return iter(())


class _TrackCursor:
    """Hands out consecutive stretches of stored tracks, up to a time."""

    def __init__(self, tracks: Iterable[VehicleTrackRecord]) -> None:
        self._tracks = list(tracks)
        self._next = [0] * len(self._tracks)

    def _slice(self, i: int, stop: int) -> VehicleTrackRecord | None:
        track, start = self._tracks[i], self._next[i]
        if stop <= start:
            return None
        self._next[i] = stop
        return track.rows(start, stop)

    def through(self, time_ns: int) -> list[VehicleTrackRecord]:
        """The rows not handed out yet with a time up to ``time_ns``, per vehicle."""
        out = []
        for i, track in enumerate(self._tracks):
            stop = int(np.searchsorted(track.times_ns, time_ns, side="right"))
            piece = self._slice(i, stop)
            if piece is not None:
                out.append(piece)
        return out

    def rest(self) -> list[VehicleTrackRecord]:
        """Every row not handed out yet."""
        out = []
        for i, track in enumerate(self._tracks):
            piece = self._slice(i, len(track))
            if piece is not None:
                out.append(piece)
        return out
