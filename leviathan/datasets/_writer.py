"""What the dataset writers share: ``with`` closes or aborts, a failed call aborts, and the
signal that aborts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Self

from leviathan.datasets._errors import DatasetError

__all__ = ["_Aborted", "_ClosesOnExit"]


class _Aborted(Exception):
    """Thrown into the atomic-file context to make it discard the temporary file."""


class _ClosesOnExit:
    """As a context manager: an exception in the block aborts, a normal exit closes.

    A subclass sets ``self._closed`` (True once closed or aborted) and defines
    ``close()`` and ``abort()``; the file writers run ``write()`` and ``close()`` in
    :meth:`_open_or_abort`.
    """

    _closed: bool

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.abort()  # type: ignore[attr-defined]
        elif not self._closed:
            self.close()  # type: ignore[attr-defined]

    @contextlib.contextmanager
    def _open_or_abort(self, what: str) -> Iterator[None]:
        """Refuses a closed writer (``what``: the method, for the message); an exception in
        the block aborts the writer (no file is left) and propagates."""
        if self._closed:
            raise DatasetError(
                f"{what}: this {type(self).__name__} is closed (after close() or abort())"
            )
        try:
            yield
        except BaseException:
            self.abort()  # type: ignore[attr-defined]
            raise
