"""Small sweep documents for the sweep tests: fractions of a second per run.

A world run here is the reference survey vehicle with its IMU and DVL over a flat
seabed, traced by the numpy reference (no Warp kernel load per worker), for a few
tenths of a second, written to HDF5 and MCAP.
"""

from __future__ import annotations

import copy
import filecmp
from pathlib import Path
from typing import Any

from leviathan.sweep import RUNS_FOLDER, read_index
from leviathan.sweep._bench import line_run


def world_run(*, ticks: int = 20, sensors: tuple[str, ...] = ("auv/imu", "auv/dvl")) -> dict:
    """A tiny canonical World run table (``[run]``): the sweep benchmark's line run."""
    run = line_run(ticks, sensors=sensors)
    run["scenario"] |= {"name": "tiny", "root_seed": 1}
    return run


def sweep(run: dict | None = None, axes: list | None = None, **top: Any) -> dict:
    """A sweep document (a dict) over ``run`` (default :func:`world_run`)."""
    return {
        "name": "tests",
        "run": copy.deepcopy(run if run is not None else world_run()),
        "axes": copy.deepcopy(axes if axes is not None else []),
        **top,
    }


def grid(seeds: int = 6, speeds: tuple[float, ...] = (0.5, 1.0), depths=(15.0, 20.0)) -> dict:
    """``seeds x len(speeds) x len(depths)`` world runs (24 by default)."""
    return sweep(
        axes=[
            {
                "name": "seed",
                "path": "scenario.root_seed",
                "range": {"start": 1, "stop": seeds, "step": 1},
            },
            {
                "name": "speed",
                "path": "scenario.vehicles[0].controller.speed_m_per_s",
                "values": list(speeds),
            },
            {
                "name": "depth",
                "path": "scenario.vehicles[0].controller.depth_m",
                "values": list(depths),
            },
        ]
    )


def run_hashes(out: Path) -> dict[str, tuple[str, str | None]]:
    """Key -> (status, run hash) from a sweep output's index."""
    return {r["key"]: (r["status"], r["run_hash"]) for r in read_index(out)}


def differing_files(a: Path, b: Path) -> list[str]:
    """Files of the run folders of ``a`` and ``b`` that differ, are missing in one, or are
    extra (``execution.json``, who ran it and how long, is the one file left out)."""
    problems = []
    runs_a, runs_b = Path(a) / RUNS_FOLDER, Path(b) / RUNS_FOLDER
    keys = sorted({p.name for p in runs_a.iterdir()} | {p.name for p in runs_b.iterdir()})
    for key in keys:
        files_a = {p.relative_to(runs_a / key) for p in (runs_a / key).rglob("*") if p.is_file()}
        files_b = {p.relative_to(runs_b / key) for p in (runs_b / key).rglob("*") if p.is_file()}
        for name in sorted(files_a ^ files_b):
            problems.append(f"{key}/{name}: in one output only")
        for name in sorted(files_a & files_b):
            if name.name == "execution.json":
                continue
            if not filecmp.cmp(runs_a / key / name, runs_b / key / name, shallow=False):
                problems.append(f"{key}/{name}: differs")
    return problems
