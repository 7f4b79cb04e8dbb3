"""The constant matrices of one vehicle's equations of motion, and its energy.

The matrix forms here (``C_RB``, ``C_A``, ``D``, ``g``) are the readable
reference for the scalar arithmetic of :mod:`leviathan.dynamics._equations`;
see :mod:`leviathan.dynamics` for the equations they come from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._rational import exact_pseudo_inverse
from leviathan._validation import check_positive
from leviathan.dynamics._rotation import rotation_rows_from_quaternion
from leviathan.dynamics._state import VehicleState
from leviathan.specs import VehicleSpec


def _diag(values: Sequence[float]) -> np.ndarray:
    return frozen_array(np.diag(np.asarray(values, dtype=np.float64)))


def _frozen(array: np.ndarray) -> np.ndarray:
    return frozen_array(np.array(array, dtype=np.float64))


def _skew(a: Sequence[float]) -> np.ndarray:
    """``S(a)`` with ``S(a) b = a × b``, shape (3, 3)."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]], dtype=np.float64)


def neutral_buoyancy_volume(spec: VehicleSpec, *, water_density_kg_m3: float = 1025.0) -> float:
    """Displaced volume that makes buoyancy equal weight, ``∇ = m / ρ`` [m³].

    Args:
        spec: The vehicle.
        water_density_kg_m3: Water density ρ [kg/m³], > 0.

    Returns:
        The volume [m³]. ``ρ g ∇`` equals ``m g`` to within a few ulps.
    """
    density = check_positive("water_density_kg_m3", water_density_kg_m3, unit="kg/m³")
    return spec.mass.mass_kg / density


