"""Warp tracing funcs against the numpy reference, element by element, on every device.

The small kernels below call :mod:`leviathan.kernels.trace`'s ``@wp.func``
helpers over seeded inputs and compare with the vectorised reference
functions of :mod:`leviathan.reference_cpu.trace`: flags equal everywhere,
``t`` and inverse directions equal bit for bit. This module compiles with the
trace module's options (``fuse_fp=False``, ``fast_math=False``); the option
values themselves, the float64 constants and the absence of FMA contraction
in the trace module's own kernels are checked separately.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import warp as wp

from leviathan._kernel_options import KERNEL_OPTIONS
from leviathan.kernels import trace as kt
from leviathan.kernels.backend import (
    CompileReport,
    check_device,
    compile_reports,
    load_kernels,
)
from leviathan.kernels.backend import nearest_hits as warp_trace
from leviathan.raycast import PreparedScene, prepare_instance
from leviathan.reference_cpu import trace as ref

# The trace module's own options: its funcs are inlined into the kernels below.
wp.set_module_options(KERNEL_OPTIONS)


@wp.kernel
def _triangle_kernel(
    o: wp.array(dtype=wp.vec3d),
    d: wp.array(dtype=wp.vec3d),
    tri: wp.array(dtype=kt.tri9d),
    t_max: wp.array(dtype=wp.float64),
    hit: wp.array(dtype=wp.int32),
    t: wp.array(dtype=wp.float64),
):
    i = wp.tid()
    h, ti = kt.intersect_ray_triangle(o[i], d[i], tri[i], t_max[i])
    hit[i] = wp.where(h, 1, 0)
    t[i] = ti


@wp.kernel
def _box_kernel(
    o: wp.array(dtype=wp.vec3d),
    inv_d: wp.array(dtype=wp.vec3d),
    box: wp.array(dtype=kt.box6d),
    t_best: wp.array(dtype=wp.float64),
    finite_path: wp.int32,
    passed: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    p = bool(False)  # noqa: UP018 (Warp needs a typed variable that both branches assign)
    if finite_path != 0:
        p, _near = kt.intersect_ray_box_finite(o[i], inv_d[i], box[i], t_best[i])
    else:
        p, _near = kt.intersect_ray_box(o[i], inv_d[i], box[i], t_best[i])
    passed[i] = wp.where(p, 1, 0)


@wp.kernel
def _inverse_kernel(d: wp.array(dtype=wp.vec3d), inv_d: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    inv_d[i] = kt.inverse_direction(d[i])


@wp.kernel
def _constants_kernel(out: wp.array(dtype=wp.float64)):
    out[0] = kt.BARY_LO
    out[1] = kt.BARY_HI
    out[2] = kt.INV_DIR_ZERO


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.sqrt((v * v).sum(axis=1))[:, None]


def _launch(kernel: Any, device: str, arrays: list[tuple[np.ndarray, Any]], rest: list) -> None:
    """Launches ``kernel`` once per row of the first array.

    Args:
        kernel: The Warp kernel.
        device: Where to run it.
        arrays: ``(values, warp_dtype)`` per leading array argument, copied to ``device``.
        rest: The remaining arguments as they are (scalars, output arrays).
    """
    inputs = [wp.array(values, dtype=dtype, device=device) for values, dtype in arrays]
    wp.launch(kernel, dim=arrays[0][0].shape[0], inputs=[*inputs, *rest], device=device)


def _warp_triangle(
    o: np.ndarray,
    d: np.ndarray,
    v0: np.ndarray,
    e1: np.ndarray,
    e2: np.ndarray,
    t_max: np.ndarray,
    device: str,
) -> tuple[np.ndarray, np.ndarray]:
    """``(hit, t)`` of :func:`leviathan.kernels.trace.intersect_ray_triangle` per element."""
    n = o.shape[0]
    tri = np.ascontiguousarray(np.concatenate([v0, e1, e2], axis=1))
    hit = wp.zeros(n, dtype=wp.int32, device=device)
    t = wp.zeros(n, dtype=wp.float64, device=device)
    arrays = [(o, wp.vec3d), (d, wp.vec3d), (tri, kt.tri9d), (t_max, wp.float64)]
    _launch(_triangle_kernel, device, arrays, [hit, t])
    return hit.numpy().astype(bool), t.numpy()


def _triangle_cases(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Seeded ray/triangle pairs: near-edge aims, zero direction components, det == 0, noise.

    Returns:
        ``(o, d, v0, e1, e2)``, each float64 [n, 3].
    """
    # Rays aimed at barycentrics on, just inside and just outside the edges.
    n_aim = 3000
    v0 = rng.normal(scale=5.0, size=(n_aim, 3))
    e1 = rng.normal(scale=3.0, size=(n_aim, 3))
    e2 = rng.normal(scale=3.0, size=(n_aim, 3))
    base = rng.choice([0.0, 1.0, 0.5, ref.BARY_LO, ref.BARY_HI], size=(n_aim, 2))
    base[:, 1] = np.where(rng.random(n_aim) < 0.3, 1.0 - base[:, 0], base[:, 1])
    jitter = rng.choice(
        [0.0, 1e-15, -1e-15, 2.0**-31, -(2.0**-31), 2.0**-29, -(2.0**-29)], (n_aim, 2)
    )
    a, b = (base + jitter).T
    target = v0 + a[:, None] * e1 + b[:, None] * e2
    d = _unit(rng.normal(size=(n_aim, 3)))
    # A quarter axis-aligned (two components exactly 0), a quarter with one 0 component.
    axis = rng.integers(0, 3, n_aim)
    aligned = np.arange(n_aim) % 4 == 0
    d[aligned] = 0.0
    d[aligned, axis[aligned]] = rng.choice([-1.0, 1.0], aligned.sum())
    planar = np.arange(n_aim) % 4 == 1
    d[planar, axis[planar]] = 0.0
    o = target - rng.uniform(0.5, 20.0, (n_aim, 1)) * d

    # Exactly parallel: triangles in a z plane, rays with dz == 0; and point triangles.
    n_flat = 400
    f_v0 = rng.normal(scale=5.0, size=(n_flat, 3))
    f_e1 = rng.normal(scale=3.0, size=(n_flat, 3))
    f_e2 = rng.normal(scale=3.0, size=(n_flat, 3))
    f_e1[:, 2] = 0.0
    f_e2[:, 2] = 0.0
    f_e1[::4] = 0.0
    f_e2[::4] = 0.0
    f_d = rng.normal(size=(n_flat, 3))
    f_d[:, 2] = 0.0
    f_d = _unit(f_d)
    f_o = f_v0 + rng.normal(scale=2.0, size=(n_flat, 3))
    f_o[1::4, 2] = f_v0[1::4, 2]  # in the triangle's plane

    # Unstructured noise: mostly misses.
    n_noise = 1000
    parts = [rng.normal(scale=s, size=(n_noise, 3)) for s in (10.0, 1.0, 5.0, 3.0, 3.0)]
    parts[1] = _unit(parts[1])

    groups = (
        (o, f_o, parts[0]),
        (d, f_d, parts[1]),
        (v0, f_v0, parts[2]),
        (e1, f_e1, parts[3]),
        (e2, f_e2, parts[4]),
    )
    return tuple(np.ascontiguousarray(np.concatenate(blocks)) for blocks in groups)


