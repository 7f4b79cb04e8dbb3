"""Seawater acoustics: absorption, sound speed and two-way absorption loss.

Everything here is evaluated on the host with Python floats and ``math`` in a
fixed, written-out operation order, so a given input gives the same bits on
every run. The sonar's CPU reference and GPU backend both call these functions;
neither re-derives the physics.

Formulas:

* Absorption: Francois, R. E. & Garrison, G. R. (1982). "Sound absorption based
  on ocean measurements. Part I: Pure water and magnesium sulfate
  contributions", J. Acoust. Soc. Am. 72(3), 896-907, and "Part II: Boric acid
  contribution and equation for total absorption", J. Acoust. Soc. Am. 72(6),
  1879-1890. The coefficients below follow the form reproduced by the NPL
  Technical Guide "Calculation of absorption of sound in seawater"
  (resource.npl.co.uk/acoustics/techguides/seaabsorption/) and by M. B.
  Porter's Acoustics Toolbox ``franc_garr.m`` (noted there as "Verified using
  F-G Table IV"). Some secondary transcriptions (the MB-System
  ``mbabsorption`` manual page) print ``0.0004397`` and ``4.9e-10`` in the pure
  water ``A3`` polynomials; those disagree with the other transcriptions and
  are treated as typographical errors: LEVIATHAN uses ``4.937e-4`` and
  ``6.5e-10``.
* Sound speed: Mackenzie, K. V. (1981). "Nine-term equation for sound speed in
  the oceans", J. Acoust. Soc. Am. 70(3), 807-812.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from leviathan._validation import check_finite

__all__ = [
    "FrancoisGarrisonValidity",
    "MackenzieValidity",
    "MediumSupport",
    "UnsupportedMediumError",
    "absorption_db_per_m",
    "medium_support",
    "sound_speed_m_per_s",
    "two_way_absorption_factor",
]


class UnsupportedMediumError(ValueError):
    """The water is outside the validity of the Francois-Garrison equation.

    Attributes:
        reasons: One human-readable reason per parameter outside validity.
    """

    def __init__(self, reasons: tuple[str, ...]) -> None:
        self.reasons: tuple[str, ...] = tuple(reasons)
        super().__init__(
            "medium outside the Francois-Garrison (1982) validity: "
            + "; ".join(self.reasons)
            + ". Declare water inside the validity ranges, or call with strict=False "
            "to evaluate the formula anyway and treat the result as unsupported."
        )


@dataclass(frozen=True)
class _Range:
    """A closed interval [low, high] in the stated units."""

    low: float
    high: float
    units: str

    def contains(self, value: float) -> bool:
        """Whether ``low <= value <= high``."""
        return self.low <= value <= self.high

    def describe(self) -> str:
        """The interval as text, e.g. ``[30, 35] PSU``."""
        return f"[{self.low:g}, {self.high:g}] {self.units}".rstrip()


class FrancoisGarrisonValidity:
    """Validity ranges LEVIATHAN applies to the Francois-Garrison equation.

    One conservative box is used for all frequencies; inside it the published
    accuracy statement holds.

    * ``FREQUENCY_HZ`` = [200 Hz, 1 MHz]. Verified: the abstract of FG Part II
      (J. Acoust. Soc. Am. 72(6), 1879) states "The equation applies to all
      oceanic conditions and frequencies from 200 Hz to 1 MHz."
    * ``TEMPERATURE_C`` = [-2, 22] degC, ``SALINITY_PSU`` = [30, 35] PSU and
      ``DEPTH_M`` = [0, 3500] m. Verified from a secondary source only: the NPL
      Technical Guide "Calculation of absorption of sound in seawater"
      (reproduced at tsuchiya2.org/absorp_upload/range_of_validity.htm) gives
      these as FG's limits of reliability for 10-500 kHz, where the MgSO4 term
      dominates, with FG accurate to about 5 %. The same guide gives wider
      limits above 500 kHz (0-30 degC, 0-40 PSU, 0-10 km); LEVIATHAN does not
      use them, so the box is the same at every frequency. The primary paper's
      own table of ranges could not be read, so these are not verified against
      the paper itself.
    * ``PH`` = [7.7, 8.3]. Not verified for FG: this is the pH range over which
      the NPL guide states that Ainslie & McColm (1998) agree with FG to within
      10 %, adopted here as the range of open-ocean pH the equation was fitted
      to. FG's own pH limits could not be verified.

    Fresh and brackish water (salinity below 30 PSU) is outside validity, and so
    is a sensor above the sea surface (depth below 0 m).
    """

    FREQUENCY_HZ: Final[_Range] = _Range(200.0, 1.0e6, "Hz")
    TEMPERATURE_C: Final[_Range] = _Range(-2.0, 22.0, "degC")
    SALINITY_PSU: Final[_Range] = _Range(30.0, 35.0, "PSU")
    DEPTH_M: Final[_Range] = _Range(0.0, 3500.0, "m")
    PH: Final[_Range] = _Range(7.7, 8.3, "")


class MackenzieValidity:
    """Validity of the Mackenzie (1981) nine-term sound-speed equation.

    As stated by Mackenzie (1981), J. Acoust. Soc. Am. 70(3), 807-812
    (reproduced by the NPL Technical Guide "Speed of sound in sea-water"):
    temperature 2 to 30 degC, salinity 25 to 40 PSU, depth 0 to 8000 m.
    """

    TEMPERATURE_C: Final[_Range] = _Range(2.0, 30.0, "degC")
    SALINITY_PSU: Final[_Range] = _Range(25.0, 40.0, "PSU")
    DEPTH_M: Final[_Range] = _Range(0.0, 8000.0, "m")


@dataclass(frozen=True)
class MediumSupport:
    """Whether the declared water is inside the absorption model's validity.

    Attributes:
        supported: True when every parameter is inside
            :class:`FrancoisGarrisonValidity`.
        reasons: One reason per parameter outside validity, in the order
            frequency, temperature, salinity, depth, pH; empty when supported.
    """

    __content_type__ = "leviathan.acoustics.MediumSupport"

    supported: bool
    reasons: tuple[str, ...]


def medium_support(
    frequency_hz: float,
    *,
    temperature_c: float,
    salinity_psu: float,
    depth_m: float,
    ph: float,
) -> MediumSupport:
    """Check the water and frequency against the Francois-Garrison validity.

    Args:
        frequency_hz: Acoustic frequency [Hz].
        temperature_c: Water temperature [degC].
        salinity_psu: Practical salinity [PSU].
        depth_m: Sensor depth below the sea surface [m], positive down.
        ph: Seawater pH [1].

    Returns:
        A :class:`MediumSupport` listing every parameter outside validity.

    Raises:
        ValueError: If any argument is not finite.
    """
    f = check_finite("frequency_hz", frequency_hz)
    t = check_finite("temperature_c", temperature_c)
    s = check_finite("salinity_psu", salinity_psu)
    d = check_finite("depth_m", depth_m)
    p = check_finite("ph", ph)
    v = FrancoisGarrisonValidity
    reasons: list[str] = []
    if not v.FREQUENCY_HZ.contains(f):
        reasons.append(f"frequency_hz={f!r} outside {v.FREQUENCY_HZ.describe()}")
    if not v.TEMPERATURE_C.contains(t):
        reasons.append(f"temperature_c={t!r} outside {v.TEMPERATURE_C.describe()}")
    if not v.SALINITY_PSU.contains(s):
        note = " (fresh or brackish water)" if s < v.SALINITY_PSU.low else ""
        reasons.append(f"salinity_psu={s!r} outside {v.SALINITY_PSU.describe()}{note}")
    if d < 0.0:
        reasons.append(f"depth_m={d!r}: sensor above the sea surface (depth < 0)")
    elif not v.DEPTH_M.contains(d):
        reasons.append(f"depth_m={d!r} outside {v.DEPTH_M.describe()}")
    if not v.PH.contains(p):
        reasons.append(f"ph={p!r} outside {v.PH.describe()}")
    return MediumSupport(supported=not reasons, reasons=tuple(reasons))


def absorption_db_per_m(
    frequency_hz: float,
    *,
    temperature_c: float,
    salinity_psu: float,
    depth_m: float,
    ph: float,
    strict: bool = True,
) -> float:
    """Seawater absorption coefficient by Francois & Garrison (1982).

    alpha = A1 P1 f1 f^2 / (f^2 + f1^2)   (boric acid)
          + A2 P2 f2 f^2 / (f^2 + f2^2)   (magnesium sulfate)
          + A3 P3 f^2                      (pure water, viscous)

    with f in kHz and alpha in dB/km, converted to dB/m on return. The sound
    speed inside the formula is FG's own c = 1412 + 3.21 T + 1.19 S + 0.0167 D
    [m/s], not :func:`sound_speed_m_per_s`. ``A3`` uses FG's polynomial for
    T <= 20 degC and the other one for T > 20 degC; the two differ by about 1 %
    at 20 degC, so the result steps there. Temperatures are converted with
    T + 273, as in the paper.

    Args:
        frequency_hz: Acoustic frequency [Hz], > 0.
        temperature_c: Water temperature [degC].
        salinity_psu: Practical salinity [PSU], >= 0.
        depth_m: Sensor depth below the sea surface [m], positive down.
        ph: Seawater pH [1].
        strict: When True (the default), water outside
            :class:`FrancoisGarrisonValidity` raises. When False, the formula
            is evaluated anyway; the caller must then treat the value as
            unsupported (see :func:`medium_support`).

    Returns:
        Absorption coefficient [dB/m].

    Raises:
        ValueError: If an argument is not finite, or the formula is undefined
            for it (frequency <= 0, temperature <= -273 degC, salinity < 0).
        UnsupportedMediumError: If ``strict`` and the water is outside validity.
    """
    support = medium_support(
        frequency_hz,
        temperature_c=temperature_c,
        salinity_psu=salinity_psu,
        depth_m=depth_m,
        ph=ph,
    )
    f_hz = float(frequency_hz)
    t = float(temperature_c)
    s = float(salinity_psu)
    d = float(depth_m)
    p = float(ph)
    if strict and not support.supported:
        raise UnsupportedMediumError(support.reasons)
    if f_hz <= 0.0:
        raise ValueError(f"frequency_hz must be > 0 Hz, got {f_hz!r}")
    if t <= -273.0:
        raise ValueError(f"temperature_c must be above -273 degC, got {t!r}")
    if s < 0.0:
        raise ValueError(f"salinity_psu must be >= 0 PSU, got {s!r}")

    f = f_hz / 1000.0  # kHz inside the formula
    f_sq = f * f
    t_kelvin = t + 273.0
    c = 1412.0 + 3.21 * t + 1.19 * s + 0.0167 * d

    # Boric acid relaxation.
    a1 = 8.86 / c * 10.0 ** (0.78 * p - 5.0)
    p1 = 1.0
    f1 = 2.8 * math.sqrt(s / 35.0) * 10.0 ** (4.0 - 1245.0 / t_kelvin)
    boric = a1 * p1 * f1 * f_sq / (f_sq + f1 * f1)

    # Magnesium sulfate relaxation.
    a2 = 21.44 * s / c * (1.0 + 0.025 * t)
    p2 = 1.0 - 1.37e-4 * d + 6.2e-9 * d * d
    f2 = 8.17 * 10.0 ** (8.0 - 1990.0 / t_kelvin) / (1.0 + 0.0018 * (s - 35.0))
    mgso4 = a2 * p2 * f2 * f_sq / (f_sq + f2 * f2)

    # Pure water (viscous) absorption; FG give two polynomials split at 20 degC.
    if t <= 20.0:
        a3 = 4.937e-4 - 2.59e-5 * t + 9.11e-7 * t * t - 1.50e-8 * t * t * t
    else:
        a3 = 3.964e-4 - 1.146e-5 * t + 1.45e-7 * t * t - 6.5e-10 * t * t * t
    p3 = 1.0 - 3.83e-5 * d + 4.9e-10 * d * d
    water = a3 * p3 * f_sq

    alpha_db_per_km = boric + mgso4 + water
    return alpha_db_per_km / 1000.0


def sound_speed_m_per_s(*, temperature_c: float, salinity_psu: float, depth_m: float) -> float:
    """Sound speed in seawater by Mackenzie's (1981) nine-term equation.

    c = 1448.96 + 4.591 T - 5.304e-2 T^2 + 2.374e-4 T^3 + 1.340 (S - 35)
        + 1.630e-2 D + 1.675e-7 D^2 - 1.025e-2 T (S - 35) - 7.139e-13 T D^3

    Valid (Mackenzie 1981) for 2 <= T <= 30 degC, 25 <= S <= 40 PSU and
    0 <= D <= 8000 m (:class:`MackenzieValidity`); outside that range the
    polynomial is still evaluated but is an extrapolation. Published check
    value: 1550.744 m/s at T = 25 degC, S = 35 PSU, D = 1000 m.

    Args:
        temperature_c: Water temperature [degC].
        salinity_psu: Practical salinity [PSU].
        depth_m: Depth below the sea surface [m], positive down.

    Returns:
        Sound speed [m/s].

    Raises:
        ValueError: If any argument is not finite.
    """
    t = check_finite("temperature_c", temperature_c)
    s = check_finite("salinity_psu", salinity_psu)
    d = check_finite("depth_m", depth_m)
    return (
        1448.96
        + 4.591 * t
        - 5.304e-2 * t * t
        + 2.374e-4 * t * t * t
        + 1.340 * (s - 35.0)
        + 1.630e-2 * d
        + 1.675e-7 * d * d
        - 1.025e-2 * t * (s - 35.0)
        - 7.139e-13 * t * d * d * d
    )


def two_way_absorption_factor(
    range_m: npt.ArrayLike, alpha_db_per_m: float
) -> npt.NDArray[np.float64]:
    """Two-way intensity factor from absorption, 10^(-alpha 2R / 10).

    Evaluated element-wise as ``10.0 ** (-(alpha_db_per_m * (2.0 * range_m)) / 10.0)``;
    no reductions.

    Args:
        range_m: One-way slant range [m], any shape, finite and >= 0.
        alpha_db_per_m: Absorption coefficient [dB/m], finite and >= 0.

    Returns:
        Intensity factor in (0, 1] [1], float64, same shape as ``range_m``.

    Raises:
        ValueError: If ``alpha_db_per_m`` or any range is negative or not finite.
    """
    alpha = check_finite("alpha_db_per_m", alpha_db_per_m)
    if alpha < 0.0:
        raise ValueError(f"alpha_db_per_m must be >= 0 dB/m, got {alpha!r}")
    r = np.asarray(range_m, dtype=np.float64)
    if not np.all(np.isfinite(r)):
        raise ValueError("range_m must be finite everywhere; got NaN or infinite entries")
    if np.any(r < 0.0):
        raise ValueError(f"range_m must be >= 0 m everywhere; minimum given is {r.min()!r}")
    exponent = -(alpha * (2.0 * r)) / 10.0
    # libm's pow element by element, as the reference does: numpy's SIMD power can
    # differ in the last bit from one CPU to another.
    values = np.fromiter(
        (math.pow(10.0, e) for e in exponent.ravel().tolist()), dtype=np.float64, count=r.size
    )
    return values.reshape(r.shape)
