"""Beam patterns, quadrature grids, the ping-period rule and the range-window rules of fans.

One place for the rules every fan sensor (side-scan, multibeam) shares; the
imaging sonar's own pattern (:func:`leviathan.reference_cpu.sonar.beam_pattern_one_way`)
is frozen with its fixture and stays where it is (its Gaussian is the same formula).

Beam patterns (one-way intensity ``g`` relative to the axis; two-way ``G² = g * g``),
per axis, for an off-axis angle ``x`` [rad] in that axis's plane:

* ``uniform``: ``g = 1``; its stated −3 dB width is ``None`` (no half-power point).
* ``gaussian``: ``g = 2 ** -((2x / W)**2)`` with ``W`` the declared −3 dB (half-power)
  full width, exactly ``0.5`` at ``x = ±W/2``. Two axes: ``g = 2 ** -((2a/Wa)**2 +
  (2b/Wb)**2)`` (one ``exp2`` of the sum, as the imaging sonar).
* ``sinc2``: the uniform line array of length ``L`` at wavelength ``λ = c0 / f``
  (``c0`` = :data:`NOMINAL_SOUND_SPEED_M_PER_S`, the design speed: the pattern is a
  property of the hardware, not of the day's water): ``u = π L sin(x) / λ``,
  ``g = (sin u / u)**2`` (1 at ``u = 0``). Its −3 dB full width is
  ``2 asin(u½ λ / (π L))`` with ``u½`` = :data:`SINC2_HALF_POWER_U` (``(sin u / u)² =
  ½``); an array too short to have a half-power point (``u½ λ / (π L) >= 1``) is refused.
  Two axes: the product of the two.

Transcendentals are Python ``math`` (libm) one value at a time, the arithmetic in
the order written here (the parity path's rule).

Ping period: a ping's echoes from the far range must arrive before the next ping,
so a schedule whose period is below the two-way time ``2 R_max / c`` (``c`` the
water's sound speed, Mackenzie 1981, at the sensor's depth) is refused
(:func:`check_ping_period`).

Range window: ``0 <= range_min_m < range_max_m``, finite, ``range_bin_count >= 1``,
bin width ``(r_max - r_min) / N`` (:func:`check_range_window`; bins are
:func:`leviathan.sonar.range_bin`'s).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from leviathan.acoustics import sound_speed_m_per_s
from leviathan.frames import Transform, sensor_pose
from leviathan.sonar._binning import _range_window

__all__ = [
    "BEAM_PATTERN_KINDS",
    "NOMINAL_SOUND_SPEED_M_PER_S",
    "SINC2_HALF_POWER_U",
    "check_ping_period",
    "check_ping_period_in_water",
    "check_range_window",
    "gaussian_gain",
    "inclusive_grid",
    "minimum_ping_period_ns",
    "one_way_gain",
    "sinc2_3db_full_width_rad",
    "sinc2_gain",
]

BEAM_PATTERN_KINDS = ("uniform", "gaussian", "sinc2")
#: The design sound speed of a sinc² pattern's wavelength ``λ = c0 / f`` [m/s].
NOMINAL_SOUND_SPEED_M_PER_S = 1500.0


def _half_power_u() -> float:
    """The ``u > 0`` where ``(sin u / u)**2 = 1/2`` (bisection in float64, to the last bit)."""
    lo, hi = 1.0, 2.0
    while True:
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            return lo
        s = math.sin(mid) / mid
        if s * s > 0.5:
            lo = mid
        else:
            hi = mid


#: ``u½ ≈ 1.3915573``: ``(sin u / u)² = ½``.
SINC2_HALF_POWER_U = _half_power_u()


def inclusive_grid(lo: float, hi: float, count: int) -> np.ndarray:
    """``count`` values from ``lo`` to ``hi`` inclusive: ``lo + (hi - lo) * (k / (count - 1))``.

    One value (``count == 1``) is the midpoint ``0.5 * (lo + hi)``; the last value is
    ``hi`` exactly. float64 [count].
    """
    if count == 1:
        return np.array([0.5 * (lo + hi)], dtype=np.float64)
    k = np.arange(count, dtype=np.float64)
    out = lo + (hi - lo) * (k / float(count - 1))
    out[count - 1] = hi
    return out


def gaussian_gain(x_rad: float, width_rad: float) -> float:
    """One-way Gaussian gain ``2 ** -((2x / W)**2)`` (0.5 at the half width)."""
    q = (2.0 * x_rad) / width_rad
    return math.exp2(-(q * q))


def sinc2_gain(x_rad: float, array_length_m: float, frequency_hz: float) -> float:
    """One-way sinc² gain of a uniform line array: ``(sin u / u)**2``, ``u = π L sin(x) / λ``."""
    wavelength = NOMINAL_SOUND_SPEED_M_PER_S / frequency_hz
    u = (math.pi * array_length_m * math.sin(x_rad)) / wavelength
    if u == 0.0:
        return 1.0
    s = math.sin(u) / u
    return s * s


def sinc2_3db_full_width_rad(array_length_m: float, frequency_hz: float) -> float:
    """−3 dB full width of a sinc² pattern [rad]: ``2 asin(u½ λ / (π L))``.

    Raises:
        ValueError: If the array is too short to have a half-power point.
    """
    wavelength = NOMINAL_SOUND_SPEED_M_PER_S / frequency_hz
    s = (SINC2_HALF_POWER_U * wavelength) / (math.pi * array_length_m)
    if not s < 1.0:
        shortest = SINC2_HALF_POWER_U * wavelength / math.pi
        raise ValueError(
            f"array_length_m: expected an array longer than {shortest!r} m at {frequency_hz!r} Hz "
            f"(else the sinc² beam has no -3 dB point), got {array_length_m!r}"
        )
    return 2.0 * math.asin(s)


def one_way_gain(
    kind: str,
    a_rad: float,
    b_rad: float,
    *,
    widths_rad: tuple[float, float] | None = None,
    array_lengths_m: tuple[float, float] | None = None,
    frequency_hz: float | None = None,
) -> float:
    """One-way gain ``g`` at off-axis angles ``(a, b)`` in the pattern's two planes.

    Args:
        kind: ``"uniform"``, ``"gaussian"`` (needs ``widths_rad``, the −3 dB full widths)
            or ``"sinc2"`` (needs ``array_lengths_m`` and ``frequency_hz``).
        a_rad, b_rad: Off-axis angles [rad] in the first and second plane.
    """
    if kind == "uniform":
        return 1.0
    if kind == "gaussian":
        if widths_rad is None:
            raise ValueError("widths_rad: a gaussian beam needs its two -3 dB full widths")
        xa = (2.0 * a_rad) / widths_rad[0]
        xb = (2.0 * b_rad) / widths_rad[1]
        return math.exp2(-((xa * xa) + (xb * xb)))
    if kind == "sinc2":
        if array_lengths_m is None or frequency_hz is None:
            raise ValueError(
                "array_lengths_m: a sinc2 beam needs its two array lengths and frequency"
            )
        return sinc2_gain(a_rad, array_lengths_m[0], frequency_hz) * sinc2_gain(
            b_rad, array_lengths_m[1], frequency_hz
        )
    raise ValueError(f"kind: expected one of {BEAM_PATTERN_KINDS}, got {kind!r}")


def minimum_ping_period_ns(
    range_max_m: float, *, temperature_c: float, salinity_psu: float, depth_m: float
) -> int:
    """The two-way time to ``range_max_m``, ``ceil(2 R_max / c)`` in integer ns (c: Mackenzie)."""
    c = sound_speed_m_per_s(temperature_c=temperature_c, salinity_psu=salinity_psu, depth_m=depth_m)
    return math.ceil((2.0 * float(range_max_m) / c) * 1e9)


def check_ping_period(
    period_ns: int,
    range_max_m: float,
    *,
    temperature_c: float,
    salinity_psu: float,
    depth_m: float,
    field: str = "schedule.period_ns",
) -> int:
    """Refuses a ping period shorter than the two-way time to the far range.

    Returns:
        The minimum period [ns] (``2 R_max / c`` rounded up).

    Raises:
        ValueError: Naming ``field``, the period, the minimum and the sound speed, when
            ``period_ns`` is below it.
    """
    minimum = minimum_ping_period_ns(
        range_max_m, temperature_c=temperature_c, salinity_psu=salinity_psu, depth_m=depth_m
    )
    if int(period_ns) < minimum:
        c = sound_speed_m_per_s(
            temperature_c=temperature_c, salinity_psu=salinity_psu, depth_m=depth_m
        )
        raise ValueError(
            f"{field}: expected a ping period >= {minimum} ns, the two-way time 2 R_max / c to "
            f"range_max_m {float(range_max_m)!r} m with the water's sound speed c = {c:.3f} m/s "
            f"(Mackenzie 1981 at {float(temperature_c)!r} °C, {float(salinity_psu)!r} PSU, "
            f"depth {float(depth_m)!r} m); lengthen the period or shorten range_max_m, "
            f"got {int(period_ns)} ns"
        )
    return minimum


def check_ping_period_in_water(
    spec: Any, water: Any, T_world_body: Transform, *, sensor_id: str
) -> int:
    """:func:`check_ping_period` of a fan sonar spec on a vehicle posed in the water.

    Args:
        spec: A fan sonar spec (``schedule.period_ns``, ``range_max_m``, ``mount``).
        water: A :class:`~leviathan.specs.WaterSpec` (temperature, salinity).
        T_world_body: The carrying vehicle's pose; the sensor's depth (NED z of its
            mount, clamped at the surface) selects the sound speed.
        sensor_id: ``"vehicle/sensor"``; the error names ``<sensor_id>.schedule.period_ns``.

    Returns:
        The minimum period [ns] there.
    """
    pose = sensor_pose(T_world_body, spec.mount.transform())
    return check_ping_period(
        spec.schedule.period_ns,
        spec.range_max_m,
        temperature_c=water.temperature_c,
        salinity_psu=water.salinity_psu,
        depth_m=max(0.0, float(pose.translation[2])),
        field=f"{sensor_id}.schedule.period_ns",
    )


def check_range_window(
    range_min_m: float, range_max_m: float, range_bin_count: int
) -> tuple[float, float, int, float]:
    """Checks a slant-range window; returns ``(r_min, r_max, N, bin width)``.

    Raises:
        TypeError, ValueError: Naming the field, as :func:`leviathan.sonar.range_bin` does.
    """
    return _range_window(range_min_m, range_max_m, range_bin_count)
