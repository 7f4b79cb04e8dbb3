"""Sweeps: scenarios x parameters x seeds, content-addressed, resumable, on one machine or Ray.

A sweep document (:class:`SweepDocument`, ``leviathan sweep run SWEEP.toml --out
OUT``) declares a base run, either a canonical World run or an analytic scenario
run, and axes of values addressed by path. Each run's canonical document is built
first (:func:`plan_sweep`); its key, the SHA-256 of that document with the
project version and the frozen fixture's manifest hash, names its folder
``OUT/runs/<key>/``, written atomically (:func:`execute_run`). A run whose folder
verifies is never run again; the index ``OUT/index.jsonl`` lists every run
(:func:`rebuild_index` recreates it from the folders). Executors only schedule:
:class:`SerialExecutor` (the default, no Ray) and :class:`RayExecutor` (a local
or a real Ray cluster, ``pip install -e .[cluster]``) give the same files.
"""

from leviathan.sweep._bench import bench_sweep, format_sweep_bench
from leviathan.sweep._documents import build_world, canonical_run
from leviathan.sweep._executors import (
    EXECUTORS,
    Executor,
    SerialExecutor,
    SweepError,
    make_executor,
)
from leviathan.sweep._index import (
    INDEX_NAME,
    collect_table,
    partial_folders,
    read_index,
    rebuild_index,
    sweep_status,
)
from leviathan.sweep._plan import (
    PlannedRun,
    SweepPlan,
    fixture_hashes,
    load_sweep,
    plan_sweep,
    run_key,
    sweep_from_dict,
)
from leviathan.sweep._ray import RayExecutor
from leviathan.sweep._run import RUNS_FOLDER, SWEEP_JOB, RunTask, execute_run, verify_run
from leviathan.sweep._schema import (
    MAX_AXIS_VALUES,
    MAX_SWEEP_RUNS,
    AxisDocument,
    OutputsDocument,
    PlacementDocument,
    RangeDocument,
    RunDocument,
    SampleDocument,
    SceneDocument,
    SweepDocument,
    parse_path,
)
from leviathan.sweep._sweep import LOCK_NAME, SweepSummary, run_sweep

__all__ = [
    "EXECUTORS",
    "INDEX_NAME",
    "LOCK_NAME",
    "MAX_AXIS_VALUES",
    "MAX_SWEEP_RUNS",
    "RUNS_FOLDER",
    "SWEEP_JOB",
    "AxisDocument",
    "Executor",
    "OutputsDocument",
    "PlacementDocument",
    "PlannedRun",
    "RangeDocument",
    "RayExecutor",
    "RunDocument",
    "RunTask",
    "SampleDocument",
    "SceneDocument",
    "SerialExecutor",
    "SweepDocument",
    "SweepError",
    "SweepPlan",
    "SweepSummary",
    "bench_sweep",
    "build_world",
    "canonical_run",
    "collect_table",
    "execute_run",
    "fixture_hashes",
    "format_sweep_bench",
    "load_sweep",
    "make_executor",
    "parse_path",
    "partial_folders",
    "plan_sweep",
    "read_index",
    "rebuild_index",
    "run_key",
    "run_sweep",
    "sweep_from_dict",
    "sweep_status",
    "verify_run",
]
