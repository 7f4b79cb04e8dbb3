"""The Ray executor: a sweep's runs as Ray tasks on a local cluster or a real one.

Ray is imported only when a :class:`RayExecutor` starts (``pip install -e
.[cluster]``). Without ``address`` (and without ``$RAY_ADDRESS``) it starts a
local cluster of ``workers`` CPUs with usage statistics off
(``RAY_USAGE_STATS_ENABLED=0``) and no dashboard, and shuts it down at the end;
with one it connects to that cluster (``ray start --head`` / ``ray start
--address=...``) and disconnects at the end. If this process already holds a Ray
connection (``ray.init`` was called), that one is used and kept.

At start every alive node runs a probe task pinned to it: it must see a token
file the driver wrote into the output folder (so the folder is storage every node
mounts at the same path), be able to write there, and run the same LEVIATHAN
version; otherwise the sweep is refused before any run.

Each run is one task declaring ``num_cpus`` (``cpus_per_run``) and ``num_gpus=1``
when its document traces on CUDA (``tracing_device = "cuda"``). At most
``max_in_flight`` tasks are submitted and unfinished at once (results are taken
with ``ray.wait`` as they come). A task whose worker process dies is run again by
Ray up to ``max_retries`` times (``retry_exceptions=False``: an error of the run
itself is caught in the task and recorded, never retried); past that the run is
recorded as failed with cause ``"system"``. Ctrl-C stops every task in flight
before it propagates, so nothing goes on writing: a local cluster this executor
started is shut down whole (every worker stops with it, and no task is cancelled one
by one: Ray 2.60's driver can abort when a cancellation races a task's reply); on a
cluster it connected to, each task in flight is cancelled with ``force=True``.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from leviathan._files import write_atomically
from leviathan.sweep._errors import SweepError
from leviathan.sweep._run import RunTask, execute_run, one_line, write_failure

__all__ = ["RayExecutor", "sweep_probe", "sweep_run"]

_PROBE_TIMEOUT_S = 120.0
_CANCEL_WAIT_S = 10.0


def sweep_run(task: RunTask) -> dict[str, Any]:
    """The Ray task: one run (its process title reads ``ray::sweep_run`` while it runs)."""
    return execute_run(task)


def sweep_probe(out: str, token: str) -> dict[str, Any]:
    """The start-up probe run on every node: sees the output folder? can write? which version?"""
    from leviathan import __version__

    folder = Path(out)
    host = socket.gethostname()
    try:
        sees = (folder / f".sweep-probe-{token}").read_text() == token
    except OSError:
        sees = False
    writes = False
    if sees:
        try:
            write_atomically(folder / f".sweep-probe-{token}-{host}-{os.getpid()}", token.encode())
            writes = True
        except OSError:
            writes = False
    return {"host": host, "version": __version__, "sees": sees, "writes": writes}


def _device(task: RunTask) -> str:
    """The tracing device a task's document asks for (``""``: the backend's default)."""
    return task.document.get("tracing_device") or ""


def _import_ray() -> Any:
    # Set before Ray is imported: its usage statistics would otherwise be on by default.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError as error:
        raise ImportError(
            "the ray executor needs Ray: pip install -e .[cluster] (or use --executor serial)"
        ) from error
    return ray


class RayExecutor:
    """Runs a sweep's tasks on Ray (see the module docstring).

    Args:
        workers: CPUs of the local cluster started when no cluster is given
            (default: ``os.cpu_count()``); refused with ``address``.
        address: Cluster address (``"auto"``, ``"10.0.0.1:6379"``, ``"ray://..."``);
            default ``$RAY_ADDRESS``, else a local cluster.
        max_retries: Runs of a task again after its worker died (0 to 100).
        max_in_flight: Most unfinished tasks at once (default: 2 x the cluster's CPUs).
        cpus_per_run: CPUs each task declares (> 0).
    """

    name = "ray"

    def __init__(
        self,
        *,
        workers: int | None = None,
        address: str | None = None,
        max_retries: int = 3,
        max_in_flight: int | None = None,
        cpus_per_run: float = 1.0,
    ) -> None:
        for label, value, low in (("workers", workers, 1), ("max_in_flight", max_in_flight, 1)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < low
            ):
                raise ValueError(f"{label}: expected a whole number >= {low}, got {value!r}")
        if (
            isinstance(max_retries, bool)
            or not isinstance(max_retries, int)
            or not (0 <= max_retries <= 100)
        ):
            raise ValueError(
                f"max_retries: expected a whole number in [0, 100], got {max_retries!r}"
            )
        if (
            isinstance(cpus_per_run, bool)
            or not isinstance(cpus_per_run, int | float)
            or not (0 < cpus_per_run <= 1024)
        ):
            raise ValueError(f"cpus_per_run: expected a number in (0, 1024], got {cpus_per_run!r}")
        if workers is not None and address is not None:
            raise ValueError(
                "workers/address: --workers sizes a local cluster; a cluster given by --address "
                "has its own workers"
            )
        _import_ray()  # refused here, before any output folder is touched
        self.workers = workers
        self.address = address
        self.max_retries = max_retries
        self.max_in_flight = max_in_flight
        self.cpus_per_run = float(cpus_per_run)
        self.cluster = ""
        self._ray: Any = None
        self._owned = False
        self._local = False  # a local cluster this executor started
        self._remote: Any = None

    def start(self, out: Path) -> None:
        """Connects to (or starts) the cluster and checks every node against ``out``."""
        ray = self._ray = _import_ray()
        address = self.address or os.environ.get("RAY_ADDRESS") or None
        if ray.is_initialized():
            self.cluster = "the Ray connection this process already holds"
        elif address is not None and self.workers is None:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
            self._owned = True
            self.cluster = f"the Ray cluster at {address}"
        else:
            cpus = self.workers or os.cpu_count() or 1
            ray.init(
                num_cpus=cpus,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
            self._owned = self._local = True
            self.cluster = f"a local Ray cluster of {cpus} CPUs"
        self._remote = ray.remote(max_retries=self.max_retries, retry_exceptions=False)(sweep_run)
        self._check_nodes(Path(out))

    def _check_nodes(self, out: Path) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from leviathan import __version__

        ray = self._ray
        token = secrets.token_hex(8)
        probe = out / f".sweep-probe-{token}"
        write_atomically(probe, token.encode())
        probe_task = ray.remote(num_cpus=0, max_retries=0)(sweep_probe)
        try:
            nodes = [n for n in ray.nodes() if n.get("Alive")]
            refs = [
                probe_task.options(
                    scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)
                ).remote(str(out), token)
                for n in nodes
            ]
            try:
                answers = ray.get(refs, timeout=_PROBE_TIMEOUT_S)
            except Exception as error:
                raise SweepError(
                    f"the Ray nodes did not answer the start-up check within "
                    f"{_PROBE_TIMEOUT_S:.0f} s ({one_line(error)})"
                ) from error
        finally:
            for path in out.glob(f".sweep-probe-{token}*"):
                path.unlink(missing_ok=True)
        for node, answer in zip(nodes, answers, strict=True):
            where = f"Ray node {node.get('NodeManagerAddress')} ({answer['host']})"
            if not answer["sees"] or not answer["writes"]:
                raise OSError(
                    2,
                    f"is not storage {where} shares at the same path (it cannot "
                    f"{'see' if not answer['sees'] else 'write to'} it); give --out a folder "
                    "on storage every node mounts at the same path",
                    str(out),
                )
            if answer["version"] != __version__:
                raise SweepError(
                    f"{where} runs LEVIATHAN {answer['version']}, this driver {__version__}; "
                    "install the same version on every node"
                )

    def _cpus(self) -> float:
        return float(self._ray.cluster_resources().get("CPU", 1.0))

    def map(self, tasks: Sequence[RunTask], report: Callable[[dict[str, Any]], None]) -> None:
        """Submits the tasks (bounded in flight) and reports each record as it finishes."""
        ray = self._ray
        limit = self.max_in_flight or max(2, int(2 * self._cpus() / self.cpus_per_run))
        pending = list(tasks)[::-1]
        gpus = self._ray.cluster_resources().get("GPU", 0)
        if not gpus and any(_device(t).startswith("cuda") for t in pending):
            raise SweepError(
                f"runs trace on CUDA (tracing_device = 'cuda') but {self.cluster} has no GPU; "
                "start nodes with GPUs, or trace on the CPU (same results)"
            )
        in_flight: dict[Any, tuple[RunTask, float]] = {}
        try:
            while pending or in_flight:
                while pending and len(in_flight) < limit:
                    task = pending.pop()
                    ref = self._remote.options(
                        num_cpus=self.cpus_per_run,
                        num_gpus=1 if _device(task).startswith("cuda") else 0,
                    ).remote(task)
                    in_flight[ref] = (task, time.perf_counter())
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=1.0)
                for ref in ready:
                    task, submitted = in_flight.pop(ref)
                    report(self._result(ref, task, submitted))
        except BaseException:
            if self._local:
                self.close()  # the whole local cluster: its workers stop with it
            else:
                self._cancel(list(in_flight))
            raise

    def _result(self, ref: Any, task: RunTask, submitted: float) -> dict[str, Any]:
        try:
            return self._ray.get(ref)
        except self._ray.exceptions.RayError as error:
            # The task's own errors are records; what reaches here is the system's.
            return write_failure(
                task,
                error=f"its worker failed {self.max_retries + 1} time(s): {one_line(error)}"[:2000],
                error_type=type(error).__name__,
                seconds=time.perf_counter() - submitted,
                worker=None,
                cause="system",
            )

    def _cancel(self, refs: list[Any]) -> None:
        ray = self._ray
        for ref in refs:
            try:
                ray.cancel(ref, force=True)
            except Exception:
                pass
        if refs:
            try:
                ray.wait(refs, num_returns=len(refs), timeout=_CANCEL_WAIT_S)
            except Exception:
                pass

    def close(self) -> None:
        """Shuts down the local cluster it started, or disconnects from the one given."""
        if self._ray is not None and self._owned:
            self._ray.shutdown()
        self._owned = self._local = False
