"""The ``leviathan`` command line: ``catalogue``, ``parity``, ``bench``, ``demo``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

__all__ = ["main"]


def _cmd_catalogue(args: argparse.Namespace) -> int:
    from leviathan.catalogue import format_catalogue

    print(format_catalogue())
    return 0


def _cmd_parity(args: argparse.Namespace) -> int:
    from leviathan.parity import check_fixture

    results = check_fixture(args.fixtures, backend=args.backend, device=args.device)
    if args.backend != "reference":
        from leviathan.kernels import compile_reports

        for report in compile_reports().values():
            print(
                f"warp kernels on {report.device}: ready in {report.seconds:.3f} s "
                "(compile, or load from Warp's kernel cache)"
            )
    identical = 0
    for r in results:
        if r.ok:
            identical += 1
            print(f"ok    {r.name}")
        else:
            print(f"FAIL  {r.name}")
            for m in r.mismatches:
                print(f"        {m}")
    print(f"{identical}/{len(results)} bit-identical")
    return 0 if identical == len(results) else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    from leviathan.bench import bench_sonar, format_sonar_bench

    result = bench_sonar(
        triangle_counts=args.triangles,
        pings=args.pings,
        backend=args.backend,
        device=args.device,
        bearings=args.bearings,
        elevations=args.elevations,
    )
    print(json.dumps(result, indent=2, sort_keys=True) if args.json else format_sonar_bench(result))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from leviathan.demo import run_demo

    run_demo(args.out, seconds=args.seconds, progress=not args.quiet)
    return 0


def _cmd_export_usd(args: argparse.Namespace) -> int:
    from leviathan.demo import build_demo_world
    from leviathan.time import seconds_to_ns

    world = build_demo_world()
    ticks = seconds_to_ns(args.seconds) // world.clock.step_ns
    if ticks:
        world.step(ticks)
    path = world.export_usd(args.path)
    snapshot = world.snapshot().content_hash[:16]
    print(f"wrote {path} ({world.tick + 1} committed ticks, snapshot {snapshot})")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leviathan",
        description="LEVIATHAN: underwater robotics simulation with exact ground truth.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("catalogue", help="list the built-in vehicles with their sensors and rates")
    p.set_defaults(func=_cmd_catalogue)

    p = sub.add_parser(
        "parity", help="check a backend bit for bit against the frozen 28-scene fixture"
    )
    p.add_argument(
        "--backend",
        default="reference",
        choices=["reference", "warp", "auto"],
        help="tracing backend (default: reference)",
    )
    p.add_argument(
        "--device", default=None, help="device for the backend: cpu or cuda:N (default: its own)"
    )
    p.add_argument(
        "--fixtures", default=None, help="fixture directory (default: fixtures/sonar_v1)"
    )
    p.set_defaults(func=_cmd_parity)

    p = sub.add_parser("bench", help="benchmarks (prints figures; never asserts times)")
    bench_sub = p.add_subparsers(dest="target", required=True, metavar="TARGET")
    b = bench_sub.add_parser("sonar", help="reference survey sonar over generated seabeds")
    b.add_argument(
        "--backend",
        default="all",
        choices=["all", "reference", "warp", "auto"],
        help="tracers to time side by side (default: all = reference and Warp on every device)",
    )
    b.add_argument(
        "--device", default=None, help="one device for --backend warp/auto: cpu or cuda:N"
    )
    b.add_argument("--bearings", type=int, default=512, help="sonar bearings (default: 512)")
    b.add_argument(
        "--elevations", type=int, default=128, help="elevation samples per bearing (default: 128)"
    )
    b.add_argument(
        "--triangles",
        type=int,
        nargs="+",
        default=[10_000, 100_000, 1_000_000],
        help="seabed triangle counts (default: 1e4 1e5 1e6)",
    )
    b.add_argument("--pings", type=int, default=5, help="pings per seabed; the median is reported")
    b.add_argument("--json", action="store_true", help="print JSON instead of a table")
    b.set_defaults(func=_cmd_bench)

    p = sub.add_parser(
        "export-usd", help="run the survey demo World and write it as an OpenUSD stage"
    )
    p.add_argument("path", help="output stage, .usda or .usdc")
    p.add_argument("--seconds", default="0", help="simulated seconds before export (default: 0)")
    p.set_defaults(func=_cmd_export_usd)

    p = sub.add_parser("demo", help="survey demo: a survey AUV and an inspection ROV in one World")
    p.add_argument("--out", default="survey_out", help="output directory (default: survey_out)")
    p.add_argument("--seconds", type=int, default=20, help="simulated seconds (default: 20)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, TypeError, KeyError, FileExistsError, RuntimeError) as exc:
        print(f"leviathan {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
