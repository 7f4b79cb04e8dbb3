"""``leviathan parity``: a tracing backend checked bit for bit against the frozen fixture."""

from __future__ import annotations

import argparse
import errno
from pathlib import Path

from leviathan.cli._base import CommandFailed, InputError

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.parity import FixtureError, check_fixture, default_fixture_dir

    root = Path(args.fixtures) if args.fixtures is not None else default_fixture_dir()
    try:
        results = check_fixture(args.fixtures, backend=args.backend, device=args.device)
    except FixtureError as error:
        if not root.exists():
            # The fixture folder is an input (named by the user or $LEVIATHAN_FIXTURES):
            # a missing one is bad input, exit 2; a corrupt one stays a failure, exit 1.
            raise InputError(errno.ENOENT, str(error)) from error
        raise
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
    if identical != len(results):
        raise CommandFailed(
            f"{len(results) - identical} of {len(results)} fixture scenes are not bit-identical "
            "(see the FAIL lines above)"
        )
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``parity`` and its handler."""
    p = subparsers.add_parser(
        "parity", help="check a backend bit for bit against the frozen 28-scene fixture"
    )
    p.add_argument(
        "--backend",
        default="reference",
        choices=["reference", "warp", "auto"],
        help="tracing backend",
    )
    p.add_argument(
        "--device", default=None, help="device for the backend: cpu or cuda:N (default: its own)"
    )
    p.add_argument(
        "--fixtures",
        default=None,
        metavar="DIR",
        help="fixture directory holding manifest.json and the scene .npz files (default: "
        "$LEVIATHAN_FIXTURES, else the fixture installed with the package)",
    )
    p.set_defaults(func=_run)
