"""The hull spec: shapes and their fields, materials, and the identity of documents without one."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from leviathan.catalogue import get_vehicle
from leviathan.identity import content_hash
from leviathan.specs import HullSpec, VehicleSpec


def test_absent_hull_leaves_dump_and_identity_as_before() -> None:
    spec = get_vehicle("inspection_rov")
    data = {k: v for k, v in spec.model_dump().items() if k != "hull"}
    bare = VehicleSpec.model_validate(data)
    assert "hull" not in bare.model_dump() and "hull" not in bare.model_dump(mode="json")
    # The encoding of a hull-less vehicle is that of its fields alone: adding a field
    # that is absent must not change it (same bytes as a dict-only model of the data).
    assert content_hash(bare) != content_hash(spec)
    assert content_hash(VehicleSpec.model_validate(bare.model_dump())) == content_hash(bare)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"shape": "box"}, "needs size_m"),
        ({"shape": "box", "size_m": (1, 1, 1), "length_m": 1.0}, "does not take length_m"),
        ({"shape": "cylinder", "length_m": 1.0, "diameter_m": 0.2}, "needs ends, segments"),
        (
            {"shape": "cylinder", "length_m": 0.1, "diameter_m": 0.2, "ends": "hemispherical",
             "segments": 16},
            "at least its diameter_m",
        ),
        ({"shape": "mesh", "path": "x.stl", "sha256": "ABC"}, "64 lowercase hex"),
        ({"shape": "box", "size_m": (1, 1, 1), "material": "steel"}, "no built-in acoustic"),
        ({"shape": "box", "size_m": (1, 1, 1), "visible_to_own_sensors": 1}, "bool"),
        ({"shape": "sphere"}, "shape"),
    ],
)  # fmt: skip
def test_bad_hull_is_refused_naming_the_problem(fields: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        HullSpec(**fields)


def test_hull_dump_holds_only_its_shape_fields() -> None:
    hull = HullSpec(shape="box", size_m=(0.45, 0.34, 0.25))
    assert hull.model_dump() == {
        "shape": "box",
        "size_m": (0.45, 0.34, 0.25),
        "semantic_label": "vehicle",
        "visible_to_own_sensors": False,
    }
    assert HullSpec.model_validate(hull.model_dump()) == hull


def test_catalogue_vehicles_declare_test_hulls() -> None:
    for name in ("reference_survey_vehicle", "torpedo_auv", "inspection_rov"):
        hull = get_vehicle(name).hull
        assert hull is not None and hull.material == "test_lambert_bright"
        assert hull.visible_to_own_sensors is False
