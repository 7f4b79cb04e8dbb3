"""Tests for leviathan.time: exact integer-nanosecond time and the epoch clock."""

from __future__ import annotations

import json
import time as stdlib_time
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from leviathan.time import (
    Clock,
    Epoch,
    NonIntegerStepError,
    ns_to_fraction,
    ns_to_seconds,
    seconds_to_ns,
)

# --------------------------------------------------------------------------- seconds_to_ns


def test_float_0_02_is_exactly_20_ms() -> None:
    result = seconds_to_ns(0.02)
    assert type(result) is int
    assert result == 20_000_000


def test_float_is_read_through_repr_not_binary_value() -> None:
    # 0.02 * 1e9 in binary floating point is 20000000.000000004, not an integer.
    assert Fraction(0.02) * 10**9 != 20_000_000
    assert seconds_to_ns(0.02) == 20_000_000


def test_numpy_float64_is_read_through_its_float_repr() -> None:
    assert seconds_to_ns(np.float64(0.02)) == 20_000_000


def test_sub_nanosecond_float_is_refused() -> None:
    with pytest.raises(NonIntegerStepError, match="whole number of nanoseconds"):
        seconds_to_ns(1e-10)


def test_non_integer_error_is_a_value_error() -> None:
    assert issubclass(NonIntegerStepError, ValueError)


def test_float_sum_with_long_repr_is_refused() -> None:
    assert repr(0.1 + 0.2) == "0.30000000000000004"
    with pytest.raises(NonIntegerStepError, match=r"seconds=0.30000000000000004"):
        seconds_to_ns(0.1 + 0.2)


def test_string_one_nanosecond() -> None:
    assert seconds_to_ns("0.000000001") == 1


def test_decimal_input() -> None:
    assert seconds_to_ns(Decimal("0.0125")) == 12_500_000


def test_fraction_input() -> None:
    assert seconds_to_ns(Fraction(1, 8)) == 125_000_000


def test_fraction_one_third_is_refused() -> None:
    with pytest.raises(NonIntegerStepError, match="1000000000/3 ns exactly"):
        seconds_to_ns(Fraction(1, 3))


def test_int_input() -> None:
    assert seconds_to_ns(3) == 3_000_000_000


def test_large_int_input_is_exact() -> None:
    assert seconds_to_ns(10**12 + 1) == (10**12 + 1) * 10**9


def test_negative_seconds_allowed() -> None:
    assert seconds_to_ns(-0.5) == -500_000_000


def test_bool_is_refused() -> None:
    with pytest.raises(TypeError, match="got bool True"):
        seconds_to_ns(True)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "inf", Decimal("NaN")])
def test_non_finite_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="seconds must be finite"):
        seconds_to_ns(value)  # type: ignore[arg-type]


def test_unparsable_string_is_refused() -> None:
    with pytest.raises(ValueError, match=r"seconds must be a decimal number of s.*'twenty'"):
        seconds_to_ns("twenty")


def test_unsupported_type_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="got list"):
        seconds_to_ns([0.02])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- ns_to_*


def test_ns_to_seconds_is_correctly_rounded() -> None:
    for ns in (1, 20_000_000, 33_333_333, 2**60 + 1, -7):
        assert ns_to_seconds(ns) == float(Fraction(ns, 10**9))


def test_ns_to_seconds_refuses_float() -> None:
    with pytest.raises(TypeError, match="ns must be an int of nanoseconds, got float"):
        ns_to_seconds(1.0)  # type: ignore[arg-type]


def test_ns_to_fraction_is_exact() -> None:
    assert ns_to_fraction(33_333_333) == Fraction(33_333_333, 10**9)


# --------------------------------------------------------------------------- Epoch


def test_epoch_time_formula() -> None:
    epoch = Epoch(start_tick=10, start_time_ns=1_000, step_ns=7)
    assert epoch.time_ns(10) == 1_000
    assert epoch.time_ns(13) == 1_021


def test_epoch_rejects_tick_before_start() -> None:
    with pytest.raises(ValueError, match="k=9 is before this epoch, which starts at tick 10"):
        Epoch(start_tick=10, start_time_ns=0, step_ns=1).time_ns(9)


