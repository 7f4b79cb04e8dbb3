"""Spec copies are validated: ``replace`` and ``model_copy(update=...)`` refuse a bad value
naming the field, so it never reaches ``render``."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from leviathan.catalogue import get_vehicle
from leviathan.identity import content_hash
from leviathan.specs import ImagingSonarSpec


def _sonar() -> ImagingSonarSpec:
    return get_vehicle("reference_survey_vehicle").sensor("sonar")


@pytest.mark.parametrize("how", ["replace", "model_copy"])
def test_a_bad_value_is_refused_naming_the_field(how: str) -> None:
    sonar = _sonar()
    with pytest.raises(ValidationError) as caught:
        if how == "replace":
            sonar.replace(elevation_sample_count=-5)
        else:
            sonar.model_copy(update={"elevation_sample_count": -5})
    errors = caught.value.errors()
    assert [e["loc"] for e in errors] == [("elevation_sample_count",)]
    assert "greater than or equal to 1" in errors[0]["msg"]


def test_cross_field_rules_run_on_the_copy() -> None:
    with pytest.raises(ValidationError, match="range_max_m"):
        _sonar().replace(range_max_m=0.25)  # below range_min_m = 0.5


def test_an_unknown_field_is_refused_not_set() -> None:
    with pytest.raises(ValidationError, match="elevation_samples"):
        _sonar().model_copy(update={"elevation_samples": 64})


def test_a_bool_is_not_taken_for_a_number_in_a_copy() -> None:
    with pytest.raises(ValidationError, match="a boolean is not a number"):
        _sonar().replace(range_max_m=True)


def test_a_good_copy_changes_only_what_was_asked() -> None:
    sonar = _sonar()
    copy = sonar.replace(elevation_sample_count=64)
    assert type(copy) is ImagingSonarSpec and copy.elevation_sample_count == 64
    assert copy.model_dump() == {**sonar.model_dump(), "elevation_sample_count": 64}
    assert copy.model_fields_set == sonar.model_fields_set | {"elevation_sample_count"}
    # No change at all gives an equal spec with the same content hash.
    assert content_hash(sonar.replace()) == content_hash(sonar)
    assert content_hash(sonar.model_copy()) == content_hash(sonar)


def test_a_nested_copy_validates_the_whole_vehicle() -> None:
    vehicle = get_vehicle("reference_survey_vehicle")
    with pytest.raises(ValidationError):
        vehicle.replace(sensors=(*vehicle.sensors, vehicle.sensors[0]))  # a duplicate name
