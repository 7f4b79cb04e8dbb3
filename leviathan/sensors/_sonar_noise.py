"""Analytic imaging-sonar noise: speckle, an additive noise floor and a gain.

Not canonical. The canonical tier's optional speckle is keyed on (seed, sensor,
sample, cell); the analytic tier draws from the sensor's own numpy
:class:`~numpy.random.Generator` instead, so one sensor's draws never shift
another's and an unseeded sensor gives fresh noise every run.

For a cell of linear intensity ``I`` (the canonical ``linear_return``, relative
units) the noisy intensity is::

    I_out = g * (I * S + N),   g = 10^(gain_db / 10),
    S ~ Exp(1)                 (fully developed speckle, unit mean; 1 when off)
    N = n0 * E,  E ~ Exp(1),   n0 = 10^(noise_floor_db / 10)   (0 when no floor)

The additive floor is exponential because the intensity of circular complex
Gaussian receiver noise is. Draw order (part of the reproducibility contract): all
speckle variates for the whole ``intensity`` array in C order, then all noise
variates in C order. NaN cells (radiometry unknown, medium unsupported) stay NaN.

Effect on the image in dB (:func:`sonar_noise_effect`, exact closed forms):

* gain: every cell's level moves by ``gain_db``;
* speckle: the mean intensity is unchanged (0 dB), but a cell's level in dB,
  ``10 log10 S``, has mean ``-10 gamma / ln 10 = -2.507 dB`` (gamma the
  Euler-Mascheroni constant) and standard deviation ``10 pi / (sqrt(6) ln 10) =
  5.570 dB``;
* noise floor: a cell's mean intensity rises by ``10 log10(1 + n0 / I)`` dB; an
  empty cell (``I = 0``) reads ``noise_floor_db + gain_db`` on average and is no
  longer empty, so the image's dynamic range is at most ``peak - floor``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from leviathan._frozen import frozen_array

__all__ = [
    "SonarNoiseEffect",
    "SonarNoiseModel",
    "apply_sonar_noise",
    "sonar_level_change",
    "sonar_noise_effect",
    "sonar_recorder",
]

_DB_PER_NEPER_POWER = 10.0 / math.log(10.0)
SPECKLE_MEAN_DB = -0.5772156649015329 * _DB_PER_NEPER_POWER
"""Mean of ``10 log10 S`` for unit-mean exponential ``S`` [dB]: ``-10 gamma / ln 10``."""
SPECKLE_STD_DB = math.pi / math.sqrt(6.0) * _DB_PER_NEPER_POWER
"""Standard deviation of ``10 log10 S`` for exponential ``S`` [dB]: ``10 pi / (sqrt 6 ln 10)``."""


class SonarNoiseModel(BaseModel):
    """Analytic noise of one imaging sonar (not canonical).

    Strict: numbers are ints or floats (never bools or strings), unknown keys are
    refused, NaN and infinities are refused.
    """

    __content_type__ = "leviathan.analytic.SonarNoiseModel"

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)

    speckle: bool = Field(
        default=True,
        description="multiply each cell by a unit-mean exponential variate (fully developed "
        "speckle) [-]",
    )
    noise_floor_db: float | None = Field(
        default=None,
        ge=-400.0,
        le=400.0,
        description="mean additive noise intensity, dB re 1 unit of linear_return (the "
        "canonical relative intensity) [dB]; None for no floor",
    )
    gain_db: float = Field(
        default=0.0,
        ge=-200.0,
        le=200.0,
        description="receiver gain applied after speckle and noise [dB]",
    )


@dataclasses.dataclass(frozen=True)
class SonarNoiseEffect:
    """A noise model's effect on the image, in dB (closed forms, see the module docstring).

    Attributes:
        gain_db: level change of every cell [dB].
        speckle_mean_intensity_change_db: change of a cell's mean intensity by speckle
            [dB] (0: speckle has unit mean).
        speckle_level_mean_db: mean of a cell's level change ``10 log10 S`` [dB]
            (-2.507 with speckle, 0 without).
        speckle_level_std_db: standard deviation of ``10 log10 S`` [dB] (5.570 with
            speckle, 0 without).
        noise_floor_level_db: mean level of an empty cell after gain, ``noise_floor_db +
            gain_db`` [dB re 1]; None without a floor.
        description: the same in one plain sentence.
    """

    __content_type__ = "leviathan.analytic.SonarNoiseEffect"

    gain_db: float
    speckle_mean_intensity_change_db: float
    speckle_level_mean_db: float
    speckle_level_std_db: float
    noise_floor_level_db: float | None
    description: str

    def mean_level_change_db(self, intensity: float) -> float:
        """Change of a cell's mean level by the floor and gain [dB] for mean intensity ``I``.

        ``gain_db + 10 log10(1 + n0 / I)``; ``inf`` for an empty cell under a floor.
        """
        if self.noise_floor_level_db is None:
            return self.gain_db
        n0 = 10.0 ** ((self.noise_floor_level_db - self.gain_db) / 10.0)
        if intensity <= 0.0:
            return math.inf
        return self.gain_db + 10.0 * math.log10(1.0 + n0 / intensity)


def sonar_noise_effect(model: SonarNoiseModel) -> SonarNoiseEffect:
    """The effect of ``model`` on an image in dB (closed forms, no draws).

    Args:
        model: the noise model.

    Returns:
        The effect record; see :class:`SonarNoiseEffect`.
    """
    _check_model(model)
    floor = None if model.noise_floor_db is None else model.noise_floor_db + model.gain_db
    parts = [f"gain {model.gain_db:+.2f} dB on every cell"]
    if model.speckle:
        parts.append(
            f"speckle keeps the mean intensity (0 dB) but spreads a cell's level by "
            f"{SPECKLE_STD_DB:.2f} dB (standard deviation) around {SPECKLE_MEAN_DB:.2f} dB"
        )
    if floor is not None:
        parts.append(
            f"an additive exponential noise floor reads {floor:.2f} dB re 1 in empty cells and "
            f"raises a cell of intensity I by 10 log10(1 + n0/I) dB"
        )
    return SonarNoiseEffect(
        gain_db=model.gain_db,
        speckle_mean_intensity_change_db=0.0,
        speckle_level_mean_db=SPECKLE_MEAN_DB if model.speckle else 0.0,
        speckle_level_std_db=SPECKLE_STD_DB if model.speckle else 0.0,
        noise_floor_level_db=floor,
        description="; ".join(parts) + ".",
    )


def apply_sonar_noise(
    intensity: np.ndarray, model: SonarNoiseModel, generator: np.random.Generator
) -> np.ndarray:
    """Apply speckle, the noise floor and the gain of ``model`` to an intensity image.

    Args:
        intensity: linear intensity, float64, any shape (a sonar frame's
            ``linear_return`` is ``[range_bin, bearing]``); finite and >= 0, or NaN for
            cells without a value. Not modified.
        model: the noise model.
        generator: the sensor's own generator; it advances by ``intensity.size`` draws
            for speckle (when on) and then ``intensity.size`` for the floor (when set).

    Returns:
        A new read-only float64 array of the same shape: ``g * (I * S + N)``.

    Raises:
        TypeError: if ``intensity`` is not a float64 numpy array, ``model`` not a
            :class:`SonarNoiseModel` or ``generator`` not a ``numpy.random.Generator``.
        ValueError: if ``intensity`` holds a negative value or an infinity.
    """
    _check_model(model)
    if not isinstance(generator, np.random.Generator):
        raise TypeError(
            f"generator must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"not {type(generator).__name__}"
        )
    if not isinstance(intensity, np.ndarray) or intensity.dtype != np.float64:
        kind = getattr(intensity, "dtype", type(intensity).__name__)
        raise TypeError(f"intensity must be a float64 numpy array, not {kind}")
    finite = intensity[~np.isnan(intensity)]
    if finite.size and (np.isinf(finite).any() or (finite < 0.0).any()):
        raise ValueError(
            "intensity must hold finite values >= 0 (or NaN for cells without a value); "
            f"found min {finite.min()!r}, max {finite.max()!r}"
        )
    out = np.array(intensity, dtype=np.float64, order="C", copy=True)
    if model.speckle:
        out *= generator.standard_exponential(size=out.shape)
    if model.noise_floor_db is not None:
        out += 10.0 ** (model.noise_floor_db / 10.0) * generator.standard_exponential(
            size=out.shape
        )
    if model.gain_db != 0.0:
        out *= 10.0 ** (model.gain_db / 10.0)
    return frozen_array(out)


def _check_model(model: object) -> None:
    if not isinstance(model, SonarNoiseModel):
        raise TypeError(
            f"model must be a leviathan.analytic.SonarNoiseModel, not {type(model).__name__}"
        )


def sonar_recorder(noise: SonarNoiseModel | None, generator: Any, period_ns: int) -> Any:
    """The scenario recorder of an imaging sonar (:class:`leviathan.sensors.AnalyticTier`):
    rows of the clean and noisy ``linear_return`` and the mean level change [dB]."""

    def record(frame: Any) -> dict[str, Any]:
        clean = np.array(frame.channels["linear_return"], dtype=np.float64)
        noisy = clean if noise is None else apply_sonar_noise(clean, noise, generator)
        noisy = np.asarray(noisy)
        both = (clean > 0.0) & (noisy > 0.0)
        change = 10.0 * np.log10(noisy[both].mean() / clean[both].mean()) if both.any() else 0.0
        return {
            "true_linear_return": clean,
            "linear_return": noisy,
            "mean_level_change_db": np.array(change),
        }

    return record


def sonar_level_change(arrays: Any) -> dict[str, np.ndarray]:
    """The error series of a recorded sonar: the mean level change [dB] per ping."""
    return {"mean_level_change_db": np.asarray(arrays["mean_level_change_db"])}
