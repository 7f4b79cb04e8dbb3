"""Six-degree-of-freedom rigid-body vehicle dynamics (Fossen 2011), float64.

Frames and state:

* world NED, body FRD with its origin at the centre of gravity (CG), so the
  CG offset ``r_g`` is zero and the rigid-body mass matrix is diagonal;
* pose ``η``: NED position [m] and the unit quaternion ``q_world_body``
  ``(w, x, y, z)`` (Hamilton, scalar first, ``R_world_body = R(q)``);
* generalised velocity ``ν = (u, v, w, p, q, r)`` [m/s, rad/s]: the velocity of
  the body relative to the world (inertial), expressed in body FRD;
* actual thruster forces [N] after their first-order response.

Equations of motion (Fossen 2011, eq. 10.1 with an irrotational current)::

    M_RB ν̇ + C_RB(ν) ν + M_A ν̇_r + C_A(ν_r) ν_r + D(ν_r) ν_r + g(η) = τ
    ν_r = ν − ν_c,   ν_c = (R^T v_c, 0, 0, 0)

with ``M_RB = diag(m, m, m, Ixx, Iyy, Izz)`` (eq. 3.44, ``r_g = 0``), diagonal
added mass ``M_A``, ``C_RB`` in its linear-velocity-independent form (eq. 3.57,
``C_RB ν = (m ω×v, ω×(I_g ω))``), ``C_A`` for diagonal ``M_A`` (eq. 6.43,
``C_A ν_r = (ω×a, v_r×a + ω×b)`` with ``a = M_A11 v_r``, ``b = M_A22 ω``),
``D(ν_r) = D_l + D_q |ν_r|`` (diagonal) and the restoring vector of eq. 4.6
written without Euler angles: the weight ``W = m g`` at the CG and the buoyancy
``B = ρ g ∇`` at the centre of buoyancy (CB) ``r_b`` give the body force
``R^T (0, 0, W) + R^T (0, 0, −B)`` and the moment ``r_b × R^T (0, 0, −B)``.

The current ``v_c`` is given in NED. For a current that is constant in NED the
body-frame current changes only because the body turns:
``d/dt (R^T v_c) = −ω × (R^T v_c)``, so ``ν̇_r = ν̇ − (−ω × R^T v_c, 0)`` exactly
(the kinematics behind Fossen 2011, eq. 10.12). The solved form is::

    (M_RB + M_A) ν̇ = τ − g(η) − C_RB(ν) ν − C_A(ν_r) ν_r − D(ν_r) ν_r + M_A ν̇_c

Approximation: for a depth-dependent current (a profile) the term
``(∂v_c/∂z) ż`` is neglected in ``ν̇_c``; the current itself is evaluated at the
depth of every integrator stage. The vehicle is taken as fully submerged
(buoyancy does not change near the surface).

Thrusters: ``τ_thrust = T f`` with column i of the 6×n configuration matrix
``T`` equal to ``(d_i, r_i × d_i)``. Commands are saturated to
``[min_thrust_n, max_thrust_n]``; the actual force follows
``ḟ = (f_cmd − f) / time_constant`` (``time_constant = 0``: ``f = f_cmd``).

Integration (:func:`step`): classic fixed-step RK4 over position, quaternion
(``q̇ = ½ q ⊗ (0, ω)``, no Euler angles) and ``ν``; the quaternion is
renormalised once after each full step. The command is held constant over the
step, so the first-order thruster equation is integrated with its exact
solution ``f(t) = f_cmd + (f_0 − f_cmd) exp(−t / time_constant)`` evaluated at
the RK4 stage times, which is unconditionally stable for any step.

Arithmetic order is part of the contract: the derivative is written out on
Python floats (IEEE binary64, no fused multiply-add, no reordering), so a call
with the same inputs returns bit-identical output; no BLAS call sits on the
integration path.
"""

from leviathan.dynamics._equations import CurrentInput, accelerations, state_derivative
from leviathan.dynamics._integrator import step
from leviathan.dynamics._model import RigidBodyModel, energy, neutral_buoyancy_volume
from leviathan.dynamics._rotation import rotation_rows_from_quaternion
from leviathan.dynamics._state import VehicleState

__all__ = [
    "CurrentInput",
    "RigidBodyModel",
    "VehicleState",
    "accelerations",
    "energy",
    "neutral_buoyancy_volume",
    "rotation_rows_from_quaternion",
    "state_derivative",
    "step",
]
