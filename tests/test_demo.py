"""The survey demo's duration rule: whole ticks, converted exactly, never rounded."""

from __future__ import annotations

import pytest

from leviathan.demo import TICK_NS, ticks_for_duration
from leviathan.world import MAX_STEPS_PER_WORLD


def test_a_float_duration_is_converted_exactly() -> None:
    # Float multiplication lands just below 201 ticks (2009999999 ns) and would floor to 200.
    assert int(2.01 * 1e9) // TICK_NS == 200
    assert ticks_for_duration(2.01, TICK_NS) == 201


@pytest.mark.parametrize("seconds", ["0.05", 0.05, "5e-2"])
def test_every_spelling_of_a_duration_gives_the_same_ticks(seconds) -> None:
    assert ticks_for_duration(seconds, TICK_NS) == 5


def test_a_duration_between_ticks_is_refused_with_its_neighbours() -> None:
    with pytest.raises(ValueError) as caught:
        ticks_for_duration("0.125", TICK_NS, name="--seconds")
    assert str(caught.value) == (
        "--seconds: 0.125 s is not a whole number of ticks of 0.01 s (it is 12.5 ticks); "
        "durations are never rounded: the nearest valid values are 0.12 s and 0.13 s"
    )


def test_a_duration_below_whole_nanoseconds_is_refused_not_rounded() -> None:
    with pytest.raises(ValueError, match=r"--seconds: 1e-10 s is not a whole number of ticks"):
        ticks_for_duration("1e-10", TICK_NS, name="--seconds")


def test_a_duration_below_the_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^seconds: expected at least 0\.01 s \(1 tick of"):
        ticks_for_duration(0, TICK_NS, minimum=1)


def test_a_duration_beyond_the_world_limit_is_refused_up_front() -> None:
    limit_s = MAX_STEPS_PER_WORLD * TICK_NS // 10**9
    assert ticks_for_duration(limit_s, TICK_NS) == MAX_STEPS_PER_WORLD
    with pytest.raises(ValueError, match="beyond the World's limit"):
        ticks_for_duration("1e30", TICK_NS)


@pytest.mark.parametrize(("seconds", "error"), [(True, TypeError), ("abc", ValueError)])
def test_a_duration_that_is_not_a_number_is_refused_naming_the_option(seconds, error) -> None:
    with pytest.raises(error, match=r"^--seconds: "):
        ticks_for_duration(seconds, TICK_NS, name="--seconds")
