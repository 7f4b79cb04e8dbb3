"""One sweep run: a pure function of its canonical document, written to ``OUT/runs/<key>/``.

:func:`execute_run` is what every executor calls, in whatever process or node
runs the task. The folder is built as a temporary sibling
(``runs/.<key>.tmp-<pid>-<hex>``, :func:`leviathan._files.atomic_directory`) and
renamed into place only when complete, so a run that fails, is interrupted or
whose worker is killed leaves no partial folder under its key (a killed
worker's temporary sibling is removed by the driver). A run folder holds:

* ``run.json``: the key, the axis values, the canonical document and the key's
  other inputs (project version, fixture manifest hashes);
* the products: for a world run ``dataset.h5`` / ``dataset.mcap`` /
  ``previews/`` as its ``outputs`` ask; for an analytic run ``scenario/``
  (:func:`leviathan.analytic.write_scenario_outputs`);
* ``manifest.json`` (written last): capture groups with their members' content
  hashes, the snapshot hash, the run hash, the run's figures and the SHA-256 and
  size of every other file: the folder verifies when every listed file matches;
* ``execution.json``: who ran it, with what tracer and how long: the one file
  that differs between executors, workers and nodes, so it is not in the manifest;
* or, for a refused or failed run, ``error.json`` (one-line error, its type and
  whether the document or the machine failed) instead of products and manifest.

Every other file is identical whichever executor, worker or node ran the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leviathan._files import atomic_directory, write_atomically
from leviathan.specs import SpecError

__all__ = [
    "RUNS_FOLDER",
    "SWEEP_JOB",
    "RunTask",
    "execute_run",
    "failure_record",
    "one_line",
    "read_json",
    "record_from_folder",
    "verify_run",
    "write_failure",
]

SWEEP_JOB = "leviathan sweep run"
"""The manifest's ``job``: marks a folder as a sweep run."""
RUNS_FOLDER = "runs"
"""Subfolder of a sweep's output holding one folder per run key."""
_UNLISTED = ("manifest.json", "execution.json")
_CHUNK_TICKS = 100
_EXPECTED = (SpecError, ValueError, TypeError, KeyError, OSError)


@dataclass(frozen=True)
class RunTask:
    """What a worker needs to do one run (plain data: it travels to other nodes).

    Attributes:
        key: The run key.
        params: Axis name -> value.
        document: The canonical form.
        out: The sweep's output folder, as every node sees it.
        executor: ``"serial"`` or ``"ray"`` (recorded as the worker's prefix).
        key_inputs: The key's other inputs (version, fixture hashes), for ``run.json``.
    """

    key: str
    params: dict[str, Any]
    document: dict[str, Any]
    out: str
    executor: str
    key_inputs: dict[str, Any] = field(default_factory=dict)


def one_line(error: BaseException) -> str:
    """An error as one line: its message, with its type unless it is a plain refusal."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if isinstance(error, _EXPECTED) else f"{type(error).__name__}: {text}"


def read_json(path: Path) -> Any:
    """A JSON file's content, or ``None`` if it is missing or unreadable."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n"
    write_atomically(path, text.encode())


def _worker(executor: str) -> str:
    return f"{executor}:{socket.gethostname()}:{os.getpid()}"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _file_table(folder: Path) -> dict[str, dict[str, Any]]:
    """SHA-256 and size of every file below ``folder`` but the unlisted ones."""
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if name not in _UNLISTED:
            files[name] = {"sha256": _sha256(path), "bytes": path.stat().st_size}
    return files


