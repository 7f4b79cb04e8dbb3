"""Warp's console output: quiet unless the user asks for it.

Warp talks on its own: its native library prints ``Warp CUDA warning: Could not
find or load the NVIDIA CUDA driver. GPU execution will not be available.`` to
stderr when it initialises on a machine without CUDA, and its Python side prints
an init banner and a ``Module ... load on device 'cpu' took ...`` line per module
load to stdout. None of it is something the user asked for or can act on, so
LEVIATHAN keeps it out of its own use of Warp:

* :func:`init_warp` initialises Warp with the native stderr captured for the
  moment of the call; the CUDA-driver line is dropped (and logged at INFO on the
  ``leviathan.kernels`` logger), anything else Warp printed is written back;
* :func:`quiet_warp` raises ``warp.config.log_level`` to warnings for LEVIATHAN's
  own module loads and restores the caller's level afterwards, so a user's own
  Warp code keeps its messages.

Verbose: ``leviathan --verbose ...`` or the environment variable
``LEVIATHAN_VERBOSE=1`` lets every Warp message through unchanged
(:func:`verbose`).
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "VERBOSE_ENV",
    "init_warp",
    "load_modules_quietly",
    "quiet_warp",
    "set_verbose",
    "verbose",
]

VERBOSE_ENV = "LEVIATHAN_VERBOSE"
"""Environment variable: set to anything but ``""`` or ``"0"``, Warp's messages go through."""

_CUDA_DRIVER_LINE = "Warp CUDA warning: Could not find or load the NVIDIA CUDA driver"

_log = logging.getLogger("leviathan.kernels")
_lock = threading.Lock()
_verbose_flag = [False]
_initialised: list[bool] = []
_loaded: set[tuple[str, str]] = set()


def set_verbose(on: bool) -> None:
    """Lets Warp's own messages through (``True``) or keeps them quiet (``False``, the default)."""
    _verbose_flag[0] = bool(on)


def verbose() -> bool:
    """Whether Warp's messages go through (:func:`set_verbose` or ``LEVIATHAN_VERBOSE``)."""
    return _verbose_flag[0] or os.environ.get(VERBOSE_ENV, "") not in ("", "0")


@contextmanager
def quiet_warp() -> Iterator[Any]:
    """Silences Warp's info messages (init banner, module loads) for the calls in the block.

    Yields the ``warp`` module. The caller's ``warp.config.log_level`` is restored
    afterwards; Warp's warnings and errors still show. Does nothing when
    :func:`verbose`.
    """
    wp = init_warp()
    previous = wp.config.log_level
    if not verbose():
        wp.config.log_level = max(previous, wp.LOG_WARNING)
    try:
        yield wp
    finally:
        wp.config.log_level = previous


def init_warp() -> Any:
    """Imports and initialises Warp once, without its CUDA-driver line on a machine without CUDA.

    Returns:
        The ``warp`` module, initialised.
    """
    import warp as wp

    with _lock:
        if _initialised:
            return wp
        if verbose():
            wp.init()
        else:
            previous = wp.config.log_level
            wp.config.log_level = max(previous, wp.LOG_WARNING)
            try:
                captured = _with_native_stderr_captured(wp.init)
            finally:
                wp.config.log_level = previous
            kept = []
            for line in captured.splitlines(keepends=True):
                if line.startswith(_CUDA_DRIVER_LINE):
                    _log.info("Warp: %s", line.strip())
                else:
                    kept.append(line)
            if kept:
                _write_stderr("".join(kept))
        _initialised.append(True)
    return wp


def load_modules_quietly(modules: Iterable[str], device: str) -> None:
    """Loads (compiles, or reads from Warp's kernel cache) Warp modules on ``device``, quietly.

    For LEVIATHAN's own kernel modules, loaded before their first launch so that
    Warp's ``Module ... load`` lines stay away (see :func:`quiet_warp`). Each
    module is loaded once per device.

    Args:
        modules: Python module names holding ``@wp.kernel`` functions; those not
            imported yet are skipped.
        device: Warp device name, e.g. ``"cpu"`` or ``"cuda:0"``.
    """
    import sys

    # A module not imported yet has no kernels to load (and naming it to Warp would
    # make an empty Warp module of that name): skipped, it loads with its first launch.
    wanted = [(name, str(device)) for name in modules if name in sys.modules]
    with _lock:
        todo = [key for key in wanted if key not in _loaded]
    if not todo:
        return
    with quiet_warp() as wp:
        for name, dev in todo:
            wp.load_module(name, device=dev)
    with _lock:
        _loaded.update(todo)


def _with_native_stderr_captured(call: Any) -> str:
    """Runs ``call()`` with file descriptor 2 pointed at a temporary file; returns what it got.

    Native code (Warp's C++ core) writes to the descriptor directly, past
    ``sys.stderr``. If the descriptor cannot be redirected, ``call`` runs as is.
    """
    import sys

    try:
        saved = os.dup(2)
    except OSError:
        call()
        return ""
    with tempfile.TemporaryFile() as sink:
        try:
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
        os.dup2(sink.fileno(), 2)
        try:
            call()
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode("utf-8", errors="replace")


def _write_stderr(text: str) -> None:
    try:
        os.write(2, text.encode("utf-8", errors="replace"))
    except OSError:
        pass
