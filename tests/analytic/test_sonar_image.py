"""Analytic sonar image: the fill rule fills a seabed's swath, falloff matches the closed form.

Geometry of the closed forms (see leviathan.analytic._sonar_image): a ray d(b, e) from
the sensor meets a plane at distance h, unit normal n (world down), at R = h / (d . n).
For a Lambert seabed each cell sums ~ dr / (|dR/de| de) samples of mu cos^2(theta) G^2
(R^2 dOmega / cos theta) / R^4 * 10^(-2 alpha R / 10), dOmega = cos(e) db de, which gives

    I(b, R) = mu h^2 db dr G^2 cos(e) / (R^5 |d_e . n|) * 10^(-2 alpha R / 10).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from world_cases import survey_world

from leviathan.analytic import elevation_samples_for_fill, sonar_image, sonar_image_png
from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform, sensor_pose
from leviathan.geometry import plane_mesh, uv_sphere_mesh
from leviathan.materials import TEST_LAMBERT_BRIGHT, TEST_LAMBERT_DARK, TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene
from leviathan.sensors import SonarNoiseModel
from leviathan.sonar import render
from leviathan.sonar.display import fan_raster
from leviathan.specs import ImagingSonarSpec

SEABED_DEPTH_M = 30.0
VEHICLE_DEPTH_M = 20.0  # the demo's survey depth over its 30 m mean seabed


def _seabed(depth_m: float = SEABED_DEPTH_M, material=TEST_LAMBERT_MEDIUM) -> Scene:
    at = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, depth_m))
    return Scene([Instance("seabed", plane_mesh(600.0, 600.0), at, "seabed", material)])


def _small_spec(**update) -> ImagingSonarSpec:
    data = get_vehicle("reference_survey_vehicle").sensor("sonar").model_dump()
    data.update(
        bearing_count=32,
        elevation_sample_count=8,
        range_min_m=0.5,
        range_max_m=30.0,
        range_bin_count=60,
        beam_pattern={"kind": "uniform"},
        mount={"translation_m": [0.0, 0.0, 0.0], "rpy_deg": [0.0, -30.0, 0.0]},
    )
    data.update(update)
    return ImagingSonarSpec.model_validate(data)


def _swath(spec: ImagingSonarSpec, T_world_sensor: Transform, h: float):
    """Per bearing: the seabed's [R_near, R_far] from the closed form over the aperture."""
    n = T_world_sensor.rotation.T @ np.array([0.0, 0.0, 1.0])  # world down, sensor frame
    half = math.radians(spec.elevation_aperture_deg) / 2.0
    e = np.linspace(-half, half, 20001)
    bearings = np.linspace(-1.0, 1.0, spec.bearing_count) * math.radians(spec.azimuth_fov_deg) / 2
    near, far = [], []
    for b in bearings:
        dn = np.cos(e) * (math.cos(b) * n[0] + math.sin(b) * n[1]) + np.sin(e) * n[2]
        dn = dn[dn > 0.0]
        near.append(h / dn.max() if dn.size else math.inf)
        far.append(h / dn.min() if dn.size else math.inf)
    return np.array(near), np.array(far)


def _empty_bins_inside_swath(sample_count, spec, T_world_sensor, h) -> int:
    near, far = _swath(spec, T_world_sensor, h)
    width = (spec.range_max_m - spec.range_min_m) / spec.range_bin_count
    lo = spec.range_min_m + width * np.arange(spec.range_bin_count)
    hi = lo + width
    inside = (lo[:, None] >= near[None, :]) & (hi[:, None] <= np.minimum(far, spec.range_max_m))
    return int(np.count_nonzero(inside & (np.asarray(sample_count) == 0))), int(inside.sum())


def test_fill_rule_matches_its_formula() -> None:
    spec = _small_spec()
    dr = (30.0 - 0.5) / 60
    step = 0.5 * dr * 8.0 / 30.0**2
    assert (
        elevation_samples_for_fill(spec, plane_distance_m=8.0)
        == math.ceil(math.radians(20.0) / step) + 1
    )
    with pytest.raises(ValueError, match="plane_distance_m"):
        elevation_samples_for_fill(spec, plane_distance_m=0.0)
    with pytest.raises(ValueError, match="bin_fraction"):
        elevation_samples_for_fill(spec, plane_distance_m=8.0, bin_fraction=1.5)


def test_no_bin_inside_a_flat_seabeds_swath_is_empty_and_the_spec_sampling_leaves_holes() -> None:
    spec = _small_spec()
    image = sonar_image(scene=_seabed(), spec=spec, position_ned_m=(0.0, 0.0, VEHICLE_DEPTH_M))
    T = sensor_pose(
        Transform.from_euler(0, 0, 0, translation=(0, 0, VEHICLE_DEPTH_M)), spec.mount.transform()
    )
    h = SEABED_DEPTH_M - VEHICLE_DEPTH_M
    assert image.report.fill_plane_distance_m.value == pytest.approx(h, rel=1e-9)
    empty, inside = _empty_bins_inside_swath(image.sample_count, spec, T, h)
    assert inside > 500 and empty == 0
    # The test can fail: the spec's own 8 elevations leave most of the swath empty.
    sparse = render(_seabed(), spec, T, sensor_id="t/s", sample_index=0, time_ns=0)
    empty_sparse, _ = _empty_bins_inside_swath(sparse.channels["sample_count"], spec, T, h)
    assert empty_sparse > inside // 2


