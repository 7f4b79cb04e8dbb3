"""Sensor sampling schedules on the integer-nanosecond clock.

A canonical sensor samples at ``t_n = phase_ns + n * period_ns`` for
``n = 0, 1, 2, ...``. A sample is taken only when ``t_n`` equals the time of a
committed physics tick exactly. A sample that falls between two ticks is
reported as an :class:`OffTickSample` and refused: it is never snapped to the
nearest tick and never interpolated.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

from leviathan._validation import exact_rational, integer_ns
from leviathan.time import (
    MAX_PERIOD_NS,
    MIN_PERIOD_NS,
    NS_PER_SECOND,
    NonIntegerStepError,
)

__all__ = [
    "OffTickSample",
    "ScheduledSample",
    "SensorSchedule",
    "TickWindow",
]


class TickWindow(NamedTuple):
    """The scheduled samples of one tick's window, by arithmetic (see
    :meth:`SensorSchedule.tick_window`).

    Attributes:
        on_tick_index: Index of the sample exactly at the tick, or None.
        first_off_tick_index: Index of the first sample that falls between the
            previous tick and this one (meaningful when ``off_tick_count > 0``).
        off_tick_count: Number of refused samples; they are the consecutive
            indices ``first_off_tick_index, ..., first_off_tick_index + off_tick_count - 1``.
    """

    on_tick_index: int | None
    first_off_tick_index: int
    off_tick_count: int


@dataclass(frozen=True)
class ScheduledSample:
    """A scheduled sample that falls exactly on a committed tick.

    Attributes:
        sample_index: Index n of the sample in its schedule.
        time_ns: Sample time ``phase_ns + n * period_ns`` [ns].
        tick: Index of the committed tick whose time equals ``time_ns``.
    """

    __content_type__ = "leviathan.schedule.ScheduledSample"

    sample_index: int
    time_ns: int
    tick: int


@dataclass(frozen=True)
class OffTickSample:
    """Refusal record for a scheduled sample that falls strictly between two ticks.

    Attributes:
        sample_index: Index n of the sample in its schedule.
        time_ns: Scheduled sample time [ns]; not snapped.
        previous_tick: Index of the last committed tick before ``time_ns``.
        previous_tick_time_ns: Time of ``previous_tick`` [ns].
        next_tick_time_ns: Time of ``previous_tick + 1`` [ns].
        reason: Human-readable explanation of the refusal.
    """

    __content_type__ = "leviathan.schedule.OffTickSample"

    sample_index: int
    time_ns: int
    previous_tick: int
    previous_tick_time_ns: int
    next_tick_time_ns: int
    reason: str


@dataclass(frozen=True)
class SensorSchedule:
    """Sampling schedule ``t_n = phase_ns + n * period_ns`` for ``n >= 0``.

    Attributes:
        period_ns: Time between samples [ns], a positive int.
        phase_ns: Time of sample 0 [ns], an int >= 0.

    Raises:
        TypeError: If a field is not an int (bool refused).
        ValueError: If ``period_ns`` is outside [MIN_PERIOD_NS, MAX_PERIOD_NS] or ``phase_ns``
            outside [0, MAX_PERIOD_NS] (see :mod:`leviathan.time`).
    """

    __content_type__ = "leviathan.schedule.SensorSchedule"

    period_ns: int
    phase_ns: int = 0

    def __post_init__(self) -> None:
        period = integer_ns("period_ns", self.period_ns, python_int_only=True)
        phase = integer_ns("phase_ns", self.phase_ns, python_int_only=True)
        if not MIN_PERIOD_NS <= period <= MAX_PERIOD_NS:
            raise ValueError(
                f"period_ns must be a positive number of nanoseconds in [{MIN_PERIOD_NS}, "
                f"{MAX_PERIOD_NS}] (up to one day), got {period}"
            )
        if phase < 0:
            raise ValueError(f"phase_ns must be >= 0 ns, got {phase}")
        if phase > MAX_PERIOD_NS:
            raise ValueError(f"phase_ns must be <= {MAX_PERIOD_NS} ns (one day), got {phase}")

    @classmethod
    def from_rate_hz(
        cls,
        rate_hz: int | str | Decimal | Fraction | float,
        *,
        phase_ns: int = 0,
    ) -> SensorSchedule:
        """Build a schedule from a rate whose period is a whole number of nanoseconds.

        The period ``1e9 / rate_hz`` is computed exactly (a float rate is read
        through its shortest repr): 5 Hz gives 200_000_000 ns.

        Args:
            rate_hz: Sampling rate [Hz], positive.
            phase_ns: Time of sample 0 [ns].

        Raises:
            NonIntegerStepError: If the period is not a whole number of
                nanoseconds (e.g. 3 Hz, period 333_333_333.33... ns).
            ValueError: If the rate is not positive or not finite.
        """
        rate = exact_rational("rate_hz", rate_hz, "Hz")
        if rate <= 0:
            raise ValueError(f"rate_hz must be positive, got {rate_hz!r}")
        period = Fraction(NS_PER_SECOND) / rate
        if period.denominator != 1:
            raise NonIntegerStepError(
                f"rate_hz={rate_hz!r} gives a period of {float(period)!r} ns ({period} ns "
                "exactly), which is not a whole number of nanoseconds; choose a rate that "
                "divides 1e9 ns, or give period_ns directly, e.g. SensorSchedule(333_333_333)"
            )
        return cls(period_ns=period.numerator, phase_ns=phase_ns)

    def time_ns(self, n: int) -> int:
        """Return the time [ns] of sample ``n`` (an int >= 0)."""
        index = integer_ns("n", n, python_int_only=True)
        if index < 0:
            raise ValueError(f"n must be a sample index >= 0, got {index}")
        return self.phase_ns + index * self.period_ns

    def tick_window(self, time_ns: int, *, after_ns: int | None) -> TickWindow:
        """Classify the samples of one tick's window in O(1), whatever the period.

        The window is ``after_ns < t <= time_ns`` (``after_ns`` the previous
        tick's time), or just ``t == time_ns`` when ``after_ns`` is None (the
        first tick of a run), exactly as in :meth:`samples_in_window` with one
        tick. Only the sample at ``time_ns`` itself can be on the tick, so the
        refused ones are consecutive indices and are counted, not listed: a
        1 ns period on 10 ms ticks costs the same as a 10 ms one.

        Args:
            time_ns: Time of the committed tick [ns].
            after_ns: Time of the previous tick [ns] (< ``time_ns``), or None.

        Returns:
            The :class:`TickWindow`.
        """
        t = integer_ns("time_ns", time_ns, python_int_only=True)
        period, phase = self.period_ns, self.phase_ns
        if after_ns is None:
            first_n = -((phase - t) // period)  # ceil((t - phase) / period)
        else:
            after = integer_ns("after_ns", after_ns, python_int_only=True)
            if after >= t:
                raise ValueError(f"after_ns must be before time_ns={t}, got after_ns={after}")
            first_n = (after - phase) // period + 1
        first_n = max(first_n, 0)
        last_n = (t - phase) // period
        if last_n < first_n:
            return TickWindow(None, first_n, 0)
        on = last_n if phase + last_n * period == t else None
        count = last_n - first_n + 1 - (0 if on is None else 1)
        return TickWindow(on, first_n, count)

    def samples_in_window(
        self,
        tick_times_ns: Sequence[int],
        *,
        start_tick: int,
        after_ns: int | None,
    ) -> tuple[list[ScheduledSample], list[OffTickSample]]:
        """Return the scheduled samples that fall in a window of committed ticks.

        Window semantics. ``tick_times_ns`` are the times of consecutive
        committed ticks ``start_tick, start_tick + 1, ...``. A sample time t is
        in the window when

        * ``after_ns < t <= tick_times_ns[-1]`` if ``after_ns`` is given. Then
          ``after_ns`` must be the time of tick ``start_tick - 1``, the last tick
          already processed. A World calls this for each ``step(n)`` with the
          previous window's last tick time, so windows tile time with no gap
          and no overlap: a sample is never produced twice and never missed.
        * ``tick_times_ns[0] <= t <= tick_times_ns[-1]`` if ``after_ns`` is
          None (the first window of a run: a sample at the first tick counts).

        A sample whose time equals a tick time exactly is a
        :class:`ScheduledSample`; any other is an :class:`OffTickSample`.
        Cost is O(len(tick_times_ns)) to validate plus O(log) per sample; it
        never iterates over nanoseconds.

        Args:
            tick_times_ns: Times of the window's ticks [ns], ints, strictly
                increasing, non-empty.
            start_tick: Tick index of ``tick_times_ns[0]``, an int >= 0.
            after_ns: Time of tick ``start_tick - 1`` [ns], or None to include
                ``tick_times_ns[0]``.

        Returns:
            ``(on_tick, off_tick)``, each ordered by sample index.

        Raises:
            TypeError: If a time or index is not an int.
            ValueError: If ``tick_times_ns`` is empty or not strictly
                increasing, ``start_tick`` is negative, ``after_ns`` is given
                with ``start_tick == 0``, or ``after_ns >= tick_times_ns[0]``.
        """
        times = self._validated_tick_times(tick_times_ns)
        first_tick = integer_ns("start_tick", start_tick, python_int_only=True)
        if first_tick < 0:
            raise ValueError(f"start_tick must be >= 0, got {first_tick}")
        if after_ns is not None:
            after = integer_ns("after_ns", after_ns, python_int_only=True)
            if first_tick == 0:
                raise ValueError(
                    "after_ns must be None when start_tick is 0 (there is no earlier tick), "
                    f"got after_ns={after}"
                )
            if after >= times[0]:
                raise ValueError(
                    f"after_ns must be the time of tick {first_tick - 1}, before the first "
                    f"tick time {times[0]} ns, got after_ns={after}"
                )

        period, phase = self.period_ns, self.phase_ns
        if after_ns is None:
            # Smallest n with phase + n * period >= times[0]: a ceiling division.
            first_n = -((phase - times[0]) // period)
        else:
            # Smallest n with phase + n * period > after_ns.
            first_n = (after_ns - phase) // period + 1
        first_n = max(first_n, 0)
        last_n = (times[-1] - phase) // period

        on_tick: list[ScheduledSample] = []
        off_tick: list[OffTickSample] = []
        search_from = 0
        for n in range(first_n, last_n + 1):
            t = phase + n * period
            i = bisect.bisect_left(times, t, search_from)
            search_from = i
            if times[i] == t:
                on_tick.append(ScheduledSample(sample_index=n, time_ns=t, tick=first_tick + i))
                continue
            # i == 0 only when after_ns < t < times[0]; the previous tick is then
            # start_tick - 1 at after_ns.
            previous_time = times[i - 1] if i > 0 else after_ns
            assert previous_time is not None
            previous_tick = first_tick + i - 1
            off_tick.append(
                OffTickSample(
                    sample_index=n,
                    time_ns=t,
                    previous_tick=previous_tick,
                    previous_tick_time_ns=previous_time,
                    next_tick_time_ns=times[i],
                    reason=(
                        f"sample {n} at {t} ns falls between tick {previous_tick} "
                        f"({previous_time} ns) and tick {previous_tick + 1} ({times[i]} ns); "
                        "samples are taken only on committed ticks, never snapped or "
                        "interpolated"
                    ),
                )
            )
        return on_tick, off_tick

    @staticmethod
    def _validated_tick_times(tick_times_ns: Sequence[int]) -> list[int]:
        times: list[int] = []
        for position, value in enumerate(tick_times_ns):
            value = integer_ns(f"tick_times_ns[{position}]", value)
            if times and value <= times[-1]:
                raise ValueError(
                    f"tick_times_ns must be strictly increasing, got {times[-1]} then "
                    f"{value} at position {position}"
                )
            times.append(value)
        if not times:
            raise ValueError("tick_times_ns must hold at least one tick time, got none")
        return times
