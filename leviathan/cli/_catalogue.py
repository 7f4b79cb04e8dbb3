"""``leviathan catalogue``: the built-in vehicles with their sensors and rates."""

from __future__ import annotations

import argparse

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.catalogue import format_catalogue

    print(format_catalogue())
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``catalogue`` and its handler."""
    p = subparsers.add_parser(
        "catalogue", help="list the built-in vehicles with their sensors and rates"
    )
    p.set_defaults(func=_run)