def test_catalogue_sonar_fills_the_demo_survey_swath() -> None:
    # The canonical catalogue sonar itself (its declared elevation count, no analytic
    # resampling) over a flat seabed at the demo's survey geometry.
    spec = get_vehicle("reference_survey_vehicle").sensor("sonar")
    T = sensor_pose(
        Transform.from_euler(0, 0, 0, translation=(0, 0, VEHICLE_DEPTH_M)), spec.mount.transform()
    )
    h = SEABED_DEPTH_M - float(T.translation[2])
    assert spec.elevation_sample_count >= elevation_samples_for_fill(spec, plane_distance_m=h)
    frame = render(_seabed(), spec, T, sensor_id="t/s", sample_index=0, time_ns=0)
    empty, inside = _empty_bins_inside_swath(frame.channels["sample_count"], spec, T, h)
    assert inside > 40_000 and empty == 0


def _closed_form_cell(A: float, C: float, h: float, R: float, half: float) -> float:
    """I(b, R) / (mu h^2 db dr) without absorption, 0 where R is outside the bearing's swath."""
    amp = math.hypot(A, C)
    if h / R > amp:
        return 0.0
    # A cos e + C sin e = amp cos(e - phi) = h / R: a root inside the aperture.
    phi = math.atan2(C, A)
    for e in (phi - math.acos(h / R / amp), phi + math.acos(h / R / amp)):
        if -half <= e <= half:
            return math.cos(e) / (R**5 * abs(-A * math.sin(e) + C * math.cos(e)))
    return 0.0


def _closed_form_bin_levels(spec, T, h, alpha_db_per_m, rows, mu, *, sub=32):
    """Closed-form mean level of the non-empty cells of each range bin [dB].

    A cell's intensity is the bin average of I(b, R) over the part of the bin its
    bearing's swath covers (so the swath-edge bins come out partial, as rendered).
    """
    n = T.rotation.T @ np.array([0.0, 0.0, 1.0])
    half = math.radians(spec.elevation_aperture_deg) / 2.0
    fov = math.radians(spec.azimuth_fov_deg)
    db = fov / (spec.bearing_count - 1)
    dr = (spec.range_max_m - spec.range_min_m) / spec.range_bin_count
    out = []
    for k in rows:
        lo = spec.range_min_m + k * dr
        ranges = lo + (np.arange(sub) + 0.5) * (dr / sub)
        cells = []
        for b in np.linspace(-fov / 2, fov / 2, spec.bearing_count):
            A = math.cos(b) * n[0] + math.sin(b) * n[1]
            v = np.mean(
                [
                    _closed_form_cell(A, n[2], h, R, half)
                    * 10.0 ** (-2.0 * alpha_db_per_m * R / 10.0)
                    for R in ranges
                ]
            )
            if v > 0.0:
                cells.append(mu * h * h * db * dr * v)
        out.append(10.0 * math.log10(np.mean(cells)) if cells else np.nan)
    return np.array(out)


def test_flat_lambert_seabed_falloff_matches_the_closed_form() -> None:
    spec = _small_spec(bearing_count=24, range_bin_count=120)
    image = sonar_image(scene=_seabed(), spec=spec, position_ned_m=(0.0, 0.0, VEHICLE_DEPTH_M))
    report = image.report
    T = sensor_pose(
        Transform.from_euler(0, 0, 0, translation=(0, 0, VEHICLE_DEPTH_M)), spec.mount.transform()
    )
    h = SEABED_DEPTH_M - VEHICLE_DEPTH_M
    rows = np.flatnonzero((image.intensity > 0).any(axis=1))
    edges = image.range_bin_edges_m
    centres = 0.5 * (edges[rows] + edges[rows + 1])
    alpha = report.absorption_db_per_km.value / 1000.0
    mu = TEST_LAMBERT_MEDIUM.mu.value
    expected = _closed_form_bin_levels(spec, T, h, alpha, rows, mu)
    keep = np.isfinite(expected)
    assert keep.sum() >= 0.9 * rows.size
    x = 10.0 * np.log10(centres[keep])
    slope_expected, _ = np.polyfit(x, expected[keep], 1)
    # Tolerance 0.15 in slope (1.5 dB per decade of range, against a slope near -12):
    # each cell integrates a whole number of rays (2 or more), so bin levels scatter by
    # up to 10 log10(3/2) = 1.8 dB about the continuous integral; that jitter, not the
    # model, sets the tolerance.
    assert report.falloff_slope.value == pytest.approx(slope_expected, abs=0.15)
    assert report.falloff_explained_share.value > 0.9
    assert "explains" in report.falloff_note and "only" not in report.falloff_note
    measured = np.array(
        [10 * math.log10(image.intensity[k][image.intensity[k] > 0].mean()) for k in rows]
    )
    # Per-bin levels agree within 1 dB (the whole-ray jitter above).
    assert np.max(np.abs(measured[keep] - expected[keep])) < 1.0


