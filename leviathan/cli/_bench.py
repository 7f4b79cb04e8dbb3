"""``leviathan bench``: benchmarks that print figures beside a peer and never assert times."""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from typing import Any

__all__ = ["add_subparser"]

# What a target's handler returns: the bench's result and the function that tables it.
_Measured = tuple[dict[str, Any], Callable[[dict[str, Any]], str]]


def _reports(
    target: argparse.ArgumentParser, measure: Callable[[argparse.Namespace], _Measured]
) -> None:
    """Gives ``target`` its ``--json`` flag and its handler: ``measure(args)``, printed as
    JSON or as its table (exit 0)."""
    target.add_argument("--json", action="store_true", help="print JSON instead of a table")

    def handler(args: argparse.Namespace) -> int:
        result, table = measure(args)
        print(json.dumps(result, indent=2, sort_keys=True) if args.json else table(result))
        return 0

    target.set_defaults(func=handler)


def _sonar(args: argparse.Namespace) -> _Measured:
    if args.sensor == "imaging_sonar":
        from leviathan.bench import bench_sonar as bench
        from leviathan.bench import format_sonar_bench as table
    else:
        from leviathan._bench_beside import bench_beside, format_beside_bench

        bench = functools.partial(bench_beside, args.sensor)
        table = functools.partial(format_beside_bench, sensor=args.sensor)
    result = bench(
        triangle_counts=args.triangles,
        pings=args.pings,
        backend=args.backend,
        device=args.device,
        bearings=args.bearings,
        elevations=args.elevations,
    )
    return result, table


def _learning(args: argparse.Namespace) -> _Measured:
    from leviathan.bench import bench_learning, format_learning_bench

    sonar = tuple(args.sonar)
    result = bench_learning(
        env_counts=args.envs,
        steps=args.steps,
        devices=[args.device] if args.device else None,
        sonar=(sonar[0], sonar[1]),
        canonical=not args.no_canonical,
    )
    return result, format_learning_bench


def _service(args: argparse.Namespace) -> _Measured:
    from leviathan.service import bench_service, format_service_bench

    result = bench_service(
        world_counts=args.worlds, steps=args.steps, ticks=args.ticks, clients=args.clients
    )
    return result, format_service_bench


def _world(args: argparse.Namespace) -> _Measured:
    from leviathan._bench_world import bench_world, format_world_bench

    result = bench_world(
        ticks=args.ticks,
        runs=args.runs,
        seabed_triangles=args.triangles,
        sonar_size=None if args.sonar is None else (args.sonar[0], args.sonar[1]),
        configurations=args.configurations,
        snapshot_ticks=args.snapshot_ticks,
        hash_mib=args.hash_mib,
    )
    return result, format_world_bench


def _dataset(args: argparse.Namespace) -> _Measured:
    from leviathan._bench_dataset import bench_dataset, format_dataset_bench

    return bench_dataset(frames=args.frames, seabed_triangles=args.triangles), format_dataset_bench


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``bench`` with its targets (sonar, learning, service, world, dataset, sweep)."""
    p = subparsers.add_parser("bench", help="benchmarks (prints figures; never asserts times)")
    targets = p.add_subparsers(dest="target", required=True, metavar="TARGET")

    b = targets.add_parser("sonar", help="reference survey sonar over generated seabeds")
    b.add_argument(
        "--backend",
        default="all",
        choices=["all", "reference", "warp", "auto"],
        help="tracers to time side by side (default: all = reference and Warp on every device)",
    )
    b.add_argument(
        "--device",
        default=None,
        help="one device for --backend warp/auto: cpu or cuda:N (default: the backend's own)",
    )
    b.add_argument("--bearings", type=int, default=512, help="sonar bearings")
    b.add_argument("--elevations", type=int, default=128, help="elevation samples per bearing")
    b.add_argument(
        "--triangles",
        type=int,
        nargs="+",
        default=[10_000, 100_000, 1_000_000],
        help="seabed triangle counts",
    )
    b.add_argument("--pings", type=int, default=5, help="pings per seabed; the median is reported")
    b.add_argument(
        "--sensor",
        default="imaging_sonar",
        choices=["imaging_sonar", "side_scan", "multibeam"],
        help="imaging_sonar: the survey sonar's tracers; side_scan / multibeam: the catalogue "
        "side-scan's lines/s or multibeam's pings/s beside the imaging sonar's pings/s in the "
        "same run",
    )
    _reports(b, _sonar)

    b = targets.add_parser(
        "learning", help="learning-tier vector env (float32, batched) beside the canonical World"
    )
    b.add_argument("--envs", type=int, nargs="+", default=[1, 64, 1024, 4096], help="env counts")
    b.add_argument("--steps", type=int, default=50, help="control steps per timed run")
    b.add_argument("--device", default=None, help="one Warp device (default: every device)")
    b.add_argument(
        "--sonar",
        type=int,
        nargs=2,
        default=[64, 8],
        metavar=("BEARINGS", "ELEVATIONS"),
        help="size of the low-resolution sonar observation",
    )
    b.add_argument("--no-canonical", action="store_true", help="skip the canonical peer")
    _reports(b, _learning)

    b = targets.add_parser(
        "service", help="step-request latency and ticks/s over HTTP beside in-process"
    )
    b.add_argument("--worlds", type=int, nargs="+", default=[1, 32], help="World counts")
    b.add_argument("--steps", type=int, default=20, help="step requests per World")
    b.add_argument("--ticks", type=int, default=10, help="ticks per step request")
    b.add_argument("--clients", type=int, default=8, help="client threads")
    _reports(b, _service)

    b = targets.add_parser(
        "world", help="World ms/tick by sensor configuration, beside the dynamics-only tick"
    )
    b.add_argument("--ticks", type=int, default=200, help="ticks per timed run")
    b.add_argument("--runs", type=int, default=3, help="timed runs; the median is reported")
    b.add_argument("--triangles", type=int, default=20_000, help="seabed triangles")
    b.add_argument(
        "--sonar",
        type=int,
        nargs=2,
        default=None,
        metavar=("BEARINGS", "ELEVATIONS"),
        help="sonar size (default: the catalogue sonar)",
    )
    b.add_argument(
        "--configurations",
        nargs="+",
        default=None,
        help="dynamics +imu +dvl +sonar +camera (default: all; dynamics is always timed)",
    )
    b.add_argument(
        "--snapshot-ticks",
        type=int,
        default=20_000,
        help="ticks of the World whose snapshot is timed (0 skips)",
    )
    b.add_argument(
        "--hash-mib", type=int, default=64, help="array size for the hashing figure [MiB] (0 skips)"
    )
    _reports(b, _world)

    b = targets.add_parser(
        "dataset",
        help="HDF5 bytes and write time per survey sonar frame, layouts v4 to v1 (dense, the peer)",
    )
    b.add_argument("--frames", type=int, default=5, help="survey sonar frames to write")
    b.add_argument("--triangles", type=int, default=100_000, help="seabed triangles")
    _reports(b, _dataset)

    # `bench sweep` lives with the sweeps (leviathan.sweep.cli).
    from leviathan.sweep.cli import add_bench_subparser

    add_bench_subparser(targets)
