"""The sweep's own error: :class:`SweepError`."""

from __future__ import annotations

__all__ = ["SweepError"]


class SweepError(Exception):
    """A sweep could not be done as asked (the output folder is in use or not shared, the
    cluster's nodes run another LEVIATHAN, ...); the message says what to do."""
