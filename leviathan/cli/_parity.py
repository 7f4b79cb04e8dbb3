"""``leviathan parity``: a tracing backend checked bit for bit against each frozen fixture."""

from __future__ import annotations

import argparse
import errno
from pathlib import Path

from leviathan.cli._base import CommandFailed, InputError

__all__ = ["FIXTURE_CHOICES", "add_subparser"]

FIXTURE_CHOICES = ("sonar_v1", "sidescan_v1", "multibeam_v1")
"""``--fixture``'s choices: :data:`leviathan.parity.FIXTURE_NAMES` (a test keeps them equal),
written out so that building the parser imports no fixture code."""


def _run(args: argparse.Namespace) -> int:
    from leviathan.parity import FIXTURE_NAMES, FixtureError, check_fixture, default_fixture_dir

    if args.fixture is not None:
        fixtures = [args.fixture]
    elif args.fixtures is not None:
        fixtures = ["sonar_v1"]  # a folder names one fixture; sonar_v1 unless --fixture says
    else:
        fixtures = list(FIXTURE_NAMES)
    checked: list[tuple[str, list]] = []
    for fixture in fixtures:
        root = Path(args.fixtures) if args.fixtures is not None else default_fixture_dir(fixture)
        try:
            results = check_fixture(
                args.fixtures, backend=args.backend, device=args.device, fixture=fixture
            )
        except FixtureError as error:
            if not root.exists():
                # The fixture folder is an input (named by the user or an environment
                # variable): a missing one is bad input, exit 2; a corrupt one stays a
                # failure, exit 1.
                raise InputError(errno.ENOENT, str(error)) from error
            raise
        checked.append((fixture, results))
    if args.backend != "reference":
        from leviathan.kernels import compile_reports

        for report in compile_reports().values():
            print(
                f"warp kernels on {report.device}: ready in {report.seconds:.3f} s "
                "(compile, or load from Warp's kernel cache)"
            )
    failed = total = 0
    for fixture, results in checked:
        identical = 0
        print(f"fixture {fixture}")
        for r in results:
            if r.ok:
                identical += 1
                print(f"ok    {r.name}")
            else:
                print(f"FAIL  {r.name}")
                for m in r.mismatches:
                    print(f"        {m}")
        print(f"{fixture}: {identical}/{len(results)} bit-identical")
        failed += len(results) - identical
        total += len(results)
    if failed:
        raise CommandFailed(
            f"{failed} of {total} fixture scenes are not bit-identical (see the FAIL lines above)"
        )
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``parity`` and its handler."""
    p = subparsers.add_parser(
        "parity",
        help="check a backend bit for bit against the frozen fixtures (sonar_v1: 28 scenes, "
        "sidescan_v1: 21, multibeam_v1: 14)",
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
    p.add_argument(
        "--fixture",
        default=None,
        choices=list(FIXTURE_CHOICES),
        help="check this fixture only (default: every fixture; with --fixtures DIR, sonar_v1)",
    )
    p.set_defaults(func=_run)
