"""The analytic sonar report: hand-calculated figures, units, JSON and its own identity domain."""

from __future__ import annotations

import json
import math

import pytest
from test_sonar_image import VEHICLE_DEPTH_M, _seabed, _small_spec

from leviathan.acoustics import absorption_db_per_m, sound_speed_m_per_s
from leviathan.analytic import ANALYTIC_DOMAIN, Figure, sonar_image
from leviathan.identity import content_hash
from leviathan.specs import WaterSpec


@pytest.fixture(scope="module")
def image():
    water = WaterSpec(temperature_c=12.0, salinity_psu=34.0, ph=8.1)
    return sonar_image(
        scene=_seabed(),
        spec=_small_spec(),
        position_ned_m=(0.0, 0.0, VEHICLE_DEPTH_M),
        water=water,
        bandwidth_hz=50_000.0,
        saturation_ceiling_db=-95.0,
    )


def test_grid_and_resolution_figures_match_hand_calculations(image) -> None:
    r = image.report
    # Spec: 32 bearings over 90 deg, 60 bins over 0.5-30 m.
    assert r.bearing_count.value == 32 and r.range_bin_count.value == 60
    assert r.range_bin_width_m.value == pytest.approx(29.5 / 60)
    assert r.range_resolution_m.value == pytest.approx(29.5 / 60)
    assert r.bearing_spacing_deg.value == pytest.approx(90.0 / 31)
    spacing = math.radians(90.0 / 31)
    assert r.cross_range_resolution_near_m.value == pytest.approx(0.5 * spacing)
    assert r.cross_range_resolution_middle_m.value == pytest.approx(15.25 * spacing)
    assert r.cross_range_resolution_far_m.value == pytest.approx(30.0 * spacing)
    assert r.elevation_step_deg.value == pytest.approx(20.0 / (r.elevation_sample_count.value - 1))


def test_acoustic_figures_match_hand_calculations(image) -> None:
    r = image.report
    depth = r.sensor_depth_m.value
    assert depth == pytest.approx(VEHICLE_DEPTH_M)
    # Mackenzie (1981), written out here term by term at T = 12, S = 34, D = 20.
    t, s, d = 12.0, 34.0, depth
    c = (
        1448.96
        + 4.591 * t
        - 5.304e-2 * t**2
        + 2.374e-4 * t**3
        + 1.340 * (s - 35)
        + 1.630e-2 * d
        + 1.675e-7 * d**2
        - 1.025e-2 * t * (s - 35)
        - 7.139e-13 * t * d**3
    )
    assert r.sound_speed_m_per_s.value == pytest.approx(c, rel=1e-12)
    assert c == pytest.approx(sound_speed_m_per_s(temperature_c=t, salinity_psu=s, depth_m=d))
    assert "Mackenzie (1981)" in r.sound_speed_m_per_s.how
    assert r.max_ping_rate_hz.value == pytest.approx(c / (2.0 * 30.0))
    assert r.range_resolution_bandwidth_m.value == pytest.approx(c / (2.0 * 50_000.0))
    alpha = absorption_db_per_m(900_000.0, temperature_c=t, salinity_psu=s, depth_m=d, ph=8.1)
    assert r.absorption_db_per_km.value == pytest.approx(1000.0 * alpha)
    assert r.absorption_db_per_km.unit == "dB/km"
    assert "Francois-Garrison" in r.absorption_db_per_km.how


def test_level_figures_are_consistent_with_the_image(image) -> None:
    r = image.report
    i = image.intensity
    n = i.size
    assert r.cell_count.value == n
    assert r.empty_cell_count.value == int((i == 0).sum())
    assert r.empty_cell_share.value == pytest.approx(r.empty_cell_count.value / n)
    ceiling = 10 ** (-95.0 / 10)
    assert r.saturation_ceiling_db.value == -95.0
    assert r.saturated_cell_count.value == int((i >= ceiling).sum()) > 0
    assert i.max() == ceiling  # clipped at the ceiling
    positive = i[i > 0]
    assert r.dynamic_range_db.value == pytest.approx(
        10 * math.log10(positive.max() / positive.min())
    )


def test_every_figure_has_a_unit_and_a_how(image) -> None:
    figures = image.report.figures()
    assert len(figures) > 30
    for name, fig in figures.items():
        assert isinstance(fig, Figure)
        assert fig.unit and len(fig.how) > 10, name


def test_json_is_analytic_and_hashes_in_its_own_domain(image) -> None:
    data = json.loads(image.report.to_json_text())
    assert data["tier"] == "analytic"
    assert data["identity_domain"] == ANALYTIC_DOMAIN.rstrip(b"\0").decode()
    assert data["figures"]["max_ping_rate_hz"]["unit"] == "Hz"
    assert data["report_hash"] == image.report.report_hash
    assert len(image.report.report_hash) == 64
    # Never a canonical hash: the same content under the canonical domain differs.
    import dataclasses

    bare = dataclasses.replace(image.report, report_hash="")
    assert content_hash(bare) != image.report.report_hash
