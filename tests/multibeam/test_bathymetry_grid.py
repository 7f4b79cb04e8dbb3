"""Bathymetry gridding and its comparison with the true seabed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from multibeam_cases import flat_seabed, level_pose, multibeam_spec, tilted_seabed

from leviathan.multibeam import (
    beam_geometry,
    beam_truth,
    compare_with_seabed,
    grid_soundings,
    planar_grid_bound,
    true_depth,
    tvu_m,
)
from leviathan.raycast import prepare_scene


def test_cells_hold_the_mean_and_count_of_their_soundings() -> None:
    p = np.array([[0.1, 0.2, 10.0], [0.4, 0.3, 12.0], [0.6, 0.1, 11.0], [-0.2, 1.2, 9.0]])
    g = grid_soundings(p, cell_m=0.5)
    assert g.first_index == (-1, 0)
    assert g.depth_m.shape == (3, 3)
    assert g.count[1, 0] == 2 and g.depth_m[1, 0] == 11.0
    assert g.count[2, 0] == 1 and g.depth_m[2, 0] == 11.0
    assert g.count[0, 2] == 1 and g.depth_m[0, 2] == 9.0
    assert int(g.count.sum()) == 4
    assert np.isnan(g.depth_m[0, 0]) and g.count[0, 0] == 0
    n, e = g.centres()
    assert (n[1, 0], e[1, 0]) == (0.25, 0.25)


def test_bad_cell_and_soundings_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="cell_m: expected a finite cell size > 0"):
        grid_soundings(np.zeros((1, 3)), cell_m=0.0)
    with pytest.raises(ValueError, match="points_ned_m: expected finite soundings"):
        grid_soundings(np.array([[0.0, 0.0, np.nan]]), cell_m=1.0)


def test_special_order_tvu_is_the_s44_formula() -> None:
    assert tvu_m(0.0) == 0.25
    assert tvu_m(40.0) == pytest.approx(math.sqrt(0.25**2 + (0.0075 * 40.0) ** 2), rel=1e-15)


def test_true_depth_samples_the_seabed_mesh() -> None:
    scene = tilted_seabed(30.0, math.radians(5.0))
    east = np.array([-10.0, 0.0, 25.0])
    d = true_depth(scene, np.zeros(3), east, backend="reference")
    assert np.allclose(d, 30.0 + east * math.tan(math.radians(5.0)), rtol=0, atol=1e-9)


def _plane_soundings(scene, spec, depth, norths):
    prepared = prepare_scene(scene)
    points = []
    for north in norths:
        t = beam_truth(
            scene,
            prepared,
            beam_geometry(spec),
            level_pose(north=north, depth=depth),
            range_max_m=spec.range_max_m,
            range_bin_width_m=spec.range_bin_width_m,
            backend="reference",
            device=None,
        )
        points.append(t.point_ned_m)
    return np.concatenate(points)


def test_grid_on_a_plane_is_within_its_bound_and_all_soundings_meet_special_order() -> None:
    slope = math.radians(6.0)
    scene = tilted_seabed(25.0, slope)
    spec = multibeam_spec(beam_count=65, swath_deg=120.0)
    soundings = _plane_soundings(scene, spec, 3.0, np.arange(0.0, 6.0, 0.2))
    report = compare_with_seabed(soundings, scene, cell_m=0.5, backend="reference")
    sounding_error = float(np.max(np.abs(report.sounding_error_m)))
    assert sounding_error < 1e-9 * 25.0
    bound = planar_grid_bound(0.0, math.tan(slope), 0.5, sounding_error)
    assert report.max_abs_error_m <= bound
    assert report.rms_error_m <= report.max_abs_error_m
    assert report.special_order_share == 1.0
    assert report.sounding_count == soundings.shape[0]
    # The error map is the grid minus the truth at the centres, where both exist.
    have = np.isfinite(report.error_m)
    assert np.array_equal(have, report.grid.count > 0)


def test_offset_soundings_fail_special_order_in_proportion() -> None:
    scene = flat_seabed(20.0)
    rng = np.random.default_rng(3)
    p = np.column_stack([rng.uniform(-5, 5, 200), rng.uniform(-5, 5, 200), np.full(200, 20.0)])
    p[:50, 2] += 0.5  # beyond TVU(20 m) = 0.29 m
    report = compare_with_seabed(p, scene, cell_m=1.0, backend="reference")
    assert report.special_order_share == 150 / 200
    assert report.max_abs_error_m > 0.0
