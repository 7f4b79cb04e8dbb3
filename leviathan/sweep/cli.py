"""``leviathan sweep`` and ``leviathan bench sweep``, registered by :mod:`leviathan.cli`.

* ``leviathan sweep run SWEEP.toml --out OUT [--executor serial|ray] [--workers N]
  [--address ADDR] [--limit N] [--retry-failed]``: runs a sweep with a progress
  bar (runs done, failed, skipped, ETA), then one line per failure;
* ``leviathan sweep status OUT [--json]``: counts, failures with their errors,
  the slowest runs; ``--rebuild`` rewrites the index from the run folders;
* ``leviathan sweep collect OUT --table runs.csv|runs.parquet``: one row per run.

Exit statuses as every ``leviathan`` command: 0 done, 1 could not complete (a
run failed, the output folder is in use or not shared by every Ray node, Ray is
not installed), 2 bad input (a refused sweep document or option, a missing
file), 130 Ctrl-C (finished runs are kept, no partial run folder is left).
Each handler calls the library function a Python user would call.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_bench_subparser", "add_subparser"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def _existing(path: str, what: str) -> Path:
    """A path that must exist: a missing input is bad input (exit 2), not a failure."""
    if not Path(path).exists():
        raise ValueError(f"{path}: no such {what}")
    return Path(path)


def _error(message: str) -> int:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return 1


def _cmd_run(args: argparse.Namespace) -> int:
    from leviathan.sweep import SweepError, run_sweep

    sweep = _existing(args.sweep, "sweep document")
    try:
        summary = run_sweep(
            sweep,
            args.out,
            executor=args.executor,
            workers=args.workers,
            address=args.address,
            limit=args.limit,
            retry_failed=args.retry_failed,
            max_retries=args.max_retries,
            max_in_flight=args.max_in_flight,
            progress=not args.quiet,
        )
    except SweepError as error:
        return _error(str(error))
    for note in summary.notes:
        print(f"note: {note}")
    dup = f", {summary.duplicates} duplicate(s) run once" if summary.duplicates else ""
    print(
        f"sweep -> {summary.out}: {summary.planned} runs{dup}: {summary.executed} run now "
        f"({summary.executor}), {summary.skipped} skipped (done or failed before); "
        f"{summary.done} done, {summary.failed} failed; {summary.wall_s:.1f} s"
    )
    for key, error in summary.failures[:20]:
        print(f"  failed {key[:16]}: {error}")
    if len(summary.failures) > 20:
        print(f"  ... and {len(summary.failures) - 20} more (leviathan sweep status {args.out})")
    if summary.failed:
        return _error(
            f"{summary.failed} of {summary.planned} runs failed (leviathan sweep status "
            f"{args.out}; --retry-failed runs them again)"
        )
    return 0


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in params.items())


def _cmd_status(args: argparse.Namespace) -> int:
    from leviathan.sweep import rebuild_index, sweep_status

    out = _existing(args.out, "sweep output folder")
    if args.rebuild:
        rebuild_index(out)
    status = sweep_status(out)
    if args.json:
        print(json.dumps(status, indent=2, sort_keys=True))
        return 0
    causes = ", ".join(f"{n} {cause}" for cause, n in sorted(status["by_cause"].items()))
    print(
        f"{out}: {status['runs']} runs: {status['done']} done, {status['failed']} failed"
        f"{f' ({causes})' if causes else ''}; {status['seconds']:.1f} s of runs; index "
        f"{status['index']}"
    )
    if status["partial_folders"]:
        print(
            f"  {status['partial_folders']} temporary run folder(s): a sweep is running, or one "
            "was killed (the next sweep run removes them)"
        )
    for failure in status["failures"][:50]:
        print(f"  failed {failure['key'][:16]} [{failure['cause']}] {_params(failure['params'])}")
        print(f"      {failure['error']}")
    if status["slowest"]:
        print("  slowest:")
        for run in status["slowest"]:
            print(f"    {run['seconds']:8.2f} s  {run['key'][:16]}  {_params(run['params'])}")
    return 0


def _cmd_collect(args: argparse.Namespace) -> int:
    from leviathan.sweep import collect_table

    out = _existing(args.out, "sweep output folder")
    path = collect_table(out, args.table)
    print(f"wrote {path}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from leviathan.sweep import bench_sweep, format_sweep_bench

    result = bench_sweep(
        runs=args.runs, run_seconds=args.run_seconds, workers=args.workers, cores=tuple(args.cores)
    )
    print(json.dumps(result, indent=2, sort_keys=True) if args.json else format_sweep_bench(result))
    return 0


def add_subparser(subparsers: Any) -> None:
    """Adds ``sweep run``, ``sweep status`` and ``sweep collect`` to ``leviathan``'s subparsers."""
    p = subparsers.add_parser("sweep", help="run scenarios x parameters x seeds (serial or Ray)")
    sub = p.add_subparsers(dest="sweep_command", metavar="SUBCOMMAND", required=True)
    r = sub.add_parser("run", help="run a sweep document (.toml/.json) into an output folder")
    r.add_argument("sweep", help="sweep document, e.g. examples/survey_sweep.toml")
    r.add_argument("--out", required=True, help="output folder (finished runs in it are reused)")
    r.add_argument(
        "--executor", default="serial", choices=("serial", "ray"), help="(default: serial)"
    )
    r.add_argument(
        "--workers",
        type=_positive,
        default=None,
        help="ray: CPUs of a local cluster (default: all)",
    )
    r.add_argument(
        "--address",
        default=None,
        help="ray: a running cluster, e.g. auto or HEAD:6379 (default: $RAY_ADDRESS, else local)",
    )
    r.add_argument(
        "--limit",
        type=_positive,
        default=None,
        help="run only the first N runs (default: all of them)",
    )
    r.add_argument(
        "--retry-failed", action="store_true", help="run again the runs that failed before"
    )
    r.add_argument(
        "--max-retries",
        type=int,
        default=3,
        help="ray: runs of a task again after its worker died (default: 3)",
    )
    r.add_argument(
        "--max-in-flight",
        type=_positive,
        default=None,
        help="ray: most unfinished tasks at once (default: 2 x the cluster's CPUs)",
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    # A sweep stops itself on Ctrl-C (it cancels the runs in flight, on Ray workers too, and
    # removes their temporary folders), so the command line's watchdog must not cut it short.
    r.set_defaults(func=_cmd_run, handles_own_signals=True)
    s = sub.add_parser("status", help="counts, failures and slowest runs of a sweep's output")
    s.add_argument("out", help="the sweep's output folder")
    s.add_argument("--rebuild", action="store_true", help="rewrite index.jsonl from the folders")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_cmd_status)
    c = sub.add_parser("collect", help="one table row per run (parameters and figures)")
    c.add_argument("out", help="the sweep's output folder")
    c.add_argument("--table", required=True, help="runs.csv, or runs.parquet (needs pyarrow)")
    c.set_defaults(func=_cmd_collect)


def add_bench_subparser(bench_subparsers: Any) -> None:
    """Adds ``bench sweep`` to ``leviathan bench``'s subparsers."""
    b = bench_subparsers.add_parser(
        "sweep", help="a sweep serial vs on a local Ray cluster; Ray's overhead; projection"
    )
    b.add_argument("--runs", type=_positive, default=200, help="runs (default: 200)")
    b.add_argument(
        "--run-seconds", type=float, default=0.5, help="target wall time of one run [s] (0.5)"
    )
    b.add_argument("--workers", type=_positive, default=2, help="Ray workers (default: 2)")
    b.add_argument(
        "--cores", type=_positive, nargs="+", default=[64, 512], help="projected core counts"
    )
    b.add_argument("--json", action="store_true", help="print JSON instead of a table")
    b.set_defaults(func=_cmd_bench)