def test_intersect_ray_triangle_matches_reference(device: str) -> None:
    rng = np.random.default_rng(20)
    o, d, v0, e1, e2 = _triangle_cases(rng)
    n = o.shape[0]
    hit_free, t_free = ref.intersect_ray_triangle(o, d, v0, e1, e2, np.inf)
    # t_max: unbounded, a fixed range, exactly a hit's t (kept) and one ulp below (dropped).
    t_max = np.where(np.arange(n) % 2 == 0, np.inf, 15.0)
    exact = hit_free & (np.arange(n) % 5 == 0)
    below = hit_free & (np.arange(n) % 5 == 1)
    t_max[exact] = t_free[exact]
    t_max[below] = np.nextafter(t_free[below], 0.0)
    want_hit, want_t = ref.intersect_ray_triangle(o, d, v0, e1, e2, t_max)
    assert np.all(want_hit[exact]) and not np.any(want_hit[below])
    assert want_hit.sum() > 500 and (~want_hit).sum() > 500

    got_hit, got_t = _warp_triangle(o, d, v0, e1, e2, t_max, device)

    assert got_hit.dtype == bool and got_hit.shape == (n,)
    assert got_t.dtype == np.float64 and got_t.shape == (n,)
    np.testing.assert_array_equal(got_hit, want_hit)
    np.testing.assert_array_equal(got_t[want_hit].view(np.uint64), want_t[want_hit].view(np.uint64))


