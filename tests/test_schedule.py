"""Tests for leviathan.schedule: sensor schedules on committed integer ticks."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from leviathan.schedule import OffTickSample, ScheduledSample, SensorSchedule
from leviathan.time import Clock, NonIntegerStepError

MS = 1_000_000


def tick_times(step_ns: int, count: int, *, t0_ns: int = 0) -> list[int]:
    """Times of ticks 0..count-1 of a fresh clock."""
    clock = Clock(step_ns, t0_ns=t0_ns)
    return [clock.time_ns, *clock.advance(count - 1)]


# --------------------------------------------------------------------------- construction


def test_from_rate_5_hz() -> None:
    assert SensorSchedule.from_rate_hz(5) == SensorSchedule(period_ns=200_000_000)


def test_from_rate_float_is_exact() -> None:
    assert SensorSchedule.from_rate_hz(12.5).period_ns == 80_000_000


def test_from_rate_keeps_phase() -> None:
    assert SensorSchedule.from_rate_hz("50", phase_ns=3).phase_ns == 3


def test_from_rate_3_hz_is_refused() -> None:
    with pytest.raises(NonIntegerStepError, match=r"rate_hz=3 gives a period of .*1000000000/3"):
        SensorSchedule.from_rate_hz(3)


def test_from_rate_non_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="rate_hz must be positive, got 0"):
        SensorSchedule.from_rate_hz(0)


def test_from_rate_fraction() -> None:
    assert SensorSchedule.from_rate_hz(Fraction(1, 3)).period_ns == 3_000_000_000


def test_non_positive_period_is_refused() -> None:
    with pytest.raises(ValueError, match="period_ns must be a positive number of nanoseconds"):
        SensorSchedule(period_ns=0)


def test_negative_phase_is_refused() -> None:
    with pytest.raises(ValueError, match="phase_ns must be >= 0 ns, got -1"):
        SensorSchedule(period_ns=10, phase_ns=-1)


def test_float_period_is_refused() -> None:
    with pytest.raises(TypeError, match="period_ns must be an int of nanoseconds, got float"):
        SensorSchedule(period_ns=2e8)  # type: ignore[arg-type]


def test_bool_phase_is_refused() -> None:
    with pytest.raises(TypeError, match="phase_ns must be an int of nanoseconds, got bool"):
        SensorSchedule(period_ns=10, phase_ns=True)


def test_time_ns_formula() -> None:
    assert SensorSchedule(period_ns=7, phase_ns=3).time_ns(4) == 31


# --------------------------------------------------------------------------- windows


def test_5_hz_on_20_ms_clock_samples_every_10th_tick() -> None:
    schedule = SensorSchedule.from_rate_hz(5)
    on_tick, off_tick = schedule.samples_in_window(
        tick_times(20 * MS, 101), start_tick=0, after_ns=None
    )
    assert off_tick == []
    assert [s.tick for s in on_tick] == list(range(0, 101, 10))
    assert [s.sample_index for s in on_tick] == list(range(11))
    assert [s.time_ns for s in on_tick] == [200 * MS * n for n in range(11)]


def test_7_ms_period_on_2_ms_clock_reports_off_tick_without_snapping() -> None:
    schedule = SensorSchedule(period_ns=7 * MS)
    on_tick, off_tick = schedule.samples_in_window(
        tick_times(2 * MS, 11), start_tick=0, after_ns=None
    )  # ticks at 0, 2, ..., 20 ms; samples at 0, 7, 14 ms
    assert on_tick == [
        ScheduledSample(sample_index=0, time_ns=0, tick=0),
        ScheduledSample(sample_index=2, time_ns=14 * MS, tick=7),
    ]
    assert len(off_tick) == 1
    record = off_tick[0]
    assert isinstance(record, OffTickSample)
    assert (
        record.sample_index,
        record.time_ns,
        record.previous_tick,
        record.previous_tick_time_ns,
        record.next_tick_time_ns,
    ) == (1, 7 * MS, 3, 6 * MS, 8 * MS)
    assert "never snapped" in record.reason


def test_phase_shifts_samples() -> None:
    schedule = SensorSchedule(period_ns=40 * MS, phase_ns=20 * MS)
    on_tick, off_tick = schedule.samples_in_window(
        tick_times(10 * MS, 11), start_tick=0, after_ns=None
    )
    assert off_tick == []
    assert [(s.sample_index, s.tick) for s in on_tick] == [(0, 2), (1, 6), (2, 10)]


def test_phase_after_window_gives_no_samples() -> None:
    schedule = SensorSchedule(period_ns=10, phase_ns=1_000)
    assert schedule.samples_in_window(tick_times(10, 50), start_tick=0, after_ns=None) == ([], [])


def test_window_with_nonzero_start_tick_and_t0() -> None:
    schedule = SensorSchedule(period_ns=30)
    times = [110, 120, 130, 140, 150]  # ticks 11..15 of a clock with t0 = 0, step 10
    on_tick, off_tick = schedule.samples_in_window(times, start_tick=11, after_ns=100)
    assert off_tick == []
    assert [(s.sample_index, s.time_ns, s.tick) for s in on_tick] == [(4, 120, 12), (5, 150, 15)]


def test_after_ns_excludes_the_processed_tick() -> None:
    schedule = SensorSchedule(period_ns=10)
    on_tick, _ = schedule.samples_in_window([110, 120], start_tick=11, after_ns=100)
    assert [s.time_ns for s in on_tick] == [110, 120]


def test_off_tick_sample_before_first_tick_of_window() -> None:
    schedule = SensorSchedule(period_ns=7 * MS)
    _, off_tick = schedule.samples_in_window([8 * MS, 10 * MS], start_tick=4, after_ns=6 * MS)
    assert [(r.previous_tick, r.previous_tick_time_ns, r.next_tick_time_ns) for r in off_tick] == [
        (3, 6 * MS, 8 * MS)
    ]


def test_split_windows_give_same_union_as_one_window() -> None:
    rng = np.random.default_rng(5001)
    step = int(rng.integers(1_000, 5_000))
    schedule = SensorSchedule(
        period_ns=int(rng.integers(1_000, 20_000)), phase_ns=int(rng.integers(0, 10_000))
    )
    times = tick_times(step, 2_000, t0_ns=int(rng.integers(0, 1_000)))
    whole = schedule.samples_in_window(times, start_tick=0, after_ns=None)

    cuts = sorted({int(c) for c in rng.integers(1, len(times) - 1, size=15)})
    on_tick: list[ScheduledSample] = []
    off_tick: list[OffTickSample] = []
    bounds = [0, *cuts, len(times)]
    for start, stop in itertools.pairwise(bounds):
        after = None if start == 0 else times[start - 1]
        part_on, part_off = schedule.samples_in_window(
            times[start:stop], start_tick=start, after_ns=after
        )
        on_tick += part_on
        off_tick += part_off
    assert len(whole[0]) + len(whole[1]) > 100  # the check is not vacuous
    assert (on_tick, off_tick) == whole


def test_long_window_is_fast_and_complete() -> None:
    # 10^6 ticks of 1 ms with a 1 s sensor: 1001 samples, found without scanning nanoseconds.
    schedule = SensorSchedule(period_ns=1_000 * MS)
    times = list(range(0, 1_000_000 * MS, MS))
    on_tick, off_tick = schedule.samples_in_window(times, start_tick=0, after_ns=None)
    assert off_tick == []
    assert [s.tick for s in on_tick] == list(range(0, 1_000_000, 1_000))


def test_numpy_tick_times_give_python_ints() -> None:
    schedule = SensorSchedule(period_ns=20)
    on_tick, _ = schedule.samples_in_window(
        np.arange(0, 100, 10, dtype=np.int64), start_tick=0, after_ns=None
    )
    assert all(type(s.time_ns) is int and type(s.tick) is int for s in on_tick)


def test_empty_tick_times_are_refused() -> None:
    with pytest.raises(ValueError, match="tick_times_ns must hold at least one tick time"):
        SensorSchedule(period_ns=10).samples_in_window([], start_tick=0, after_ns=None)


def test_non_increasing_tick_times_are_refused() -> None:
    with pytest.raises(ValueError, match="strictly increasing, got 20 then 20 at position 2"):
        SensorSchedule(period_ns=10).samples_in_window([10, 20, 20], start_tick=0, after_ns=None)


def test_float_tick_time_is_refused() -> None:
    with pytest.raises(TypeError, match=r"tick_times_ns\[1\] must be an int.*float"):
        SensorSchedule(period_ns=10).samples_in_window([10, 20.0], start_tick=0, after_ns=None)


def test_after_ns_not_before_first_tick_is_refused() -> None:
    with pytest.raises(ValueError, match=r"after_ns must be the time of tick 4.*got after_ns=50"):
        SensorSchedule(period_ns=10).samples_in_window([50, 60], start_tick=5, after_ns=50)


def test_after_ns_at_start_tick_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="after_ns must be None when start_tick is 0"):
        SensorSchedule(period_ns=10).samples_in_window([50, 60], start_tick=0, after_ns=40)


def test_negative_start_tick_is_refused() -> None:
    with pytest.raises(ValueError, match="start_tick must be >= 0, got -1"):
        SensorSchedule(period_ns=10).samples_in_window([50], start_tick=-1, after_ns=None)
