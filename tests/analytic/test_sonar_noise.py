"""Analytic sonar noise: reproducible draws and effects in dB that match their closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from leviathan.sensors import SonarNoiseModel, apply_sonar_noise, sonar_noise_effect

EULER_GAMMA = 0.5772156649015329


def _rng(seed: int = 11) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def test_output_is_a_new_read_only_float64_array_and_the_input_is_unchanged() -> None:
    intensity = np.full((4, 5), 2.0)
    out = apply_sonar_noise(intensity, SonarNoiseModel(noise_floor_db=-10.0), _rng())
    assert out.dtype == np.float64 and out.shape == (4, 5)
    assert not out.flags.writeable
    np.testing.assert_array_equal(intensity, np.full((4, 5), 2.0))


def test_same_seed_gives_the_same_noise_and_draws_speckle_then_floor() -> None:
    intensity = np.linspace(0.0, 3.0, 60).reshape(6, 10)
    model = SonarNoiseModel(noise_floor_db=-3.0, gain_db=2.0)
    a = apply_sonar_noise(intensity, model, _rng(5))
    b = apply_sonar_noise(intensity, model, _rng(5))
    np.testing.assert_array_equal(a, b)
    g = _rng(5)
    s = g.standard_exponential(size=intensity.shape)
    n = 10.0 ** (-0.3) * g.standard_exponential(size=intensity.shape)
    np.testing.assert_array_equal(a, (intensity * s + n) * 10.0**0.2)


def test_gain_moves_every_level_by_gain_db() -> None:
    intensity = np.array([[1e-6, 0.5, 3.0]])
    out = apply_sonar_noise(intensity, SonarNoiseModel(speckle=False, gain_db=7.5), _rng())
    np.testing.assert_allclose(10.0 * np.log10(out / intensity), 7.5, rtol=0, atol=1e-12)
    assert sonar_noise_effect(SonarNoiseModel(gain_db=7.5)).gain_db == 7.5


def test_speckle_level_statistics_match_the_exponential_closed_forms() -> None:
    # 10 log10 S for S ~ Exp(1): mean -10 gamma / ln 10, std 10 pi / (sqrt 6 ln 10).
    # 200,000 cells: standard errors 0.013 dB (mean) and ~0.02 dB (std); tolerance 0.08 dB.
    intensity = np.ones(200_000)
    out = apply_sonar_noise(intensity, SonarNoiseModel(), _rng(3))
    level = 10.0 * np.log10(out)
    effect = sonar_noise_effect(SonarNoiseModel())
    assert effect.speckle_level_mean_db == pytest.approx(-10.0 * EULER_GAMMA / math.log(10.0))
    assert effect.speckle_level_std_db == pytest.approx(10.0 * math.pi / (6**0.5 * math.log(10)))
    assert abs(level.mean() - effect.speckle_level_mean_db) < 0.08
    assert abs(level.std() - effect.speckle_level_std_db) < 0.08
    # Unit mean: the mean intensity is unchanged (0 dB within 0.03 dB, SE 0.01 dB).
    assert abs(10.0 * math.log10(out.mean())) < 0.03


def test_noise_floor_raises_the_mean_level_by_its_closed_form() -> None:
    # Mean of I + n0 E is I + n0: +10 log10(1 + n0 / I) dB; an empty cell reads n0.
    n0_db = -6.0
    model = SonarNoiseModel(speckle=False, noise_floor_db=n0_db)
    effect = sonar_noise_effect(model)
    for value in (0.0, 0.1, 1.0):
        out = apply_sonar_noise(np.full(200_000, value), model, _rng(8))
        if value == 0.0:
            assert abs(10.0 * math.log10(out.mean()) - n0_db) < 0.03
            assert effect.mean_level_change_db(value) == math.inf
        else:
            measured = 10.0 * math.log10(out.mean() / value)
            assert abs(measured - effect.mean_level_change_db(value)) < 0.03
    assert effect.noise_floor_level_db == n0_db


def test_cells_without_a_value_stay_nan() -> None:
    intensity = np.array([[np.nan, 1.0]])
    out = apply_sonar_noise(intensity, SonarNoiseModel(noise_floor_db=0.0), _rng())
    assert np.isnan(out[0, 0]) and np.isfinite(out[0, 1])


@pytest.mark.parametrize(
    ("intensity", "error", "match"),
    [
        (np.array([1.0, -1.0]), ValueError, "finite values >= 0"),
        (np.array([1.0, np.inf]), ValueError, "finite values >= 0"),
        (np.array([1, 2]), TypeError, "float64 numpy array, not int64"),
        ([1.0, 2.0], TypeError, "float64 numpy array, not list"),
    ],
)
def test_bad_intensity_is_refused(intensity, error, match) -> None:
    g = _rng()
    state = g.bit_generator.state
    with pytest.raises(error, match=match):
        apply_sonar_noise(intensity, SonarNoiseModel(), g)
    assert g.bit_generator.state == state


def test_generator_and_model_are_checked() -> None:
    with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
        apply_sonar_noise(np.ones(2), SonarNoiseModel(), np.random.RandomState(1))
    with pytest.raises(TypeError, match="SonarNoiseModel"):
        apply_sonar_noise(np.ones(2), {"speckle": True}, _rng())


@pytest.mark.parametrize(
    "data",
    [{"gain_db": True}, {"gain_db": "3"}, {"speckle": 1}, {"gain": 3.0}, {"noise_floor_db": 1e9}],
)
def test_model_is_strict(data) -> None:
    with pytest.raises(ValidationError):
        SonarNoiseModel(**data)
