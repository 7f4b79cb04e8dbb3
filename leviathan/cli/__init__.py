"""The ``leviathan`` command line: one module per subcommand, one place that reports failures.

Subcommands, each in its own module (``add_subparser(subparsers)`` adds its parser
and handler; see :mod:`leviathan.cli._base`): ``catalogue``, ``parity``, ``bench``,
``export-usd``, ``export-dataset``, ``scenario run``, ``sonar-image``, ``bathymetry``, ``demo``,
``serve``. **Adding one** is one line: its module's name in :data:`SUBCOMMANDS`.

Failures are reported in one place, :func:`main`: every failure prints exactly
one line ``error: <what went wrong>`` to stderr (an OS error as
``error: <path>: <why>``) and exits non-zero, without a traceback; a Python
warning (something refused, dropped or degraded) prints one line
``warning: <what>`` and the command goes on:

====  ===================================================================
code  meaning
====  ===================================================================
0     success
1     the command could not complete: an OS error (a file or folder that
      cannot be written or read), a refused World operation, a missing
      optional dependency, a parity mismatch, or an unexpected internal
      error (its line says so)
2     bad input: a usage error (unknown option, bad option value), an input
      file or folder that does not exist, or a value refused by validation
      (``ValueError``, ``TypeError``, ``KeyError``, ``SpecError``, ...)
130   interrupted (Ctrl-C, SIGINT): nothing half-written is left, no
      temporary sibling either; each output is as it was before the run, or
      whole if the signal came after it was put in place (143 for SIGTERM)
====  ===================================================================

Ctrl-C stops every command within about a second, at any moment
(:mod:`leviathan._interrupt`); ``serve`` instead shuts down gracefully on SIGINT
and SIGTERM and exits 0.

``--debug`` (anywhere on the line) or the environment variable
``LEVIATHAN_DEBUG=1`` also prints the traceback above that line, for every
failure except a usage error. ``--verbose`` (anywhere) or ``LEVIATHAN_VERBOSE=1``
lets Warp's own console messages through (its CUDA-driver notice and module-load
lines; :mod:`leviathan._warp_output`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
import traceback
import warnings
from collections.abc import Iterator, Sequence

from leviathan.cli._base import (
    EXIT_BAD_INPUT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    CommandFailed,
    InputError,
    Parser,
    UsageError,
)

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILURE", "EXIT_INTERRUPTED", "SUBCOMMANDS", "main"]

SUBCOMMANDS: tuple[str, ...] = (
    "leviathan.cli._catalogue",
    "leviathan.cli._parity",
    "leviathan.cli._bench",
    "leviathan.cli._export_usd",
    "leviathan.cli._export_dataset",
    "leviathan.cli._scenario",
    "leviathan.cli._sonar_image",
    "leviathan.cli._bathymetry",
    "leviathan.cli._demo",
    "leviathan.cli._serve",
    "leviathan.sweep.cli",
)
"""The modules that each add one subcommand (``add_subparser(subparsers)``), in help order.

Imported when the command line is parsed, by name, so a subcommand's module (and
what it imports) costs nothing until then.
"""


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="leviathan",
        description="LEVIATHAN: underwater robotics simulation with exact ground truth.",
        epilog="Exit status: 0 success, 1 failure, 2 bad input or usage, 130 interrupted "
        "(143 after SIGTERM).",
    )
    # Only listed here for --help: main() takes them out of the line before parsing.
    parser.add_argument(
        "--debug",
        action="store_true",
        help="print the traceback of a failure; anywhere on the line (or LEVIATHAN_DEBUG=1)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="let Warp's own messages through (CUDA-driver notice, module loads); anywhere on "
        "the line (or LEVIATHAN_VERBOSE=1)",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(name).add_subparser(subparsers)
    return parser


def _one_line(text: str) -> str:
    # Some messages (pydantic's) span lines; the error report is one line.
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def _describe(error: BaseException) -> str:
    """The message of ``error`` for the ``error:`` line: an OS error as ``<path>: <why>``."""
    if isinstance(error, OSError) and error.filename is not None:
        where = str(error.filename)
        if error.filename2 is not None:
            where += f" -> {error.filename2}"
        return f"{where}: {error.strerror or error}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    if isinstance(error, KeyError) and len(error.args) == 1:
        return str(error.args[0])  # str(KeyError) would add quotes around the message
    return str(error) or type(error).__name__


def _is_expected(error: Exception) -> bool:
    """Whether ``error`` is one a user can meet and act on, rather than a bug."""
    if isinstance(error, CommandFailed | OSError | ValueError | TypeError | KeyError | ImportError):
        return True
    try:
        from leviathan.parity import FixtureError
        from leviathan.world import ThrusterFaultRefusedError, WorldLimitError
    except Exception:  # reporting must not fail in turn
        return False
    return isinstance(error, WorldLimitError | ThrusterFaultRefusedError | FixtureError)


def _take_flags(argv: list[str]) -> tuple[list[str], bool, bool]:
    """``argv`` without ``--debug``/``--verbose`` (before any ``--``), and whether each is on.

    Taken out before parsing, so they work anywhere on the line (``leviathan demo
    --debug`` as well as ``leviathan --debug demo``) and even when parsing fails
    further along.
    """
    end = argv.index("--") if "--" in argv else len(argv)
    head = argv[:end]
    rest = [a for a in head if a not in ("--debug", "--verbose")] + argv[end:]
    debug = "--debug" in head or os.environ.get("LEVIATHAN_DEBUG", "") not in ("", "0")
    return rest, debug, "--verbose" in head


def _fail(message: str, status: int, error: BaseException | None, debug: bool) -> int:
    if debug and error is not None:
        traceback.print_exception(error, file=sys.stderr)
    print(f"error: {_one_line(message)}", file=sys.stderr)
    return status


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Prints a Python warning as one line ``warning: <message>`` on stderr."""
    print(f"warning: {_one_line(str(message))}", file=sys.stderr)


