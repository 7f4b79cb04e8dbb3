"""The compiled host stage (Warp ``cpu`` kernels) against the numpy reference, bit for bit.

Three layers: each expression of :mod:`leviathan.kernels.physics` over ten million
seeded inputs chosen to reach every branch and IEEE corner (subnormals, ±0, NaN,
±inf, overflow of ``R⁴``, ``cos θ = 0``, the status and medium branches); the
kernel's ``pow`` shown to be the C library's (``math.pow``'s) on inputs where that
differs from the correctly rounded value (and from numpy's, on CPUs where numpy's
SIMD power differs from libm); and whole pings of random
scenes through :func:`leviathan.sonar._physics.compiled_samples` against
:func:`~leviathan.sonar._physics.reference_samples` (:func:`integrated_samples` +
:func:`sample_terms`), every sample field compared.
Comparisons are on the float64 bit patterns (``view(np.uint64)``); a NaN equals any
NaN (its sign is not part of the contract: published channels are canonical), and the
NaN the kernel writes for a missing value is numpy's own.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest

from leviathan.frames import Transform
from leviathan.kernels import host_cells, host_stage
from leviathan.kernels import physics as kp
from leviathan.materials import AcousticStatus
from leviathan.raycast import prepare_scene, trace_rays
from leviathan.reference_cpu import sonar as ref
from leviathan.sonar import spec_range_window
from leviathan.sonar._physics import (
    compiled_samples,
    medium_at,
    reference_samples,
    sample_geometry,
)
from leviathan.specs import WaterSpec

KNOWN = int(AcousticStatus.KNOWN)
INPUTS_PER_EXPRESSION = 10_000_000
CHUNK = 1_000_000


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint64)


def _corner_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """float64 [n]: mostly ordinary ranges, with every IEEE corner mixed in.

    Ranges are never below -0.0 (a slant range; ``math.pow`` in the reference raises
    on an overflowing ``10**-x``, which needs a negative range).
    """
    corners = np.array(
        [
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            2.2250738585072014e-308,
            1e-300,
            1.0,
            1e154,  # R⁴ overflows to inf
            1.4e77,  # R⁴ near the top of float64
            1e300,
            np.inf,
            np.nan,
            np.finfo(np.float64).max,
        ]
    )
    kind = rng.integers(0, 10, n)
    a = rng.uniform(0.0, 120.0, n)
    a[kind == 1] = rng.exponential(1e-3, int((kind == 1).sum()))
    a[kind == 2] = rng.choice(corners, int((kind == 2).sum()))
    a[kind == 3] = np.ldexp(rng.uniform(0.5, 1.0, int((kind == 3).sum())), -1060)  # subnormal
    a[kind == 4] = rng.uniform(0.0, 1e-6, int((kind == 4).sum()))
    return a


def _case(rng: np.random.Generator, n: int, instances: int) -> dict:
    """One chunk of kernel inputs: n samples, each its own ray, over ``instances`` meshes."""
    triangles = rng.integers(1, 40, instances)
    start = np.concatenate([[0], np.cumsum(triangles)]).astype(np.int64)  # sea surface last
    rows = rng.normal(size=(int(start[-1]) + 1, 3))
    rows[rng.random(rows.shape[0]) < 0.02] = 0.0  # cos θ = 0: area = inf
    flat = rows.reshape(-1)
    flat[rng.random(flat.shape[0]) < 0.005] = np.nan
    inst = rng.integers(0, instances + 1, n).astype(np.int32)  # instances = the sea surface
    tri = np.where(
        inst == instances,
        0,
        rng.integers(0, 1 << 30, n) % triangles[np.minimum(inst, instances - 1)],
    )
    status = rng.integers(0, 5, instances + 1).astype(np.uint8)
    status[:2] = KNOWN
    mu = rng.uniform(0.0, 1.0, instances + 1)
    mu[rng.random(instances + 1) < 0.1] = np.nan
    mu[-1] = np.nan
    o = rng.uniform(-50.0, 50.0, (n, 3))
    odd = rng.random(n) < 0.01
    o[odd] = _corner_floats(rng, 3 * int(odd.sum())).reshape(-1, 3) * rng.choice(
        [-1.0, 1.0], (int(odd.sum()), 3)
    )
    d = rng.normal(size=(n, 3))
    d /= np.sqrt((d * d).sum(axis=1))[:, None]
    d[rng.random(n) < 0.01, 0] = np.nan
    gain = rng.uniform(0.0, 1.0, n)
    gain[rng.random(n) < 0.02] = 0.0
    domega = rng.uniform(0.0, 1e-4, n)
    domega[rng.random(n) < 0.01] = 5e-324
    return {
        "sample_ray": np.arange(n, dtype=np.int64),
        "hit_t": _corner_floats(rng, n),
        "hit_instance": inst,
        "hit_triangle": tri.astype(np.int32),
        "origins": o,
        "directions": d,
        "normal_rows": rows,
        "normal_start": start,
        "sea_surface_instance": instances,
        "instance_status": status,
        "instance_mu": mu,
        "known_status": KNOWN,
        "two_way_gain": gain,
        "solid_angle_sr": domega,
    }


_reference_terms = ref.sample_physics


def _reference(case: dict, alpha: float | None) -> dict[str, np.ndarray]:
    """The reference's arithmetic on the same inputs (gathers are exact index lookups)."""
    ray = case["sample_ray"]
    inst = case["hit_instance"][ray].astype(np.int64)
    surface = inst == case["sea_surface_instance"]
    row = case["normal_start"][inst] + np.where(surface, 0, case["hit_triangle"][ray])
    normal = case["normal_rows"][row]
    R = case["hit_t"][ray]
    with np.errstate(all="ignore"):
        point, cos_inc = sample_geometry(case["origins"][ray], case["directions"][ray], R, normal)
    status = case["instance_status"][inst]
    mu = case["instance_mu"][inst]
    with np.errstate(all="ignore"):  # the corners overflow on purpose
        terms = _reference_terms(
            range_m=R,
            cos_incidence=cos_inc,
            two_way_gain=case["two_way_gain"][ray],
            solid_angle_sr=case["solid_angle_sr"][ray],
            mu=mu,
            known=status == KNOWN,
            alpha_db_per_m=alpha,
        )
    return {
        "point": point,
        "normal": normal,
        "cos_incidence": cos_inc,
        "status": status,
        "mu": mu,
        **terms,
    }