def test_intersect_ray_triangle_barycentric_bounds_are_exact(device: str) -> None:
    # v0 = 0, e1 = x, e2 = y, ray straight down z from (x, y, -1): u = x and v = y
    # exactly, t = 1. Each pair sits on a bound or one ulp beyond it.
    lo, hi = ref.BARY_LO, ref.BARY_HI
    uv = np.array(
        [
            [hi, 0.0],
            [np.nextafter(hi, 2.0), 0.0],
            [lo, 0.5],
            [np.nextafter(lo, -1.0), 0.5],
            [0.5, lo],
            [0.5, np.nextafter(lo, -1.0)],
            [0.5, 0.5 + 2.0**-30],  # u + v == BARY_HI exactly
            [0.5, 0.5 + 2.0**-30 + 2.0**-52],  # u + v one ulp above BARY_HI
        ]
    )
    n = uv.shape[0]
    o = np.column_stack([uv, np.full(n, -1.0)])
    d = np.tile([[0.0, 0.0, 1.0]], (n, 1))
    v0 = np.zeros((n, 3))
    e1 = np.tile([[1.0, 0.0, 0.0]], (n, 1))
    e2 = np.tile([[0.0, 1.0, 0.0]], (n, 1))
    t_max = np.full(n, 10.0)
    want_hit, want_t = ref.intersect_ray_triangle(o, d, v0, e1, e2, t_max)
    assert want_hit.tolist() == [True, False] * 4
    got_hit, got_t = _warp_triangle(o, d, v0, e1, e2, t_max, device)
    np.testing.assert_array_equal(got_hit, want_hit)
    np.testing.assert_array_equal(got_t[want_hit], want_t[want_hit])


def test_intersect_ray_triangle_rejects_nan_barycentrics(device: str) -> None:
    s = 1e-160  # edge length: det ~ 1e-320 is subnormal, u = 0 * inf = NaN, t = +inf
    o = np.array([[0.0, 0.0, 5.0]])
    d = np.array([[0.0, 0.0, 1.0]])
    v0 = np.array([[0.0, 0.0, 10.0]])
    e1 = np.array([[s, 0.0, 0.0]])
    e2 = np.array([[0.0, s, 0.0]])
    t_max = np.array([np.inf])
    want_hit, _ = ref.intersect_ray_triangle(o, d, v0, e1, e2, t_max)
    assert want_hit.tolist() == [False]
    got_hit, _ = _warp_triangle(o, d, v0, e1, e2, t_max, device)
    np.testing.assert_array_equal(got_hit, want_hit)


def _warp_box(
    o: np.ndarray,
    inv_d: np.ndarray,
    box: np.ndarray,
    t_best: np.ndarray,
    device: str,
    *,
    finite_path: bool = False,
) -> np.ndarray:
    """Pass flags of ``intersect_ray_box`` (or its ``_finite`` hot path) per element."""
    n = o.shape[0]
    passed = wp.zeros(n, dtype=wp.int32, device=device)
    arrays = [(o, wp.vec3d), (inv_d, wp.vec3d), (box, kt.box6d), (t_best, wp.float64)]
    _launch(_box_kernel, device, arrays, [int(finite_path), passed])
    return passed.numpy().astype(bool)


