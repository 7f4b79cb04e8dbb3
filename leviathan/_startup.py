"""Ctrl-C before the command line's own code runs: a clean exit 130, not a traceback.

The ``leviathan`` console script (and ``python -m leviathan``) must import the
package before :func:`leviathan.cli.main` can install its signal handling
(:mod:`leviathan._interrupt`), and importing it takes a few tenths of a second,
over a second on a loaded machine. Python's own handler would turn a Ctrl-C in
that window into a ``KeyboardInterrupt`` traceback of the import. So the
package's ``__init__`` calls :func:`install_if_command_line` first: only in the
command line's own process (never when a program imports LEVIATHAN), it installs
a handler that ends the process at once with the one line ``error: interrupted``
and status 130; nothing has been written yet. ``main`` replaces it with the full
handling for the command and puts it back afterwards, when a signal ends the
process at once with the command's own exit status (the command has finished;
only the interpreter's shutdown is left).

The last exit hook (registered first, so it runs after every library's) then sets
SIGINT and SIGTERM to be ignored: Python's finalisation puts back the default
disposition of every signal it handled (an ignored one stays ignored), and a
signal in that last window would otherwise kill the finished command with
``-SIGINT`` instead of its own status.
"""

from __future__ import annotations

import atexit
import itertools
import os
import signal
import sys
from pathlib import Path
from types import FrameType

__all__ = ["command_finished", "install_if_command_line", "is_startup_handler"]

_finished_status: list[int] = []


def _running_as_command_line() -> bool:
    """Whether this process is ``leviathan ...`` or ``python -m leviathan ...``."""
    argv = list(getattr(sys, "orig_argv", ()))
    if any(a == "-m" and b == "leviathan" for a, b in itertools.pairwise(argv)):
        return True
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not path or Path(path).stem not in ("leviathan", "leviathan-script"):
        return False
    try:
        # The console script pip writes: "from leviathan.cli import main".
        with open(path, encoding="utf-8", errors="replace") as script:
            return "leviathan.cli" in script.read(4096)
    except OSError:
        return False


def _handler(signum: int, frame: FrameType | None) -> None:
    if _finished_status:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os._exit(_finished_status[0])
    try:
        os.write(2, b"error: interrupted\n")
    except OSError:
        pass
    os._exit(128 + int(signum))


def is_startup_handler(handler: object) -> bool:
    """Whether ``handler`` is the one :func:`install_if_command_line` installed."""
    return handler is _handler


def install_if_command_line() -> None:
    """Installs the start-up SIGINT handler, in the command line's own process only.

    Only where SIGINT has Python's default handler (a SIGINT the parent set to be
    ignored stays ignored), and only on the main thread.
    """
    try:
        if _running_as_command_line() and signal.getsignal(signal.SIGINT) is (
            signal.default_int_handler
        ):
            signal.signal(signal.SIGINT, _handler)
            atexit.register(_ignore_signals_after_the_command)
    except (ValueError, OSError):  # not the main thread, or no signals here
        pass


def _ignore_signals_after_the_command() -> None:
    """At the end of the exit hooks of a finished command: its status is the process's."""
    if not _finished_status:
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, signal.SIG_IGN)
        except (ValueError, OSError):
            pass


def command_finished(status: int) -> None:
    """Records the command's exit status: a signal from now on ends the process with it."""
    _finished_status[:] = [int(status)]