def _world_products(staging: Path, task: RunTask) -> tuple[dict[str, Any], dict[str, Any]]:
    """Runs a world run into ``staging``; its manifest (no file table yet) and tracing."""
    from leviathan.datasets import RUN_DATASET_NAME, DatasetRecorder
    from leviathan.sensors import PreviewWriter
    from leviathan.sweep._documents import build_world, tick_count
    from leviathan.world import run_summary

    document = task.document
    outputs = document["outputs"]
    world = build_world(document)
    ticks = tick_count(document)
    previews = (
        PreviewWriter(world, staging / "previews", every=outputs["preview_every"])
        if outputs["previews"]
        else None
    )
    recorder = None
    if outputs["mcap"] or outputs["hdf5"]:
        recorder = DatasetRecorder(
            world,
            mcap=staging / "dataset.mcap" if outputs["mcap"] else None,
            hdf5=staging / RUN_DATASET_NAME if outputs["hdf5"] else None,
            manifest={"job": SWEEP_JOB, "key": task.key},
        )
    groups_out: list[dict[str, Any]] = []
    samples: dict[str, int] = {}
    try:
        done = 0
        while done < ticks:
            n = min(_CHUNK_TICKS, ticks - done)
            groups = world.step(n)
            if recorder is not None:
                recorder.record(groups)
            for group in groups:
                for sensor_id, sample in group.samples.items():
                    samples[sensor_id] = samples.get(sensor_id, 0) + 1
                    if previews is not None:
                        previews.write(sensor_id, sample)
                groups_out.append(group.manifest_entry())
            done += n
        snapshot = world.snapshot()
        if recorder is not None:
            recorder.close(manifest={"snapshot_hash": snapshot.content_hash})
    except BaseException:
        if recorder is not None:
            recorder.abort()
        raise
    state = world.state()["vehicles"]
    figures: dict[str, Any] = {
        "ticks": ticks,
        "simulated_s": world.time_ns / 1e9,
        "capture_groups": len(groups_out),
    }
    for name, vehicle in state.items():
        north, east, down = vehicle["position_ned_m"]
        figures |= {f"{name}.final_north_m": north, f"{name}.final_east_m": east}
        figures |= {f"{name}.final_depth_m": down, f"{name}.final_heading_rad": vehicle["yaw_rad"]}
    figures |= {f"{sid}.samples": count for sid, count in sorted(samples.items())}
    manifest = {
        "job": SWEEP_JOB,
        "key": task.key,
        "kind": "world",
        "tier": "canonical",
        **run_summary(world, snapshot, groups_out),
        "figures": figures,
    }
    return manifest, {"backend": world.tracing[0], "device": world.tracing[1]}


def _analytic_products(staging: Path, task: RunTask) -> tuple[dict[str, Any], dict[str, Any]]:
    """Runs an analytic run into ``staging/scenario``; its manifest and tracing."""
    from leviathan.sweep._documents import run_analytic

    result = run_analytic(task.document, staging / "scenario")
    figures: dict[str, Any] = {
        "ticks": result.tick_count,
        "simulated_s": result.tick_count * result.step_ns / 1e9,
    }
    for name, run in result.vehicles.items():
        north, east, down = (float(x) for x in run.states[-1, :3])
        figures |= {f"{name}.final_north_m": north, f"{name}.final_east_m": east}
        figures[f"{name}.final_depth_m"] = down
    for fault in result.faults:
        figures[f"fault{fault['index']}.effective_tick"] = fault["effective_tick"]
    for sid, stream in result.sensors.items():
        figures[f"{sid}.samples"] = int(stream.arrays["time_ns"].shape[0])
    manifest = {
        "job": SWEEP_JOB,
        "key": task.key,
        "kind": "analytic",
        "tier": "analytic",
        "run_hash": result.analytic_hash,
        "figures": figures,
    }
    return manifest, {"backend": result.backend[0], "device": result.backend[1]}


def _request(task: RunTask) -> dict[str, Any]:
    return {
        "key": task.key,
        "params": task.params,
        "document": task.document,
        "key_inputs": task.key_inputs,
    }


def execute_run(task: RunTask) -> dict[str, Any]:
    """Does one run and writes its folder ``<out>/runs/<key>/`` atomically.

    A folder that already holds this run, complete and verified, is kept and
    reported (a retried task whose first attempt finished). An error of the run
    itself (a refused World, a failed write) is recorded in ``error.json`` and
    returned as a ``"failed"`` record; it is never raised, so Ray never retries it.
    ``KeyboardInterrupt`` propagates, leaving no partial folder.

    Returns:
        The index record: ``key``, ``params``, ``status`` (``"done"``/``"failed"``),
        ``run_hash``, ``seconds`` (wall time of the run [s]), ``worker``, ``error``.
    """
    folder = Path(task.out) / RUNS_FOLDER / task.key
    worker = _worker(task.executor)
    ok, _, _ = verify_run(folder, task.key)
    if ok:
        record = record_from_folder(folder)
        if record is not None and record["status"] == "done":
            return record
    start = time.perf_counter()
    try:
        with atomic_directory(folder) as staging:
            _write_json(staging / "run.json", _request(task))
            make = _world_products if task.document["kind"] == "world" else _analytic_products
            manifest, tracing = make(staging, task)
            manifest["files"] = _file_table(staging)
            _write_json(staging / "manifest.json", manifest)
            seconds = time.perf_counter() - start
            _write_json(
                staging / "execution.json",
                {"worker": worker, "seconds": seconds, "tracing": tracing},
            )
    except Exception as error:
        seconds = time.perf_counter() - start
        return write_failure(
            task,
            error=one_line(error),
            error_type=type(error).__name__,
            seconds=seconds,
            worker=worker,
            cause="application",
        )
    return {
        "key": task.key,
        "params": task.params,
        "status": "done",
        "run_hash": manifest["run_hash"],
        "seconds": seconds,
        "worker": worker,
        "error": None,
    }