def _interrupted(debug: bool, error: BaseException | None) -> int:
    from leviathan._interrupt import discard_temporaries, exit_status, mark_reported

    status = exit_status() or EXIT_INTERRUPTED
    discard_temporaries()
    code = _fail("terminated" if status == 143 else "interrupted", status, error, debug)
    mark_reported()
    return code


def _run(args: argparse.Namespace, debug: bool) -> int:
    """Runs the parsed command; every failure becomes one ``error:`` line here."""
    from leviathan._interrupt import interrupt_requested

    try:
        status = int(args.func(args))
        return _interrupted(debug, None) if interrupt_requested() else status
    except KeyboardInterrupt as error:
        return _interrupted(debug, error)
    except BrokenPipeError as error:
        # The reader of stdout went away (`leviathan catalogue | head -1`): point
        # stdout at /dev/null so the interpreter's final flush cannot fail again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return _fail("standard output was closed early", EXIT_FAILURE, error, debug)
    except Exception as error:
        if interrupt_requested():
            # A library turned the interrupt into its own error on the way out.
            return _interrupted(debug, error)
        message = _describe(error)
        if isinstance(error, InputError | ValueError | TypeError | KeyError):
            return _fail(message, EXIT_BAD_INPUT, error, debug)
        if _is_expected(error):
            return _fail(message, EXIT_FAILURE, error, debug)
        return _fail(
            f"internal error: {type(error).__name__}: {message} (please report it; rerun with "
            "--debug or LEVIATHAN_DEBUG=1 for the traceback)",
            EXIT_FAILURE,
            error,
            debug,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line.

    Every failure is reported here and only here, as one ``error: ...`` line on
    stderr; the exit statuses are in the module docstring (:data:`EXIT_FAILURE`,
    :data:`EXIT_BAD_INPUT`, :data:`EXIT_INTERRUPTED`). Long commands run with
    dependable Ctrl-C handling (:func:`leviathan._interrupt.handling_signals`).

    Args:
        argv: The arguments after the program name (default: ``sys.argv[1:]``, and
            then this is the program itself: a signal's watchdog also bounds the
            interpreter's shutdown, and a signal after the command has finished
            ends the process with its status, :mod:`leviathan._startup`).

    Returns:
        The exit status.
    """
    from leviathan._startup import command_finished

    program = argv is None
    status = _main(list(sys.argv[1:] if argv is None else argv), program=program)
    if program:
        if status in (EXIT_INTERRUPTED, 143):
            # Stopped by a signal, everything cleaned up: end now rather than wait on the
            # interpreter's shutdown (worker threads finishing a batch, libraries' exit
            # hooks), which on a loaded machine can take longer than the second promised.
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(status)
        command_finished(status)
    return status


@contextlib.contextmanager
def _python_sigint() -> Iterator[None]:
    """Python's own SIGINT handler (KeyboardInterrupt) in place of the start-up handler."""
    from leviathan._startup import is_startup_handler

    previous = signal.getsignal(signal.SIGINT)
    swap = is_startup_handler(previous) and threading.current_thread() is threading.main_thread()
    if swap:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if swap:
            signal.signal(signal.SIGINT, previous)


def _tune_allocator(args: argparse.Namespace, *, program: bool) -> bool:
    """Keeps freed blocks for reuse (:mod:`leviathan._allocator`) in the command line's
    own process, for every command but ``serve``; whether it asked."""
    if not program or args.command == "serve":
        return False
    from leviathan._allocator import tune_for_batch

    tune_for_batch()
    return True


def _main(argv: list[str], *, program: bool) -> int:
    from leviathan._interrupt import handling_signals
    from leviathan._warp_output import set_verbose

    argv, debug, verbose = _take_flags(argv)
    if verbose:
        set_verbose(True)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            with handling_signals(keep_watchdog=program):
                try:
                    args = _parser().parse_args(argv)
                except SystemExit as exit_:  # --help exits through argparse, with status 0
                    if exit_.code is None or isinstance(exit_.code, int):
                        return exit_.code or 0
                    return _fail(str(exit_.code), EXIT_FAILURE, exit_, debug)
                except UsageError as error:
                    return _fail(str(error), EXIT_BAD_INPUT, None, debug)
                except KeyboardInterrupt as error:
                    return _interrupted(debug, error)
                _tune_allocator(args, program=program)
                if not getattr(args, "handles_own_signals", False):
                    return _run(args, debug)
            # serve: uvicorn's own SIGINT/SIGTERM handling (a graceful shutdown); sweep run:
            # its own cancelling. Either sees Python's KeyboardInterrupt, not the start-up
            # handler's immediate exit.
            with _python_sigint():
                return _run(args, debug)
    finally:
        if verbose:
            set_verbose(False)


if __name__ == "__main__":
    raise SystemExit(main())
