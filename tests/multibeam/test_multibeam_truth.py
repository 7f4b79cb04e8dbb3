"""Per-beam truth: the axis ray's hit and the footprint flags, against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from multibeam_cases import flat_seabed, level_pose, multibeam_spec, stepped_seabed, tilted_seabed

from leviathan.multibeam import beam_geometry, beam_truth
from leviathan.raycast import prepare_scene
from leviathan.reference_cpu.multibeam import DETECTION_FLAGS as F
from leviathan.specs import ScheduleSpec


def _truth(scene, spec, pose, backend="reference"):
    return beam_truth(
        scene,
        prepare_scene(scene),
        beam_geometry(spec),
        pose,
        range_max_m=spec.range_max_m,
        range_bin_width_m=spec.range_bin_width_m,
        backend=backend,
        device=None,
    )


@pytest.mark.parametrize("spacing", ["equiangular", "equidistant"])
def test_flat_swath_is_two_d_tan_half_swath_wide(spacing: str) -> None:
    spec = multibeam_spec(beam_spacing=spacing, swath_deg=120.0, beam_count=21)
    sensor_depth, seabed = 4.0, 24.0
    truth = _truth(flat_seabed(seabed), spec, level_pose(depth=sensor_depth))
    D = seabed - sensor_depth
    east = truth.point_ned_m[:, 1]
    assert east[-1] - east[0] == pytest.approx(2.0 * D * math.tan(math.radians(60.0)), rel=1e-12)
    assert np.all(np.abs(truth.point_ned_m[:, 2] - seabed) < 1e-9 * D)
    if spacing == "equidistant":
        assert np.allclose(np.diff(east), (east[-1] - east[0]) / 20.0, rtol=0, atol=1e-9 * D)
    else:
        assert not np.allclose(np.diff(east), (east[-1] - east[0]) / 20.0, rtol=1e-3)
    assert np.all(truth.footprint_flag == 0)


@pytest.mark.parametrize("roll_deg", [0.0, 12.0, -20.0])
def test_rolled_sensor_over_tilted_plane_hits_the_plane(roll_deg: float) -> None:
    slope = math.radians(8.0)
    D = 30.0
    spec = multibeam_spec(
        swath_deg=110.0, range_max_m=400.0, schedule=ScheduleSpec(period_ns=1_000_000_000)
    )
    pose = level_pose(depth=2.0, roll_deg=roll_deg)
    truth = _truth(tilted_seabed(D + 2.0, slope), spec, pose)
    p = truth.point_ned_m
    plane_z = (D + 2.0) + p[:, 1] * math.tan(slope)
    assert np.all(np.isfinite(p))
    assert np.all(np.abs(p[:, 2] - plane_z) < 1e-9 * D)
    # The axis ranges are the closed form h / (n . u) for the plane's normal n.
    n = np.array([0.0, -math.sin(slope), math.cos(slope)])
    u = pose.apply_direction(beam_geometry(spec).axis)
    h = (D + 2.0 - 2.0) * math.cos(slope)
    assert np.allclose(truth.range_m, h / (u @ n), rtol=1e-12)


def test_step_is_seen_on_each_side_and_flagged_at_the_straddling_beam() -> None:
    spec = multibeam_spec(beam_count=41, swath_deg=90.0)
    scene = stepped_seabed(20.0, 23.0, step_east=3.0)
    truth = _truth(scene, spec, level_pose(depth=0.5))
    east = truth.point_ned_m[:, 1]
    z = truth.point_ned_m[:, 2]
    assert np.all(np.abs(z[east < 3.0 - 1e-9] - 20.0) < 1e-9 * 20.0)
    assert np.all(np.abs(z[east > 3.0 + 1e-9] - 23.0) < 1e-9 * 23.0)
    flagged = np.nonzero(truth.footprint_flag & F["NONPLANAR_FOOTPRINT"])[0]
    assert flagged.size >= 1
    # Only the beams whose -3 dB footprint reaches across the step's edge are flagged.
    geometry = beam_geometry(spec)
    lo = 19.5 * np.tan(geometry.angle_rad - 0.5 * geometry.width_rad)
    hi = 22.5 * np.tan(geometry.angle_rad + 0.5 * geometry.width_rad)
    straddle = (lo < 3.0) & (hi > 3.0)
    assert set(flagged.tolist()) <= set(np.nonzero(straddle)[0].tolist())


def test_beams_off_the_windows_end_have_no_truth_hit() -> None:
    spec = multibeam_spec(range_max_m=30.0)
    truth = _truth(flat_seabed(20.0), spec, level_pose(depth=0.0))
    far = 20.0 / np.cos(beam_geometry(spec).angle_rad) > 30.0
    assert far.any() and (~far).any()
    assert np.all(np.isnan(truth.range_m[far])) and np.all(truth.instance[far] == -1)
    assert np.all(np.isfinite(truth.range_m[~far]))


def test_upward_beams_hit_the_sea_surface() -> None:
    spec = multibeam_spec(swath_deg=60.0, beam_count=5)
    pose = level_pose(depth=10.0, roll_deg=180.0)
    scene = flat_seabed(40.0)
    truth = _truth(scene, spec, pose)
    assert np.all(truth.instance == scene.sea_surface_instance)
    assert np.all(np.abs(truth.point_ned_m[:, 2]) < 1e-12)
