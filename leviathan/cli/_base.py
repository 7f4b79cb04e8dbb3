"""What every subcommand module shares: exit statuses, the error types, the parser class.

A subcommand module (``leviathan/cli/_<name>.py``, or one elsewhere such as
``leviathan/sweep/_cli.py``) exposes ``add_subparser(subparsers)``: it adds its
parser with ``subparsers.add_parser(...)`` (which makes a :class:`Parser`, so usage
errors and the defaults in the help behave the same everywhere) and sets
``func=<handler>`` with ``set_defaults``. A handler takes the parsed
:class:`argparse.Namespace`, calls the library function a Python user would call,
prints its result and returns the exit status (0). Failures are raised, never
printed: :func:`leviathan.cli.main` reports each as one ``error:`` line.

Every handler runs under :func:`leviathan._interrupt.handling_signals` (Ctrl-C
and SIGTERM stop it within a second, leaving no temporaries). A subcommand that
handles signals itself (``serve``: uvicorn's graceful shutdown) sets
``handles_own_signals=True`` with ``set_defaults``.
"""

from __future__ import annotations

import argparse
import errno
import os
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "CommandFailed",
    "InputError",
    "Parser",
    "UsageError",
    "input_path",
]

EXIT_FAILURE = 1
"""Exit status when a command could not complete (OS errors, refused operations, bugs)."""
EXIT_BAD_INPUT = 2
"""Exit status for a usage error, a missing input file, or an input value refused by
validation (as argparse)."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it); 143 after SIGTERM."""


class UsageError(Exception):
    """A command line argparse refused; its message is argparse's."""


class CommandFailed(Exception):
    """A command ran to the end and found a failure it has already detailed on stdout."""


class InputError(FileNotFoundError):
    """An input the command reads is missing: bad input (exit 2), not a failure to write."""


def input_path(path: str | os.PathLike[str], what: str, *, folder_ok: bool = False) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it exists, else :class:`InputError` naming it.

    Args:
        path: The file (or, with ``folder_ok``, folder) the command reads.
        what: What it should be, for the message (``"scenario document"``).
        folder_ok: Whether a folder is an acceptable input.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(errno.ENOENT, f"no such file or folder (the {what})", str(path))
    if path.is_dir() and not folder_ok:
        raise InputError(errno.EISDIR, f"is a folder; expected the {what}, a file", str(path))
    return path


class HelpFormatter(argparse.HelpFormatter):
    """Shows each option's default in its help, unless the help already says it.

    An option whose default is ``None`` (or anything that is no plain value) states
    its default in words in its own help; ``tests/test_cli.py`` checks every option.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            not action.option_strings
            or action.default is argparse.SUPPRESS
            or action.required
            or "default" in text
            or isinstance(action, argparse._HelpAction)
        ):
            return text
        if isinstance(action, argparse._StoreTrueAction):
            return f"{text} (default: off)"
        if action.default is None:
            return text
        value: Any = action.default
        if isinstance(value, list | tuple):
            value = " ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
        # argparse %-formats help strings: a % in a default must not start a field.
        return f"{text} (default: {str(value).replace('%', '%%')})"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors reach :func:`leviathan.cli.main` instead of exiting.

    argparse would print the usage text and a message and exit; raising lets
    ``main`` print the one ``error:`` line every failure gets. Subcommand parsers
    are made with the same class (argparse's ``add_parser`` uses the parent's), so
    they behave the same, and show their defaults (:class:`HelpFormatter`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")
