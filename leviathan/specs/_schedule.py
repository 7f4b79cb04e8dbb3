"""When a sensor samples: :class:`ScheduleSpec`, in integer nanoseconds."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from pydantic import Field

from leviathan.specs._base import Integer, SpecModel
from leviathan.time import MAX_PERIOD_NS, MIN_PERIOD_NS

if TYPE_CHECKING:
    from leviathan.schedule import SensorSchedule


class ScheduleSpec(SpecModel):
    """When a sensor samples: ``t_n = phase_ns + n * period_ns`` in integer nanoseconds."""

    __content_type__ = "leviathan.specs.ScheduleSpec"

    period_ns: Integer = Field(
        ge=MIN_PERIOD_NS,
        le=MAX_PERIOD_NS,
        description=(
            "Sampling period [ns], a whole number in [MIN_PERIOD_NS, MAX_PERIOD_NS] "
            "(1 ns to one day)"
        ),
    )
    phase_ns: Integer = Field(
        default=0,
        ge=0,
        le=MAX_PERIOD_NS,
        description="Time of the first sample after t = 0 [ns], in [0, MAX_PERIOD_NS]",
    )

    @classmethod
    def from_rate_hz(cls, rate_hz: float, phase_ns: int = 0) -> ScheduleSpec:
        """Build a schedule from a rate whose period is a whole number of nanoseconds.

        Args:
            rate_hz: Sampling rate [Hz]; 1e9 / rate_hz must be an integer.
            phase_ns: Time of the first sample [ns].

        Returns:
            The schedule, e.g. 5 Hz gives ``period_ns=200_000_000``.

        Raises:
            ValueError: If the rate is not positive and finite, or its period
                is not a whole number of nanoseconds (e.g. 3 Hz), or (a pydantic
                ``ValidationError``) the period or phase lies outside
                [MIN_PERIOD_NS, MAX_PERIOD_NS].
        """
        if isinstance(rate_hz, bool) or not isinstance(rate_hz, int | float):
            raise ValueError(f"rate_hz must be a number [Hz], got {rate_hz!r}")
        if not math.isfinite(rate_hz) or rate_hz <= 0:
            raise ValueError(f"rate_hz must be finite and > 0 [Hz], got {rate_hz!r}")
        # str() gives the shortest decimal that round-trips, so 0.5 and 2.5 are
        # taken as the exact decimals the user wrote, not binary approximations.
        period = Fraction(10**9) / Fraction(str(rate_hz))
        if period.denominator != 1:
            raise ValueError(
                f"a rate of {rate_hz!r} Hz has a period of 1e9/{rate_hz!r} = {float(period)!r} ns, "
                "which is not a whole number of nanoseconds; simulation time is integer "
                "nanoseconds, so declare period_ns directly (e.g. "
                f"{math.floor(period)}) or choose a rate that divides 1e9 ns"
            )
        return cls(period_ns=int(period), phase_ns=phase_ns)

    @property
    def rate_hz(self) -> float:
        """Sampling rate [Hz] (derived; the period is authoritative)."""
        return 1e9 / self.period_ns

    def schedule(self) -> SensorSchedule:
        """Return the runtime :class:`leviathan.schedule.SensorSchedule`."""
        from leviathan.schedule import SensorSchedule

        return SensorSchedule(period_ns=self.period_ns, phase_ns=self.phase_ns)