class RigidBodyModel:
    """Constant matrices and parameters of one vehicle's equations of motion.

    Build it with :meth:`from_spec`. All arrays are read-only float64.

    Attributes:
        name: Vehicle name.
        thruster_count: Number of thrusters n.
        M_RB: Rigid-body mass matrix ``diag(m, m, m, Ixx, Iyy, Izz)``, shape (6, 6).
        M_A: Added-mass matrix (diagonal), shape (6, 6).
        M: ``M_RB + M_A``, shape (6, 6).
        M_inv: Inverse of ``M`` (diagonal), shape (6, 6).
        D_linear: Linear damping ``D_l`` (diagonal), shape (6, 6).
        D_quadratic: Quadratic damping coefficients, shape (6,); ``D_q = diag(d_q |ν_r|)``.
        weight_n: ``W = m g`` [N].
        buoyancy_n: ``B = ρ g ∇`` [N].
        cb_m: Centre of buoyancy in body FRD [m], shape (3,).
        thruster_matrix: Configuration matrix ``T``, shape (6, n).
        thrust_allocation: Minimum-norm allocation ``pinv(T)``, shape (n, 6), computed
            in exact rational arithmetic and rounded once (:mod:`leviathan._rational`).
        thrust_min_n, thrust_max_n: Saturation limits [N], shape (n,).
        time_constants_s: First-order thruster time constants [s], shape (n,).

    The diagonal and per-thruster parameters are also given as tuples of Python
    floats (:attr:`added_mass_diagonal`, :attr:`linear_damping_diagonal`,
    :attr:`quadratic_damping_diagonal`, :attr:`thrust_limits_n`) for scalar arithmetic.
    """

    name: str
    thruster_count: int
    mass_kg: float
    gravity_m_s2: float
    water_density_kg_m3: float

    def __init__(self) -> None:
        raise TypeError("build a RigidBodyModel with RigidBodyModel.from_spec(spec)")

    @classmethod
    def from_spec(
        cls,
        spec: VehicleSpec,
        *,
        water_density_kg_m3: float = 1025.0,
        gravity_m_s2: float = 9.81,
    ) -> RigidBodyModel:
        """Build the model of a vehicle.

        Args:
            spec: The vehicle (mass properties and thrusters).
            water_density_kg_m3: Water density ρ [kg/m³], > 0.
            gravity_m_s2: Gravitational acceleration g [m/s²], > 0.

        Returns:
            The model.
        """
        if not isinstance(spec, VehicleSpec):
            raise TypeError(f"spec must be a VehicleSpec, got {type(spec).__name__}")
        rho = check_positive("water_density_kg_m3", water_density_kg_m3, unit="kg/m³")
        g = check_positive("gravity_m_s2", gravity_m_s2, unit="m/s²")
        mass = spec.mass
        model = object.__new__(cls)
        model.name = spec.name
        model.mass_kg = float(mass.mass_kg)
        model.gravity_m_s2 = g
        model.water_density_kg_m3 = rho
        rigid = (mass.mass_kg,) * 3 + tuple(mass.inertia_kg_m2)
        added = tuple(float(a) for a in mass.added_mass)
        total = tuple(float(r) + a for r, a in zip(rigid, added, strict=True))
        model.M_RB = _diag(rigid)
        model.M_A = _diag(added)
        model.M = _diag(total)
        model.M_inv = _diag([1.0 / m for m in total])
        model.D_linear = _diag(mass.linear_damping)
        model.D_quadratic = _frozen(mass.quadratic_damping)
        model.weight_n = mass.mass_kg * g
        model.buoyancy_n = rho * g * mass.displaced_volume_m3
        model.cb_m = _frozen(mass.cb_m)

        thrusters = spec.thrusters
        model.thruster_count = len(thrusters)
        columns = []
        for thruster in thrusters:
            d = thruster.direction
            r = thruster.position_m
            moment = (
                r[1] * d[2] - r[2] * d[1],
                r[2] * d[0] - r[0] * d[2],
                r[0] * d[1] - r[1] * d[0],
            )
            columns.append((*d, *moment))
        t_matrix = np.array(columns, dtype=np.float64).T.reshape(6, len(thrusters))
        model.thruster_matrix = _frozen(t_matrix)
        # Exact rational pseudo-inverse rounded once: independent of the BLAS/LAPACK
        # kernel (an SVD-based np.linalg.pinv differs in its last bits between CPUs).
        model.thrust_allocation = _frozen(
            np.array(exact_pseudo_inverse(t_matrix.tolist()), dtype=np.float64).reshape(
                len(thrusters), 6
            )
            if thrusters
            else np.zeros((0, 6))
        )
        model.thrust_min_n = _frozen([t.min_thrust_n for t in thrusters])
        model.thrust_max_n = _frozen([t.max_thrust_n for t in thrusters])
        model.time_constants_s = _frozen([t.time_constant_s for t in thrusters])

        # Python-float copies for the integrator's scalar arithmetic.
        model._rigid = rigid
        model._added = added
        model._inv_mass = tuple(1.0 / m for m in total)
        model._d_linear = tuple(float(d) for d in mass.linear_damping)
        model._d_quadratic = tuple(float(d) for d in mass.quadratic_damping)
        model._net_weight = model.weight_n - model.buoyancy_n
        model._cb = tuple(float(c) for c in mass.cb_m)
        model._columns = tuple(tuple(float(c) for c in column) for column in columns)
        model._limits = tuple((t.min_thrust_n, t.max_thrust_n) for t in thrusters)
        model._time_constants = tuple(float(t.time_constant_s) for t in thrusters)
        return model

    def __repr__(self) -> str:
        return f"RigidBodyModel(name={self.name!r}, thruster_count={self.thruster_count})"

    # Python-float forms of the parameters, read by the scalar arithmetic of the
    # controllers: the same values as the matrices above, held as tuples so that
    # arithmetic on them stays in Python floats (no numpy scalar types) and nothing
    # can change them.

    @property
    def added_mass_diagonal(self) -> tuple[float, ...]:
        """Diagonal of :attr:`M_A`, six floats: [kg] for u, v, w; [kg m²] for p, q, r."""
        return self._added

    @property
    def linear_damping_diagonal(self) -> tuple[float, ...]:
        """Diagonal of :attr:`D_linear`, six floats: [N s/m] for u, v, w; [N m s] for p, q, r."""
        return self._d_linear

    @property
    def quadratic_damping_diagonal(self) -> tuple[float, ...]:
        """:attr:`D_quadratic` as six floats: [N s²/m²] for u, v, w; [N m s²] for p, q, r."""
        return self._d_quadratic

    @property
    def thrust_limits_n(self) -> tuple[tuple[float, float], ...]:
        """Per thruster, in declared order, its ``(min, max)`` thrust [N], as floats.

        The values of :attr:`thrust_min_n` and :attr:`thrust_max_n`, paired.
        """
        return self._limits

    # Matrix forms of Fossen's terms: the readable reference for the scalar
    # arithmetic in _equations._derivative (tests compare the two).

    def coriolis_rigid_body(self, velocity_body: Sequence[float]) -> np.ndarray:
        """``C_RB(ν)`` (Fossen 2011 eq. 3.57, ``r_g = 0``), shape (6, 6)."""
        nu = np.asarray(velocity_body, dtype=np.float64)
        c = np.zeros((6, 6))
        c[:3, :3] = self.mass_kg * _skew(nu[3:])
        c[3:, 3:] = -_skew(np.diag(self.M_RB)[3:] * nu[3:])
        return c

    def coriolis_added_mass(self, relative_velocity_body: Sequence[float]) -> np.ndarray:
        """``C_A(ν_r)`` for diagonal ``M_A`` (Fossen 2011 eq. 6.43), shape (6, 6)."""
        nu_r = np.asarray(relative_velocity_body, dtype=np.float64)
        a = np.diag(self.M_A)[:3] * nu_r[:3]
        b = np.diag(self.M_A)[3:] * nu_r[3:]
        c = np.zeros((6, 6))
        c[:3, 3:] = -_skew(a)
        c[3:, :3] = -_skew(a)
        c[3:, 3:] = -_skew(b)
        return c

    def damping(self, relative_velocity_body: Sequence[float]) -> np.ndarray:
        """``D(ν_r) = D_l + diag(d_q |ν_r|)``, shape (6, 6)."""
        nu_r = np.asarray(relative_velocity_body, dtype=np.float64)
        return self.D_linear + np.diag(self.D_quadratic * np.abs(nu_r))

    def restoring(self, attitude_q: Sequence[float]) -> np.ndarray:
        """``g(η)`` (Fossen 2011 eq. 4.6 in rotation-matrix form), shape (6,).

        ``g = −(f_W + f_B, r_b × f_B)`` with ``f_W = R^T (0, 0, W)`` and
        ``f_B = R^T (0, 0, −B)``; it enters the equations as ``... + g = τ``.
        """
        rows = rotation_rows_from_quaternion(*[float(v) for v in attitude_q])
        # R^T (0, 0, s) is s times the third row of R, written out (no BLAS call).
        f_w = np.array([self.weight_n * c for c in rows[2]], dtype=np.float64)
        f_b = np.array([-self.buoyancy_n * c for c in rows[2]], dtype=np.float64)
        return -np.concatenate([f_w + f_b, np.cross(self.cb_m, f_b)])


def energy(model: RigidBodyModel, state: VehicleState) -> dict[str, float]:
    """Mechanical energy of the vehicle in still water.

    Args:
        model: The vehicle model.
        state: The state.

    Returns:
        ``kinetic_j``: ``½ νᵀ M ν`` [J] including added mass;
        ``potential_j``: ``(B − W) z + B (R r_b)_z`` [J], zero for a neutral
        vehicle at the surface with CB at the CG;
        ``total_j``: their sum [J]. Both are conserved without damping,
        thrust and current.
    """
    nu = state.velocity_body.tolist()
    diag = [r + a for r, a in zip(model._rigid, model._added, strict=True)]
    kinetic = 0.0
    for m_i, n_i in zip(diag, nu, strict=True):
        kinetic += m_i * n_i * n_i
    kinetic *= 0.5
    row = rotation_rows_from_quaternion(*state.attitude_q.tolist())[2]
    bx, by, bz = model._cb
    cb_down = (row[0] * bx + row[1] * by) + row[2] * bz
    potential = -model._net_weight * float(state.position_ned_m[2]) + model.buoyancy_n * cb_down
    return {"kinetic_j": kinetic, "potential_j": potential, "total_j": kinetic + potential}
