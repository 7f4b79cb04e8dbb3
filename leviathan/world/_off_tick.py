"""The off-tick log: scheduled samples a World refused because they fell between ticks.

Stored as arithmetic runs (one per sensor, epoch and schedule), never one record
per refused sample; :func:`refused_sample_indices` expands a run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leviathan.schedule import SensorSchedule
from leviathan.time import Epoch

__all__ = ["OffTickLog", "refused_sample_indices"]


class OffTickLog:
    """Refused (off-tick) samples stored as arithmetic runs, not one record each.

    One run covers a sensor over consecutive ticks ``from_tick..through_tick``
    of one epoch with one schedule: every scheduled sample whose time lies in
    ``(t(from_tick - 1), t(through_tick)]`` and is not the time of a tick was
    refused; there are ``refused_count`` of them, with sample indices from
    ``first_sample_index`` to ``last_sample_index``. Samples at ``t_n = phase_ns
    + n * period_ns`` are refused exactly when ``t_n`` is not a tick time of that
    epoch, so the run determines each refused sample, and memory and hashing
    time grow with runs (a sensor, an epoch, an edit), never per refused sample.
    """

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self._open: dict[str, dict[str, Any]] = {}

    def copy(self) -> OffTickLog:
        """An independent log with the same runs (and the same open runs)."""
        clone = OffTickLog()
        clone.runs = [dict(run) for run in self.runs]
        index = {id(run): i for i, run in enumerate(self.runs)}
        clone._open = {k: clone.runs[index[id(run)]] for k, run in self._open.items()}
        return clone

    def record(
        self,
        sensor_id: str,
        schedule: SensorSchedule,
        *,
        tick: int,
        epoch: Epoch,
        first_index: int,
        count: int,
    ) -> None:
        """Record ``count`` samples of ``sensor_id`` refused at ``tick``, from ``first_index``."""
        run = self._open.get(sensor_id)
        if run is not None and (
            run["through_tick"] != tick - 1
            or run["epoch_start_tick"] != epoch.start_tick
            or run["step_ns"] != epoch.step_ns
            or run["period_ns"] != schedule.period_ns
            or run["phase_ns"] != schedule.phase_ns
        ):
            del self._open[sensor_id]
            run = None
        if run is not None:
            run["through_tick"] = tick
            if count:
                if not run["refused_count"]:
                    run["first_sample_index"] = first_index
                run["last_sample_index"] = first_index + count - 1
                run["refused_count"] += count
            return
        if not count:
            return
        run = {
            "sensor_id": sensor_id,
            "period_ns": schedule.period_ns,
            "phase_ns": schedule.phase_ns,
            "epoch_start_tick": epoch.start_tick,
            "epoch_start_time_ns": epoch.start_time_ns,
            "step_ns": epoch.step_ns,
            "from_tick": tick,
            "through_tick": tick,
            "first_sample_index": first_index,
            "last_sample_index": first_index + count - 1,
            "refused_count": count,
        }
        self.runs.append(run)
        self._open[sensor_id] = run

    def records(self) -> tuple[dict[str, Any], ...]:
        """Fresh dicts of every run, with the first and last refused times [ns] added."""
        return tuple(
            {
                **run,
                "first_time_ns": run["phase_ns"] + run["first_sample_index"] * run["period_ns"],
                "last_time_ns": run["phase_ns"] + run["last_sample_index"] * run["period_ns"],
            }
            for run in self.runs
        )


def refused_sample_indices(run: Mapping[str, Any], *, limit: int = 10_000) -> list[int]:
    """The sample indices of one off-tick run, expanded (at most ``limit`` of them).

    Sample ``n`` of the run was refused exactly when its time ``phase_ns + n *
    period_ns`` is not a tick time of the run's epoch, i.e. when
    ``(t_n - epoch_start_time_ns) % step_ns != 0``.

    Args:
        run: One of :attr:`~leviathan.world.World.off_tick_samples`.
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