def test_epoch_rejects_non_positive_step() -> None:
    with pytest.raises(ValueError, match="step_ns must be a positive number of nanoseconds"):
        Epoch(start_tick=0, start_time_ns=0, step_ns=0)


# --------------------------------------------------------------------------- Clock


def test_new_clock_is_at_tick_zero_and_t0() -> None:
    clock = Clock(20_000_000, t0_ns=5)
    assert clock.tick == 0
    assert clock.time_ns == 5
    assert clock.epochs == (Epoch(0, 5, 20_000_000),)


def test_advance_returns_new_tick_times_as_ints() -> None:
    clock = Clock(20_000_000)
    times = clock.advance(3)
    assert times == [20_000_000, 40_000_000, 60_000_000]
    assert all(type(t) is int for t in times)
    assert clock.tick == 3


def test_advance_zero_changes_nothing() -> None:
    clock = Clock(10)
    assert clock.advance(0) == []
    assert clock.tick == 0


def test_advance_negative_is_refused() -> None:
    with pytest.raises(ValueError, match="n must be >= 0 ticks, got -1"):
        Clock(10).advance(-1)


def test_from_seconds_is_exact() -> None:
    clock = Clock.from_seconds(0.02, t0_s="1.5")
    assert clock.step_ns == 20_000_000
    assert clock.t0_ns == 1_500_000_000


def test_from_seconds_refuses_sub_nanosecond_step() -> None:
    with pytest.raises(NonIntegerStepError):
        Clock.from_seconds(1e-10)


@pytest.mark.parametrize("step", [0, -20])
def test_non_positive_step_is_refused(step: int) -> None:
    with pytest.raises(ValueError, match=f"step_ns must be a positive number.*got {step}"):
        Clock(step)


def test_float_step_is_refused() -> None:
    with pytest.raises(TypeError, match=r"step_ns must be an int.*seconds_to_ns"):
        Clock(0.02)  # type: ignore[arg-type]


def test_bool_step_is_refused() -> None:
    with pytest.raises(TypeError, match="step_ns must be an int of nanoseconds, got bool"):
        Clock(True)


def test_float_t0_is_refused() -> None:
    with pytest.raises(TypeError, match="t0_ns must be an int"):
        Clock(10, t0_ns=0.0)  # type: ignore[arg-type]


def test_epoch_formula_after_several_step_changes() -> None:
    clock = Clock(10, t0_ns=1_000)
    clock.advance(5)  # ticks 1..5 at step 10 -> 1050
    clock.set_step(3)
    clock.advance(4)  # ticks 6..9 at step 3 -> 1062
    clock.set_step(100)
    clock.advance(2)  # ticks 10..11 at step 100 -> 1262
    assert clock.epochs == (
        Epoch(0, 1_000, 10),
        Epoch(5, 1_050, 3),
        Epoch(9, 1_062, 100),
    )
    expected = [1_000 + 10 * k for k in range(6)]
    expected += [1_050 + 3 * (k - 5) for k in range(6, 10)]
    expected += [1_062 + 100 * (k - 9) for k in range(10, 12)]
    assert [clock.time_ns_at(k) for k in range(12)] == expected
    assert clock.time_ns == 1_262


def test_advance_times_match_time_ns_at() -> None:
    clock = Clock(7)
    clock.advance(3)
    clock.set_step(11)
    times = clock.advance(4)
    assert times == [clock.time_ns_at(k) for k in range(4, 8)]


def test_set_step_twice_at_one_tick_replaces_epoch() -> None:
    clock = Clock(10)
    clock.advance(2)
    clock.set_step(5)
    clock.set_step(8)
    assert clock.epochs == (Epoch(0, 0, 10), Epoch(2, 20, 8))


def test_set_step_back_at_same_tick_leaves_no_epoch() -> None:
    clock = Clock(10)
    clock.advance(2)
    clock.set_step(5)
    clock.set_step(10)
    assert clock.epochs == (Epoch(0, 0, 10),)


def test_set_step_to_current_step_changes_nothing() -> None:
    clock = Clock(10)
    clock.advance(2)
    clock.set_step(10)
    assert clock.epochs == (Epoch(0, 0, 10),)


