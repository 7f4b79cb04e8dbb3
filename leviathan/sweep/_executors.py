"""Executors: one interface, several ways to schedule a sweep's runs.

An executor only schedules: every run is :func:`leviathan.sweep.execute_run` of
its task, a pure function of the task's canonical document, so whichever
executor, worker or node runs it, the run folder is the same (but
``execution.json``). :class:`SerialExecutor` (the default) runs the tasks one
after the other in this process and never imports Ray;
:class:`leviathan.sweep.RayExecutor` runs them on a local or a real Ray cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from leviathan.sweep._run import RunTask, execute_run

__all__ = ["EXECUTORS", "Executor", "SerialExecutor", "make_executor"]

EXECUTORS = ("serial", "ray")
"""Names of the executors :func:`make_executor` builds."""


@runtime_checkable
class Executor(Protocol):
    """What runs a sweep's tasks.

    ``start(out)`` is called once before the first task with the sweep's output
    folder (absolute), ``map(tasks, report)`` runs every task and calls
    ``report(record)`` in this thread as each one finishes (in any order), and
    ``close()`` is called once at the end, after a failure or ``KeyboardInterrupt``
    too. On ``KeyboardInterrupt`` ``map`` stops every task still running before it
    re-raises, so no worker goes on writing.
    """

    name: str

    def start(self, out: Path) -> None:
        """Prepares to run tasks that write below ``out``."""

    def map(self, tasks: Sequence[RunTask], report: Callable[[dict[str, Any]], None]) -> None:
        """Runs every task, reporting each record as it finishes."""

    def close(self) -> None:
        """Releases what :meth:`start` took."""


class SerialExecutor:
    """Runs the tasks one after the other in this process (no Ray)."""

    name = "serial"

    def start(self, out: Path) -> None:
        """Nothing to prepare."""

    def map(self, tasks: Sequence[RunTask], report: Callable[[dict[str, Any]], None]) -> None:
        """Runs each task in order; Ctrl-C stops the current run, leaving no partial folder."""
        for task in tasks:
            report(execute_run(task))

    def close(self) -> None:
        """Nothing to release."""


def make_executor(
    name: str,
    *,
    workers: int | None = None,
    address: str | None = None,
    max_retries: int = 3,
    max_in_flight: int | None = None,
    cpus_per_run: float = 1.0,
) -> Executor:
    """The executor called ``name`` (``"serial"`` or ``"ray"``), its options checked.

    Args:
        name: ``"serial"`` or ``"ray"``.
        workers: Ray: CPUs of the local cluster it starts (default: every core).
        address: Ray: a running cluster to use (default: ``$RAY_ADDRESS``, else a
            local cluster).
        max_retries: Ray: how often a task whose worker died is run again.
        max_in_flight: Ray: most tasks submitted and not yet finished (default:
            twice the cluster's CPUs).
        cpus_per_run: Ray: CPUs each run declares.

    Raises:
        ValueError: An unknown executor, or an option the executor does not take.
    """
    if name not in EXECUTORS:
        raise ValueError(f"executor: expected one of {', '.join(EXECUTORS)}, got {name!r}")
    if name == "serial":
        given = {"workers": workers, "address": address, "max_in_flight": max_in_flight}
        extra = [k for k, v in given.items() if v is not None]
        if extra:
            raise ValueError(f"{'/'.join(extra)}: apply to the ray executor; add --executor ray")
        return SerialExecutor()
    from leviathan.sweep._ray import RayExecutor

    return RayExecutor(
        workers=workers,
        address=address,
        max_retries=max_retries,
        max_in_flight=max_in_flight,
        cpus_per_run=cpus_per_run,
    )
