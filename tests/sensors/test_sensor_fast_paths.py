"""The sensors' Python-float fast paths equal the numpy and frames arithmetic bit for bit.

The IMU and DVL compute their (3,) vectors on Python floats in the frames contract
order, channels of a few float64 values are canonicalised on Python floats, kinematic
vectors are copied through ``struct``, freezing dispatches exact types first, and
per-spec constants are cached by spec object. Each is compared with the computation it
replaces on seeded inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from leviathan._frozen import FrozenMapping, freeze
from leviathan.frames import Transform
from leviathan.identity import content_hash
from leviathan.sensors._kinematics import (
    _cross,
    _cross3,
    _rotate3,
    _rotate3_transposed,
    _vector3,
)
from leviathan.sensors._sample import _canonical_channel, _spec_derived


def _transforms(count: int) -> list[Transform]:
    rng = np.random.default_rng(20261201)
    return [
        Transform.from_euler(*rng.uniform(-math.pi, math.pi, 3), translation=rng.normal(size=3))
        for _ in range(count)
    ]


def _vectors(count: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    v = rng.normal(size=(count, 3)) * 10.0 ** rng.integers(-8, 8, size=(count, 1))
    v[::17] = 0.0
    v[5::19, 1] = -0.0
    return v


def test_rotate3_equals_apply_direction() -> None:
    for T, v in zip(_transforms(300), _vectors(300), strict=True):
        expected = T.apply_direction(v)
        got = np.array(_rotate3(T.rotation.tolist(), v.tolist()))
        assert got.tobytes() == expected.tobytes()


def test_rotate3_transposed_equals_the_inverse_applied() -> None:
    for T, v in zip(_transforms(300), _vectors(300), strict=True):
        expected = T.inverse().apply_direction(v)
        got = np.array(_rotate3_transposed(T.rotation.tolist(), v.tolist()))
        assert got.tobytes() == expected.tobytes()


def test_cross3_equals_the_numpy_cross() -> None:
    vectors = _vectors(400)
    for a, b in zip(vectors[:200], vectors[200:], strict=True):
        assert np.array(_cross3(a.tolist(), b.tolist())).tobytes() == _cross(a, b).tobytes()


def test_vector3_fast_copy_keeps_every_bit_and_is_read_only() -> None:
    for v in _vectors(50):
        got = _vector3("v", v)
        assert got.dtype == np.float64 and got.shape == (3,)
        assert got.tobytes() == v.tobytes() and not got.flags.writeable
        with pytest.raises(ValueError):
            got.setflags(write=True)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_vector3_fast_path_still_refuses_non_finite(bad: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        _vector3("velocity_body_m_s", np.array([0.0, bad, 1.0]))


def _general_channel(value: np.ndarray) -> np.ndarray:
    """The general canonicalisation: a C-ordered copy, + 0.0, every NaN set to numpy.nan."""
    array = np.array(value, copy=True, order="C")
    with np.errstate(invalid="ignore"):  # a signalling NaN stays a NaN
        array += 0.0
    array[np.isnan(array)] = np.nan
    return array


@pytest.mark.parametrize(
    "value",
    [
        np.array(-0.0),
        np.array([1.0, -0.0, np.nan]),
        np.frombuffer(np.array([0xFFF8000000000001, 0x7FF0000000000001], np.uint64), np.float64),
        np.asfortranarray(np.arange(6.0).reshape(2, 3) - 2.0),
        np.arange(64.0) - 32.0,
        np.zeros((0, 3)),
    ],
)
def test_small_float_channels_are_canonicalised_like_the_general_path(value: np.ndarray) -> None:
    got = _canonical_channel("c", value)
    expected = _general_channel(value)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()
    assert not got.flags.writeable and got.flags.c_contiguous


def test_freeze_fast_paths_give_the_same_frozen_values_and_hash() -> None:
    value = {
        "floats": [1.0, -0.0, 2.5],
        "nested": {"rows": [[1.0, 0.0], [0.0, 1.0]], "flag": True},
        "tuple": (1, "a", None),
        "ints": {1: "one", 2: "two"},
        "array": np.arange(3.0),
    }
    frozen = freeze(value)
    assert type(frozen) is FrozenMapping
    assert frozen["floats"] == (1.0, -0.0, 2.5) and type(frozen["floats"]) is tuple
    assert frozen["tuple"] is value["tuple"]
    assert frozen["nested"]["rows"] == ((1.0, 0.0), (0.0, 1.0))
    assert type(frozen["ints"]) is FrozenMapping and dict(frozen["ints"]) == value["ints"]
    assert not frozen["array"].flags.writeable
    del value["ints"]  # content identity needs str keys: compare the rest
    assert content_hash(freeze(value)) == content_hash(value)


def test_freeze_still_names_the_path_of_a_refused_value() -> None:
    with pytest.raises(TypeError, match=r"^\$\['a'\]\[1\]\['b'\]: cannot freeze"):
        freeze({"a": [1.0, {"b": object()}]})


class _Spec:
    """A stand-in for a frozen spec: only its identity matters to the cache."""


def test_spec_derived_values_are_computed_once_per_spec_object() -> None:
    calls: list[object] = []

    def build(spec: object) -> object:
        calls.append(spec)
        return object()

    first, second = _Spec(), _Spec()
    a = _spec_derived(first, build)
    assert _spec_derived(first, build) is a
    b = _spec_derived(second, build)
    assert b is not a and calls == [first, second]
