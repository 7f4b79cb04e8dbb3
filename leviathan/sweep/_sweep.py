"""Running a sweep: plan, skip what is done, schedule the rest, keep the index.

:func:`run_sweep` is what ``leviathan sweep run`` calls. In order:

1. the sweep is planned (:func:`leviathan.sweep.plan_sweep`): a bad document or
   option is refused before the output folder is touched;
2. the output folder is taken (``OUT/.sweep.lock``: one sweep at a time per
   folder) and temporary run folders a killed worker or an interrupted sweep left
   behind (``runs/.<key>.tmp-*``, ``runs/.<key>.old-*``) are removed, and said so;
3. each planned run is looked up by key: a folder whose manifest verifies is
   skipped (never run again); one that failed because of its document or its own
   error is skipped too unless ``retry_failed``; one whose worker died (cause
   ``"system"``), or whose folder does not verify (said so), is run again;
4. the runs left go to the executor; each finished run is recorded in the index
   (``OUT/index.jsonl``) as it arrives;
5. whatever happens (Ctrl-C included), the executor is closed, temporaries
   removed, the index written and the folder released; finished runs stay.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leviathan._files import check_output_path
from leviathan.sweep._errors import SweepError
from leviathan.sweep._executors import Executor, make_executor
from leviathan.sweep._index import INDEX_NAME, SweepIndex, partial_folders, rebuild_index
from leviathan.sweep._plan import load_sweep, plan_sweep
from leviathan.sweep._run import (
    RUNS_FOLDER,
    RunTask,
    read_json,
    record_from_folder,
    verify_run,
    write_failure,
)
from leviathan.sweep._schema import SweepDocument

__all__ = ["LOCK_NAME", "SweepSummary", "run_sweep"]

LOCK_NAME = ".sweep.lock"
"""The file that marks an output folder as in use by a running sweep."""


@dataclass(frozen=True)
class SweepSummary:
    """What a sweep did.

    Attributes:
        out: The output folder.
        executor: The executor's name.
        planned: Runs of the sweep (after ``sample``/``limit``, duplicates removed).
        executed: Runs scheduled this time.
        done: Planned runs complete now.
        failed: Planned runs failed now (refused documents included).
        skipped: Planned runs not scheduled: complete, or failed before.
        duplicates: Combinations with the same canonical document as an earlier one.
        wall_s: Wall time of the whole sweep [s].
        notes: Things said along the way (stale temporaries removed, runs redone).
        failures: ``(key, error)`` of every failed planned run.
    """

    out: Path
    executor: str
    planned: int
    executed: int
    done: int
    failed: int
    skipped: int
    duplicates: int
    wall_s: float
    notes: tuple[str, ...] = ()
    failures: tuple[tuple[str, str], ...] = field(default=(), repr=False)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def _taken(out: Path, notes: list[str]) -> Iterator[None]:
    """Holds ``OUT/.sweep.lock`` for the duration; a lock whose process is gone is taken over."""
    path = out / LOCK_NAME
    mine = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time()}
    for _ in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = read_json(path)
            stale = (
                isinstance(holder, dict)
                and holder.get("host") == mine["host"]
                and not _alive(int(holder.get("pid", 0) or 0))
            )
            if stale:
                path.unlink(missing_ok=True)
                notes.append(f"took over {path}: its sweep (pid {holder.get('pid')}) is gone")
                continue
            who = (
                f"a sweep on {holder.get('host')} (pid {holder.get('pid')})"
                if isinstance(holder, dict)
                else "another sweep"
            )
            raise SweepError(
                f"{out} is in use by {who}; wait for it, or remove {path} if no sweep is running"
            ) from None
        with os.fdopen(fd, "w") as handle:
            handle.write(json.dumps(mine) + "\n")
        break
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def _remove_partials(out: Path) -> int:
    found = partial_folders(out)
    for folder in found:
        shutil.rmtree(folder, ignore_errors=True)
    for stray in out.glob(f".{INDEX_NAME}.tmp-*"):
        stray.unlink(missing_ok=True)
    return len(found)


def _check_out(out: str | os.PathLike[str]) -> Path:
    out = check_output_path(out, folder=True).resolve()
    if out.is_dir() and any(out.iterdir()):
        if not (out / RUNS_FOLDER).is_dir() and not (out / INDEX_NAME).is_file():
            raise FileExistsError(
                errno.EEXIST,
                "exists and holds no sweep (no runs/ folder, no index.jsonl); give an empty or "
                "new folder, or a previous sweep's output",
                str(out),
            )
    return out


def run_sweep(
    sweep: SweepDocument | str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    executor: str | Executor = "serial",
    workers: int | None = None,
    address: str | None = None,
    limit: int | None = None,
    retry_failed: bool = False,
    max_retries: int = 3,
    max_in_flight: int | None = None,
    progress: bool = False,
) -> SweepSummary:
    """Runs a sweep into ``out`` (see the module docstring for what happens in which order).

    Args:
        sweep: A :class:`SweepDocument` or the path of a ``.toml``/``.json`` one.
        out: Output folder: new, empty, or a previous sweep's output (its finished
            runs are kept and reused).
        executor: ``"serial"`` (default; never imports Ray), ``"ray"``, or an
            :class:`Executor`.
        workers: Ray: CPUs of the local cluster (default: every core).
        address: Ray: the cluster to use (default ``$RAY_ADDRESS``, else a local one).
        limit: Run at most the first ``limit`` runs of the sweep's order.
        retry_failed: Run again the runs that failed before (refused documents are
            checked again, and stay refused unless the project changed).
        max_retries: Ray: runs of a task again after its worker died.
        max_in_flight: Ray: most unfinished tasks at once.
        progress: Show a progress bar (runs done, failed, skipped, ETA) on stderr.

    Returns:
        The :class:`SweepSummary`.

    Raises:
        SpecError, ValueError: A refused sweep document or option (nothing written).
        OSError: ``out`` cannot be used (e.g. not shared by every Ray node).
        SweepError: ``out`` is in use by another sweep, or the cluster does not fit.
        KeyboardInterrupt: Ctrl-C; finished runs are kept, no partial folder is left.
    """
    from tqdm import tqdm

    started = time.perf_counter()
    if not isinstance(sweep, SweepDocument):
        sweep = load_sweep(sweep)
    plan = plan_sweep(sweep, limit=limit)
    if isinstance(executor, str):
        executor = make_executor(
            executor,
            workers=workers,
            address=address,
            max_retries=max_retries,
            max_in_flight=max_in_flight,
        )
    out = _check_out(out)
    out.mkdir(exist_ok=True)
    notes: list[str] = []
    failures: dict[str, str] = {}
    with _taken(out, notes):
        removed = _remove_partials(out)
        if removed:
            notes.append(
                f"removed {removed} temporary run folder(s) left by an interrupted sweep or a "
                "killed worker"
            )
        (out / RUNS_FOLDER).mkdir(exist_ok=True)
        index = SweepIndex(out, rebuild_index(out, write=False))
        known = index.records
        tasks: list[RunTask] = []
        skipped = refused = 0
        for run in plan.runs:
            task = RunTask(
                run.key,
                run.params,
                run.document or run.request,
                str(out),
                executor.name,
                plan.key_inputs,
            )
            previous = known.get(run.key)
            if previous is not None and previous["status"] == "failed":
                if previous.get("cause") != "system" and not retry_failed:
                    skipped += 1
                    failures[run.key] = previous.get("error") or ""
                    continue
            if run.document is None:
                index.put(
                    write_failure(
                        task,
                        error=run.error,
                        error_type="SpecError",
                        seconds=0.0,
                        worker="driver",
                        cause="refused",
                    )
                )
                failures[run.key] = run.error
                refused += 1
                continue
            if previous is not None and previous["status"] == "done":
                ok, problem, _ = verify_run(out / RUNS_FOLDER / run.key, run.key)
                if ok:
                    skipped += 1
                    continue
                notes.append(
                    f"run {run.key[:12]}: {problem or 'its folder is incomplete'}; running it again"
                )
            tasks.append(task)
        done_now, failed_now = 0, refused
        bar = tqdm(total=len(tasks), unit="run", desc=f"sweep {sweep.name}", disable=not progress)

        reported: set[str] = set()

        def report(record: dict[str, Any]) -> None:
            nonlocal done_now, failed_now
            reported.add(record["key"])
            index.put(record)
            if record["status"] == "done":
                done_now += 1
                failures.pop(record["key"], None)
            else:
                failed_now += 1
                failures[record["key"]] = record.get("error") or ""
            bar.set_postfix(done=done_now, failed=failed_now, skipped=skipped, refresh=False)
            bar.update(1)

        bar.set_postfix(done=0, failed=failed_now, skipped=skipped, refresh=False)
        try:
            if tasks:
                executor.start(out)
                executor.map(tasks, report)
        finally:
            try:
                executor.close()
            finally:
                bar.close()
                _remove_partials(out)
                # A run that completed while the sweep was being stopped is in place
                # without having been reported: its folder is the record.
                for task in tasks:
                    folder = out / RUNS_FOLDER / task.key
                    if task.key not in reported and verify_run(folder, task.key)[0]:
                        record = record_from_folder(folder)
                        if record is not None:
                            index.put(record)
                index.flush()
    records = index.records
    planned = [records.get(r.key) for r in plan.runs]
    done = sum(1 for r in planned if r is not None and r["status"] == "done")
    return SweepSummary(
        out=out,
        executor=executor.name,
        planned=len(plan.runs),
        executed=len(tasks),
        done=done,
        failed=len(plan.runs) - done,
        skipped=skipped,
        duplicates=plan.duplicates,
        wall_s=time.perf_counter() - started,
        notes=tuple(notes),
        failures=tuple(sorted(failures.items())),
    )
