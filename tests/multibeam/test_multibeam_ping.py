"""One multibeam ping: water column, bottom detection, soundings and truth, against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from multibeam_cases import (
    flat_seabed,
    level_pose,
    multibeam_spec,
    stepped_seabed,
    tilted_seabed,
)

from leviathan.frames import Transform
from leviathan.geometry import uv_sphere_mesh
from leviathan.identity import content_hash
from leviathan.materials import TEST_LAMBERT_BRIGHT
from leviathan.multibeam import multibeam_ping, multibeam_rays
from leviathan.reference_cpu.multibeam import DETECTION_FLAGS as F
from leviathan.scene import Instance, Scene
from leviathan.specs import ScheduleSpec, WaterSpec


def _ping(scene, spec, pose, *, backend="reference", device=None, water=None, seed=None):
    return multibeam_ping(
        scene,
        spec,
        pose,
        sensor_id="auv/multibeam",
        sample_index=3,
        time_ns=600_000_000,
        seed=seed,
        water=water,
        backend=backend,
        device=device,
    )


def _plane_bias_bound(spec, pose, normal, h):
    """Half a bin plus the spread of each beam's own ray ranges on the plane ``n.x = h``."""
    _, rays = multibeam_rays(spec)
    d = pose.apply_direction(rays.directions)
    nd = (d[:, 0] * normal[0] + d[:, 1] * normal[1]) + d[:, 2] * normal[2]
    with np.errstate(divide="ignore"):
        r = np.where(nd > 0.0, h / nd, np.inf)
    r = np.where(r < spec.range_max_m, r, np.nan)
    per_beam = r.reshape(-1, spec.beam_count)
    return per_beam


@pytest.mark.parametrize("roll_deg", [0.0, 15.0, -25.0])
def test_rolled_ping_over_a_tilted_plane_detects_on_the_plane(roll_deg: float) -> None:
    slope = math.radians(10.0)
    sensor_depth, D = 3.0, 30.0
    spec = multibeam_spec(
        swath_deg=100.0, range_max_m=500.0, schedule=ScheduleSpec(period_ns=1_000_000_000)
    )
    pose = level_pose(depth=sensor_depth, roll_deg=roll_deg)
    ping = _ping(tilted_seabed(sensor_depth + D, slope), spec, pose)
    ch = ping.channels
    detected = (ch["quality"] & F["DETECTED"]) != 0
    assert detected.all()
    # Axis truth on the plane z = (sensor_depth + D) + y tan(slope).
    t = ch["truth_point_ned_m"][detected]
    plane = (sensor_depth + D) + t[:, 1] * math.tan(slope)
    assert np.all(np.abs(t[:, 2] - plane) < 1e-9 * D)
    # Detection error within half a bin plus the beam's own range spread (derived).
    normal = np.array([0.0, -math.sin(slope), math.cos(slope)])
    h = D * math.cos(slope)
    ranges = _plane_bias_bound(spec, pose, normal, h)
    axis = ch["truth_range_m"]
    spread = np.nanmax(np.abs(ranges - axis[None, :]), axis=0)
    bound = 0.5 * spec.range_bin_width_m + spread + 1e-9
    err = np.abs(ch["error_along_beam_m"])
    assert np.all(err[detected] <= bound[detected])
    # The sounding is on the beam axis at the detected range, so it is off the plane
    # by the along-beam error times the cosine between axis and normal.
    s = ch["sounding_ned_m"][detected]
    off = (s[:, 0] * normal[0] + s[:, 1] * normal[1]) + (s[:, 2] - (sensor_depth + D)) * normal[2]
    assert np.all(np.abs(off) <= err[detected] + 1e-9)
    # Soundings: sensor frame R u_k, world = pose applied to it, exactly.
    assert np.array_equal(
        ch["sounding_ned_m"][detected], pose.apply_point(ch["sounding_sensor_m"])[detected]
    )
    c = ping.metadata["sound_speed_m_per_s"]
    assert np.array_equal(ch["two_way_travel_time_s"], (2.0 * ch["detection_range_m"]) / c)
    assert "no" in ping.metadata["refraction"] or "none" in ping.metadata["refraction"]


def test_nadir_detection_on_a_flat_bottom_is_within_half_a_bin_plus_its_spread() -> None:
    spec = multibeam_spec(beam_count=9, swath_deg=40.0)
    ping = _ping(flat_seabed(24.0), spec, level_pose(depth=4.0))
    ch = ping.channels
    assert np.all(ch["quality"] == F["DETECTED"])
    assert np.all(np.abs(ch["truth_point_ned_m"][:, 2] - 24.0) < 1e-9 * 20.0)
    assert np.all(np.abs(ch["error_vertical_m"]) < 0.2)


