"""The multibeam spec is strict: every refusal names the field, the value and what was expected."""

from __future__ import annotations

import pytest
from multibeam_cases import multibeam_spec
from pydantic import ValidationError

from leviathan.specs import MultibeamSpec, VehicleSpec


def _doc(**over: object) -> dict:
    doc = multibeam_spec().model_dump(mode="json")
    doc.update(over)
    return doc


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("swath_deg", 180.0, "less than 180"),
        ("swath_deg", 0.0, "greater than 0"),
        ("beam_count", 0, "greater than or equal to 1"),
        ("beam_spacing", "logarithmic", "'equiangular' or 'equidistant'"),
        ("beam_pattern", "cosine", "'uniform' or 'gaussian'"),
        ("across_track_width_deg", -1.0, "greater than 0"),
        ("range_max_m", 0.5, "range_min_m"),
        ("range_bin_count", "45", "expected a whole number"),
        ("frequency_hz", True, "a boolean is not a number"),
        ("detection_window_db", 0.0, "greater than 0"),
        ("detection_max_half_window_bins", -1, "greater than or equal to 0"),
    ],
)
def test_a_bad_field_is_refused_by_name(field: str, value: object, expected: str) -> None:
    with pytest.raises(ValidationError) as info:
        MultibeamSpec.model_validate(_doc(**{field: value}))
    text = str(info.value)
    assert field in text and expected in text


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(ValidationError, match="refraction_profile"):
        MultibeamSpec.model_validate(_doc(refraction_profile="none"))


def test_arrays_beyond_their_bounds_are_refused_with_the_size_they_need() -> None:
    with pytest.raises(ValidationError, match="cells"):
        MultibeamSpec.model_validate(_doc(beam_count=1024, range_bin_count=4097))


def test_a_vehicle_document_carries_a_multibeam_by_its_kind() -> None:
    from leviathan.catalogue import get_vehicle

    doc = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    again = VehicleSpec.model_validate(doc)
    assert isinstance(again.sensor("multibeam"), MultibeamSpec)
    assert again.sensor("multibeam") == get_vehicle("reference_mapping_auv").sensor("multibeam")
