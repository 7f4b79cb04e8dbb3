"""``leviathan bench service``: step-request latency and ticks/s over HTTP beside in-process.

The service runs as its own process (``python -m leviathan serve --port 0`` on
loopback), so its event loop and workers do not share a GIL with the clients.
For each World count, ``clients`` threads (each with its own
:class:`~leviathan.client.ServiceClient`) step the Worlds round-robin with
:meth:`RemoteWorld.step` (records rebuilt and their hashes checked, as a Python
user gets them); the peer does the same steps on in-process Worlds with the same
thread layout, in the same run. The ratio of the two is the service's overhead; a
case runs in :data:`ROUNDS` rounds of the three kinds of steps in turn, and its
overhead is the median of the rounds' ratios. Figures are printed, never asserted.
"""

from __future__ import annotations

import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["bench_service", "format_service_bench"]


def _setup(index: int) -> Any:
    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import Autopilot
    from leviathan.specs import VehicleSpec, spec_from_dict
    from leviathan.world import VehicleSetup

    doc = get_vehicle("reference_survey_vehicle").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["name"] == "imu"]
    return VehicleSetup(
        "auv",
        spec_from_dict(doc, VehicleSpec),
        Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.1 * index),
    )


class _SummarySteps:
    """A remote World stepped for its summary answer only (hashes and small values).

    What a client that keeps no records asks for (``detail="summary"``): the records'
    wire encoding, their transfer and their rebuilding on the client drop out.
    """

    def __init__(self, world: Any) -> None:
        self._world = world

    def step(self, n: int) -> None:
        self._world.step_summary(n)


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = min(len(ordered) - 1, max(0, round(q / 100.0 * (len(ordered) - 1))))
    return ordered[rank]


def _drive(worlds: list[Any], steps: int, ticks: int, clients: int) -> dict[str, Any]:
    """Steps every World ``steps`` times from ``clients`` threads; the latencies and wall."""
    latencies: list[float] = []
    lock = threading.Lock()
    threads = min(clients, len(worlds))

    def work(mine: list[Any]) -> None:
        local = []
        for _ in range(steps):
            for w in mine:
                t0 = time.perf_counter()
                w.step(ticks)
                local.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(local)

    shares = [worlds[i::threads] for i in range(threads)]
    pool = [threading.Thread(target=work, args=(s,)) for s in shares]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return {
        "latencies_s": latencies,
        "wall_s": time.perf_counter() - start,
        "ticks": len(worlds) * steps * ticks,
    }


def _figures(runs: list[dict[str, Any]]) -> dict[str, float]:
    """p50/p99 latency [ms] over every request of ``runs``, and their ticks per second."""
    latencies = [x for run in runs for x in run["latencies_s"]]
    return {
        "p50_ms": 1e3 * _percentile(latencies, 50),
        "p99_ms": 1e3 * _percentile(latencies, 99),
        "ticks_per_s": sum(r["ticks"] for r in runs) / sum(r["wall_s"] for r in runs),
        "requests": len(latencies),
    }


def _rate(run: dict[str, Any]) -> float:
    return run["ticks"] / run["wall_s"]