def _assert_same(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for name, w in want.items():
        g = got[name]
        assert g.dtype == w.dtype and g.shape == w.shape, name
        if w.dtype == np.float64:
            # A NaN is a NaN: which operand's sign a NaN result carries is the compiler's
            # operand order (and differs between x86 and ARM); every channel a frame
            # publishes is made canonical (canonical_nan), which the parity suite holds.
            nan = np.isnan(w)
            np.testing.assert_array_equal(np.isnan(g), nan, err_msg=name)
            np.testing.assert_array_equal(_bits(g)[~nan], _bits(w)[~nan], err_msg=name)
        else:
            np.testing.assert_array_equal(g, w, err_msg=name)


@pytest.mark.slow
def test_every_expression_equals_the_reference_on_ten_million_inputs() -> None:
    rng = np.random.default_rng(20261202)
    alphas = (None, 0.0, 5e-324, 0.0123, 0.5, 3.7, 1e5)
    branches = {"nan_range": 0, "inf_area": 0, "overflow": 0, "subnormal": 0, "known": 0}
    for chunk in range(INPUTS_PER_EXPRESSION // CHUNK):
        case = _case(rng, CHUNK, instances=int(rng.integers(1, 60)))
        alpha = alphas[chunk % len(alphas)]
        want = _reference(case, alpha)
        got = host_stage.sample_physics(**case, alpha_db_per_m=alpha, threads=2)
        _assert_same(got, want)
        r = case["hit_t"]
        branches["nan_range"] += int(np.isnan(r).sum())
        branches["inf_area"] += int(np.isinf(want["geometric_weight_no_absorption"]).sum())
        with np.errstate(over="ignore"):
            branches["overflow"] += int((np.isfinite(r) & np.isinf(r * r * (r * r))).sum())
        branches["subnormal"] += int(((r != 0) & (np.abs(r) < 2.2250738585072014e-308)).sum())
        branches["known"] += int((want["status"] == KNOWN).sum())
    assert all(count > 1000 for count in branches.values()), branches


def test_the_nan_the_kernel_writes_is_numpys() -> None:
    case = _case(np.random.default_rng(3), 1000, instances=4)
    got = host_stage.sample_physics(**case, alpha_db_per_m=None)
    assert _bits(got["geometric_weight"])[0] == _bits(np.array([np.nan]))[0]
    assert _bits(got["contribution"])[0] == np.uint64(0x7FF8000000000000)


def _correctly_rounded_pow10(x: float) -> float:
    getcontext().prec = 60
    return float(Decimal(10) ** Decimal(x))


def test_the_kernels_pow_is_the_c_librarys_not_numpys_nor_correct_rounding() -> None:
    # Find inputs where libm's pow(10, -x) is not the correctly rounded value: a
    # kernel computing a correctly rounded pow (or numpy's SIMD power, where it differs
    # from libm on this CPU) would differ from the reference there; the compiled stage
    # must equal math.pow on all of them. libm misrounds near rounding midpoints only
    # (about 1 input in 1,200 here), so the 60-digit check runs on likely inputs: where
    # numpy's power differs from libm (its SIMD code on some CPUs), and where libm is
    # within 0.01 ulp of a midpoint by a wider pow (long double, where it is wider).
    rng = np.random.default_rng(11)
    R = rng.uniform(0.0, 30.0, 400_000)
    x = (5.0 * (2.0 * R)) / 10.0  # the kernel's exponent with alpha = 5 dB/m, as it rounds
    libm = np.array([math.pow(10.0, -v) for v in x.tolist()])
    likely = np.power(10.0, -x) != libm
    if np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant:
        wide = np.power(np.longdouble(10.0), -x.astype(np.longdouble))
        off = np.abs((libm.astype(np.longdouble) - wide) / np.spacing(libm).astype(np.longdouble))
        likely |= off > 0.49
    candidates = np.nonzero(likely)[0]
    not_cr = [k for k in candidates.tolist()[:8000] if libm[k] != _correctly_rounded_pow10(-x[k])]
    n = x.shape[0]
    case = _case(np.random.default_rng(5), n, instances=1)
    case["hit_t"] = R
    case["normal_rows"][:] = (0.0, 0.0, 1.0)
    case["directions"][:] = (0.0, 0.0, 1.0)
    case["two_way_gain"][:] = 1.0
    case["solid_angle_sr"][:] = 1.0
    got = host_stage.sample_physics(**case, alpha_db_per_m=5.0)
    gw0 = got["geometric_weight_no_absorption"]
    with np.errstate(all="ignore"):
        want_gw = gw0 * libm
    np.testing.assert_array_equal(_bits(got["geometric_weight"]), _bits(want_gw))
    assert len(not_cr) > 0, "no input where libm's pow is not correctly rounded was found"
    cr_gw = gw0[not_cr] * np.array([_correctly_rounded_pow10(-x[k]) for k in not_cr])
    assert (cr_gw != got["geometric_weight"][not_cr]).any()


def test_results_do_not_depend_on_the_thread_count() -> None:
    case = _case(np.random.default_rng(8), 200_000, instances=7)
    one = host_stage.sample_physics(**case, alpha_db_per_m=0.2, threads=1)
    for threads in (2, 3, 7):
        _assert_same(host_stage.sample_physics(**case, alpha_db_per_m=0.2, threads=threads), one)


def test_no_samples_give_empty_outputs() -> None:
    case = _case(np.random.default_rng(9), 10, instances=2)
    case["sample_ray"] = np.zeros(0, dtype=np.int64)
    got = host_stage.sample_physics(**case, alpha_db_per_m=0.2)
    assert got["point"].shape == (0, 3) and got["contribution"].shape == (0,)


def test_the_physics_module_compiles_without_contraction_or_fast_math() -> None:
    options = kp.sample_physics.module.options
    assert options["fuse_fp"] is False
    assert options["fast_math"] is False


@pytest.fixture(scope="module")
def survey() -> tuple:
    """The demo's survey scene (a small seabed, its targets) and the catalogue sonar, coarser."""
    from leviathan.bench import survey_scene
    from leviathan.catalogue import get_vehicle

    spec = get_vehicle("reference_survey_vehicle").sensor("sonar")
    return survey_scene(3000), spec.model_copy(update={"elevation_sample_count": 97})


@pytest.mark.parametrize("seed", range(6))
def test_compiled_samples_equal_the_reference_stage_on_random_pings(seed: int, survey) -> None:
    from leviathan.sonar._render import _fan_rays_for

    rng = np.random.default_rng(seed)
    scene, spec = survey
    pose = Transform.from_euler(
        float(rng.uniform(-0.3, 0.3)),
        float(rng.uniform(-0.2, 0.6)),
        float(rng.uniform(-3.0, 3.0)),
        translation=(float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5)), 20.0),
    )
    rays = _fan_rays_for(spec)
    d = pose.apply_direction(rays.directions)
    o = np.ascontiguousarray(np.broadcast_to(pose.translation, d.shape))
    prepared = prepare_scene(scene)
    hits = trace_rays(
        prepared, o, d, t_max=spec.range_max_m, sea_surface_instance=scene.sea_surface_instance
    )
    water = WaterSpec() if seed % 3 else WaterSpec(salinity_psu=0.2)  # unsupported medium
    medium = medium_at(spec.frequency_hz, water, depth_m=20.0)
    common = {
        "scene": scene,
        "prepared": prepared,
        "window": spec_range_window(spec),
        "ray_column": rays.column,
        "ray_row": rays.row,
        "column_count": rays.column_count,
        "medium": medium,
        "ray_two_way_gain": rays.two_way_gain,
        "ray_solid_angle_sr": rays.solid_angle_sr,
    }
    want_samples, want_terms = reference_samples(hits, o, d, **common)
    got_samples, got_terms = compiled_samples(hits, o, d, **common)
    assert want_samples.ray.shape[0] > 100
    assert medium.support.supported == bool(seed % 3)
    _assert_same(got_samples._asdict(), want_samples._asdict())
    _assert_same(got_terms, want_terms)


