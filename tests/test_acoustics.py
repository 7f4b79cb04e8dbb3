"""Tests for leviathan.acoustics: Francois-Garrison absorption, Mackenzie sound speed."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from leviathan.acoustics import (
    FrancoisGarrisonValidity,
    MediumSupport,
    UnsupportedMediumError,
    absorption_db_per_m,
    medium_support,
    sound_speed_m_per_s,
    two_way_absorption_factor,
)

OCEAN = {"temperature_c": 10.0, "salinity_psu": 35.0, "depth_m": 0.0, "ph": 8.0}


def _fg_second_transcription_db_per_km(f_khz, t, s, d, ph):
    """Independent second transcription of Francois & Garrison (1982), dB/km.

    Typed separately from the module, from M. B. Porter's Acoustics Toolbox
    ``Matlab/Misc/franc_garr.m`` (oalib-acoustics/Acoustics-Toolbox; noted there
    as "Verified using F-G Table IV"), with math.pow / exponent forms rather than
    the module's ``10.0 **``; the pure-water split follows FG (T <= 20 degC).
    """
    c = 1412 + 3.21 * t + 1.19 * s + 0.0167 * d
    a1 = (8.86 / c) * math.pow(10, 0.78 * ph - 5)
    f1 = 2.8 * (s / 35) ** 0.5 * math.pow(10, 4 - 1245 / (t + 273))
    a2 = 21.44 * (s / c) * (1 + 0.025 * t)
    p2 = 1 - 1.37e-4 * d + 6.2e-9 * d**2
    f2 = 8.17 * math.pow(10, 8 - 1990 / (t + 273)) / (1 + 0.0018 * (s - 35))
    p3 = 1 - 3.83e-5 * d + 4.9e-10 * d**2
    if t <= 20:
        a3 = 4.937e-4 - 2.59e-5 * t + 9.11e-7 * t**2 - 1.5e-8 * t**3
    else:
        a3 = 3.964e-4 - 1.146e-5 * t + 1.45e-7 * t**2 - 6.5e-10 * t**3
    boric = a1 * f1 * f_khz**2 / (f1**2 + f_khz**2)
    mgso4 = a2 * p2 * f2 * f_khz**2 / (f2**2 + f_khz**2)
    return boric + mgso4 + a3 * p3 * f_khz**2


def test_absorption_returns_python_float():
    alpha = absorption_db_per_m(100e3, **OCEAN)
    assert type(alpha) is float


@pytest.mark.parametrize(
    ("f_hz", "t", "s", "d", "ph"),
    [
        (1e3, 10.0, 35.0, 0.0, 8.0),
        (10e3, 4.0, 35.0, 1000.0, 8.0),
        (100e3, 10.0, 35.0, 0.0, 8.0),
        (900e3, 15.0, 34.0, 50.0, 8.1),
        (38e3, 20.0, 35.0, 200.0, 7.9),
        (200e3, 21.0, 33.0, 3000.0, 8.3),
    ],
)
def test_absorption_matches_second_transcription(f_hz, t, s, d, ph):
    # No published FG table value could be retrieved through the reference search
    # (the paper's Table IV is not available as text), so the formula is checked
    # against an independent transcription. Tolerance 1e-12 relative: the two
    # differ only in float rounding of a different operation order.
    got = absorption_db_per_m(f_hz, temperature_c=t, salinity_psu=s, depth_m=d, ph=ph)
    expected = _fg_second_transcription_db_per_km(f_hz / 1000.0, t, s, d, ph) / 1000.0
    assert got == pytest.approx(expected, rel=1e-12, abs=0.0)


def test_absorption_order_of_magnitude_at_1_khz():
    # Textbook order of magnitude, not a verified published table value: about
    # 0.06 dB/km at 1 kHz in typical ocean water (10 degC, 35 PSU, pH 8, surface).
    # Bounds are deliberately loose (factor ~1.5) because the figure is only
    # quoted to one significant digit.
    alpha_db_per_km = absorption_db_per_m(1e3, **OCEAN) * 1000.0
    assert 0.04 < alpha_db_per_km < 0.09


def test_absorption_order_of_magnitude_at_100_khz():
    # Textbook order of magnitude, not a verified published table value: roughly
    # 30-40 dB/km at 100 kHz in typical ocean water (10 degC, 35 PSU, pH 8).
    alpha_db_per_km = absorption_db_per_m(100e3, **OCEAN) * 1000.0
    assert 28.0 < alpha_db_per_km < 42.0


def test_absorption_increases_with_frequency():
    freqs = [200.0, 500.0, 1e3, 3e3, 10e3, 38e3, 100e3, 300e3, 900e3, 1e6]
    alphas = [absorption_db_per_m(f, **OCEAN) for f in freqs]
    assert all(a < b for a, b in itertools.pairwise(alphas))


def test_absorption_is_deterministic_bitwise():
    first = absorption_db_per_m(900e3, **OCEAN)
    for _ in range(5):
        assert absorption_db_per_m(900e3, **OCEAN).hex() == first.hex()


def test_pure_water_branch_switches_above_20_c():
    # At T = 20 the T <= 20 polynomial applies; just above, the T > 20 one. The two
    # differ by about 1 % at 20 degC, so at 1 MHz (pure-water dominated) the result
    # steps, while the second transcription agrees on each side.
    kw = {"salinity_psu": 35.0, "depth_m": 0.0, "ph": 8.0}
    at_20 = absorption_db_per_m(1e6, temperature_c=20.0, **kw)
    above = absorption_db_per_m(1e6, temperature_c=math.nextafter(20.0, 21.0), **kw)
    assert at_20 == pytest.approx(
        _fg_second_transcription_db_per_km(1000.0, 20.0, 35.0, 0.0, 8.0) / 1000.0, rel=1e-12
    )
    low_poly = 4.937e-4 - 2.59e-5 * 20 + 9.11e-7 * 400 - 1.5e-8 * 8000
    high_poly = 3.964e-4 - 1.146e-5 * 20 + 1.45e-7 * 400 - 6.5e-10 * 8000
    step_db_per_m = (high_poly - low_poly) * 1000.0**2 / 1000.0
    assert above - at_20 == pytest.approx(step_db_per_m, rel=1e-6)


def test_medium_support_inside_validity():
    support = medium_support(900e3, **OCEAN)
    assert support == MediumSupport(supported=True, reasons=())


def test_medium_support_fresh_water_reason():
    support = medium_support(900e3, temperature_c=10.0, salinity_psu=0.5, depth_m=5.0, ph=8.0)
    assert not support.supported
    assert support.reasons == ("salinity_psu=0.5 outside [30, 35] PSU (fresh or brackish water)",)


def test_medium_support_above_surface_reason():
    support = medium_support(900e3, temperature_c=10.0, salinity_psu=35.0, depth_m=-1.0, ph=8.0)
    assert support.reasons == ("depth_m=-1.0: sensor above the sea surface (depth < 0)",)


def test_medium_support_lists_every_reason_in_order():
    support = medium_support(2e6, temperature_c=25.0, salinity_psu=40.0, depth_m=5000.0, ph=7.0)
    assert not support.supported
    assert [r.split("=")[0] for r in support.reasons] == [
        "frequency_hz",
        "temperature_c",
        "salinity_psu",
        "depth_m",
        "ph",
    ]


def test_validity_bounds_are_inclusive():
    v = FrancoisGarrisonValidity
    support = medium_support(
        v.FREQUENCY_HZ.high,
        temperature_c=v.TEMPERATURE_C.low,
        salinity_psu=v.SALINITY_PSU.low,
        depth_m=v.DEPTH_M.high,
        ph=v.PH.high,
    )
    assert support.supported


def test_absorption_raises_unsupported_listing_reasons():
    with pytest.raises(UnsupportedMediumError) as info:
        absorption_db_per_m(900e3, temperature_c=10.0, salinity_psu=0.5, depth_m=-1.0, ph=8.0)
    assert isinstance(info.value, ValueError)
    assert len(info.value.reasons) == 2
    assert "salinity_psu=0.5" in str(info.value)
    assert "above the sea surface" in str(info.value)


def test_absorption_non_strict_evaluates_outside_validity():
    alpha = absorption_db_per_m(
        900e3, temperature_c=25.0, salinity_psu=0.5, depth_m=10.0, ph=8.0, strict=False
    )
    expected = _fg_second_transcription_db_per_km(900.0, 25.0, 0.5, 10.0, 8.0) / 1000.0
    assert alpha == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", ["frequency_hz", "temperature_c", "salinity_psu", "depth_m", "ph"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_absorption_non_finite_names_argument(name, bad):
    args = {"frequency_hz": 100e3, **OCEAN}
    args[name] = bad
    f = args.pop("frequency_hz")
    with pytest.raises(ValueError, match=name):
        absorption_db_per_m(f, **args, strict=False)


def test_absorption_non_positive_frequency_raises_even_non_strict():
    with pytest.raises(ValueError, match="frequency_hz"):
        absorption_db_per_m(0.0, **OCEAN, strict=False)


def test_mackenzie_published_check_value():
    # Mackenzie (1981), J. Acoust. Soc. Am. 70(3) 807-812, check value:
    # c = 1550.744 m/s at T = 25 degC, S = 35, D = 1000 m (published to 1 mm/s,
    # so the tolerance is half a unit in the last published digit).
    c = sound_speed_m_per_s(temperature_c=25.0, salinity_psu=35.0, depth_m=1000.0)
    assert c == pytest.approx(1550.744, abs=5e-4)


def test_mackenzie_mbari_check_value_outside_validity():
    # MBARI Sndspd.txt (Mackenzie 1981 implementation) CHECKVALUE:
    # 1718.774 m/s at S = 40, T = 40 degC, Z = 10000 m. Outside Mackenzie's
    # validity, so this checks the polynomial's arithmetic only (3 decimals given).
    c = sound_speed_m_per_s(temperature_c=40.0, salinity_psu=40.0, depth_m=10000.0)
    assert c == pytest.approx(1718.774, abs=5e-4)


@pytest.mark.parametrize("name", ["temperature_c", "salinity_psu", "depth_m"])
def test_sound_speed_non_finite_names_argument(name):
    args = {"temperature_c": 10.0, "salinity_psu": 35.0, "depth_m": 0.0}
    args[name] = math.nan
    with pytest.raises(ValueError, match=name):
        sound_speed_m_per_s(**args)


def test_two_way_factor_dtype_shape_and_values():
    range_m = np.array([[0.0, 5.0], [10.0, 50.0]])
    factor = two_way_absorption_factor(range_m, 0.1)
    assert factor.dtype == np.float64
    assert factor.shape == (2, 2)
    # 0.1 dB/m over 2 x 50 m = 10 dB -> 0.1; over 2 x 0 m -> 1.
    assert factor[0, 0] == 1.0
    assert factor[1, 1] == pytest.approx(0.1, rel=1e-15)
    assert factor[1, 0] == pytest.approx(10.0 ** (-0.2), rel=1e-15)


def test_two_way_factor_is_element_wise():
    rng = np.random.default_rng(20240601)
    range_m = rng.uniform(0.0, 100.0, size=257)
    whole = two_way_absorption_factor(range_m, 0.25)
    one_by_one = np.array([two_way_absorption_factor(r, 0.25) for r in range_m])
    assert_array_equal(whole, one_by_one)


@pytest.mark.parametrize(
    ("range_m", "alpha", "match"),
    [
        (np.array([1.0, np.nan]), 0.1, "range_m"),
        (np.array([-1.0]), 0.1, "range_m"),
        (np.array([1.0]), math.inf, "alpha_db_per_m"),
        (np.array([1.0]), -0.1, "alpha_db_per_m"),
    ],
)
def test_two_way_factor_rejects_bad_input(range_m, alpha, match):
    with pytest.raises(ValueError, match=match):
        two_way_absorption_factor(range_m, alpha)
