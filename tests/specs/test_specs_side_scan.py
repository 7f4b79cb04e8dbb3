"""The side-scan spec: strict, every refusal naming its field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from side_scan_cases import side_scan_spec

from leviathan.specs import SideScanBeamPatternSpec, VehicleSpec


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"frequency_hz": 0.0}, "frequency_hz"),
        ({"range_max_m": 0.0}, "range_max_m"),
        ({"range_bin_count": 0}, "range_bin_count"),
        ({"across_track_sample_count": 1}, "across_track_sample_count"),
        ({"along_track_sample_count": 0}, "along_track_sample_count"),
        ({"aperture_max_depression_deg": 91.0}, "aperture_max_depression_deg"),
        ({"aperture_max_depression_deg": -5.0}, "aperture_max_depression_deg"),
        ({"depression_deg": -1.0}, "depression_deg"),
        ({"top_k": 0}, "top_k"),
        ({"along_track_aperture_deg": 0.0}, "along_track_aperture_deg"),
        ({"bogus": 1}, "bogus"),
        ({"range_bin_count": 3.5}, "range_bin_count"),
    ],
)
def test_a_bad_field_is_refused_by_name(change: dict, field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        side_scan_spec(**change)


def test_the_axis_must_lie_in_the_sampled_aperture() -> None:
    with pytest.raises(ValidationError, match="depression_deg"):
        side_scan_spec(
            depression_deg=50.0, aperture_min_depression_deg=0.0, aperture_max_depression_deg=40.0
        )


def test_too_many_rays_are_refused_with_the_size() -> None:
    with pytest.raises(ValidationError, match="MAX_SONAR_RAY_COUNT"):
        side_scan_spec(across_track_sample_count=65536, along_track_sample_count=64)


@pytest.mark.parametrize(
    ("pattern", "field"),
    [
        (
            {"kind": "gaussian", "along_track_3db_full_width_deg": 0.5},
            "across_track_3db_full_width_deg",
        ),
        ({"kind": "sinc2", "along_track_array_length_m": 0.5}, "across_track_array_length_m"),
        ({"kind": "uniform", "along_track_array_length_m": 0.5}, "along_track_array_length_m"),
        ({"kind": "cosine"}, "kind"),
    ],
)
def test_a_beam_pattern_needs_exactly_its_own_parameters(pattern: dict, field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        SideScanBeamPatternSpec(**pattern)


def test_sinc2_states_its_widths_and_refuses_a_too_short_array() -> None:
    bp = SideScanBeamPatternSpec(
        kind="sinc2", along_track_array_length_m=0.5, across_track_array_length_m=0.01
    )
    along, across = bp.stated_widths_deg(400e3)
    assert along == pytest.approx(0.3807, abs=1e-3)
    assert 10.0 < across < 40.0
    with pytest.raises(ValidationError, match="across_track_array_length_m"):
        side_scan_spec(
            beam_pattern=SideScanBeamPatternSpec(
                kind="sinc2", along_track_array_length_m=0.5, across_track_array_length_m=0.001
            )
        )


def test_the_sampling_rule_gives_the_fill_altitude() -> None:
    spec = side_scan_spec(range_max_m=40.0, range_bin_count=400, across_track_sample_count=4001)
    spacing = spec.across_track_spacing_rad
    # h >= 2 R_max^2 dpsi / dr, i.e. dpsi <= dr h / (2 R_max^2).
    assert spec.fill_altitude_m == pytest.approx(2 * 40.0**2 * spacing / 0.1, rel=1e-12)
    assert spacing <= 0.5 * 0.1 * spec.fill_altitude_m / 40.0**2 * (1 + 1e-12)


def test_a_vehicle_document_declares_a_side_scan_by_kind() -> None:
    from leviathan.catalogue import get_vehicle

    doc = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    assert [s["kind"] for s in doc["sensors"]].count("side_scan") == 1
    again = VehicleSpec.model_validate(doc)
    assert again.sensor("side_scan") == get_vehicle("reference_mapping_auv").sensor("side_scan")
