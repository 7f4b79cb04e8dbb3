"""The sensors' kinematics arithmetic on Python floats equals the frames and numpy arithmetic.

The IMU and DVL compute their (3,) vectors on Python floats in the frames contract
order (``_rotate3``, ``_rotate3_transposed``, ``_cross3``) and copy kinematic vectors
through ``struct`` (``_vector3``); each is compared bit for bit, on seeded inputs, with
the :mod:`leviathan.frames` or numpy computation it stands for.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from leviathan.frames import Transform
from leviathan.sensors._kinematics import (
    _cross,
    _cross3,
    _rotate3,
    _rotate3_transposed,
    _vector3,
)


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
