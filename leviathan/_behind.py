"""Writing one step behind: a long command's outputs written while it computes the next step.

Used by the survey demo (:mod:`leviathan.demo`): its World steps on the main
thread while the previous step's records are written on one other thread.
"""

from __future__ import annotations

import threading
from typing import Any

from leviathan._interrupt import checkpoint, interrupt_requested

__all__ = ["Behind"]


class Behind:
    """Runs ``write`` on each item on one daemon thread, one item behind the caller.

    The survey demo steps its World on the main thread while the previous step's
    records are written (dataset files, content hashes, previews, manifest rows);
    hashlib, zlib and the Warp kernels release the GIL, so the two overlap. One
    item is in flight at most (memory: one step's records) and items are written
    in order, so every file and hash is what the serial loop made. An error on the
    writer is raised on the caller's thread at the next :meth:`put` or
    :meth:`wait`. After a Ctrl-C the thread writes nothing more; being a daemon, it
    never delays the exit, and every file it writes is a registered temporary.
    """

    def __init__(self, write: Any) -> None:
        self._write = write
        self._done: threading.Event | None = None
        self._error: BaseException | None = None

    def put(self, item: Any) -> None:
        """Waits for the item before, then starts writing ``item``."""
        self.wait()
        done = threading.Event()

        def run() -> None:
            try:
                if not interrupt_requested():
                    self._write(item)
            except BaseException as error:  # handed to the caller's thread
                self._error = error
            finally:
                done.set()

        self._done = done
        threading.Thread(target=run, name="leviathan-demo-writer", daemon=True).start()

    def wait(self) -> None:
        """Returns once the item in flight is written; raises the writer's error."""
        done, self._done = self._done, None
        if done is not None:
            while not done.wait(0.05):
                checkpoint()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
