"""Simulation time in integer nanoseconds.

Every simulation time is a Python ``int`` of nanoseconds. A tick index k maps
to time exactly, within the epoch that contains it::

    t_ns(k) = start_time_ns + (k - start_tick) * step_ns

Changing the step starts a new epoch at the current tick; the list of epochs is
part of the clock's provenance. Seconds are derived from integers when physics
needs them (:func:`ns_to_seconds`), never accumulated, so long runs do not
drift. The wall clock never enters simulation time: this module does not
import ``time`` or ``datetime``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from leviathan._validation import exact_rational, integer_ns

__all__ = [
    "MAX_PERIOD_NS",
    "MAX_STEP_NS",
    "MAX_TIME_NS",
    "MIN_PERIOD_NS",
    "MIN_STEP_NS",
    "NS_PER_SECOND",
    "Clock",
    "Epoch",
    "NonIntegerStepError",
    "ns_to_fraction",
    "ns_to_seconds",
    "seconds_to_ns",
]

NS_PER_SECOND = 1_000_000_000
"""Nanoseconds in one second."""

MIN_STEP_NS = 1
"""Shortest tick length a Clock accepts [ns]."""

MAX_STEP_NS = 1_000 * NS_PER_SECOND
"""Longest tick length a Clock accepts [ns] (1,000 s). With a World's 2,000,000-step
limit every tick time stays below :data:`MAX_TIME_NS`, so times fit int64 arrays."""

MIN_PERIOD_NS = 1
"""Shortest sensor sampling period accepted [ns]. Schedules are enumerated by
arithmetic, so even 1 ns on 10 ms ticks costs O(1) per tick, not per sample."""

MAX_PERIOD_NS = 86_400 * NS_PER_SECOND
"""Longest sensor sampling period (and largest phase) accepted [ns] (one day)."""

MAX_TIME_NS = 2**62
"""Largest magnitude of any simulation time [ns] (about 146 years): far inside int64,
so a time, a tick index times a step, and their sums never overflow an int64 array."""


class NonIntegerStepError(ValueError):
    """A time, step or period is not a whole number of nanoseconds."""


def _positive_step_ns(name: str, value: Any) -> int:
    step = integer_ns(name, value)
    if not MIN_STEP_NS <= step <= MAX_STEP_NS:
        raise ValueError(
            f"{name} must be a positive number of nanoseconds no larger than {MAX_STEP_NS} "
            f"({MAX_STEP_NS // NS_PER_SECOND} s), got {step}"
        )
    return step


def _bounded_time_ns(name: str, value: Any) -> int:
    time_ns = integer_ns(name, value)
    if not -MAX_TIME_NS <= time_ns <= MAX_TIME_NS:
        raise ValueError(f"{name} must lie within ±{MAX_TIME_NS} ns (2**62), got {time_ns}")
    return time_ns


def seconds_to_ns(seconds: int | str | Decimal | Fraction | float) -> int:
    """Convert seconds to an exact integer number of nanoseconds.

    Conversion is exact: a float is read through its shortest decimal repr,
    never multiplied as a float, so ``seconds_to_ns(0.02) == 20_000_000``.
    Negative values are allowed.

    Args:
        seconds: Time [s] as int, str (decimal notation), Decimal, Fraction or float.

    Returns:
        The time [ns] as a Python int.

    Raises:
        NonIntegerStepError: If the value is not a whole number of nanoseconds
            (e.g. ``1e-10``, or ``0.1 + 0.2`` whose repr is ``0.30000000000000004``).
        TypeError: For bool or an unsupported type.
        ValueError: For non-finite values or an unparsable string.
    """
    value_ns = exact_rational("seconds", seconds, "s") * NS_PER_SECOND
    if value_ns.denominator != 1:
        raise NonIntegerStepError(
            f"seconds={seconds!r} is {float(value_ns)!r} ns ({value_ns} ns exactly), which is "
            "not a whole number of nanoseconds; the value must be a whole number of "
            "nanoseconds, e.g. seconds_to_ns('0.02') == 20000000"
        )
    return value_ns.numerator


def ns_to_seconds(ns: int) -> float:
    """Convert integer nanoseconds to seconds, correctly rounded.

    Computed as ``ns / 1_000_000_000`` on Python ints; CPython's int true
    division rounds the exact quotient once, so the result is the float nearest
    to ``ns * 1e-9`` for every int (not only for ``|ns| < 2**53``).

    Args:
        ns: Time [ns], an int.

    Returns:
        Time [s], float.
    """
    return integer_ns("ns", ns) / NS_PER_SECOND


def ns_to_fraction(ns: int) -> Fraction:
    """Convert integer nanoseconds to exact seconds.

    Args:
        ns: Time [ns], an int.

    Returns:
        Time [s] as ``Fraction(ns, 10**9)``.
    """
    return Fraction(integer_ns("ns", ns), NS_PER_SECOND)


@dataclass(frozen=True)
class Epoch:
    """A run of ticks with a constant step.

    Attributes:
        start_tick: First tick index of the epoch.
        start_time_ns: Time of ``start_tick`` [ns].
        step_ns: Tick length [ns], positive.
    """

    __content_type__ = "leviathan.time.Epoch"

    start_tick: int
    start_time_ns: int
    step_ns: int

    def __post_init__(self) -> None:
        start_tick = integer_ns("start_tick", self.start_tick)
        if start_tick < 0:
            raise ValueError(f"start_tick must be >= 0, got {start_tick}")
        integer_ns("start_time_ns", self.start_time_ns)
        _positive_step_ns("step_ns", self.step_ns)

    def time_ns(self, k: int) -> int:
        """Return the time [ns] of tick ``k >= start_tick``.

        Computed as ``start_time_ns + (k - start_tick) * step_ns`` in exact integers.
        """
        tick = integer_ns("k", k)
        if tick < self.start_tick:
            raise ValueError(
                f"k={tick} is before this epoch, which starts at tick {self.start_tick}"
            )
        return self.start_time_ns + (tick - self.start_tick) * self.step_ns

    def to_dict(self) -> dict[str, int]:
        """Return the fields as a JSON-friendly dict of ints."""
        return {
            "start_tick": self.start_tick,
            "start_time_ns": self.start_time_ns,
            "step_ns": self.step_ns,
        }


class Clock:
    """Integer-nanosecond simulation clock with step epochs.

    Tick 0 is at ``t0_ns``. :meth:`advance` commits ticks; :meth:`set_step`
    starts a new epoch at the current tick. Times are always computed from the
    epoch formula, never accumulated.

    Args:
        step_ns: Tick length [ns], a positive int.
        t0_ns: Time of tick 0 [ns], an int (may be negative).

    Raises:
        TypeError: If ``step_ns`` or ``t0_ns`` is not an int (bool refused).
        ValueError: If ``step_ns`` is outside [MIN_STEP_NS, MAX_STEP_NS] or ``|t0_ns|`` exceeds
            MAX_TIME_NS.
    """

    def __init__(self, step_ns: int, *, t0_ns: int = 0) -> None:
        step = _positive_step_ns("step_ns", step_ns)
        t0 = _bounded_time_ns("t0_ns", t0_ns)
        self._initial_epoch = Epoch(start_tick=0, start_time_ns=t0, step_ns=step)
        self._epochs: list[Epoch] = [self._initial_epoch]
        self._tick = 0

    @classmethod
    def from_seconds(
        cls,
        step_s: int | str | Decimal | Fraction | float,
        *,
        t0_s: int | str | Decimal | Fraction | float = 0,
    ) -> Clock:
        """Build a clock from times in seconds, converted exactly by :func:`seconds_to_ns`.

        Args:
            step_s: Tick length [s], e.g. ``0.02`` or ``"0.02"``.
            t0_s: Time of tick 0 [s].

        Raises:
            NonIntegerStepError: If either value is not a whole number of nanoseconds.
        """
        return cls(seconds_to_ns(step_s), t0_ns=seconds_to_ns(t0_s))

    @property
    def tick(self) -> int:
        """Index of the last committed tick (0 before any advance)."""
        return self._tick

    @property
    def time_ns(self) -> int:
        """Time of the current tick [ns]."""
        return self._epochs[-1].time_ns(self._tick)

    @property
    def t0_ns(self) -> int:
        """Time of tick 0 [ns]."""
        return self._initial_epoch.start_time_ns

    @property
    def step_ns(self) -> int:
        """Current tick length [ns]."""
        return self._epochs[-1].step_ns

    @property
    def epochs(self) -> tuple[Epoch, ...]:
        """All epochs so far, ordered by ``start_tick``."""
        return tuple(self._epochs)

    def advance(self, n: int = 1) -> list[int]:
        """Commit ``n`` more ticks.

        Args:
            n: Number of ticks to commit, an int >= 0.

        Returns:
            Times [ns] of the newly committed ticks, in order (ints).
        """
        count = integer_ns("n", n)
        if count < 0:
            raise ValueError(f"n must be >= 0 ticks, got {count}; there is no rewind, use reset()")
        epoch = self._epochs[-1]
        first = self._tick + 1
        first_time_ns = epoch.time_ns(first)
        step = epoch.step_ns
        times = [first_time_ns + i * step for i in range(count)]
        self._tick += count
        return times

    def time_ns_at(self, k: int) -> int:
        """Return the time [ns] of committed tick ``k`` (0 <= k <= tick).

        Raises:
            ValueError: If ``k`` is negative or not yet committed.
        """
        tick = integer_ns("k", k)
        if not 0 <= tick <= self._tick:
            raise ValueError(
                f"k={tick} is not a committed tick; committed ticks are 0..{self._tick}"
            )
        starts = [epoch.start_tick for epoch in self._epochs]
        return self._epochs[bisect.bisect_right(starts, tick) - 1].time_ns(tick)

    def set_step(self, step_ns: int) -> None:
        """Change the tick length from the current tick onward.

        Starts a new epoch at the current tick. Setting the step twice at one
        tick replaces the epoch started there rather than leaving an empty one;
        setting the step already in force changes nothing.

        Args:
            step_ns: New tick length [ns], a positive int.
        """
        step = _positive_step_ns("step_ns", step_ns)
        if step == self.step_ns:
            return
        current = self._epochs[-1]
        start = Epoch(start_tick=self._tick, start_time_ns=self.time_ns, step_ns=step)
        if current.start_tick == self._tick:
            self._epochs.pop()
        # An epoch equal in step to the one before it would be redundant.
        if self._epochs and self._epochs[-1].step_ns == step:
            return
        self._epochs.append(start)

    def restore(self, other: Clock) -> None:
        """Take ``other``'s whole state in place: reset point, epochs and tick.

        In place rather than by handing out a new object, because callers hold on
        to a clock: a World's ``world.clock`` is the same object for the World's
        life, so a World re-initialising itself or rolling back a failed operation
        restores that object and every holder sees the restored time. ``other``
        is neither changed nor shared afterwards.

        Args:
            other: The clock whose state to take.

        Raises:
            TypeError: If ``other`` is not a :class:`Clock`.
        """
        if not isinstance(other, Clock):
            raise TypeError(f"other: expected a Clock, got {type(other).__name__}")
        self._initial_epoch = other._initial_epoch
        self._epochs = list(other._epochs)
        self._tick = other._tick

    def reset(self) -> None:
        """Return to tick 0 with the original single epoch."""
        self._epochs = [self._initial_epoch]
        self._tick = 0

    def provenance(self) -> dict[str, Any]:
        """Return the clock state as plain ints, JSON-friendly.

        Returns:
            ``{"t0_ns", "tick", "time_ns", "epochs": [Epoch.to_dict(), ...]}``.
        """
        return {
            "t0_ns": self.t0_ns,
            "tick": self._tick,
            "time_ns": self.time_ns,
            "epochs": [epoch.to_dict() for epoch in self._epochs],
        }

    def copy(self) -> Clock:
        """Return an independent clock with the same state and the same reset point."""
        clone = Clock(self._initial_epoch.step_ns, t0_ns=self._initial_epoch.start_time_ns)
        clone._epochs = list(self._epochs)
        clone._tick = self._tick
        return clone

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Clock):
            return NotImplemented
        return (
            self._initial_epoch == other._initial_epoch
            and self._epochs == other._epochs
            and self._tick == other._tick
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"Clock(tick={self._tick}, time_ns={self.time_ns}, step_ns={self.step_ns}, "
            f"epochs={len(self._epochs)})"
        )