def test_time_ns_at_uncommitted_tick_is_refused() -> None:
    clock = Clock(10)
    clock.advance(2)
    with pytest.raises(ValueError, match=r"k=3 is not a committed tick.*are 0\.\.2"):
        clock.time_ns_at(3)


def test_reset_restores_original_single_epoch() -> None:
    clock = Clock(10, t0_ns=7)
    clock.set_step(4)  # replaces the tick-0 epoch
    clock.advance(3)
    clock.set_step(9)
    clock.advance(1)
    clock.reset()
    assert clock.tick == 0
    assert clock.time_ns == 7
    assert clock.epochs == (Epoch(0, 7, 10),)
    assert clock == Clock(10, t0_ns=7)


def test_restore_takes_the_other_clocks_state_in_place() -> None:
    clock = Clock(10)
    held = clock  # what a World's callers hold: world.clock
    other = Clock(4, t0_ns=3)
    other.advance(2)
    other.set_step(6)
    other.advance(1)
    clock.restore(other)
    assert held is clock and clock == other
    assert (clock.tick, clock.time_ns, clock.epochs) == (3, 17, other.epochs)
    clock.advance(1)  # nothing is shared: the source keeps its own state
    assert (clock.tick, other.tick) == (4, 3)
    clock.reset()  # the reset point came along too
    assert clock == Clock(4, t0_ns=3)
    with pytest.raises(TypeError, match="other: expected a Clock, got int"):
        clock.restore(3)  # type: ignore[arg-type]


def test_provenance_is_json_round_trippable_ints() -> None:
    clock = Clock(10, t0_ns=-3)
    clock.advance(2)
    clock.set_step(4)
    clock.advance(1)
    provenance = clock.provenance()
    assert json.loads(json.dumps(provenance)) == provenance
    assert provenance == {
        "t0_ns": -3,
        "tick": 3,
        "time_ns": 21,
        "epochs": [
            {"start_tick": 0, "start_time_ns": -3, "step_ns": 10},
            {"start_tick": 2, "start_time_ns": 17, "step_ns": 4},
        ],
    }


def test_copy_is_independent() -> None:
    clock = Clock(10)
    clock.advance(2)
    clone = clock.copy()
    clone.set_step(3)
    clone.advance(1)
    assert clock.tick == 2
    assert clock.epochs == (Epoch(0, 0, 10),)
    assert clone.time_ns == 23


def test_copy_keeps_reset_point() -> None:
    clock = Clock(10, t0_ns=5)
    clock.set_step(4)
    clone = clock.copy()
    clone.reset()
    assert clone.epochs == (Epoch(0, 5, 10),)


def test_long_run_has_no_drift() -> None:
    # 1/30 s is not a whole number of ns; 33_333_333 ns is the step a user would pick.
    clock = Clock(33_333_333)
    ticks = 10**7
    for _ in range(10):  # in chunks to keep memory small
        times = clock.advance(ticks // 10)
    assert times[-1] == 333_333_330_000_000
    assert clock.time_ns == ticks * 33_333_333
    assert clock.time_ns_at(ticks // 2) == (ticks // 2) * 33_333_333
    assert ns_to_seconds(clock.time_ns) == 333_333.33


def test_clock_ignores_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> tuple[list[int], dict]:
        clock = Clock.from_seconds(0.02, t0_s=1)
        times = clock.advance(50)
        clock.set_step(3_000_000)
        times += clock.advance(50)
        return times, clock.provenance()

    baseline = run()
    monkeypatch.setattr(stdlib_time, "time", lambda: -1.0e12)
    monkeypatch.setattr(stdlib_time, "monotonic", lambda: 4.2e15)
    monkeypatch.setattr(stdlib_time, "perf_counter", lambda: float("nan"))
    monkeypatch.setattr(stdlib_time, "time_ns", lambda: -(2**62))
    monkeypatch.setattr(stdlib_time, "monotonic_ns", lambda: 2**62)
    monkeypatch.setattr(stdlib_time, "perf_counter_ns", lambda: 1)
    assert run() == baseline