def _rounds(steps: int) -> list[int]:
    """``steps`` split into at most :data:`ROUNDS` rounds, as evenly as they go."""
    rounds = min(ROUNDS, steps)
    return [steps // rounds + (1 if r < steps % rounds else 0) for r in range(rounds)]


ROUNDS = 5
"""Rounds a case is measured in: each runs the service, summary and in-process steps in
turn, so the three share a stretch of the machine's load, and a case's overhead is the
median of its rounds' ratios (a shared machine's load moves between longer windows)."""


def start_server(*options: str) -> tuple[subprocess.Popen, str]:
    """``python -m leviathan serve --port 0 *options`` in a child process, without this
    environment's ``LEVIATHAN_TOKEN``, and the URL it printed (its stderr discarded).

    Raises:
        RuntimeError: The server did not print its URL (it failed to start).
    """
    env = dict(os.environ)
    env.pop("LEVIATHAN_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "leviathan", "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"(http://\S+)", line)
    if match is None:
        proc.kill()
        raise RuntimeError(f"leviathan serve did not start (said {line!r})")
    return proc, match.group(1)


def bench_service(
    *,
    world_counts: Sequence[int] = (1, 32),
    steps: int = 20,
    ticks: int = 10,
    clients: int = 8,
    workers: int = 8,
    progress: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Times step requests over HTTP and the same steps in-process.

    Args:
        world_counts: Numbers of Worlds stepped concurrently.
        steps: Step requests per World.
        ticks: Ticks per step request.
        clients: Client threads (each its own connection).
        workers: The service's worker threads.
        progress: Called with a line of text as each case finishes.

    Returns:
        ``{"cases": [{"worlds", "rounds", "service": {...}, "summary": {...},
        "in_process": {...}, "overhead", "overhead_summary"}], ...}`` with p50/p99
        latency [ms] and ticks/s over every round; ``overhead`` (``overhead_summary``) is
        the median over the :data:`ROUNDS` rounds of in-process ticks/s over service
        (summary-only service) ticks/s in the same round.
    """
    from leviathan.client import ServiceClient
    from leviathan.world import World

    proc, url = start_server("--workers", str(workers))
    cases = []
    try:
        for count in world_counts:
            connections = [ServiceClient(url) for _ in range(min(clients, count))]
            remote = [
                connections[i % len(connections)].create_world(vehicles=[_setup(i)], step_s="0.01")
                for i in range(count)
            ]
            local = [World.create(vehicles=[_setup(i)], step_s="0.01") for i in range(count)]
            runs: dict[str, list[dict[str, Any]]] = {"service": [], "summary": [], "in_process": []}
            for n in _rounds(steps):
                # Threads take Worlds i::threads, so each thread's Worlds share its connection.
                runs["service"].append(_drive(remote, n, ticks, clients))
                runs["summary"].append(
                    _drive([_SummarySteps(w) for w in remote], n, ticks, clients)
                )
                runs["in_process"].append(_drive(local, n, ticks, clients))
            for w in remote:
                w.delete()
            for c in connections:
                c.close()
            local_rates = [_rate(r) for r in runs["in_process"]]
            case = {
                "worlds": count,
                "rounds": len(local_rates),
                **{where: _figures(r) for where, r in runs.items()},
                "overhead": statistics.median(
                    a / _rate(b) for a, b in zip(local_rates, runs["service"], strict=True)
                ),
                "overhead_summary": statistics.median(
                    a / _rate(b) for a, b in zip(local_rates, runs["summary"], strict=True)
                ),
            }
            cases.append(case)
            if progress is not None:
                progress(format_service_bench({"cases": [case], "steps": steps, "ticks": ticks}))
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"cases": cases, "steps": steps, "ticks": ticks, "clients": clients, "workers": workers}


def format_service_bench(result: dict[str, Any]) -> str:
    """A table of :func:`bench_service`'s result."""
    lines = [
        f"step requests of {result['ticks']} ticks, {result['steps']} per World "
        "(service over loopback HTTP vs in-process, same run)",
        f"{'worlds':>6}  {'where':<10} {'p50 ms':>8} {'p99 ms':>8} {'ticks/s':>10}",
    ]
    for case in result["cases"]:
        for where in ("service", "summary", "in_process"):
            r = case[where]
            lines.append(
                f"{case['worlds']:>6}  {where:<10} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} "
                f"{r['ticks_per_s']:>10.0f}"
            )
        lines.append(
            f"{'':>6}  overhead (in-process / service ticks/s, median of {case['rounds']} "
            f"rounds): records {case['overhead']:.2f}x, summary {case['overhead_summary']:.2f}x"
        )
    return "\n".join(lines)