def test_discrete_targets_in_open_water_give_a_low_explained_share_and_say_why() -> None:
    spec = _small_spec(mount={"translation_m": [0.0, 0.0, 0.0], "rpy_deg": [0.0, 0.0, 0.0]})
    targets = [
        (6.0, -4.0, 0.6, TEST_LAMBERT_DARK),
        (14.0, 3.0, 0.8, TEST_LAMBERT_MEDIUM),
        (26.0, -2.0, 1.0, TEST_LAMBERT_BRIGHT),
    ]
    scene = Scene(
        [
            Instance(
                f"ball{i}",
                uv_sphere_mesh(r),
                Transform.from_euler(0, 0, 0, translation=(x, y, 10.0)),
                "target",
                m,
            )
            for i, (x, y, r, m) in enumerate(targets)
        ]
    )
    image = sonar_image(
        scene=scene, spec=spec, position_ned_m=(0.0, 0.0, 10.0), elevation_sample_count=64
    )
    report = image.report
    assert report.falloff_explained_share.value < 0.5
    assert "no reverberation floor to measure" in report.falloff_note
    assert report.empty_cell_share.value > 0.9


def test_world_form_uses_the_vehicles_pose_sonar_and_scene() -> None:
    world = survey_world()
    world.step(3)
    image = sonar_image(world=world, vehicle="survey", elevation_sample_count=16)
    spec = world.vehicle_spec("survey").sensor("sonar")
    assert image.intensity.shape == (spec.range_bin_count, spec.bearing_count)
    T = sensor_pose(world.body_kinematics("survey").T_world_body, spec.mount.transform())
    assert image.report.sensor_depth_m.value == float(T.translation[2])
    assert image.report.pose["source"] == "world"
    dense = spec.model_copy(update={"elevation_sample_count": 16})
    frame = render(
        world.environment.scene_at(world.time_ns),
        dense,
        T,
        sensor_id="x/y",
        sample_index=0,
        time_ns=0,
        water=world.environment.water,
    )
    np.testing.assert_array_equal(image.intensity, frame.channels["linear_return"])


def test_seeded_noise_reproduces_and_unseeded_is_recorded() -> None:
    spec = _small_spec()
    kw = dict(scene=_seabed(), spec=spec, position_ned_m=(0, 0, 20.0), elevation_sample_count=32)
    noise = SonarNoiseModel(noise_floor_db=-150.0)
    a = sonar_image(noise=noise, seed=4, **kw)
    b = sonar_image(noise=noise, seed=4, **kw)
    np.testing.assert_array_equal(a.intensity, b.intensity)
    assert a.report.report_hash == b.report.report_hash
    c = sonar_image(noise=noise, **kw)
    assert c.report.noise["generator"]["seed"] == "unseeded"
    assert not np.array_equal(a.intensity, c.intensity)
    assert a.report.empty_cell_count.value == 0  # the floor fills every cell


def test_pngs_are_png_and_the_fan_covers_the_window() -> None:
    image = sonar_image(scene=_seabed(), spec=_small_spec(), position_ned_m=(0, 0, 20.0))
    for view in ("fan", "bscan"):
        assert sonar_image_png(image, view=view).startswith(b"\x89PNG\r\n\x1a\n")
    x0, x1, _, y1 = image.fan_extent_m
    assert y1 == pytest.approx(30.0) and x0 == pytest.approx(-x1)
    assert image.fan_inside.any() and np.isfinite(image.fan_level_db[image.fan_inside]).any()


def test_the_fan_is_drawn_on_the_one_fan_geometry() -> None:
    # The analytic fan raster is the display's fan geometry over the image's cell grid.
    spec = _small_spec()
    image = sonar_image(scene=_seabed(), spec=spec, position_ned_m=(0, 0, 20.0), fan_width_px=96)
    raster = fan_raster(
        np.asarray(image.bearing_rad),
        azimuth_fov_rad=math.radians(spec.azimuth_fov_deg),
        range_min_m=spec.range_min_m,
        range_max_m=spec.range_max_m,
        range_bin_count=image.level_db.shape[0],
        width_px=96,
    )
    np.testing.assert_array_equal(image.fan_inside, raster.inside)
    assert image.fan_level_db.tobytes() == raster.cells(image.level_db, np.nan).tobytes()
    assert image.fan_extent_m == raster.extent_m


def test_mixed_or_missing_sources_are_refused() -> None:
    with pytest.raises(ValueError, match="scene and position_ned_m"):
        sonar_image(scene=_seabed())
    with pytest.raises(ValueError, match="position_ned_m: expected 3 finite numbers"):
        sonar_image(scene=_seabed(), position_ned_m=(0.0, 1.0))
    with pytest.raises(ValueError, match="max_ray_count"):
        sonar_image(scene=_seabed(), position_ned_m=(0, 0, 20.0), max_ray_count=1 << 30)
