"""What the dataset writers share: ``with`` closes or aborts, a failed call aborts, the
signal that aborts, and the rule that a vehicle's track rows continue the ones written."""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, Self

from leviathan.datasets._errors import DatasetError
from leviathan.world import VehicleTrackRecord

__all__ = ["_Aborted", "_ClosesOnExit", "check_track_rows"]


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


def check_track_rows(
    tracks: Sequence[Any], declared: Collection[str], last_rows: Mapping[str, tuple[int, int]]
) -> None:
    """Refuses what one ``write`` call may not append to the vehicles' tracks.

    Args:
        tracks: The call's track records.
        declared: The writer's vehicle names.
        last_rows: Vehicle name -> (tick, time_ns) of its last row written (absent: none yet).

    Raises:
        TypeError: An entry is not a :class:`~leviathan.world.VehicleTrackRecord`.
        DatasetError: A track of a vehicle not ``declared``, two of one vehicle, or rows that
            are not consecutive ticks at increasing times continuing ``last_rows``.
    """
    seen: set[str] = set()
    for j, track in enumerate(tracks):
        where = f"tracks[{j}]"
        if not isinstance(track, VehicleTrackRecord):
            raise TypeError(f"{where}: expected a VehicleTrackRecord, got {type(track).__name__}")
        if track.name not in declared:
            raise DatasetError(
                f"{where}.name: vehicle {track.name!r} was not declared; declared: "
                f"{', '.join(sorted(declared))}"
            )
        if track.name in seen:
            raise DatasetError(f"{where}.name: a second track of {track.name!r} in one call")
        seen.add(track.name)
        if len(track) == 0:
            continue
        ticks, times = track.ticks.tolist(), track.times_ns.tolist()
        previous = last_rows.get(track.name)
        if previous is not None and ticks[0] != previous[0] + 1:
            raise DatasetError(
                f"{where}.ticks[0]: expected tick {previous[0] + 1} (the rows continue the "
                f"last one written, tick {previous[0]}), got {ticks[0]}"
            )
        for k in range(1, len(ticks)):
            if ticks[k] != ticks[k - 1] + 1:
                raise DatasetError(
                    f"{where}.ticks[{k}]: expected consecutive ticks, got {ticks[k - 1]} "
                    f"then {ticks[k]}"
                )
        start = previous[1] if previous is not None else None
        for k, t in enumerate(times):
            if start is not None and t <= start:
                raise DatasetError(
                    f"{where}.times_ns[{k}]: {t} ns is not after the previous row ({start} ns)"
                )
            start = t