def _reference_near(o: np.ndarray, inv_d: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The slab test's ``near`` in the reference's order (to place ``t_best`` on it)."""
    t1 = (box[:, :3] - o) * inv_d
    t2 = (box[:, 3:] - o) * inv_d
    lo = np.minimum(t1, t2)
    return np.maximum(np.maximum(lo[:, 0], lo[:, 1]), lo[:, 2])


def test_intersect_ray_box_matches_reference(device: str) -> None:
    rng = np.random.default_rng(21)
    n = 6000
    lo = rng.normal(scale=5.0, size=(n, 3))
    box = np.ascontiguousarray(np.concatenate([lo, lo + rng.exponential(2.0, (n, 3))], axis=1))
    o = rng.normal(scale=8.0, size=(n, 3))
    # A fifth of the origins exactly on a face plane.
    on_face = np.nonzero(rng.random(n) < 0.2)[0]
    axis = rng.integers(0, 3, on_face.shape[0])
    o[on_face, axis] = box[on_face, axis + 3 * rng.integers(0, 2, on_face.shape[0])]
    # Aimed at points in and around the box, so about half the rays pass.
    aim = box[:, :3] + rng.uniform(-0.1, 1.1, (n, 3)) * (box[:, 3:] - box[:, :3])
    d = _unit(aim - o)
    # INV_DIR_ZERO path (all-zero rays too); such a ray mostly starts within that slab.
    zero = rng.random((n, 3)) < 0.15
    d[zero] = 0.0
    o[zero] = np.where(rng.random(zero.sum()) < 0.7, aim[zero], o[zero])
    inv_d = ref.inverse_directions(d)
    # t_best: unbounded, fixed, exactly the box's near (pass) and one ulp below it (fail).
    near = _reference_near(o, inv_d, box)
    t_best = rng.choice([np.inf, 8.0, 20.0], n)
    on_near = np.isfinite(near) & (np.arange(n) % 3 == 1)
    below = np.isfinite(near) & (np.arange(n) % 3 == 2)
    t_best[on_near] = near[on_near]
    t_best[below] = np.nextafter(near[below], -np.inf)
    want = ref.intersect_ray_box(o, inv_d, box, t_best)
    assert 0.2 * n < want.sum() < 0.8 * n

    got = _warp_box(o, inv_d, box, t_best, device)
    # These inverses are all finite, so the hot path must agree too.
    assert np.all(np.isfinite(inv_d))
    got_finite = _warp_box(o, inv_d, box, t_best, device, finite_path=True)

    assert got.dtype == bool and got.shape == (n,)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_finite, want)


def test_intersect_ray_box_rejects_nan_slabs(device: str) -> None:
    box = np.array([[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]] * 2)
    # On the y = 0 and z = 0 faces, moving (barely) inwards: the first slab bound is NaN.
    o = np.array([[-1.0, 0.0, 0.5], [-1.0, 0.5, 0.0]])
    d = np.array([[1.0, 1e-310, 0.0], [1.0, 0.0, 1e-310]])
    with np.errstate(over="ignore", invalid="ignore"):
        inv_d = ref.inverse_directions(d)
        want = ref.intersect_ray_box(o, inv_d, box, np.full(2, 10.0))
    assert want.tolist() == [False, False]
    np.testing.assert_array_equal(_warp_box(o, inv_d, box, np.full(2, 10.0), device), want)


def _direction_cases(rng: np.random.Generator) -> np.ndarray:
    d = rng.normal(size=(500, 3))
    d[rng.random((500, 3)) < 0.3] = 0.0
    d[rng.random((500, 3)) < 0.05] = -0.0
    special = np.array(
        [[5e-324, -5e-324, 1e-310], [1e-300, -1e-300, 1.0], [0.0, -0.0, -1.0], [1e300, -1e-8, 3.0]]
    )
    return np.ascontiguousarray(np.concatenate([d, special]))


def test_inverse_direction_func_matches_reference(device: str) -> None:
    d = _direction_cases(np.random.default_rng(22))
    with np.errstate(over="ignore"):
        want = ref.inverse_directions(d)
    out = wp.zeros(d.shape[0], dtype=wp.vec3d, device=device)
    _launch(_inverse_kernel, device, [(d, wp.vec3d)], [out])
    got = out.numpy()
    assert got.dtype == np.float64 and got.shape == d.shape
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


def test_inverse_directions_kernel_matches_reference(device: str) -> None:
    d = _direction_cases(np.random.default_rng(23))
    with np.errstate(over="ignore"):
        want = ref.inverse_directions(d)
    out = wp.zeros(d.shape[0], dtype=wp.vec3d, device=device)
    kt.launch_inverse_directions(
        directions=wp.array(d, dtype=wp.vec3d, device=device), inv_directions=out, device=device
    )
    got = out.numpy()
    assert got.dtype == np.float64 and got.shape == d.shape
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


def test_kernel_constants_are_the_reference_float64_values(device: str) -> None:
    out = wp.zeros(3, dtype=wp.float64, device=device)
    wp.launch(_constants_kernel, dim=1, inputs=[out], device=device)
    got = out.numpy()
    want = np.array([ref.BARY_LO, ref.BARY_HI, ref.INV_DIR_ZERO])
    assert float(np.float32(ref.BARY_HI)) != ref.BARY_HI  # 1 + 2**-30 needs float64
    assert got.dtype == np.float64 and got.shape == (3,)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


def test_trace_module_compiles_without_contraction_or_fast_math() -> None:
    options = kt.trace_instance.module.options
    assert options["fuse_fp"] is False
    assert options["fast_math"] is False
    assert kt.inverse_directions.module is kt.trace_instance.module


def test_test_kernels_compile_like_the_trace_module() -> None:
    # The funcs are inlined into this module's kernels, which compile with this
    # module's options: they must be the trace module's for the comparisons above.
    for name in ("fuse_fp", "fast_math"):
        assert _triangle_kernel.module.options[name] == kt.trace_instance.module.options[name]


def _fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once (what a fused multiply-add returns)."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _fused_t(o: np.ndarray, d: np.ndarray, v0: np.ndarray, e1: np.ndarray, e2: np.ndarray) -> float:
    """Möller–Trumbore ``t`` with every ``a*b + c`` contracted, as an FMA-happy compiler might."""
    (ox, oy, oz), (dx, dy, dz) = o.tolist(), d.tolist()
    (vx, vy, vz), (e1x, e1y, e1z), (e2x, e2y, e2z) = v0.tolist(), e1.tolist(), e2.tolist()
    px = _fma(dy, e2z, -(dz * e2y))
    py = _fma(dz, e2x, -(dx * e2z))
    pz = _fma(dx, e2y, -(dy * e2x))
    det = _fma(e1z, pz, _fma(e1y, py, e1x * px))
    sx, sy, sz = ox - vx, oy - vy, oz - vz
    qx = _fma(sy, e1z, -(sz * e1y))
    qy = _fma(sz, e1x, -(sx * e1z))
    qz = _fma(sx, e1y, -(sy * e1x))
    return _fma(e2z, qz, _fma(e2y, qy, e2x * qx)) * (1.0 / det)


def test_trace_kernel_does_not_fuse_multiply_add(device: str) -> None:
    # Goes through the trace module's own compiled kernel (its own options). Warp's
    # CPU target never emits FMA instructions, so on the CPU this holds whatever the
    # options; on CUDA it fails if contraction (--fmad=true) creeps back in.
    rng = np.random.default_rng(24)
    verts = np.array([[-20.0, -20.0, 30.0], [20.0, -17.0, 31.0], [-15.0, 20.0, 28.0]])
    scene = PreparedScene(
        instances=(prepare_instance(verts, np.array([[0, 1, 2]])),), scene_hash=""
    )
    prep = scene.instances[0]
    n = 400
    a = rng.uniform(0.05, 0.45, n)
    b = rng.uniform(0.05, 0.45, n)
    target = prep.v0 + a[:, None] * prep.e1 + b[:, None] * prep.e2
    o = rng.uniform(-10.0, 10.0, (n, 3))
    d = _unit(target - o)
    want = ref.nearest_hits(scene, o, d, t_max=100.0)
    assert np.all(want.instance == 0)
    fused = np.array([_fused_t(o[k], d[k], prep.v0[0], prep.e1[0], prep.e2[0]) for k in range(n)])
    assert (fused != want.t).sum() > n // 10, "inputs do not tell fused from unfused arithmetic"

    got = warp_trace(scene, o, d, t_max=100.0, device=device)

    assert got.t.dtype == np.float64 and got.t.shape == (n,)
    np.testing.assert_array_equal(got.t.view(np.uint64), want.t.view(np.uint64))


def test_load_kernels_reports_the_cpu_compile() -> None:
    report = load_kernels("cpu")
    assert isinstance(report, CompileReport)
    assert report.device == "cpu"
    assert report.seconds >= 0.0
    assert report.warp_version == wp.config.version
    assert compile_reports()["cpu"] == report


def test_check_device_refuses_an_absent_device(devices: tuple[str, ...]) -> None:
    if "cuda:7" in devices:
        pytest.skip("cuda:7 is present on this machine")
    with pytest.raises(ValueError, match="cuda:7"):
        check_device("cuda:7")


def test_check_device_refuses_a_non_string() -> None:
    with pytest.raises(TypeError, match="device"):
        check_device(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("arch", [80, 90])
def test_cuda_code_has_no_fused_or_approximate_float64_arithmetic(arch: int, tmp_path) -> None:
    """Compiles the trace module to PTX with NVRTC (no GPU needed) and reads the instructions.

    ``--fmad=false`` shows as float64 ``mul``/``add``/``sub`` that all carry an
    explicit ``.rn`` (which forbids the assembler from fusing them) and no
    ``fma`` at all; ``1/x`` must be the correctly rounded ``rcp.rn.f64`` or a
    ``div.rn.f64``, never an approximation.
    """
    import re

    try:
        paths = wp.compile_aot_module(kt, device=None, arch=arch, module_dir=tmp_path, use_ptx=True)
    except Exception as exc:  # no NVRTC in this Warp build
        pytest.skip(f"NVRTC could not compile for sm_{arch} here: {exc}")
    ptx = b"".join(p.read_bytes() for p in paths if p.suffix == ".ptx").decode("ascii", "replace")
    assert "trace_instance" in ptx
    full = re.findall(r"\b(?:mul|add|sub|div|rcp|fma|sqrt)(?:\.[a-z0-9]+)*\.f64\b", ptx)
    assert len(full) > 50, "the float64 arithmetic of the kernels is missing from the PTX"
    assert not [op for op in full if op.startswith("fma")]
    assert all(".rn." in op for op in full), sorted(set(full))
    assert ".approx" not in ptx and ".ftz" not in ptx


@pytest.mark.parametrize(
    "fields",
    [
        {"range_min_m": 1.0, "range_max_m": 2.0, "width": 0.5},
        {"range_min_m": 1.0, "range_max_m": 2.0, "width": 0.5, "bin_count": 2, "bins": 2},
    ],
    ids=["missing", "unknown"],
)
def test_a_kernel_struct_is_built_from_exactly_its_fields(fields: dict[str, Any]) -> None:
    # Warp would read a field left out as zero; struct_of refuses instead.
    from leviathan.kernels import physics as kp

    with pytest.raises(TypeError, match=r"^RangeWindow: expected the fields range_min_m, "):
        kp.struct_of(kp.RangeWindow, **fields)
    whole = kp.struct_of(kp.RangeWindow, range_min_m=1.0, range_max_m=2.0, width=0.5, bin_count=2)
    assert (whole.range_min_m, whole.range_max_m, whole.width, whole.bin_count) == (
        1.0,
        2.0,
        0.5,
        2,
    )


def test_kernel_inputs_are_the_kernels_arguments_by_name_in_its_order() -> None:
    from leviathan.kernels import physics as kp

    given = {"angle": "a", "per_thread": 2, "x": "x", "count": 1}
    assert kp.kernel_inputs(kp.acos_clipped, **given) == ["x", 1, 2, "a"]
    with pytest.raises(TypeError, match=r"^acos_clipped: expected the arguments x, count, "):
        kp.kernel_inputs(kp.acos_clipped, **{**given, "angles": "a"})
