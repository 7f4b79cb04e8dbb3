"""Beam patterns, ping-period and range-window rules shared by the acoustic fans."""

from __future__ import annotations

import math

import pytest

from leviathan.acoustics import sound_speed_m_per_s
from leviathan.sonar import beams


def test_gaussian_is_half_power_at_its_stated_half_width() -> None:
    w = math.radians(0.5)
    assert beams.gaussian_gain(w / 2, w) == 0.5
    assert beams.one_way_gain("gaussian", w / 2, 0.0, widths_rad=(w, 1.0)) == 0.5
    assert beams.one_way_gain("uniform", 1.0, 1.0) == 1.0


def test_sinc2_is_half_power_at_its_stated_width_and_near_0886_lambda_over_l() -> None:
    length, f = 0.5, 400e3
    width = beams.sinc2_3db_full_width_rad(length, f)
    assert beams.sinc2_gain(width / 2, length, f) == pytest.approx(0.5, abs=1e-12)
    assert beams.sinc2_gain(0.0, length, f) == 1.0
    wavelength = 1500.0 / f
    assert width == pytest.approx(0.8859 * wavelength / length, rel=1e-3)
    assert math.sin(beams.SINC2_HALF_POWER_U) ** 2 / beams.SINC2_HALF_POWER_U**2 == pytest.approx(
        0.5
    )


def test_a_too_short_array_has_no_3db_width() -> None:
    with pytest.raises(ValueError, match="array_length_m"):
        beams.sinc2_3db_full_width_rad(0.001, 400e3)


def test_ping_period_below_the_two_way_time_is_refused_with_c_from_the_water() -> None:
    water = dict(temperature_c=10.0, salinity_psu=35.0, depth_m=20.0)
    c = sound_speed_m_per_s(**water)
    minimum = math.ceil(2 * 50.0 / c * 1e9)
    assert beams.check_ping_period(minimum, 50.0, **water) == minimum
    with pytest.raises(ValueError, match=r"schedule\.period_ns.*" + str(minimum)):
        beams.check_ping_period(minimum - 1, 50.0, **water)


def test_range_window_errors_name_the_field() -> None:
    assert beams.check_range_window(1.0, 5.0, 4) == (1.0, 5.0, 4, 1.0)
    with pytest.raises(ValueError, match="range_max_m"):
        beams.check_range_window(5.0, 5.0, 4)
    with pytest.raises(ValueError, match="range_bin_count"):
        beams.check_range_window(0.0, 5.0, 0)


def test_inclusive_grid_ends_exactly() -> None:
    g = beams.inclusive_grid(0.1, math.pi / 2, 7)
    assert g[0] == 0.1 and g[-1] == math.pi / 2
    assert beams.inclusive_grid(0.0, 1.0, 1).tolist() == [0.5]
