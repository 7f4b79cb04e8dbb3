"""``leviathan demo``: the survey demo, a survey AUV and an inspection ROV in one World."""

from __future__ import annotations

import argparse

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.demo import TICK_NS, run_demo, ticks_for_duration

    # Validated here too so that the message names the option as typed.
    ticks_for_duration(args.seconds, TICK_NS, name="--seconds", minimum=1)
    if isinstance(args.seabed_triangles, bool) or args.seabed_triangles < 2:
        raise ValueError(
            f"--seabed-triangles: expected a whole number >= 2, got {args.seabed_triangles}"
        )
    run_demo(
        args.out,
        seconds=args.seconds,
        progress=not args.quiet,
        seabed_triangles=args.seabed_triangles,
    )
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``demo`` and its handler."""
    from leviathan.demo import DEMO_SEABED_TRIANGLES

    p = subparsers.add_parser(
        "demo", help="survey demo: a survey AUV and an inspection ROV in one World"
    )
    p.add_argument("--out", default="survey_out", help="output directory")
    p.add_argument(
        "--seconds",
        default="20",
        help="simulated seconds, a positive whole number of 10 ms ticks",
    )
    p.add_argument(
        "--seabed-triangles",
        type=int,
        default=DEMO_SEABED_TRIANGLES,
        metavar="N",
        help="triangles of the generated seabed; fewer for a quick look (a different scene: "
        "the run hash is then not the demo's)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_run)
