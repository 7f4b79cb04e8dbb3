"""Ctrl-C and SIGTERM for long commands: stop within a second or two, leave nothing behind.

Python turns SIGINT into :class:`KeyboardInterrupt` at some bytecode of the main
thread. That is what a long command wants, but it is not dependable on its own:

* the exception can land in a ``__del__``, a weakref or a garbage-collector
  callback (a Warp array freed between two trace batches), where Python prints
  "Exception ignored" and carries on: the command keeps running;
* the main thread can be inside one long C call (a kernel compile, a large numpy
  operation, an HDF5 flush), and the handler only runs once the call returns.

:func:`handling_signals` (the ``leviathan`` command line runs every long command
inside it) makes Ctrl-C dependable:

1. The first SIGINT or SIGTERM records the request and raises
   ``KeyboardInterrupt`` in the main thread, as Python would, unless the main thread
   is in a :func:`deferred` section (the renames that put a finished output in
   place), which then raises it when it ends.
2. :func:`checkpoint`, called between units of work (every trace, every stage of
   a sonar ping, every recorded step, every atomic file), raises it again if it was
   swallowed (Python's "Exception ignored" report of it is dropped), and workers
   stop taking new ray batches (:func:`interrupt_requested`).
3. A watchdog thread, which sees each signal the moment it arrives (through the
   wakeup file descriptor, even while the main thread is inside a long C call),
   gives that ordinary unwinding :data:`GRACE_S`; if the process is still alive
   then (or at a second signal), it removes every temporary file and folder still
   registered (:func:`register_temporary`), writes the one ``error:`` line if nobody
   has, and ends the process with status ``128 + signal`` (130 for Ctrl-C). A C
   call that holds the GIL the whole time (rare: a pure-Python-object loop inside
   one builtin) delays it until the call returns.

Every temporary sibling the atomic writers of :mod:`leviathan._files` create is
registered for its lifetime, so neither path leaves one behind. Before any of
this is installed, while the console script is still importing the package,
:mod:`leviathan._startup` makes Ctrl-C exit 130 at once; only the interpreter's
own first few tens of milliseconds (site-packages start-up) belong to Python. Outside
:func:`handling_signals` (a Python user's own program) nothing here changes how
signals behave: :func:`checkpoint` does nothing and :func:`temporary` only keeps
a list.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = [
    "GRACE_S",
    "checkpoint",
    "deferred",
    "discard_temporaries",
    "exit_status",
    "handling_signals",
    "interrupt_requested",
    "mark_reported",
    "register_temporary",
    "unregister_temporary",
]

GRACE_S = 0.5
"""Seconds the ordinary unwinding gets after a signal before the watchdog ends the process."""

_NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}

_lock = threading.Lock()
# Held while a finished output is renamed into place (and its temporary unregistered),
# so the watchdog never removes a folder half-way through being put in place.
_commit = threading.RLock()
_temporaries: dict[int, Path] = {}
_tokens = itertools.count()


class _Watchdog:
    """Sees every signal as it arrives, and ends the process :data:`GRACE_S` after the first.

    Python runs a signal's handler only when the main thread next executes bytecode,
    which a long C call can put off for seconds; but its C-level handler writes the
    signal's number to the wakeup file descriptor at once (:func:`signal.set_wakeup_fd`).
    This thread reads it there, so it starts the grace period at the signal itself
    (and ends the process at a second signal) whatever the main thread is doing, as
    long as the C call releases the GIL (Warp's kernels, numpy, HDF5 and zlib do).
    """

    def __init__(self) -> None:
        self.read, self.write = socket.socketpair()
        self.write.setblocking(False)
        self.count = 0
        self.disarmed = False
        self.timer: threading.Timer | None = None
        self.thread = threading.Thread(target=self._watch, name="leviathan-signals", daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while True:
            try:
                data = self.read.recv(64)
            except OSError:
                return
            if not data:
                return  # closed: the command is over
            for signum in data:
                if signum in _NAMES:
                    self._seen(signum)

    def _seen(self, signum: int) -> None:
        self.count += 1
        if _state.signum is None:
            _state.signum = signum
        if self.disarmed:
            return
        if self.count == 1:
            self.timer = threading.Timer(GRACE_S, self._expire)
            self.timer.daemon = True
            self.timer.start()
        else:
            # A second signal: the user means it.
            _hard_exit(_state.signum or signum)

    def _expire(self) -> None:
        if not self.disarmed:
            _hard_exit(_state.signum or signal.SIGINT)

    def close(self, *, disarm: bool) -> None:
        """Stops reading signals; ``disarm`` also cancels a running grace period."""
        if disarm:
            self.disarmed = True
            if self.timer is not None:
                self.timer.cancel()
        for sock in (self.write, self.read):
            try:
                sock.close()
            except OSError:
                pass


class _State:
    """What the installed handler knows: the signal seen and how far it got."""

    signum: int | None = None  # the first signal received
    handled = False  # the Python-level handler ran (it raises once)
    raised = False  # KeyboardInterrupt reached the command line's handler
    reported = False  # the error line was written
    defer_depth = 0  # main thread inside deferred(); only the main thread changes it
    pending = False  # a signal arrived inside deferred()
    watchdog: _Watchdog | None = None


_state = _State()


def interrupt_requested() -> bool:
    """Whether a signal asked the running command to stop (only under :func:`handling_signals`)."""
    return _state.signum is not None


def checkpoint() -> None:
    """Raises ``KeyboardInterrupt`` if a signal asked to stop and it has not got through yet.

    A no-op outside :func:`handling_signals`, off the main thread and inside a
    :func:`deferred` section. Cheap: call it between units of work, never in code
    that cleans up after a failure.
    """
    if (
        _state.signum is not None
        and not _state.raised
        and _state.defer_depth == 0
        and threading.current_thread() is threading.main_thread()
    ):
        raise KeyboardInterrupt


def mark_reported() -> None:
    """Records that the interrupt reached the command line and its ``error:`` line is written."""
    _state.raised = True
    _state.reported = True


@contextmanager
def deferred() -> Iterator[None]:
    """A section a signal does not interrupt: its ``KeyboardInterrupt`` comes when it ends.

    For the few statements that must run together (renaming a finished output into
    place and unregistering its temporary name). The watchdog waits for the section
    (at most 0.5 s) before it removes temporaries. Sections nest.
    """
    main = threading.current_thread() is threading.main_thread()
    with _commit:
        if main:
            _state.defer_depth += 1
        try:
            yield
        finally:
            if main:
                _state.defer_depth -= 1
    if main and _state.defer_depth == 0 and _state.pending:
        _state.pending = False
        raise KeyboardInterrupt


def register_temporary(path: str | os.PathLike[str]) -> int:
    """Registers ``path`` (a temporary file or folder) for removal if the process is stopped.

    Returns the token for :func:`unregister_temporary`. Create the path and register
    it inside one :func:`deferred` section, and likewise put the finished output in
    place and unregister it, so that a signal never leaves an unregistered temporary
    and the watchdog never removes one half-way through being renamed.
    """
    token = next(_tokens)
    with _lock:
        _temporaries[token] = Path(path)
    return token


def unregister_temporary(token: int) -> None:
    """Ends the registration :func:`register_temporary` returned ``token`` for."""
    with _lock:
        _temporaries.pop(token, None)


def discard_temporaries() -> None:
    """Removes every registered temporary now: for the end of an interrupted command.

    By then nothing owns them any more: each belonged to a write the interrupt
    abandoned, whose own clean-up was cut short by a second interrupt.
    """
    _remove_temporaries()


def _remove_temporaries() -> None:
    with _lock:
        paths = list(_temporaries.values())
        _temporaries.clear()
    for path in paths:
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        except OSError:
            pass


def _flush_stdout() -> None:
    # In a helper thread that is not waited for long: the main thread may hold
    # stdout's lock, blocked on a full pipe.
    def flush() -> None:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass

    helper = threading.Thread(target=flush, daemon=True)
    helper.start()
    helper.join(0.2)


def _hard_exit(signum: int) -> None:
    """Removes the registered temporaries, writes the error line once, ends the process."""
    locked = _commit.acquire(timeout=0.5)
    try:
        _remove_temporaries()
    finally:
        if locked:
            _commit.release()
    _flush_stdout()
    if not _state.reported:
        _state.reported = True
        try:
            # os.write: the main thread may hold sys.stderr's lock mid-write.
            os.write(2, f"error: {_NAMES.get(signum, 'interrupted')}\n".encode())
        except OSError:
            pass
    os._exit(128 + int(signum))


def _handler(signum: int, frame: FrameType | None) -> None:
    # The watchdog thread counts the signals and keeps time; this raises, once.
    if _state.signum is None:
        _state.signum = signum
    if _state.handled:
        return
    _state.handled = True
    if _state.defer_depth > 0:
        _state.pending = True
        return
    raise KeyboardInterrupt


def exit_status() -> int | None:
    """``128 + signal`` if a signal stopped the command (130 for SIGINT), else ``None``."""
    return None if _state.signum is None else 128 + int(_state.signum)


@contextmanager
def handling_signals(*, keep_watchdog: bool = False) -> Iterator[None]:
    """Runs a long command with dependable Ctrl-C and SIGTERM handling (see the module docstring).

    Installed only on the main thread, and for each signal only where the process
    would otherwise stop on it (Python's default, or the start-up handler of
    :mod:`leviathan._startup`): a SIGINT the parent set to be ignored (a background
    job) stays ignored. The previous handlers are put back on leaving.

    Args:
        keep_watchdog: Whether an armed watchdog keeps running after the block: the
            command line's own process keeps it, so that it also bounds the
            interpreter's shutdown. In-process callers (tests) leave it ``False``,
            and the watchdog is disarmed when the block ends.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from leviathan._startup import is_startup_handler

    previous: dict[int, object] = {}
    for signum, default in (
        (signal.SIGINT, signal.default_int_handler),
        (signal.SIGTERM, signal.SIG_DFL),
    ):
        current = signal.getsignal(signum)
        if current is default or is_startup_handler(current):
            previous[signum] = signal.signal(signum, _handler)
    _state.signum = None
    _state.handled = _state.raised = _state.reported = _state.pending = False
    _state.defer_depth = 0
    watchdog = _state.watchdog = _Watchdog() if previous else None
    previous_wakeup = None
    if watchdog is not None:
        previous_wakeup = signal.set_wakeup_fd(watchdog.write.fileno(), warn_on_full_buffer=False)
    previous_hook = sys.unraisablehook

    def unraisable(report: Any) -> None:
        # The interrupt landed in a __del__ or a weakref callback and was swallowed
        # there; it is recorded, and checkpoint() or the watchdog carries it on, so
        # Python's "Exception ignored in ..." traceback would only be noise.
        if isinstance(report.exc_value, KeyboardInterrupt) and _state.signum is not None:
            return
        previous_hook(report)

    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        if watchdog is not None:
            signal.set_wakeup_fd(previous_wakeup if previous_wakeup is not None else -1)
            # A running grace period goes on in the command line's own process, so that
            # it also bounds the interpreter's shutdown.
            watchdog.close(disarm=not keep_watchdog)
        _state.watchdog = None
        if not keep_watchdog:
            _state.signum = None