def failure_record(
    task: RunTask, *, error: str, seconds: float | None, worker: str | None, cause: str
) -> dict[str, Any]:
    """The index record of a failed run (``cause`` as for :func:`write_failure`)."""
    return {
        "key": task.key,
        "params": task.params,
        "status": "failed",
        "run_hash": None,
        "seconds": seconds,
        "worker": worker,
        "error": error,
        "cause": cause,
    }


def write_failure(
    task: RunTask,
    *,
    error: str,
    error_type: str,
    seconds: float,
    worker: str,
    cause: str,
) -> dict[str, Any]:
    """Records a refused or failed run in its folder (``error.json``); its index record.

    Args:
        cause: ``"refused"`` (the document), ``"application"`` (the run raised) or
            ``"system"`` (its worker died past every retry).
    """
    folder = Path(task.out) / RUNS_FOLDER / task.key
    with atomic_directory(folder) as staging:
        _write_json(staging / "run.json", _request(task))
        _write_json(
            staging / "error.json",
            {"key": task.key, "error": error, "error_type": error_type, "cause": cause},
        )
        _write_json(staging / "execution.json", {"worker": worker, "seconds": seconds})
    return failure_record(task, error=error, seconds=seconds, worker=worker, cause=cause)


def verify_run(folder: Path, key: str | None = None) -> tuple[bool, str | None, Any]:
    """Whether ``folder`` holds a complete run: its manifest and every file it lists match.

    Returns:
        ``(ok, problem, manifest)``: ``problem`` says what does not match (``None``
        when ``ok``, or when there is no manifest at all).
    """
    manifest = read_json(folder / "manifest.json")
    if not isinstance(manifest, dict) or manifest.get("job") != SWEEP_JOB:
        return False, None, None
    if key is not None and manifest.get("key") != key:
        return False, f"its manifest is for key {manifest.get('key')!r}", manifest
    files = manifest.get("files")
    if not isinstance(files, Mapping):
        return False, "its manifest lists no files", manifest
    for name, entry in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            return False, f"{name} is missing", manifest
        if path.stat().st_size != entry.get("bytes") or _sha256(path) != entry.get("sha256"):
            return False, f"{name} does not match its SHA-256 in the manifest", manifest
    return True, None, manifest


def record_from_folder(folder: Path) -> dict[str, Any] | None:
    """The index record a run folder holds (``None`` if it is no sweep run folder).

    A folder with a manifest is ``"done"``; one with ``error.json`` is ``"failed"``;
    files are not re-hashed here (:func:`verify_run` does that).
    """
    request = read_json(folder / "run.json")
    if not isinstance(request, dict) or request.get("key") != folder.name:
        return None
    execution = read_json(folder / "execution.json") or {}
    manifest = read_json(folder / "manifest.json")
    failure = read_json(folder / "error.json")
    record = {
        "key": folder.name,
        "params": request.get("params", {}),
        "status": "done",
        "run_hash": None,
        "seconds": execution.get("seconds"),
        "worker": execution.get("worker"),
        "error": None,
    }
    if isinstance(manifest, dict) and manifest.get("job") == SWEEP_JOB:
        record["run_hash"] = manifest.get("run_hash")
    elif isinstance(failure, dict):
        record |= {"status": "failed", "error": failure.get("error"), "cause": failure.get("cause")}
    else:
        return None
    return record
