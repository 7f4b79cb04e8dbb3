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

from leviathan._lazy import lazy_exports

# Imported on first use, so that `leviathan sweep status` and the other CLI commands
# do not load the World, the analytic tier or Ray to parse their arguments.
_HOMES = {
    "bench_sweep": "leviathan.sweep._bench",
    "format_sweep_bench": "leviathan.sweep._bench",
    "build_world": "leviathan.sweep._documents",
    "canonical_run": "leviathan.sweep._documents",
    "EXECUTORS": "leviathan.sweep._executors",
    "Executor": "leviathan.sweep._executors",
    "SerialExecutor": "leviathan.sweep._executors",
    "SweepError": "leviathan.sweep._errors",
    "make_executor": "leviathan.sweep._executors",
    "INDEX_NAME": "leviathan.sweep._index",
    "collect_table": "leviathan.sweep._index",
    "partial_folders": "leviathan.sweep._index",
    "read_index": "leviathan.sweep._index",
    "rebuild_index": "leviathan.sweep._index",
    "sweep_status": "leviathan.sweep._index",
    "PlannedRun": "leviathan.sweep._plan",
    "SweepPlan": "leviathan.sweep._plan",
    "fixture_hashes": "leviathan.sweep._plan",
    "load_sweep": "leviathan.sweep._plan",
    "plan_sweep": "leviathan.sweep._plan",
    "run_key": "leviathan.sweep._plan",
    "sweep_from_dict": "leviathan.sweep._plan",
    "RayExecutor": "leviathan.sweep._ray",
    "RUNS_FOLDER": "leviathan.sweep._run",
    "SWEEP_JOB": "leviathan.sweep._run",
    "RunTask": "leviathan.sweep._run",
    "execute_run": "leviathan.sweep._run",
    "verify_run": "leviathan.sweep._run",
    "MAX_AXIS_VALUES": "leviathan.sweep._schema",
    "MAX_SWEEP_RUNS": "leviathan.sweep._schema",
    "AxisDocument": "leviathan.sweep._schema",
    "OutputsDocument": "leviathan.sweep._schema",
    "PlacementDocument": "leviathan.sweep._schema",
    "RangeDocument": "leviathan.sweep._schema",
    "RunDocument": "leviathan.sweep._schema",
    "SampleDocument": "leviathan.sweep._schema",
    "SceneDocument": "leviathan.sweep._schema",
    "SweepDocument": "leviathan.sweep._schema",
    "parse_path": "leviathan.sweep._schema",
    "LOCK_NAME": "leviathan.sweep._sweep",
    "SweepSummary": "leviathan.sweep._sweep",
    "run_sweep": "leviathan.sweep._sweep",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())

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
