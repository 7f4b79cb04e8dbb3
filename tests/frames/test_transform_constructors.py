"""Transform.with_translation and Transform.from_quaternion: the constructor's results."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from leviathan.frames import Transform, rotation_from_quaternion


def _turned() -> Transform:
    return Transform.from_euler(0.1, -0.2, 2.5, translation=(1.0, 2.0, 3.0))


def test_with_translation_equals_the_constructor_bit_for_bit() -> None:
    T = _turned()
    moved = T.with_translation((4.5, -0.25, 7.0))
    built = Transform(T.rotation, (4.5, -0.25, 7.0))
    assert moved.rotation.dtype == np.float64 and moved.translation.dtype == np.float64
    assert moved.rotation.shape == (3, 3) and moved.translation.shape == (3,)
    assert_array_equal(moved.rotation, built.rotation)
    assert_array_equal(moved.translation, built.translation)
    assert moved == built
    assert moved.to_dict() == built.to_dict()


def test_with_translation_leaves_the_original_and_the_caller_array_alone() -> None:
    T = _turned()
    translation = np.array([4.0, 5.0, 6.0])
    moved = T.with_translation(translation)
    translation[0] = 99.0
    assert moved.translation.tolist() == [4.0, 5.0, 6.0]
    assert T.translation.tolist() == [1.0, 2.0, 3.0]
    assert not moved.translation.flags.writeable


@pytest.mark.parametrize(
    "translation", [(1.0, 2.0), (1.0, float("nan"), 2.0), (float("inf"), 0.0, 0.0)]
)
def test_with_translation_refuses_a_malformed_translation(translation: tuple) -> None:
    with pytest.raises(ValueError, match="translation"):
        _turned().with_translation(translation)


def test_from_quaternion_equals_the_constructor_bit_for_bit() -> None:
    rng = np.random.default_rng(26)
    for scale in (1.0, 1.0 + 5e-7, 3.0, 1e-3):
        for _ in range(200):
            q = rng.standard_normal(4)
            q = q / np.sqrt(((q[0] * q[0] + q[1] * q[1]) + q[2] * q[2]) + q[3] * q[3]) * scale
            t = rng.standard_normal(3) * 100.0
            fast = Transform.from_quaternion(q, translation=t)
            built = Transform(rotation_from_quaternion(q), t)
            assert fast.rotation.dtype == np.float64 and fast.rotation.shape == (3, 3)
            assert_array_equal(fast.rotation, built.rotation)
            assert_array_equal(fast.translation, built.translation)
            assert not fast.rotation.flags.writeable and not fast.translation.flags.writeable


@pytest.mark.parametrize(
    ("quaternion", "translation", "field"),
    [
        ((0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0), "quaternion"),
        ((1.0, float("nan"), 0.0, 0.0), (0.0, 0.0, 0.0), "quaternion"),
        ((1.0, 0.0, 0.0), (0.0, 0.0, 0.0), "quaternion"),
        ((1.0, 0.0, 0.0, 0.0), (0.0, float("inf"), 0.0), "translation"),
    ],
)
def test_from_quaternion_refuses_malformed_input(
    quaternion: tuple, translation: tuple, field: str
) -> None:
    with pytest.raises(ValueError, match=field):
        Transform.from_quaternion(quaternion, translation=translation)
