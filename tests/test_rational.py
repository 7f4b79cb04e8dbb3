"""Exact rational pseudo-inverse: the Penrose conditions hold exactly, rounding happens once."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from leviathan._rational import (
    _multiply,
    _transpose,
    exact_pseudo_inverse,
    rational_matrix,
    rational_pseudo_inverse,
)
from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.dynamics import RigidBodyModel


def _penrose_conditions_hold(a, x) -> bool:
    """A X A = A, X A X = X, (A X)^T = A X, (X A)^T = X A, all exact."""
    ax = _multiply(a, x)
    xa = _multiply(x, a)
    return (
        _multiply(ax, a) == a
        and _multiply(xa, x) == x
        and _transpose(ax) == ax
        and _transpose(xa) == xa
    )


def _seeded_matrices():
    rng = np.random.default_rng(20261201)
    full_row = rng.normal(size=(6, 8))
    full_column = rng.normal(size=(6, 4))
    # Exactly rank 2: a product of small integer matrices, exact in float64.
    low_rank = (rng.integers(-4, 5, size=(6, 2)) @ rng.integers(-4, 5, size=(2, 7))).astype(float)
    with_zero_rows = np.zeros((6, 5))
    with_zero_rows[[0, 2, 5]] = rng.normal(size=(3, 5))
    return {
        "full_row_rank": full_row,
        "full_column_rank": full_column,
        "rank_2": low_rank,
        "zero_rows": with_zero_rows,
    }


@pytest.mark.parametrize("name", list(_seeded_matrices()))
def test_penrose_conditions_hold_exactly(name: str) -> None:
    a = rational_matrix(_seeded_matrices()[name].tolist())
    assert _penrose_conditions_hold(a, rational_pseudo_inverse(a))


@pytest.mark.parametrize("name", vehicle_names())
def test_catalogue_thruster_matrices_satisfy_penrose_exactly(name: str) -> None:
    model = RigidBodyModel.from_spec(get_vehicle(name))
    if model.thruster_count == 0:
        pytest.skip(f"{name} has no thrusters")
    a = rational_matrix(model.thruster_matrix.tolist())
    x = rational_pseudo_inverse(a)
    assert _penrose_conditions_hold(a, x)
    # The model's allocation is that exact inverse, each entry rounded once to nearest.
    allocation = model.thrust_allocation
    assert allocation.dtype == np.float64 and allocation.shape == (model.thruster_count, 6)
    assert allocation.tolist() == [[float(v) for v in row] for row in x]


def test_each_entry_is_the_nearest_float64_of_the_exact_value() -> None:
    a = [[3.0, 0.0], [0.0, 7.0]]  # inverse entries 1/3 and 1/7 are not dyadic
    x = exact_pseudo_inverse(a)
    assert x == [[1.0 / 3.0, 0.0], [0.0, 1.0 / 7.0]]  # int/int division is correctly rounded
    exact = Fraction(1, 3)
    below, above = np.nextafter(x[0][0], 0.0), np.nextafter(x[0][0], 1.0)
    assert abs(Fraction(x[0][0]) - exact) < abs(Fraction(float(below)) - exact)
    assert abs(Fraction(x[0][0]) - exact) < abs(Fraction(float(above)) - exact)


def test_agrees_with_lapack_to_rounding() -> None:
    for matrix in _seeded_matrices().values():
        np.testing.assert_allclose(
            np.array(exact_pseudo_inverse(matrix.tolist())),
            np.linalg.pinv(matrix),  # test-only peer; LAPACK differs only in the last bits
            rtol=0,
            atol=1e-9,
        )


def test_zero_and_empty_matrices() -> None:
    assert exact_pseudo_inverse([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]) == [[0.0] * 3] * 2
    with pytest.raises(ValueError, match=r"rows\[1\]: expected 2 entries, got 1"):
        exact_pseudo_inverse([[1.0, 2.0], [3.0]])