@pytest.mark.slow
def test_acos_clipped_equals_the_reference_on_ten_million_inputs() -> None:
    rng = np.random.default_rng(77)
    corners = np.array([0.0, -0.0, 5e-324, 1.0, np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0)])
    for _ in range(INPUTS_PER_EXPRESSION // CHUNK):
        x = rng.uniform(0.0, 1.0, CHUNK)
        kind = rng.integers(0, 8, CHUNK)
        x[kind == 1] = rng.choice(corners, int((kind == 1).sum()))
        x[kind == 2] = np.ldexp(rng.uniform(0.5, 1.0, int((kind == 2).sum())), -1060)
        x[kind == 3] = rng.uniform(1.0, 3.0, int((kind == 3).sum()))  # clipped to 1
        x[kind == 4] = 1.0 - rng.exponential(1e-12, int((kind == 4).sum()))
        x[rng.random(CHUNK) < 0.001] = np.nan
        want = ref.acos_clipped(x)
        got = host_stage.acos_clipped(x)
        assert got.dtype == np.float64 and got.shape == x.shape
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(_bits(got)[~np.isnan(want)], _bits(want)[~np.isnan(want)])


def _crowded_samples(seed: int, *, columns: int, elevations: int, bins: int) -> dict:
    """Samples in ray order (``r = j * columns + c``), one per (cell, elevation), crowded
    cells (beyond the insertion sort's run), ties in dominance and range, signed zeros,
    NaN contributions of both signs and every acoustic status."""
    rng = np.random.default_rng(seed)
    ray = np.nonzero(rng.random(elevations * columns) < 0.6)[0]
    j, c = ray // columns, ray % columns
    k = np.where(c % 3 == 0, rng.integers(0, 2, ray.shape[0]), rng.integers(0, bins, ray.shape[0]))
    n = ray.shape[0]
    status = rng.choice(np.array([1, 1, 1, 1, 1, 1, 2, 3, 4, 0], dtype=np.uint8), n)
    gw0 = rng.choice(np.array([1e-3, 2e-3, 2e-3, 5e-4, 0.0, -0.0]), n)
    gw = gw0 * 0.5
    contribution = np.where(status == KNOWN, gw * 0.25, np.nan)
    contribution[status == 2] = -np.nan
    contribution[rng.random(n) < 0.02] = np.inf
    cell = (k * columns + c).astype(np.int64)
    cells = bins * columns
    count = np.bincount(cell, minlength=cells).astype(np.int32)
    ret = np.zeros(cells)
    for row in range(elevations):
        sel = j == row
        ret[cell[sel]] += contribution[sel]
    return {
        "sample_cell": cell,
        "sample_elevation": j.astype(np.int64),
        "sample_instance": rng.integers(0, 3, n).astype(np.int64),
        "sample_range": rng.choice(np.array([5.0, 5.5, 6.0, 7.25]), n),
        "sample_status": status,
        "contribution": contribution,
        "geometric_weight": gw,
        "geometric_weight_no_absorption": gw0,
        "sample_count": count,
        "linear_return": ret,
    }


@pytest.mark.parametrize("top_k", [1, 2, 4, 16])
@pytest.mark.parametrize("supported", [True, False])
@pytest.mark.parametrize("seed", [1, 2])
def test_compiled_ground_truth_equals_the_numpy_stage(
    seed: int, supported: bool, top_k: int
) -> None:
    from leviathan.sonar._ground_truth import cell_ground_truth

    s = _crowded_samples(seed, columns=12, elevations=300, bins=40)
    if not supported:
        s["geometric_weight"] = np.full_like(s["geometric_weight"], np.nan)
    assert int(s["sample_count"].max()) > 64  # the merge sort runs, not only insertion
    want = cell_ground_truth(top_k=top_k, medium_supported=supported, **s)
    for threads in (1, 2):
        got = host_cells.cell_ground_truth(
            top_k=top_k, medium_supported=supported, threads=threads, **s
        )
        assert set(got) == set(want) | {"contributor_order", "cell_start"}
        for name, w in want.items():
            assert got[name].dtype == w.dtype and got[name].shape == w.shape, name
            assert got[name].tobytes() == w.tobytes(), name
        # The order cell_channels reads: each cell's samples by rank.
        ranks = got["sample_rank"][got["contributor_order"]]
        starts = np.repeat(got["cell_start"], s["sample_count"])
        np.testing.assert_array_equal(ranks, np.arange(ranks.shape[0]) - starts)


def test_compiled_ground_truth_of_no_samples_marks_every_cell_empty() -> None:
    from leviathan.sonar._ground_truth import cell_ground_truth

    s = _crowded_samples(3, columns=4, elevations=5, bins=6)
    empty = {k: v[:0] for k, v in s.items() if k not in ("sample_count", "linear_return")}
    zero = {"sample_count": np.zeros(24, dtype=np.int32), "linear_return": np.zeros(24)}
    want = cell_ground_truth(top_k=2, medium_supported=True, **empty, **zero)
    got = host_cells.cell_ground_truth(top_k=2, medium_supported=True, **empty, **zero)
    for name, w in want.items():
        assert got[name].tobytes() == w.tobytes(), name


def test_the_ground_truth_kernels_codes_are_the_numpy_stages() -> None:
    from leviathan.kernels import ground_truth as kg
    from leviathan.sonar import _ground_truth as gt

    names = [n for n in dir(kg) if n.startswith(("FLAG_", "BASIS_", "STATUS_"))]
    assert len(names) == 16
    for name in names:
        theirs = getattr(gt, f"_{name}" if name.startswith("STATUS_") else name)
        assert int(getattr(kg, name)) == theirs, name
    assert kg.STATUS_KNOWN == int(AcousticStatus.KNOWN)


@pytest.mark.parametrize(
    "angle_names", [("elevation_rad",), ("across_track_rad", "along_track_rad")]
)
@pytest.mark.parametrize("top_k", [1, 4])
@pytest.mark.parametrize("supported", [True, False])
def test_compiled_channels_equal_the_numpy_stage_byte_for_byte(
    supported: bool, top_k: int, angle_names: tuple[str, ...]
) -> None:
    from leviathan.sonar._frame import _ChannelBuffer
    from leviathan.sonar._ground_truth import cell_channels, cell_ground_truth, channel_layout

    columns, elevations, bins = 12, 300, 40
    s = _crowded_samples(7, columns=columns, elevations=elevations, bins=bins)
    if not supported:
        s["geometric_weight"] = np.full_like(s["geometric_weight"], np.nan)
    rng = np.random.default_rng(70)
    n = s["sample_cell"].shape[0]
    ray = np.sort(rng.choice(elevations * columns * 2, n, replace=False)).astype(np.int64)
    ray_angles = {a: rng.normal(size=elevations * columns * 2) for a in angle_names}
    ray_angles[angle_names[0]][rng.random(ray_angles[angle_names[0]].shape[0]) < 0.01] = -np.nan
    cos = rng.uniform(0.0, 1.2, n)  # beyond 1: clipped
    cos[rng.random(n) < 0.01] = np.nan
    samples = {
        "inst": s["sample_instance"],
        "tri": rng.integers(0, 1 << 20, n).astype(np.int64),
        "R": s["sample_range"],
        "cos_incidence": cos,
        "point": rng.normal(size=(n, 3)),
        "normal": rng.normal(size=(n, 3)),
        "status": s["sample_status"],
        "tables": {
            "object_index": np.array([0, 1, 1, 2], dtype=np.int32),
            "semantic_index": np.array([3, 4, 5, 6], dtype=np.int32),
            "moving": np.array([0, 1, 0, 1], dtype=np.uint8),
        },
        "terms": {"contribution": s["contribution"], "geometric_weight": s["geometric_weight"]},
    }
    samples["point"][rng.random(n) < 0.01, 1] = -np.nan
    binned = {"sample_count": s["sample_count"], "linear_return": s["linear_return"]}
    truth = host_cells.cell_ground_truth(top_k=top_k, medium_supported=supported, **s)
    layout = channel_layout((bins, columns), top_k, speckle=False, angles=angle_names)

    want_buffer = _ChannelBuffer(layout)
    cell_channels(
        buffer=want_buffer,
        shape=(bins, columns),
        top_k=top_k,
        cells={**binned, **cell_ground_truth(top_k=top_k, medium_supported=supported, **s)},
        sample_cell=s["sample_cell"],
        angles={a: v[ray] for a, v in ray_angles.items()},
        **samples,
    )
    want = want_buffer.finish()
    for threads in (1, 2):
        got_buffer = _ChannelBuffer(layout)
        channels = {name: got_buffer.unfilled(name) for name, _, _ in layout}
        for a in channels.values():
            a.view(np.uint8)[...] = 0xA5  # garbage: every byte must be written
        host_cells.cell_channels(
            channels=channels,
            top_k=top_k,
            cells={**binned, **truth},
            sample_ray=ray,
            ray_angles=ray_angles,
            threads=threads,
            **samples,
        )
        got = got_buffer.finish()
        assert list(got) == list(want)
        for name in want:
            assert got[name].dtype == want[name].dtype and got[name].shape == want[name].shape
            assert got[name].tobytes() == want[name].tobytes(), name


@pytest.mark.parametrize("rows", ["ascending", "descending", "shuffled"])
def test_compiled_binning_sums_each_cell_in_ascending_row_as_bin_samples(rows: str) -> None:
    from leviathan.sonar._binning import bin_samples
    from leviathan.sonar._ground_truth import canonical_nan, cell_ground_truth

    columns, elevations, bins = 12, 300, 40
    s = _crowded_samples(11, columns=columns, elevations=elevations, bins=bins)
    row = s["sample_elevation"]
    if rows == "descending":
        row = (elevations - 1) - row  # rows fall as the sample index rises
    elif rows == "shuffled":
        row = np.random.default_rng(4).permutation(elevations)[row]
    s["sample_elevation"] = row
    # Contributions whose sum depends on the order (no two cells sum alike by accident).
    rng = np.random.default_rng(12)
    s["contribution"] = np.where(
        np.isnan(s["contribution"]), s["contribution"], rng.uniform(0.0, 1.0, row.shape[0])
    )
    binned = bin_samples(
        range_bin_count=bins,
        bearing_count=columns,
        elevation_count=elevations,
        sample_cell=s["sample_cell"],
        sample_elevation=row,
        contribution=s["contribution"],
    )
    s.update(binned)
    want = cell_ground_truth(top_k=4, medium_supported=True, **s)
    got = host_cells.cell_ground_truth(
        top_k=4, medium_supported=True, **{**s, "linear_return": None}
    )
    # A NaN sum's sign is the compiler's operand order (see _assert_same); the frame
    # writes the sums through canonical_nan, so they are compared that way.
    assert canonical_nan(got["linear_return"]).tobytes() == (
        canonical_nan(binned["linear_return"]).tobytes()
    )
    for name, w in want.items():
        assert got[name].tobytes() == w.tobytes(), name
    left_to_right = np.zeros_like(binned["linear_return"])
    for k in np.argsort(s["sample_cell"] * elevations + row, kind="stable"):
        left_to_right[s["sample_cell"][k]] += s["contribution"][k]
    if rows != "ascending":  # the sample order's sums differ from the row order's somewhere
        unordered = np.zeros_like(left_to_right)
        for k in range(row.shape[0]):
            unordered[s["sample_cell"][k]] += s["contribution"][k]
        assert not np.array_equal(unordered, left_to_right, equal_nan=True)
    np.testing.assert_array_equal(left_to_right, binned["linear_return"])


@pytest.mark.parametrize("seed", range(4))
def test_a_warp_frame_is_the_reference_frame_on_random_pings(seed: int, survey) -> None:
    from leviathan.sonar import render

    rng = np.random.default_rng(100 + seed)
    scene, spec = survey
    spec = spec.model_copy(update={"top_k": int(rng.integers(1, 6)), "speckle": bool(seed % 2)})
    pose = (
        Transform.from_euler(
            float(rng.uniform(-0.3, 0.3)),
            float(rng.uniform(-0.3, 0.3)),
            float(rng.uniform(-3.0, 3.0)),
            translation=(float(rng.uniform(-8, 8)), float(rng.uniform(-8, 8)), 18.0),
        )
        @ spec.mount.transform()
    )
    water = WaterSpec() if seed != 2 else WaterSpec(salinity_psu=0.2)
    frames = [
        render(
            scene,
            spec,
            pose,
            sensor_id="t/sonar",
            sample_index=seed,
            time_ns=seed,
            seed=5,
            water=water,
            backend=backend,
            device="cpu" if backend == "warp" else None,
            sampling_warnings=False,
        )
        for backend in ("reference", "warp")
    ]
    assert int(np.asarray(frames[0].channels["sample_count"]).sum()) > 1000
    assert frames[1].content_hash == frames[0].content_hash
    for name, a in frames[0].channels.items():
        assert np.asarray(frames[1].channels[name]).tobytes() == np.asarray(a).tobytes(), name


@pytest.mark.parametrize("seed", range(3))
def test_world_rays_are_the_transforms_rotation_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pose = Transform.from_euler(
        *rng.uniform(-np.pi, np.pi, 3).tolist(), translation=tuple(rng.normal(0, 50, 3).tolist())
    )
    d = rng.normal(size=(100_003, 3))
    d /= np.sqrt((d * d).sum(axis=1))[:, None]
    d[:5] = np.eye(3)[[0, 1, 2, 0, 1]]
    o, w = host_stage.world_rays(d, pose.rotation, pose.translation)
    want_d = pose.apply_direction(d)
    assert w.dtype == np.float64 and w.shape == d.shape and o.shape == d.shape
    np.testing.assert_array_equal(_bits(w), _bits(want_d))
    np.testing.assert_array_equal(_bits(o), _bits(np.broadcast_to(pose.translation, d.shape)))


def _ray_triangle_case(rng: np.random.Generator, n: int, triangles: int) -> dict:
    """Rays each naming one triangle (or the sea surface, instance 3) of ``triangles``,
    with the corners of the ray/triangle test: parallel rays (``det = 0``), degenerate
    triangles, misses (a ``t`` is still computed), rays with ``dz = 0`` or ``±0``
    heights, NaN and subnormal directions, and origins far off."""
    v0 = rng.uniform(-60.0, 60.0, (triangles, 3))
    e1 = rng.normal(0.0, 3.0, (triangles, 3))
    e2 = rng.normal(0.0, 3.0, (triangles, 3))
    e2[: triangles // 20] = 2.0 * e1[: triangles // 20]  # degenerate: det = 0 for every ray
    e1[triangles // 20 : triangles // 10] = 0.0
    o = rng.uniform(-50.0, 50.0, (n, 3))
    d = rng.normal(size=(n, 3))
    d /= np.sqrt((d * d).sum(axis=1))[:, None]
    kind = rng.integers(0, 20, n)
    d[kind == 1, 2] = 0.0
    o[kind == 2, 2] = rng.choice([0.0, -0.0], int((kind == 2).sum()))
    d[kind == 3, 0] = np.nan
    d[kind == 4] *= 5e-324 / np.abs(d[kind == 4]).max(axis=1)[:, None] * 3.0
    o[kind == 5] = _corner_floats(rng, 3 * int((kind == 5).sum())).reshape(-1, 3)
    # A ray along a triangle's own edge plane (det = 0 exactly): d = e1 normalised.
    tri = rng.integers(0, triangles, n)
    along = kind == 6
    d[along] = e1[tri[along]]
    # Half the rays aimed at a point of their triangle (hits, and edge cases at u+v = 1).
    aim = kind >= 10
    ab = rng.uniform(0.0, 1.0, (int(aim.sum()), 2))
    ab[ab.sum(axis=1) > 1.0] *= 0.5
    t_aim = tri[aim]
    to = (v0[t_aim] + ab[:, :1] * e1[t_aim] + ab[:, 1:] * e2[t_aim]) - o[aim]
    d[aim] = to / np.sqrt((to * to).sum(axis=1))[:, None]
    return {
        "origins": o,
        "directions": d,
        "triangle": tri,
        "instance": rng.integers(0, 4, n),
        "sea_surface_instance": 3,
        "v0": v0,
        "e1": e1,
        "e2": e2,
    }


def _reference_ranges(case: dict) -> np.ndarray:
    """The sonar rules' numpy form: the reference's ``t`` (hit or not), the sea plane's
    for the sea surface's instance."""
    from leviathan.raycast import intersect_sea_surface
    from leviathan.reference_cpu.trace import intersect_ray_triangle

    o, d, tri = case["origins"], case["directions"], case["triangle"]
    with np.errstate(all="ignore"):
        _, t = intersect_ray_triangle(
            o, d, case["v0"][tri], case["e1"][tri], case["e2"][tri], np.inf
        )
        _, t_sea = intersect_sea_surface(o, d, np.inf)
    return np.where(case["instance"] == case["sea_surface_instance"], t_sea, t)


def _assert_same_floats(got: np.ndarray, want: np.ndarray) -> None:
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(_bits(got)[~nan], _bits(want)[~nan])


@pytest.mark.slow
def test_triangle_ranges_equal_the_reference_on_ten_million_rays() -> None:
    rng = np.random.default_rng(20261203)
    seen = {"hit": 0, "miss": 0, "inf": 0, "nan": 0, "sea": 0, "subnormal_d": 0}
    from leviathan.reference_cpu.trace import intersect_ray_triangle

    for _ in range(INPUTS_PER_EXPRESSION // CHUNK):
        case = _ray_triangle_case(rng, CHUNK, triangles=int(rng.integers(50, 5000)))
        want = _reference_ranges(case)
        _assert_same_floats(host_stage.triangle_ranges(**case, threads=2), want)
        tri = case["triangle"]
        with np.errstate(all="ignore"):
            hit, _ = intersect_ray_triangle(
                case["origins"],
                case["directions"],
                case["v0"][tri],
                case["e1"][tri],
                case["e2"][tri],
                np.inf,
            )
        mesh = case["instance"] != 3
        seen["hit"] += int((hit & mesh).sum())
        seen["miss"] += int((~hit & mesh).sum())
        seen["inf"] += int(np.isinf(want).sum())
        seen["nan"] += int(np.isnan(want).sum())
        seen["sea"] += int((~mesh).sum())
        small = np.abs(case["directions"]) < 2.2250738585072014e-308
        seen["subnormal_d"] += int((small & (case["directions"] != 0)).any(axis=1).sum())
    assert all(count > 1000 for count in seen.values()), seen


def test_triangle_ranges_do_not_depend_on_the_thread_count() -> None:
    case = _ray_triangle_case(np.random.default_rng(4), 100_003, triangles=300)
    one = host_stage.triangle_ranges(**case, threads=1)
    _assert_same_floats(one, _reference_ranges(case))
    for threads in (2, 5):
        np.testing.assert_array_equal(
            _bits(host_stage.triangle_ranges(**case, threads=threads)), _bits(one)
        )


def test_triangle_ranges_refuse_a_row_outside_the_triangles_and_a_wrong_shape() -> None:
    case = _ray_triangle_case(np.random.default_rng(6), 50, triangles=10)
    case["instance"][:] = 0
    case["triangle"][7] = 10
    with pytest.raises(ValueError, match=r"triangle row is outside \[0, 10\)"):
        host_stage.triangle_ranges(**case)
    # The sea surface's rays do not read their row.
    case["instance"][7] = 3
    host_stage.triangle_ranges(**case)
    case["e2"] = case["e2"][:, :2]
    with pytest.raises(ValueError, match=r"e2 has shape \(10, 2\), expected \(10, 3\)"):
        host_stage.triangle_ranges(**case)
    empty = {
        k: (v[:0] if isinstance(v, np.ndarray) and k not in ("v0", "e1", "e2") else v)
        for k, v in case.items()
    }
    empty["e2"] = empty["e1"]
    assert host_stage.triangle_ranges(**empty).shape == (0,)
