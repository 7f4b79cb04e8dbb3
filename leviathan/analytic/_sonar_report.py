"""The analytic sonar image's report: every figure with its unit and how it was computed.

Not canonical: ``tier = "analytic"``, and the report's identity,
:attr:`SonarImageReport.report_hash`, is a SHA-256 over the canonical encoding of its
content behind the analytic domain prefix ``ANALYTIC_DOMAIN``, so it can never
equal (or be mistaken for) a canonical content hash.

Figures (each a :class:`Figure`: value, unit, how):

* grid: bearings x range bins, range-bin width, bearing spacing, range window, FOV,
  and the elevation sampling with the fill rule it came from;
* levels: dynamic range (peak over the weakest non-empty cell, dB), empty cells
  (no return: intensity exactly 0), cells without a value (NaN radiometry),
  saturated cells (at or above the ceiling) with the ceiling stated;
* range falloff: ``L_k = 10 log10(mean non-empty intensity in bin k)`` against
  ``x_k = 10 log10(R_k)`` (bin centre) over the non-empty bins, least squares
  ``L = a + s x``: slope ``s``, intercept ``a`` and explained share ``1 - SS_res /
  SS_tot``, with a plain sentence when the share is below :data:`LOW_EXPLAINED_SHARE`;
* resolution: range bin width, ``c / 2B`` for a declared bandwidth, cross-range
  ``R x w`` at the near, middle and far range;
* water and acoustics: temperature, salinity, pH, sensor depth, sound speed
  (Mackenzie 1981, with its validity), absorption at the operating frequency
  (Francois-Garrison 1982, dB/km, with its validity), maximum ping rate
  ``c / (2 R_max)``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np

from leviathan.acoustics import (
    MackenzieValidity,
    absorption_db_per_m,
    medium_support,
    sound_speed_m_per_s,
)
from leviathan.analytic._generators import GeneratorRecord
from leviathan.analytic._scenario_records import ANALYTIC_DOMAIN, analytic_hash
from leviathan.sensors import SonarNoiseModel, sonar_noise_effect
from leviathan.specs import ImagingSonarSpec, WaterSpec

__all__ = ["LOW_EXPLAINED_SHARE", "Figure", "SonarImageReport", "build_report"]

LOW_EXPLAINED_SHARE = 0.5
"""Below this explained share the report says in words why the falloff fit is weak."""

_OPEN_WATER_CELL_SHARE = 0.2


@dataclasses.dataclass(frozen=True)
class Figure:
    """One reported figure.

    Attributes:
        value: The number (or ``None`` where it cannot be given, with ``how`` saying why).
        unit: Its unit (``"-"`` for a count or share).
        how: How it was computed, in words and formula.
    """

    __content_type__ = "leviathan.analytic.Figure"

    value: float | int | None
    unit: str
    how: str

    def to_json(self) -> dict[str, Any]:
        """``{"value", "unit", "how"}`` (non-finite values as strings)."""
        v = self.value
        if isinstance(v, float) and not math.isfinite(v):
            v = str(v)
        return {"value": v, "unit": self.unit, "how": self.how}


@dataclasses.dataclass(frozen=True)
class SonarImageReport:
    """The report of one analytic sonar image (``tier = "analytic"``).

    Every attribute but ``tier``, ``sensor``, ``pose``, ``trace``, ``noise``,
    ``falloff_note`` and ``report_hash`` is a :class:`Figure`.
    """

    __content_type__ = "leviathan.analytic.SonarImageReport"

    tier: str
    sensor: str
    pose: dict[str, Any]
    trace: dict[str, Any]
    bearing_count: Figure
    range_bin_count: Figure
    range_bin_width_m: Figure
    bearing_spacing_deg: Figure
    range_min_m: Figure
    range_max_m: Figure
    azimuth_fov_deg: Figure
    elevation_aperture_deg: Figure
    elevation_sample_count: Figure
    elevation_step_deg: Figure
    fill_plane_distance_m: Figure
    dynamic_range_db: Figure
    display_dynamic_range_db: Figure
    cell_count: Figure
    empty_cell_count: Figure
    empty_cell_share: Figure
    no_value_cell_count: Figure
    saturated_cell_count: Figure
    saturated_cell_share: Figure
    saturation_ceiling_db: Figure
    falloff_slope: Figure
    falloff_intercept_db: Figure
    falloff_explained_share: Figure
    falloff_bin_count: Figure
    falloff_note: str
    range_resolution_m: Figure
    range_resolution_bandwidth_m: Figure
    cross_range_resolution_near_m: Figure
    cross_range_resolution_middle_m: Figure
    cross_range_resolution_far_m: Figure
    water_temperature_c: Figure
    water_salinity_psu: Figure
    water_ph: Figure
    sensor_depth_m: Figure
    sound_speed_m_per_s: Figure
    absorption_db_per_km: Figure
    max_ping_rate_hz: Figure
    noise: dict[str, Any]
    report_hash: str = ""

    def figures(self) -> dict[str, Figure]:
        """Every :class:`Figure` by field name, in field order."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if isinstance(getattr(self, f.name), Figure)
        }

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data: tier, hash, figures, notes, noise, pose."""
        return {
            "tier": self.tier,
            "report_hash": self.report_hash,
            "identity_domain": ANALYTIC_DOMAIN.rstrip(b"\0").decode(),
            "sensor": self.sensor,
            "pose": self.pose,
            "trace": self.trace,
            "figures": {name: fig.to_json() for name, fig in self.figures().items()},
            "falloff_note": self.falloff_note,
            "noise": self.noise,
        }

    def to_json_text(self) -> str:
        """:meth:`to_json` as indented JSON text (sorted keys inside figures kept in order)."""
        return json.dumps(self.to_json(), indent=2, allow_nan=False) + "\n"


def build_report(
    *,
    spec: ImagingSonarSpec,
    intensity: np.ndarray,
    saturated: np.ndarray,
    saturation_ceiling_db: float | None,
    bearing_rad: np.ndarray,
    range_bin_edges_m: np.ndarray,
    water: WaterSpec,
    sensor_depth_m: float,
    sampling: dict[str, Any],
    noise: SonarNoiseModel | None,
    generator: GeneratorRecord | None,
    bandwidth_hz: float | None,
    beamwidth_3db_deg: float | None,
    pose: dict[str, Any],
    trace: dict[str, Any],
) -> SonarImageReport:
    """Compute every figure of the report (see the module docstring)."""
    N, B = intensity.shape
    width = (spec.range_max_m - spec.range_min_m) / N
    spacing_rad = (
        math.radians(spec.azimuth_fov_deg) / (B - 1)
        if B > 1
        else math.radians(spec.azimuth_fov_deg)
    )
    M = spec.elevation_sample_count
    aperture = math.radians(spec.elevation_aperture_deg)
    step_deg = math.degrees(aperture / (M - 1)) if M > 1 else spec.elevation_aperture_deg
    levels = _levels(intensity, saturated, saturation_ceiling_db)
    fit = _falloff(intensity, range_bin_edges_m, levels["nonempty_share"])
    c = sound_speed_m_per_s(
        temperature_c=water.temperature_c, salinity_psu=water.salinity_psu, depth_m=sensor_depth_m
    )
    mack = MackenzieValidity
    mack_reasons = [
        f"{name}={value!r} outside {rng.describe()}"
        for name, value, rng in (
            ("temperature_c", water.temperature_c, mack.TEMPERATURE_C),
            ("salinity_psu", water.salinity_psu, mack.SALINITY_PSU),
            ("depth_m", sensor_depth_m, mack.DEPTH_M),
        )
        if not rng.contains(value)
    ]
    properties = {
        "temperature_c": water.temperature_c,
        "salinity_psu": water.salinity_psu,
        "ph": water.ph,
    }
    support = medium_support(spec.frequency_hz, **properties, depth_m=sensor_depth_m)
    alpha = absorption_db_per_m(
        spec.frequency_hz, **properties, depth_m=max(sensor_depth_m, 0.0), strict=False
    )
    if beamwidth_3db_deg is None:
        w_rad = spacing_rad
        w_how = (
            "the bearing spacing FOV / (bearings - 1): the model has no per-beam azimuth "
            "pattern (each bearing is one ray; the spec's Gaussian widths taper the whole fan)"
        )
    else:
        w_rad = math.radians(float(beamwidth_3db_deg))
        w_how = f"the declared per-beam -3 dB width {float(beamwidth_3db_deg)!r} deg"
    r_near, r_far = spec.range_min_m, spec.range_max_m
    r_mid = 0.5 * (r_near + r_far)
    rule = sampling
    if rule.get("plane_distance_m") is not None:
        fill_how = (
            f"fill rule: de <= f dr h / R_max^2 with f = {rule['bin_fraction']}, dr = "
            f"{width:.6g} m, h = {rule['plane_distance_m']:.6g} m "
            f"({rule['plane_distance_source']}),"
            f" R_max = {spec.range_max_m:g} m, M = ceil(A / de) + 1 = "
            f"{rule['rule_elevation_sample_count']}; used {M} "
            f"(never below the spec's {rule['spec_elevation_sample_count']}"
            + (
                f"; capped at {rule['max_ray_count']:,} rays, so bins beyond the range where "
                f"R^2 / h * de > dr may be skipped"
                if rule["capped"]
                else ""
            )
            + ")"
        )
    else:
        fill_how = f"{rule['choice']}; used {M}"
    no_bw = "no bandwidth declared (give bandwidth_hz); the range bin width is the resolution"
    report = SonarImageReport(
        tier="analytic",
        sensor=spec.name,
        pose=pose,
        trace=trace,
        bearing_count=Figure(B, "-", "bearings of the image grid (spec bearing_count)"),
        range_bin_count=Figure(N, "-", "range bins of the image grid (spec range_bin_count)"),
        range_bin_width_m=Figure(width, "m", "(range_max_m - range_min_m) / range_bin_count"),
        bearing_spacing_deg=Figure(
            math.degrees(spacing_rad), "deg", "azimuth FOV / (bearing_count - 1), inclusive grid"
        ),
        range_min_m=Figure(spec.range_min_m, "m", "start of the range window (spec)"),
        range_max_m=Figure(spec.range_max_m, "m", "end of the range window (spec)"),
        azimuth_fov_deg=Figure(spec.azimuth_fov_deg, "deg", "azimuth field of view (spec)"),
        elevation_aperture_deg=Figure(
            spec.elevation_aperture_deg, "deg", "elevation aperture (spec)"
        ),
        elevation_sample_count=Figure(M, "-", fill_how),
        elevation_step_deg=Figure(step_deg, "deg", "aperture / (elevation_sample_count - 1)"),
        fill_plane_distance_m=Figure(
            rule.get("plane_distance_m"),
            "m",
            "perpendicular distance h from the sensor to the plane the fill rule fills "
            f"({rule.get('plane_distance_source') or 'not used'})",
        ),
        dynamic_range_db=Figure(
            levels["dynamic_range_db"],
            "dB",
            "10 log10(max / min) over the cells with a positive, finite intensity "
            "(after noise and clipping); None when no cell has one",
        ),
        display_dynamic_range_db=Figure(
            float(spec.dynamic_range_db), "dB", "colour-scale span below the ceiling (spec)"
        ),
        cell_count=Figure(N * B, "-", "range bins x bearings"),
        empty_cell_count=Figure(levels["empty"], "-", "cells with intensity exactly 0 (no return)"),
        empty_cell_share=Figure(levels["empty"] / (N * B), "-", "empty cells / cells"),
        no_value_cell_count=Figure(
            levels["missing"],
            "-",
            "cells whose return has no value (NaN: radiometry unknown or medium unsupported)",
        ),
        saturated_cell_count=Figure(
            levels["saturated"], "-", "cells at or above the saturation ceiling (clipped to it)"
        ),
        saturated_cell_share=Figure(levels["saturated"] / (N * B), "-", "saturated cells / cells"),
        saturation_ceiling_db=Figure(
            levels["ceiling_db"],
            "dB re 1",
            "declared receiver full scale (saturation_ceiling_db)"
            if saturation_ceiling_db is not None
            else "none declared: the image peak, so no cell saturates (declare "
            "saturation_ceiling_db to model a receiver's full scale)",
        ),
        falloff_slope=Figure(
            fit["slope"],
            "dB per dB of range",
            "least-squares slope s of L_k = 10 log10(mean non-empty intensity of bin k) "
            "against x_k = 10 log10(R_k / 1 m) at bin centres, over the non-empty bins; a "
            "flat Lambert seabed gives about -5 (R^-5: R^-4 spreading x R^2 dOmega / cos "
            "theta area x cos^2 theta Lambert x 1/|dR/de| samples per bin) before "
            "absorption and beam pattern",
        ),
        falloff_intercept_db=Figure(fit["intercept"], "dB re 1", "intercept a of that fit"),
        falloff_explained_share=Figure(
            fit["share"], "-", "1 - SS_res / SS_tot of that fit (share of variance explained)"
        ),
        falloff_bin_count=Figure(fit["bins"], "-", "range bins with a non-empty cell"),
        falloff_note=fit["note"],
        range_resolution_m=Figure(width, "m", "range bin width"),
        range_resolution_bandwidth_m=Figure(
            None if bandwidth_hz is None else c / (2.0 * float(bandwidth_hz)),
            "m",
            no_bw if bandwidth_hz is None else f"c / 2B with B = {float(bandwidth_hz)!r} Hz",
        ),
        cross_range_resolution_near_m=Figure(
            r_near * w_rad, "m", f"R x w at R = range_min_m = {r_near:g} m; w is {w_how}"
        ),
        cross_range_resolution_middle_m=Figure(
            r_mid * w_rad, "m", f"R x w at R = mid-window = {r_mid:g} m"
        ),
        cross_range_resolution_far_m=Figure(
            r_far * w_rad, "m", f"R x w at R = range_max_m = {r_far:g} m"
        ),
        water_temperature_c=Figure(water.temperature_c, "degC", "declared water temperature"),
        water_salinity_psu=Figure(water.salinity_psu, "PSU", "declared practical salinity"),
        water_ph=Figure(water.ph, "-", "declared pH"),
        sensor_depth_m=Figure(sensor_depth_m, "m", "depth of the sensor origin (world NED z)"),
        sound_speed_m_per_s=Figure(
            c,
            "m/s",
            "Mackenzie (1981) nine-term equation at the sensor depth; valid for 2-30 degC, "
            "25-40 PSU, 0-8000 m"
            + (
                ": here outside (" + "; ".join(mack_reasons) + "), an extrapolation"
                if mack_reasons
                else ": inside"
            ),
        ),
        absorption_db_per_km=Figure(
            alpha * 1000.0,
            "dB/km",
            f"Francois-Garrison (1982) at {spec.frequency_hz:g} Hz, the sensor depth and the "
            "declared water"
            + (
                ": outside its validity (" + "; ".join(support.reasons) + "), evaluated anyway"
                if not support.supported
                else ": inside its validity"
            ),
        ),
        max_ping_rate_hz=Figure(
            c / (2.0 * spec.range_max_m), "Hz", "c / (2 R_max): one two-way trip per ping"
        ),
        noise=_noise_record(noise, generator),
    )
    return dataclasses.replace(report, report_hash=analytic_hash(report))


def _levels(
    intensity: np.ndarray, saturated: np.ndarray, ceiling_db: float | None
) -> dict[str, Any]:
    finite = np.isfinite(intensity)
    positive = finite & (intensity > 0.0)
    empty = int(np.count_nonzero(finite & (intensity == 0.0)))
    missing = int(np.count_nonzero(~finite))
    if positive.any():
        vals = intensity[positive]
        top, low = float(vals.max()), float(vals.min())
        dyn = 10.0 * math.log10(top / low)
        peak_db = 10.0 * math.log10(top)
    else:
        dyn = peak_db = None
    return {
        "empty": empty,
        "missing": missing,
        "saturated": int(np.count_nonzero(saturated)),
        "dynamic_range_db": dyn,
        "ceiling_db": float(ceiling_db) if ceiling_db is not None else peak_db,
        "nonempty_share": int(np.count_nonzero(positive)) / intensity.size,
    }


def _falloff(intensity: np.ndarray, edges: np.ndarray, nonempty_share: float) -> dict[str, Any]:
    positive = np.isfinite(intensity) & (intensity > 0.0)
    rows = np.flatnonzero(positive.any(axis=1))
    out: dict[str, Any] = {"bins": int(rows.size), "slope": None, "intercept": None, "share": None}
    if rows.size < 3:
        out["note"] = (
            f"Only {rows.size} range bins hold a return: too few to fit a falloff (3 needed)."
        )
        return out
    centres = 0.5 * (edges[rows] + edges[rows + 1])
    x = 10.0 * np.log10(centres)
    level = np.array(
        [10.0 * math.log10(float(intensity[k][positive[k]].mean())) for k in rows.tolist()]
    )
    xm, lm = x.mean(), level.mean()
    sxx = float(((x - xm) ** 2).sum())
    slope = float(((x - xm) * (level - lm)).sum()) / sxx
    intercept = float(lm - slope * xm)
    resid = level - (intercept + slope * x)
    ss_tot = float(((level - lm) ** 2).sum())
    share = 1.0 - float((resid**2).sum()) / ss_tot if ss_tot > 0.0 else 1.0
    out |= {"slope": slope, "intercept": intercept, "share": share}
    pct = f"{100.0 * share:.0f} %"
    if share >= LOW_EXPLAINED_SHARE:
        out["note"] = (
            f"The falloff fit explains {pct} of the variance of the per-bin level: the level "
            "falls with range as a reverberating surface's does."
        )
    elif nonempty_share < _OPEN_WATER_CELL_SHARE:
        out["note"] = (
            f"The falloff fit explains only {pct} of the variance: the image holds discrete "
            f"returns in otherwise empty water ({100.0 * nonempty_share:.1f} % of cells "
            "non-empty), so there is no reverberation floor to measure; the slope says how "
            "bright the targets are where they happen to be, not how the return falls with "
            "range."
        )
    else:
        out["note"] = (
            f"The falloff fit explains only {pct} of the variance: the level varies more "
            "between targets, shadows and bearings than with range, so the slope is no "
            "measure of spreading and absorption."
        )
    return out


def _noise_record(noise: SonarNoiseModel | None, generator: GeneratorRecord | None) -> dict:
    if noise is None:
        return {"model": None, "effect": "no analytic noise applied", "generator": None}
    effect = sonar_noise_effect(noise)
    return {
        "model": noise.model_dump(mode="json"),
        "effect": effect.description,
        "effect_db": {
            "gain_db": effect.gain_db,
            "speckle_level_mean_db": effect.speckle_level_mean_db,
            "speckle_level_std_db": effect.speckle_level_std_db,
            "noise_floor_level_db": effect.noise_floor_level_db,
        },
        "generator": None if generator is None else generator.to_json(),
    }
