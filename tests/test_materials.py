"""Tests for leviathan.materials: acoustic materials and their provenance."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from leviathan.materials import (
    TEST_LAMBERT_BRIGHT,
    TEST_LAMBERT_DARK,
    TEST_LAMBERT_MEDIUM,
    TEST_REFERENCE_SOURCE,
    AcousticStatus,
    DeclaredMaterial,
    EvidenceClass,
    LambertMaterial,
    MaterialParameter,
    get_material,
    material_status,
    reference_materials,
)


def _mu(value: float) -> MaterialParameter:
    return MaterialParameter(
        name="mu",
        value=value,
        units="1 (linear, per steradian per unit area)",
        meaning="Lambert parameter",
        source="unit test",
        evidence_class=EvidenceClass.ASSUMED,
    )


def test_lambert_at_normal_incidence_is_mu():
    out = TEST_LAMBERT_MEDIUM.backscatter(np.array([1.0]))
    assert out.dtype == np.float64
    assert out.shape == (1,)
    assert out[0] == TEST_LAMBERT_MEDIUM.mu.value


def test_lambert_at_60_degrees_is_quarter_mu_exactly():
    # cos 60 deg = 0.5 exactly in binary; mu * (0.5 * 0.5) is a power-of-two
    # scaling, so the result is exact.
    material = LambertMaterial(name="m", mu=_mu(0.1), description="unit test surface")
    out = material.backscatter(np.array([0.5, 0.5]))
    assert out.shape == (2,)
    assert out[0] == 0.1 / 4
    assert out[1] == 0.025


def test_lambert_at_grazing_is_zero():
    assert TEST_LAMBERT_BRIGHT.backscatter(np.array([0.0]))[0] == 0.0


def test_lambert_backscatter_operation_order():
    rng = np.random.default_rng(7)
    c = rng.uniform(0.0, 1.0, size=101)
    out = TEST_LAMBERT_DARK.backscatter(c)
    mu = TEST_LAMBERT_DARK.mu.value
    np.testing.assert_array_equal(out, mu * (c * c))
    # the other order rounds differently on some of these inputs, so the check above can fail
    assert np.any(out != (mu * c) * c)


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan])
def test_lambert_rejects_bad_cosine(bad):
    with pytest.raises(ValueError, match="cos_incidence"):
        TEST_LAMBERT_MEDIUM.backscatter(np.array([0.5, bad]))


def test_statuses():
    declared = DeclaredMaterial(name="rock", model="jackson_apl94")
    assert material_status(TEST_LAMBERT_MEDIUM) is AcousticStatus.KNOWN
    assert material_status(declared) is AcousticStatus.UNSUPPORTED
    assert material_status(None) is AcousticStatus.UNKNOWN


def test_status_integer_codes_are_stable():
    assert [(s.name, int(s)) for s in AcousticStatus] == [
        ("NONE", 0),
        ("KNOWN", 1),
        ("UNKNOWN", 2),
        ("UNSUPPORTED", 3),
        ("INTERFACE", 4),
    ]


def test_material_status_rejects_other_types():
    with pytest.raises(TypeError, match="material"):
        material_status("test_lambert_medium")  # type: ignore[arg-type]


def test_declared_material_backscatter_raises():
    declared = DeclaredMaterial(
        name="sand",
        model="jackson_apl94",
        parameters=(_mu(0.01),),
    )
    with pytest.raises(NotImplementedError, match="jackson_apl94"):
        declared.backscatter(np.array([1.0]))


def test_content_is_json_like_and_stable():
    content = TEST_LAMBERT_MEDIUM.__content__()
    assert content == TEST_LAMBERT_MEDIUM.__content__()
    assert json.loads(json.dumps(content)) == content
    assert content["mu"]["evidence_class"] == "test_reference"
    assert content["model"] == "lambert"


def test_content_distinguishes_parameters():
    a = LambertMaterial(name="m", mu=_mu(0.1), description="d")
    b = LambertMaterial(name="m", mu=_mu(0.01), description="d")
    assert a.__content__() != b.__content__()


def test_declared_content_lists_parameters():
    declared = DeclaredMaterial(name="sand", model="jackson_apl94", parameters=(_mu(0.01),))
    content = declared.__content__()
    assert json.loads(json.dumps(content)) == content
    assert content["parameters"] == [_mu(0.01).__content__()]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_parameter_rejects_non_finite(value):
    with pytest.raises(ValueError, match="finite"):
        _mu(value)


def test_parameter_rejects_empty_source():
    with pytest.raises(ValueError, match="source"):
        MaterialParameter("mu", 0.1, "1", "m", "", EvidenceClass.ASSUMED)


def test_parameter_rejects_non_evidence_class():
    with pytest.raises(ValueError, match="evidence_class"):
        MaterialParameter("mu", 0.1, "1", "m", "s", "assumed")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0.0, -0.01])
def test_lambert_rejects_non_positive_mu(value):
    with pytest.raises(ValueError, match="mu must be > 0"):
        LambertMaterial(name="m", mu=_mu(value), description="d")


def test_materials_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        TEST_LAMBERT_MEDIUM.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        reference_materials()["x"] = TEST_LAMBERT_MEDIUM  # type: ignore[index]


def test_builtins_are_test_reference_with_stated_mu():
    expected_mu = {
        "test_lambert_bright": 0.1,
        "test_lambert_medium": 0.01,
        "test_lambert_dark": 0.001,
    }
    materials = reference_materials()
    assert sorted(materials) == sorted(expected_mu)
    for name, material in materials.items():
        assert material.mu.evidence_class is EvidenceClass.TEST_REFERENCE
        assert material.mu.source == TEST_REFERENCE_SOURCE
        assert material.mu.value == pytest.approx(expected_mu[name], rel=1e-15)


def test_get_material_by_name():
    assert get_material("test_lambert_dark") is TEST_LAMBERT_DARK


def test_get_material_unknown_lists_names():
    with pytest.raises(KeyError, match="test_lambert_bright, test_lambert_dark"):
        get_material("granite")


def test_evidence_class_descriptions():
    assert EvidenceClass.TEST_REFERENCE.description == (
        "declared test/reference value, not a measurement"
    )
    assert all(e.description for e in EvidenceClass)
