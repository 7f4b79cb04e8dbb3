"""What the dataset writers share: ``with`` closes or aborts, and the signal that aborts."""

from __future__ import annotations

from typing import Self

__all__ = ["_Aborted", "_ClosesOnExit"]


class _Aborted(Exception):
    """Thrown into the atomic-file context to make it discard the temporary file."""


class _ClosesOnExit:
    """As a context manager: an exception in the block aborts, a normal exit closes.

    A subclass sets ``self._closed`` (True once closed or aborted) and defines
    ``close()`` and ``abort()``.
    """

    _closed: bool

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.abort()  # type: ignore[attr-defined]
        elif not self._closed:
            self.close()  # type: ignore[attr-defined]
