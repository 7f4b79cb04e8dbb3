"""``leviathan export-usd``: the survey demo World, stepped, written as an OpenUSD stage."""

from __future__ import annotations

import argparse

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.demo import TICK_NS, build_demo_world, ticks_for_duration
    from leviathan.usd import check_stage_path

    # Everything that can be refused is refused before the World is built and run.
    ticks = ticks_for_duration(args.seconds, TICK_NS, name="--seconds")
    path = check_stage_path(args.path)
    world = build_demo_world()
    if ticks:
        world.step(ticks)
    path = world.export_usd(path)
    snapshot = world.snapshot().content_hash[:16]
    print(f"wrote {path} ({world.tick + 1} committed ticks, snapshot {snapshot})")
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``export-usd`` and its handler."""
    p = subparsers.add_parser(
        "export-usd", help="run the survey demo World and write it as an OpenUSD stage"
    )
    p.add_argument("path", help="output stage, .usda or .usdc")
    p.add_argument(
        "--seconds",
        default="0",
        help="simulated seconds before export, a whole number of 10 ms ticks",
    )
    p.set_defaults(func=_run)
