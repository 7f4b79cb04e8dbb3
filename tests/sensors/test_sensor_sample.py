"""Sensor samples: small float channels are canonicalised, per-spec values computed once.

Channels of a few float64 values are canonicalised on Python floats; the result equals,
bit for bit, the general canonicalisation kept as ``reference_canonical_channel`` in
``tests/reference_impls.py``. Values derived from a spec are cached by spec object.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_impls import reference_canonical_channel

from leviathan.sensors._sample import _canonical_channel, _spec_derived


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
def test_small_float_channels_are_canonicalised_like_the_reference(value: np.ndarray) -> None:
    got = _canonical_channel("c", value)
    expected = reference_canonical_channel(value)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()
    assert not got.flags.writeable and got.flags.c_contiguous


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
