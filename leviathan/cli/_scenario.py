"""``leviathan scenario run``: an analytic scenario (thruster faults, noise) into a folder."""

from __future__ import annotations

import argparse

from leviathan.cli._base import input_path

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.analytic import run_scenario

    document = input_path(args.file, "scenario document (.toml or .json)")
    result = run_scenario(document, out=args.out, progress=not args.quiet)
    print(f"analytic scenario {result.scenario.name!r}: {result.tick_count} ticks -> {args.out}")
    for fault in result.faults:
        print(
            f"  fault {fault['vehicle']}/{fault['thruster']} {fault['kind']}: effective on tick "
            f"{fault['effective_tick']} (t = {fault['effective_time_ns']} ns)"
        )
    for sid, stream in result.sensors.items():
        record = stream.generator.to_json()
        print(f"  sensor {sid}: {stream.arrays['time_ns'].shape[0]} samples, seed {record['seed']}")
    print(f"  analytic hash {result.analytic_hash} (tier analytic, not canonical)")
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``scenario`` with its one subcommand ``run``."""
    p = subparsers.add_parser(
        "scenario", help="analytic scenario runs (thruster faults, sensor noise)"
    )
    commands = p.add_subparsers(dest="scenario_command", metavar="SUBCOMMAND", required=True)
    r = commands.add_parser("run", help="run a scenario document (.toml/.json) into a folder")
    r.add_argument("file", help="scenario document, e.g. examples/survey_stern_failure.toml")
    r.add_argument("--out", required=True, help="output folder (created; a previous run replaced)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_run)
