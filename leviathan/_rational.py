"""Exact rational linear algebra for canonical constants, rounded to float64 once.

Canonical results must not depend on which BLAS/LAPACK kernel numpy picks on a
given CPU (``OPENBLAS_CORETYPE``): an SVD-based ``np.linalg.pinv`` changes in
its last bits from one kernel to another, and so does every hash downstream.
The few matrix results a World needs once per vehicle (the thrust allocation
``pinv(T)``) are therefore computed here in exact rational arithmetic
(:class:`fractions.Fraction`): every float64 input is an exact dyadic rational,
every intermediate is exact, and each entry of the result is rounded to the
nearest float64 exactly once (``float(Fraction)`` rounds correctly, ties to
even). The result is a pure function of the input bits on every platform.

The Moore–Penrose pseudo-inverse uses the full-rank factorisation ``A = B C``
(``B``: the pivot columns of ``A``, ``C``: the non-zero rows of the reduced row
echelon form of ``A``), for which ``A⁺ = Cᵀ (C Cᵀ)⁻¹ (Bᵀ B)⁻¹ Bᵀ`` holds for any
rank (Ben-Israel and Greville, *Generalized Inverses*, 2003, §1.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = ["exact_pseudo_inverse", "rational_matrix", "rational_pseudo_inverse"]

Matrix = list[list[Fraction]]


def rational_matrix(rows: Sequence[Sequence[float]]) -> Matrix:
    """The exact rational value of a float matrix given as rows.

    Raises:
        ValueError: If the rows are ragged or an entry is not finite.
    """
    width = len(rows[0]) if rows else 0
    out: Matrix = []
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"rows[{i}]: expected {width} entries, got {len(row)}")
        out.append([Fraction(float(x)) for x in row])  # Fraction(float) is exact
    return out


def _transpose(a: Matrix) -> Matrix:
    return [list(column) for column in zip(*a, strict=True)] if a else []


def _multiply(a: Matrix, b: Matrix) -> Matrix:
    inner = len(b)
    return [
        [sum((a[i][k] * b[k][j] for k in range(inner)), Fraction(0)) for j in range(len(b[0]))]
        for i in range(len(a))
    ]


def _reduced_row_echelon(a: Matrix) -> tuple[Matrix, list[int]]:
    """Exact RREF of ``a`` and its pivot columns (first non-zero entry in each column)."""
    r = [row[:] for row in a]
    rows = len(r)
    cols = len(r[0]) if r else 0
    pivots: list[int] = []
    lead = 0
    for col in range(cols):
        pivot = next((i for i in range(lead, rows) if r[i][col] != 0), None)
        if pivot is None:
            continue
        r[lead], r[pivot] = r[pivot], r[lead]
        scale = r[lead][col]
        r[lead] = [x / scale for x in r[lead]]
        for i in range(rows):
            if i != lead and r[i][col] != 0:
                factor = r[i][col]
                r[i] = [x - factor * y for x, y in zip(r[i], r[lead], strict=True)]
        pivots.append(col)
        lead += 1
        if lead == rows:
            break
    return r, pivots


def _inverse(a: Matrix) -> Matrix:
    """Exact inverse of a non-singular square matrix by Gauss–Jordan elimination."""
    n = len(a)
    augmented = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(a)]
    reduced, pivots = _reduced_row_echelon(augmented)
    if pivots[:n] != list(range(n)):
        raise ArithmeticError("matrix is singular")  # unreachable for B^T B, C C^T of full rank
    return [row[n:] for row in reduced]


def exact_pseudo_inverse(rows: Sequence[Sequence[float]]) -> list[list[float]]:
    """Moore–Penrose pseudo-inverse of a float64 matrix, exact and rounded once.

    Args:
        rows: The matrix ``A`` as ``m`` rows of ``n`` finite floats.

    Returns:
        ``A⁺`` as ``n`` rows of ``m`` Python floats, each the float64 nearest to
        the exact rational entry. A zero matrix (or ``m == 0``) gives zeros.
    """
    exact = rational_pseudo_inverse(rational_matrix(rows))
    return [[float(x) for x in row] for row in exact]


def rational_pseudo_inverse(a: Matrix) -> Matrix:
    """Exact Moore–Penrose pseudo-inverse of a rational ``m × n`` matrix (``n × m``)."""
    m = len(a)
    n = len(a[0]) if a else 0
    reduced, pivots = _reduced_row_echelon(a)
    rank = len(pivots)
    if rank == 0:
        return [[Fraction(0)] * m for _ in range(n)]
    c = reduced[:rank]  # rank × n, full row rank
    b = [[a[i][j] for j in pivots] for i in range(m)]  # m × rank, full column rank
    bt = _transpose(b)
    ct = _transpose(c)
    left = _multiply(ct, _inverse(_multiply(c, ct)))  # n × rank
    right = _multiply(_inverse(_multiply(bt, b)), bt)  # rank × m
    return _multiply(left, right)
