"""Reference imaging sonar: return-model terms, analytic cases, ground truth, per-sample maps."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from reference_impls import reference_acos_clipped, reference_pow10_neg, reference_sample_normals
from sonar_cases import LOOK_DOWN, imaging_sonar_spec, quad_mesh, seabed

from leviathan import sonar
from leviathan.acoustics import absorption_db_per_m
from leviathan.frames import Transform
from leviathan.geometry import box_mesh, uv_sphere_mesh
from leviathan.materials import (
    TEST_LAMBERT_BRIGHT,
    TEST_LAMBERT_MEDIUM,
    AcousticStatus,
    DeclaredMaterial,
)
from leviathan.raycast import prepare_scene
from leviathan.reference_cpu import sonar as ref
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.sonar import render
from leviathan.sonar._physics import _sample_normals
from leviathan.specs import BeamPatternSpec, ImagingSonarSpec, WaterSpec


def _render(scene: Scene, spec: ImagingSonarSpec, pose: Transform, **kw: object):
    return render(scene, spec, pose, sensor_id="v/sonar", sample_index=0, time_ns=0, **kw)


def _scene(*instances: Instance) -> Scene:
    return Scene(list(instances))


# ---- quadrature and beam pattern ------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 7, 8, 64, 101])
def test_trapezoid_weights_sum_exactly_to_aperture(count: int) -> None:
    aperture = math.radians(20.0)
    w = ref.trapezoid_weights(aperture, count)
    assert w.dtype == np.float64 and w.shape == (count,)
    total = 0.0
    for x in w.tolist():
        total = total + x
    assert total == aperture


def test_single_elevation_sample_has_whole_aperture() -> None:
    w = ref.trapezoid_weights(0.3, 1)
    assert w.tolist() == [0.3]


def test_gaussian_beam_is_exactly_half_at_half_width() -> None:
    w_az, w_el = math.radians(90.0), math.radians(20.0)
    g = ref.beam_pattern_one_way(w_az / 2, 0.0, azimuth_width_rad=w_az, elevation_width_rad=w_el)
    assert g == 0.5
    g = ref.beam_pattern_one_way(0.0, -w_el / 2, azimuth_width_rad=w_az, elevation_width_rad=w_el)
    assert g == 0.5
    assert (
        ref.beam_pattern_one_way(0.0, 0.0, azimuth_width_rad=w_az, elevation_width_rad=w_el) == 1.0
    )


def test_uniform_beam_is_one() -> None:
    assert (
        ref.beam_pattern_one_way(0.7, -0.2, azimuth_width_rad=None, elevation_width_rad=None) == 1.0
    )


def _uniform_grid(
    azimuth_fov_rad: float, elevation_aperture_rad: float, bearing_count: int, elevation_count: int
) -> ref.BeamGrid:
    """A beam grid of a uniform beam pattern (no -3 dB widths)."""
    return ref.beam_grid(
        azimuth_fov_rad=azimuth_fov_rad,
        elevation_aperture_rad=elevation_aperture_rad,
        bearing_count=bearing_count,
        elevation_count=elevation_count,
        azimuth_width_rad=None,
        elevation_width_rad=None,
    )


def test_grid_is_inclusive_symmetric_and_centred() -> None:
    grid = _uniform_grid(math.radians(90.0), math.radians(20.0), bearing_count=5, elevation_count=3)
    b = grid.bearing_rad
    assert b[0] == -math.radians(90.0) / 2 and b[-1] == math.radians(90.0) / 2
    assert b[2] == 0.0
    np.testing.assert_array_equal(b, -b[::-1])
    assert grid.elevation_rad.tolist() == [-math.radians(20.0) / 2, 0.0, math.radians(20.0) / 2]


def test_ray_directions_starboard_and_down_positive() -> None:
    grid = _uniform_grid(1.0, 0.5, bearing_count=3, elevation_count=3)
    d = ref.sensor_ray_directions(grid).reshape(3, 3, 3)  # [elevation, bearing, xyz]
    assert d[1, 2, 1] > 0.0  # positive bearing -> +y (starboard)
    assert d[2, 1, 2] > 0.0  # positive elevation -> +z (down)
    np.testing.assert_allclose(np.linalg.norm(d, axis=-1), 1.0, rtol=0, atol=4e-16)


# ---- analytic cases ----------------------------------------------------------------


def _expected_single_ray(mu: float, R: float, cos_inc: float, domega: float, alpha: float) -> float:
    return mu * cos_inc**2 * (R**2 * domega / cos_inc) / R**4 * 10 ** (-alpha * 2 * R / 10)


def test_flat_plane_normal_incidence_matches_closed_form() -> None:
    h = 20.0
    scene = _scene(seabed(z=10.0 + h))
    spec = imaging_sonar_spec()
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    frame = _render(scene, spec, pose)
    water = WaterSpec()
    alpha = absorption_db_per_m(
        900e3,
        temperature_c=water.temperature_c,
        salinity_psu=water.salinity_psu,
        depth_m=10.0,
        ph=water.ph,
    )
    domega = math.radians(90.0) * math.radians(20.0)
    expected = _expected_single_ray(TEST_LAMBERT_MEDIUM.mu.value, h, 1.0, domega, alpha)
    ret = frame["linear_return"]
    assert ret.dtype == np.float64 and ret.shape == (64, 1)
    row = int((h - 0.5) // ((60.0 - 0.5) / 64))
    assert np.count_nonzero(ret) == 1
    assert ret[row, 0] == pytest.approx(expected, rel=1e-13)
    assert frame["primary_range_m"][row, 0] == pytest.approx(h, rel=1e-15)
    assert frame["primary_incidence_rad"][row, 0] == pytest.approx(0.0, abs=1e-7)
    np.testing.assert_allclose(
        frame["primary_hit_point_world"][row, 0], [0.0, 0.0, 30.0], atol=1e-12
    )


def test_tilted_plane_follows_lambert_and_area_terms() -> None:
    tilt = math.radians(30.0)
    scene = _scene(seabed(z=30.0, tilt_rad=tilt))
    spec = imaging_sonar_spec()
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    frame = _render(scene, spec, pose)
    row, col = np.argwhere(frame["sample_count"] > 0)[0]
    R = frame["primary_range_m"][row, col]
    assert R == pytest.approx(20.0, rel=1e-12)
    assert frame["primary_incidence_rad"][row, col] == pytest.approx(tilt, rel=1e-12)
    alpha = absorption_db_per_m(900e3, temperature_c=10.0, salinity_psu=35.0, depth_m=10.0, ph=8.0)
    domega = math.radians(90.0) * math.radians(20.0)
    expected = _expected_single_ray(TEST_LAMBERT_MEDIUM.mu.value, R, math.cos(tilt), domega, alpha)
    assert frame["linear_return"][row, col] == pytest.approx(expected, rel=1e-12)


def test_spreading_is_inverse_square_of_range_for_fixed_solid_angle() -> None:
    spec = imaging_sonar_spec()
    returns = []
    for h in (10.0, 20.0):
        pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 5.0)) @ LOOK_DOWN
        frame = _render(_scene(seabed(z=5.0 + h)), spec, pose, water=WaterSpec())
        returns.append(float(np.nansum(frame["linear_return"])))
    alpha = absorption_db_per_m(900e3, temperature_c=10.0, salinity_psu=35.0, depth_m=5.0, ph=8.0)
    # intensity ~ dOmega / R^2 (R^2 dOmega area times 1/R^4) times absorption
    ratio = returns[1] / returns[0]
    assert ratio == pytest.approx(0.25 * 10 ** (-alpha * 2 * 10.0 / 10), rel=1e-12)


# ---- shadowing, ties, statuses --------------------------------------------------------


def test_nearer_surface_shadows_the_one_behind() -> None:
    near = Instance(
        "plate", quad_mesh(20.0, half=5.0), Transform.identity(), "target", TEST_LAMBERT_BRIGHT
    )
    scene = _scene(seabed(z=30.0), near)
    spec = imaging_sonar_spec(bearing_count=33, azimuth_fov_deg=60.0)
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    frame = _render(scene, spec, pose)
    inst = frame["primary_instance"]
    hit_cols = np.unique(np.argwhere(inst == 1)[:, 1])
    assert hit_cols.size > 0
    # in the columns that see the plate, nothing from the seabed is integrated
    assert not np.any(inst[:, hit_cols] == 0)


def test_exact_tie_is_broken_by_lowest_instance_then_triangle() -> None:
    a = Instance("a", quad_mesh(30.0), Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)
    b = Instance("b", quad_mesh(30.0), Transform.identity(), "seabed", TEST_LAMBERT_BRIGHT)
    spec = imaging_sonar_spec(bearing_count=9)
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    f_ab = _render(_scene(a, b), spec, pose)
    f_ba = _render(_scene(b, a), spec, pose)
    filled = f_ab["sample_count"] > 0
    assert np.all(f_ab["primary_instance"][filled] == 0)
    assert np.all(f_ba["primary_instance"][filled] == 0)
    # the winner is whichever instance comes first, so the returns differ by the mu ratio
    ratio = f_ba["linear_return"][filled] / f_ab["linear_return"][filled]
    np.testing.assert_allclose(
        ratio, TEST_LAMBERT_BRIGHT.mu.value / TEST_LAMBERT_MEDIUM.mu.value, rtol=1e-12
    )


def test_unknown_material_gives_nan_return_and_valid_geometry() -> None:
    scene = _scene(seabed(material=None))
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    frame = _render(scene, imaging_sonar_spec(bearing_count=5), pose)
    filled = frame["sample_count"] > 0
    assert np.all(np.isnan(frame["linear_return"][filled]))
    assert np.all(frame["linear_return"][~filled] == 0.0)
    assert np.all(frame["validity"][filled] & sonar.FLAG_UNKNOWN_MATERIAL)
    assert not np.any(frame["validity"][filled] & sonar.FLAG_VALID)
    assert np.all(np.isfinite(frame["primary_range_m"][filled]))
    assert np.all(frame["primary_basis"][filled] == sonar.BASIS_GEOMETRIC)
    assert np.all(frame["primary_acoustic_status"][filled] == AcousticStatus.UNKNOWN)


def test_unsupported_material_is_flagged() -> None:
    mat = DeclaredMaterial(name="apl94-sand", model="jackson_apl94", parameters=())
    scene = _scene(seabed(material=mat))
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    frame = _render(scene, imaging_sonar_spec(bearing_count=5), pose)
    filled = frame["sample_count"] > 0
    assert np.all(frame["validity"][filled] & sonar.FLAG_UNSUPPORTED_MATERIAL)
    assert np.all(np.isnan(frame["linear_return"][filled]))


def test_unsupported_medium_uses_geometry_without_absorption() -> None:
    scene = _scene(seabed())
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    fresh = WaterSpec(salinity_psu=0.5)
    frame = _render(scene, imaging_sonar_spec(bearing_count=5), pose, water=fresh)
    filled = frame["sample_count"] > 0
    assert frame.metadata["medium_supported"] is False
    assert any("salinity" in r for r in frame.metadata["medium_reasons"])
    assert np.all(np.isnan(frame["linear_return"][filled]))
    assert np.all(frame["validity"][filled] & sonar.FLAG_UNSUPPORTED_MEDIUM)
    assert np.all(frame["primary_basis"][filled] == sonar.BASIS_GEOMETRIC_NO_ABSORPTION)


def test_sea_surface_is_an_interface_instance() -> None:
    scene = _scene()
    look_up = Transform.from_euler(0.0, math.pi / 2, 0.0)
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ look_up
    frame = _render(scene, imaging_sonar_spec(bearing_count=5), pose)
    filled = frame["sample_count"] > 0
    assert filled.any()
    assert np.all(frame["primary_instance"][filled] == scene.sea_surface_instance)
    assert np.all(frame["validity"][filled] & sonar.FLAG_SEA_SURFACE)
    assert np.all(frame["primary_acoustic_status"][filled] == AcousticStatus.INTERFACE)
    labels = frame.metadata["semantic_labels"]
    assert {labels[k] for k in frame["primary_semantic"][filled]} == {"sea_surface"}


def test_mixed_statuses_in_one_cell_are_flagged_and_missing() -> None:
    # Two coincident half-planes side by side at the same depth, one known, one unknown:
    # a wide elevation aperture puts both in the same range cell.
    left = Instance(
        "known",
        TriangleMesh(np.array([[-5, -50, 30], [0, -50, 30], [0, 50, 30.0]]), np.array([[0, 1, 2]])),
        Transform.identity(),
        "seabed",
        TEST_LAMBERT_MEDIUM,
    )
    right = Instance(
        "unknown",
        TriangleMesh(np.array([[0, -50, 30], [5, -50, 30], [0, 50, 30.0]]), np.array([[0, 1, 2]])),
        Transform.identity(),
        "rock",
        None,
    )
    spec = imaging_sonar_spec(
        elevation_sample_count=8, elevation_aperture_deg=10.0, range_bin_count=4
    )
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    frame = _render(_scene(left, right), spec, pose)
    mixed = (frame["validity"] & sonar.FLAG_MIXED_STATUS) != 0
    assert mixed.any()
    assert np.all(np.isnan(frame["linear_return"][mixed]))
    assert np.all(frame["validity"][mixed] & sonar.FLAG_MULTIPLE_INSTANCES)


# ---- top-K and bookkeeping ------------------------------------------------------------


def _many_contributors_frame(top_k: int):
    spec = imaging_sonar_spec(
        bearing_count=3,
        elevation_sample_count=8,
        elevation_aperture_deg=4.0,
        range_bin_count=2,
        top_k=top_k,
        beam_pattern=BeamPatternSpec(
            kind="gaussian", azimuth_3db_full_width_deg=90.0, elevation_3db_full_width_deg=4.0
        ),
    )
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    return _render(_scene(seabed()), spec, pose)


def test_topk_order_is_by_dominance_then_range() -> None:
    frame = _many_contributors_frame(top_k=8)
    c = frame["topk_contribution"]
    counts = frame["sample_count"]
    for r, b in np.argwhere(counts > 1):
        vals = c[r, b, : counts[r, b]]
        assert np.all(vals[:-1] >= vals[1:])
        assert frame["topk_contribution"][r, b, 0] == np.nanmax(vals)


def test_energy_fractions_and_truncation_account_for_the_return() -> None:
    frame = _many_contributors_frame(top_k=2)
    counts = frame["sample_count"]
    cells = np.argwhere(counts > 2)
    assert cells.size
    for r, b in cells:
        frac = frame["topk_energy_fraction"][r, b]
        assert frame["validity"][r, b] & sonar.FLAG_TRUNCATED
        assert frac.sum() + frame["truncation"][r, b] == pytest.approx(1.0, rel=1e-12)
    full = _many_contributors_frame(top_k=16)
    ok = full["sample_count"] > 0
    assert np.all(full["truncation"][ok] == 0.0)
    np.testing.assert_array_equal(full["linear_return"], frame["linear_return"])


def test_linear_return_is_the_elevation_ordered_sum() -> None:
    frame = _many_contributors_frame(top_k=8)
    for r, b in np.argwhere(frame["sample_count"] > 0):
        n = frame["sample_count"][r, b]
        elev = frame["topk_elevation_rad"][r, b, :n]
        contrib = frame["topk_contribution"][r, b, :n]
        total = 0.0
        for k in np.argsort(elev, kind="stable"):
            total = total + float(contrib[k])
        assert frame["linear_return"][r, b] == total


def test_empty_cells_have_sentinels() -> None:
    frame = _many_contributors_frame(top_k=4)
    empty = frame["sample_count"] == 0
    assert empty.any()
    assert np.all(frame["validity"][empty] == sonar.FLAG_EMPTY)
    assert np.all(frame["primary_instance"][empty] == -1)
    assert np.all(np.isnan(frame["primary_range_m"][empty]))
    assert np.all(frame["primary_basis"][empty] == sonar.BASIS_NONE)


# ---- speckle and determinism --------------------------------------------------------


def test_speckle_needs_a_seed_and_enters_identity_only_when_drawn() -> None:
    scene = _scene(seabed())
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    with pytest.raises(ValueError, match="seed"):
        _render(scene, imaging_sonar_spec(bearing_count=5, speckle=True), pose)
    plain_a = _render(scene, imaging_sonar_spec(bearing_count=5), pose, seed=1)
    plain_b = _render(scene, imaging_sonar_spec(bearing_count=5), pose, seed=2)
    assert plain_a.content_hash == plain_b.content_hash
    assert "speckle_return" not in plain_a.channels
    sp1 = _render(scene, imaging_sonar_spec(bearing_count=5, speckle=True), pose, seed=1)
    sp2 = _render(scene, imaging_sonar_spec(bearing_count=5, speckle=True), pose, seed=2)
    assert sp1.content_hash != sp2.content_hash
    np.testing.assert_array_equal(sp1["linear_return"], sp2["linear_return"])
    filled = sp1["sample_count"] > 0
    assert not np.array_equal(sp1["speckle_return"][filled], sp2["speckle_return"][filled])


def test_same_inputs_same_hash_alone_and_in_batch() -> None:
    scene = _scene(seabed())
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0)) @ LOOK_DOWN
    spec = imaging_sonar_spec(bearing_count=5, speckle=True)
    batch = [_render(scene, spec, pose, seed=7) for _ in range(3)]
    alone = _render(scene, spec, pose, seed=7)
    assert {f.content_hash for f in batch} == {alone.content_hash}


_SUBPROCESS = """
import math
from leviathan.frames import Transform
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene
from leviathan.parity import build_scene
case = build_scene("speckle")
print(case.render().content_hash)
"""


def test_frame_hash_is_identical_across_processes_and_hash_seeds() -> None:
    from leviathan.parity import build_scene

    expected = build_scene("speckle").render().content_hash
    for seed in ("0", "1", "4242"):
        out = subprocess.run(
            [sys.executable, "-c", _SUBPROCESS],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
        )
        assert out.stdout.strip() == expected


def test_render_rejects_bad_arguments() -> None:
    scene = _scene(seabed())
    pose = Transform.identity()
    with pytest.raises(ValueError, match="sensor_id"):
        render(scene, imaging_sonar_spec(), pose, sensor_id="", sample_index=0, time_ns=0)
    with pytest.raises(ValueError, match="sample_index"):
        render(scene, imaging_sonar_spec(), pose, sensor_id="v/s", sample_index=-1, time_ns=0)
    with pytest.raises(TypeError, match="time_ns"):
        render(scene, imaging_sonar_spec(), pose, sensor_id="v/s", sample_index=0, time_ns=0.5)
    with pytest.raises(ValueError, match="backend"):
        render(
            scene,
            imaging_sonar_spec(),
            pose,
            sensor_id="v/s",
            sample_index=0,
            time_ns=0,
            backend="optix",
        )
    with pytest.raises(TypeError, match="sensor_pose"):
        render(scene, imaging_sonar_spec(), np.eye(4), sensor_id="v/s", sample_index=0, time_ns=0)


def test_missing_values_use_one_nan_bit_pattern() -> None:
    from leviathan.sonar import SonarFrame

    odd_nan = np.array([0xFFF8000000000001], dtype=np.uint64).view(np.float64)[0]
    frame = SonarFrame(channels={"linear_return": np.array([[1.0, odd_nan]])}, metadata={})
    stored = frame["linear_return"].view(np.uint64)
    assert int(stored[0, 1]) == 0x7FF8000000000000


# --------------------------------------------------------------------------- per-sample maps

# The libm maps and the normal gather are compared with their reference
# implementations (tests/reference_impls.py) on special values and seeded input.
SPECIAL = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-300, -1e-300, 5e-324, 1.0])


def test_libm_maps_equal_their_reference() -> None:
    rng = np.random.default_rng(11)
    exponents = np.concatenate([SPECIAL, rng.uniform(0.0, 40.0, 5000), -rng.uniform(0, 5, 50)])
    # acos: its domain, values above 1 (clipped to 1), both zeros and NaN.
    cosines = np.concatenate([SPECIAL[:3], [1.0, 1.5, np.inf, -1.0], rng.uniform(-1, 1, 5000)])
    for new, old, x in (
        (ref._pow10_neg, reference_pow10_neg, exponents),
        (ref.acos_clipped, reference_acos_clipped, cosines),
    ):
        got, expected = new(x), old(x)
        assert got.dtype == expected.dtype == np.float64
        assert got.tobytes() == expected.tobytes()
        # Strided and non-float64 input take the same values.
        assert new(x[::3]).tobytes() == old(x[::3]).tobytes()
        assert new(x.astype(np.float32)).tobytes() == old(x.astype(np.float32)).tobytes()
        assert new(x[:0]).shape == (0,)
    with pytest.raises(ValueError, match="math domain error"):
        ref.acos_clipped(np.array([0.5, -2.0]))


def test_sample_normals_equal_their_reference() -> None:
    box = box_mesh((2.0, 3.0, 1.0))
    ball = uv_sphere_mesh(1.5, segments=12, rings=6)
    scene = Scene(
        [
            Instance("box", box, Transform.from_euler(0.1, 0.2, 0.3, translation=(0, 0, 9)), "a"),
            Instance("ball", ball, Transform.from_euler(0.0, 0.4, 1.0, translation=(4, 0, 9)), "b"),
        ]
    )
    prepared = prepare_scene(scene)
    rng = np.random.default_rng(2)
    n = 500
    inst = rng.integers(0, scene.sea_surface_instance + 1, n).astype(np.int64)
    sizes = [p.triangle_count for p in prepared.instances]
    tri = np.array([rng.integers(0, sizes[k]) if k < len(sizes) else 0 for k in inst.tolist()])
    got = _sample_normals(inst, tri.astype(np.int64), scene=scene, prepared=prepared)
    expected = reference_sample_normals(inst, tri, scene, prepared)
    assert got.dtype == np.float64 and got.shape == (n, 3)
    assert got.tobytes() == expected.tobytes()
