"""PNG plots of an analytic scenario run (matplotlib, Agg backend; display products only).

* :func:`track_plot`: north-up track of every vehicle (east to the right, north
  up, equal scale) with a marker where each fault took effect and was cleared;
* :func:`depth_thrust_plot`: depth over time, and each vehicle's actual thruster
  forces over time with the faults' effective times marked;
* :func:`sensor_error_plot`: a sensor's measurement error (measured minus true)
  over time.

Plots are written atomically and never enter any hash.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from leviathan._files import write_atomically

__all__ = ["depth_thrust_plot", "sensor_error_plot", "track_plot"]

_FAULT_COLOUR = "tab:red"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    plt = _pyplot()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    return write_atomically(path, buffer.getvalue())


def _label(fault: dict[str, Any]) -> str:
    return f"{fault['thruster']} {fault['kind'].replace('_', ' ')}"


def track_plot(result: Any, path: Path) -> Path:
    """North-up track plot with fault markers (east right, north up, equal scale)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 7), dpi=100)
    for name, run in result.vehicles.items():
        north, east = run.states[:, 0], run.states[:, 1]
        ax.plot(east, north, label=f"{name} ({run.spec.name})")
        ax.plot(east[0], north[0], "ko", markersize=4)
        ax.plot(east[-1], north[-1], "s", markersize=5)
    for fault in result.faults:
        run = result.vehicles[fault["vehicle"]]
        for key, marker in (("effective_tick", "X"), ("cleared_tick", "P")):
            tick = fault[key]
            if tick is None or tick >= run.states.shape[0]:
                continue
            n, e = run.states[tick, 0], run.states[tick, 1]
            ax.plot(e, n, marker, color=_FAULT_COLOUR, markersize=10)
            what = "" if key == "effective_tick" else " cleared"
            t_s = tick * result.step_ns / 1e9
            ax.annotate(
                f"{_label(fault)}{what} @ {t_s:g} s",
                (e, n),
                textcoords="offset points",
                xytext=(6, 6),
                fontsize=8,
                color=_FAULT_COLOUR,
            )
    ax.set_xlabel("east [m]")
    ax.set_ylabel("north [m]")
    ax.set_title(f"{result.scenario.name}: north-up track (analytic tier)")
    ax.set_aspect("equal", adjustable="datalim")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    return _save(fig, path)


def depth_thrust_plot(result: Any, path: Path) -> Path:
    """Depth over time, then per vehicle its actual thruster forces over time."""
    plt = _pyplot()
    rows = 1 + len(result.vehicles)
    fig, axes = plt.subplots(rows, 1, figsize=(9, 2.6 * rows), dpi=100, sharex=True)
    axes = np.atleast_1d(axes)
    for name, run in result.vehicles.items():
        axes[0].plot(run.time_ns / 1e9, run.states[:, 2], label=name)
    axes[0].invert_yaxis()
    axes[0].set_ylabel("depth [m]")
    # Depth is held to millimetres: plain metres on the axis, not an offset like "+1.9999e1".
    axes[0].ticklabel_format(axis="y", useOffset=False, style="plain")
    axes[0].legend(loc="best", fontsize=8)
    for ax, (name, run) in zip(axes[1:], result.vehicles.items(), strict=True):
        t = run.time_ns / 1e9
        for j, thruster in enumerate(run.spec.thrusters):
            ax.plot(t, run.thrust_n[:, j], label=thruster.name, linewidth=1.0)
        for fault in result.faults:
            if fault["vehicle"] != name:
                continue
            ax.axvline(fault["effective_time_ns"] / 1e9, color=_FAULT_COLOUR, linestyle="--")
            ax.text(
                fault["effective_time_ns"] / 1e9,
                ax.get_ylim()[1],
                f" {_label(fault)}",
                color=_FAULT_COLOUR,
                fontsize=8,
                va="top",
            )
            if fault["cleared_time_ns"] is not None:
                ax.axvline(fault["cleared_time_ns"] / 1e9, color=_FAULT_COLOUR, linestyle=":")
        ax.set_ylabel(f"{name} thrust [N]")
        ax.legend(loc="best", fontsize=7, ncol=3)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time [s]")
    axes[0].set_title(f"{result.scenario.name}: depth and actual thrust (analytic tier)")
    axes[0].grid(True, alpha=0.3)
    return _save(fig, path)


def sensor_error_plot(stream: Any, path: Path) -> Path:
    """A sensor's error (measured minus true) per axis over time."""
    plt = _pyplot()
    errors = stream.errors()
    t = np.asarray(stream.arrays["time_ns"]) / 1e9
    fig, axes = plt.subplots(len(errors), 1, figsize=(9, 2.8 * len(errors)), dpi=100, sharex=True)
    axes = np.atleast_1d(axes)
    for ax, (key, values) in zip(axes, errors.items(), strict=True):
        label, scale = stream.error_units(key)
        values = np.asarray(values, dtype=np.float64) * scale
        if values.ndim == 1:
            ax.plot(t, values, linewidth=0.8)
        else:
            for axis, name in enumerate("xyz"):
                ax.plot(t, values[:, axis], label=name, linewidth=0.8)
            ax.legend(loc="best", fontsize=8)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time [s]")
    seed = stream.generator.seed if stream.generator.seeded else "unseeded"
    noise = "noise-free" if stream.noise is None else f"{stream.kind} noise model"
    axes[0].set_title(f"{stream.sensor_id}: error over time ({noise}, seed {seed})")
    return _save(fig, path)