def test_step_beams_detect_their_sides_depth_and_the_straddler_says_so() -> None:
    spec = multibeam_spec(beam_count=41, swath_deg=90.0)
    ping = _ping(stepped_seabed(20.0, 23.0, step_east=3.0), spec, level_pose(depth=0.5))
    ch = ping.channels
    east = ch["truth_point_ned_m"][:, 1]
    detected = (ch["quality"] & F["DETECTED"]) != 0
    nonplanar = (ch["quality"] & F["NONPLANAR_FOOTPRINT"]) != 0
    assert nonplanar.any()
    clean = detected & ~nonplanar
    shallow = clean & (east < 3.0)
    deep = clean & (east > 3.0)
    assert shallow.sum() >= 10 and deep.sum() >= 10
    assert np.all(np.abs(ch["sounding_ned_m"][shallow, 2] - 20.0) < 0.25)
    assert np.all(np.abs(ch["sounding_ned_m"][deep, 2] - 23.0) < 0.25)
    # The straddling beams' footprints deviate from a line by more than half a bin.
    assert np.all(ch["footprint_deviation_m"][nonplanar] > 0.5 * spec.range_bin_width_m)


def test_flags_sea_surface_unknown_material_unsupported_water_and_window_end() -> None:
    spec = multibeam_spec(range_max_m=30.0)
    # Beams off the window's end: no bottom and no truth.
    ping = _ping(flat_seabed(20.0), spec, level_pose(depth=0.0 + 1.0))
    q = ping.channels["quality"]
    far = 19.0 / np.cos(ping.channels["beam_angle_rad"]) > 30.0
    assert np.all(q[far] & F["NO_BOTTOM"])
    assert np.all(q[~far] & F["DETECTED"])
    # Unknown material: returns are missing.
    unknown = flat_seabed(20.0, material=None)
    q = _ping(unknown, spec, level_pose(depth=1.0)).channels["quality"]
    assert np.all(q[~far] & F["MISSING_RETURN"])
    # Water outside the absorption model: returns are missing, geometry still true.
    cold = WaterSpec(salinity_psu=0.2, temperature_c=12.0, ph=7.5)  # fresh water
    ping = _ping(flat_seabed(20.0), spec, level_pose(depth=1.0), water=cold)
    if ping.metadata["medium_supported"]:
        pytest.fail("expected fresh water to be outside the absorption model")
    assert np.all(ping.channels["quality"][~far] & F["MISSING_RETURN"])
    assert np.all(np.isfinite(ping.channels["truth_range_m"][~far]))
    # Looking up: the sea surface first.
    up = level_pose(depth=10.0, roll_deg=180.0)
    ping = _ping(flat_seabed(40.0), multibeam_spec(swath_deg=60.0, beam_count=5), up)
    assert np.all(ping.channels["quality"] & F["SEA_SURFACE"])


def test_below_threshold_beams_are_flagged() -> None:
    spec = multibeam_spec(detection_threshold_db=0.0)
    q = _ping(flat_seabed(20.0), spec, level_pose(depth=1.0)).channels["quality"]
    assert np.all(q == F["BELOW_THRESHOLD"])


def test_a_target_in_the_water_column_is_the_truth_of_the_beams_it_blocks() -> None:
    target = Instance(
        "target",
        uv_sphere_mesh(1.0),
        Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 12.0)),
        "target",
        TEST_LAMBERT_BRIGHT,
    )
    scene = Scene([*flat_seabed(25.0).instances, target], name="target")
    ping = _ping(scene, multibeam_spec(), level_pose(depth=2.0))
    ch = ping.channels
    labels = ping.metadata["semantic_labels"]
    hit_target = ch["truth_semantic"] == labels.index("target")
    assert hit_target.any() and (~hit_target).any()
    assert np.all(np.abs(ch["sounding_ned_m"][hit_target, 2] - 11.0) < 1.0)


def test_ping_is_bit_identical_on_warp(device: str) -> None:
    cases = [
        (flat_seabed(20.0), level_pose(depth=1.0)),
        (tilted_seabed(30.0, math.radians(7.0)), level_pose(depth=2.0, roll_deg=9.0)),
        (stepped_seabed(20.0, 23.0, step_east=3.0), level_pose(depth=0.5)),
    ]
    spec = multibeam_spec(speckle=True)
    for scene, pose in cases:
        ref = _ping(scene, spec, pose, seed=5)
        warp = _ping(scene, spec, pose, backend="warp", device=device, seed=5)
        assert content_hash(ref.channels) == content_hash(warp.channels)
        assert content_hash(ref.metadata) == content_hash(warp.metadata)


def test_rays_layout_gain_and_solid_angle() -> None:
    spec = multibeam_spec(
        beam_count=3, swath_deg=40.0, along_track_sample_count=3, across_track_sample_count=5
    )
    geometry, rays = multibeam_rays(spec)
    n = 3
    assert rays.directions.shape == (15 * n, 3)
    # The centre sample (a = 1, c = 2: s = 7) of each beam is its axis with gain 1.
    centre = rays.directions.reshape(15, n, 3)[7]
    assert np.allclose(centre, geometry.axis, rtol=0, atol=1e-15)
    g = rays.two_way_gain.reshape(15, n)
    assert np.all(g[7] == 1.0)
    # At the -3 dB half width across (c = 1 and 3 over [-w, w]) the two-way gain is 1/4.
    assert g[6, 0] == pytest.approx(0.25, rel=1e-12)
    assert g[8, 0] == pytest.approx(0.25, rel=1e-12)
    assert np.array_equal(rays.column.reshape(15, n), np.tile(np.arange(n), (15, 1)))
