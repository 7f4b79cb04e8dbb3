"""Side-scan lines against the closed forms of the issue: flat, tilted, box shadow, intensity."""

from __future__ import annotations

import math

import numpy as np
import pytest
from side_scan_cases import box_on_seabed, scene, seabed, side_scan_spec

from leviathan.acoustics import absorption_db_per_m
from leviathan.frames import Transform
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.side_scan import render
from leviathan.sonar import range_bin, range_bin_boundaries
from leviathan.specs import WaterSpec

DEPTH = 5.0  # sensor depth [m]
POSE = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, DEPTH))


def _line(sc, spec, pose=POSE, **kw):
    return render(
        sc,
        spec,
        pose,
        sensor_id="auv/side_scan",
        sample_index=0,
        time_ns=0,
        backend="reference",
        **kw,
    )


def _window(spec):
    return {
        "range_min_m": spec.range_min_m,
        "range_max_m": spec.range_max_m,
        "range_bin_count": spec.range_bin_count,
    }


@pytest.mark.parametrize("h", [10.0, 12.5, 20.0])
def test_flat_seabed_nadir_gap_first_bin_truth_and_ground_range(h: float) -> None:
    spec = side_scan_spec()
    assert h >= spec.fill_altitude_m  # the sampling rule holds: no striped line
    line = _line(scene(seabed(DEPTH + h)), spec)
    edges = range_bin_boundaries(**_window(spec))
    first = int(range_bin(h, **_window(spec)))
    for side in (0, 1):
        count = line["sample_count"][side]
        seabed_cells = line["primary_instance"][side] == 0
        # No seabed return below R = h; the first return in the bin of R = h.
        assert not count[:first].any()
        assert count[first] > 0
        # Every bin of the swath from R = h to R_max is filled, and its truth is the seabed.
        assert (count[first:] > 0).all()
        assert seabed_cells[first:].all()
        labels = line.metadata["semantic_labels"]
        assert {labels[i] for i in line["primary_semantic"][side][first:]} == {"seabed"}
        k = np.nonzero(seabed_cells)[0]
        ground = line["primary_ground_range_m"][side, k]
        # Exact: the hit's horizontal range is sqrt(R^2 - h^2) of its own slant range.
        r_hit = line["primary_range_m"][side, k]
        np.testing.assert_allclose(ground, np.sqrt(r_hit * r_hit - h * h), rtol=0, atol=1e-9)
        # Within the bin: between the ground ranges of the bin's two boundaries.
        lo = np.sqrt(np.maximum(edges[k] ** 2 - h * h, 0.0))
        hi = np.sqrt(edges[k + 1] ** 2 - h * h)
        assert ((ground >= lo - 1e-9) & (ground <= hi + 1e-9)).all()
        # The flat-bottom channel from the bin centre and the true altitude.
        assert line.metadata["altitude_m"] == pytest.approx(h, abs=1e-12)
        centre = spec.range_min_m + spec.range_bin_width_m * (k + 0.5)
        fb = line["flat_bottom_ground_range_m"][side, k]
        reach = centre >= h
        np.testing.assert_allclose(fb[reach], np.sqrt(centre[reach] ** 2 - h * h), rtol=1e-15)
        assert np.isnan(fb[~reach]).all()
        # Port hits lie at -y, starboard at +y.
        y = line["primary_hit_point_world"][side, k, 1]
        assert ((y <= 1e-9) if side == 0 else (y >= -1e-9)).all()
    assert line.metadata["sampling"]["fills_swath"]


def test_intensity_and_incidence_match_the_closed_form_cell_by_cell() -> None:
    h = 10.0
    spec = side_scan_spec(
        across_track_sample_count=801, range_bin_count=60, along_track_sample_count=3
    )
    water = WaterSpec()
    line = _line(scene(seabed(DEPTH + h)), spec, water=water, sampling_warnings=False)
    mu = TEST_LAMBERT_MEDIUM.mu.value
    alpha = absorption_db_per_m(
        spec.frequency_hz,
        temperature_c=water.temperature_c,
        salinity_psu=water.salinity_psu,
        depth_m=DEPTH,
        ph=water.ph,
    )
    # The quadrature from the spec, written out here: inclusive grids, trapezoid weights.
    m, a_count = spec.across_track_sample_count, spec.along_track_sample_count
    d0, d1 = math.radians(0.0), math.radians(90.0)
    dep = np.array([d0 + (d1 - d0) * j / (m - 1) for j in range(m)])
    dep[-1] = d1
    w_dep = np.full(m, (d1 - d0) / (m - 1))
    w_dep[0] = w_dep[-1] = 0.5 * (d1 - d0) / (m - 1)
    aperture = math.radians(1.0)
    along = np.array([aperture * (k / (a_count - 1) - 0.5) for k in range(a_count)])
    w_along = np.full(a_count, aperture / (a_count - 1))
    w_along[0] = w_along[-1] = 0.5 * aperture / (a_count - 1)
    wa, wc = math.radians(0.5), math.radians(50.0)
    axis = math.radians(20.0)
    expected = np.zeros((2, spec.range_bin_count))
    for k, a in enumerate(along):
        for j, x in enumerate(dep):
            dz = math.cos(a) * math.sin(x)
            if dz <= 0:
                continue
            r = h / dz
            b = int(range_bin(r, **_window(spec)))
            if b < 0:
                continue
            g = 2.0 ** -((2 * a / wa) ** 2 + (2 * (x - axis) / wc) ** 2)
            domega = math.cos(a) * w_along[k] * w_dep[j]
            cos_inc = dz
            c = mu * cos_inc**2 * g * g * (r * r * domega / cos_inc) / r**4
            c *= 10.0 ** (-alpha * 2 * r / 10.0)
            expected[:, b] += c
    got = line["linear_return"]
    filled = expected > 0
    assert filled.sum() > 60
    np.testing.assert_allclose(got[filled], expected[filled], rtol=1e-9)
    assert (got[~filled] == 0).all()
    # Incidence of the primary: on a flat seabed the angle from the vertical.
    k = np.nonzero(line["sample_count"][1])[0]
    r = line["primary_range_m"][1, k]
    np.testing.assert_allclose(np.cos(line["primary_incidence_rad"][1, k]), h / r, rtol=1e-9)


@pytest.mark.parametrize(("y_near", "width", "height"), [(12.0, 2.0, 2.0), (8.0, 1.5, 3.0)])
def test_box_shadow_length_is_x_h_over_h_minus_h_within_one_bin(y_near, width, height) -> None:
    h = 10.0
    spec = side_scan_spec(range_bin_count=300, range_max_m=30.0)
    sc = scene(
        seabed(DEPTH + h), box_on_seabed(DEPTH + h, y_near=y_near, width=width, height=height)
    )
    line = _line(sc, spec)
    x_far = y_near + width  # ground range of the box's far top edge
    expected = x_far * height / (h - height)
    side = 1
    ground = line["primary_ground_range_m"][side]
    on_seabed = line["primary_instance"][side] == 0
    beyond = on_seabed & (ground > x_far)
    shadow_end = float(ground[beyond].min())
    # One bin in ground range at the shadow's end: dg = dR * R / g.
    r_end = math.hypot(shadow_end, h)
    bin_ground = spec.range_bin_width_m * r_end / shadow_end
    assert abs((shadow_end - x_far) - expected) <= bin_ground
    # The shadow is empty cells in slant range, between the box top and the shadow end.
    # The box's last return: its far top edge or the foot of its near face.
    r_box = max(math.hypot(x_far, h - height), math.hypot(y_near, h))
    k0 = int(range_bin(r_box, **_window(spec)))
    k1 = int(range_bin(r_end, **_window(spec)))
    assert k1 - k0 > 2
    assert (line["sample_count"][side, k0 + 1 : k1] == 0).all()
    # The port side, without a box, has no shadow there.
    assert (line["sample_count"][0, k0 + 1 : k1] > 0).all()


@pytest.mark.parametrize("tilt_deg", [5.0, 12.0, -8.0])
def test_tilted_seabed_first_returns_at_their_closed_form_ranges(tilt_deg: float) -> None:
    h = 10.0
    beta = math.radians(tilt_deg)
    spec = side_scan_spec()
    line = _line(scene(seabed(DEPTH + h, tilt_rad=beta)), spec, sampling_warnings=False)
    # The plane z = h + y tan(beta) is nearest at h cos(beta), on the side it rises to
    # (port for beta > 0); the other side's nearest point in its fan is nadir, at h.
    near, far = h * math.cos(beta), h
    expected = {0: near, 1: far} if beta > 0 else {0: far, 1: near}
    for side in (0, 1):
        first = int(np.nonzero(line["sample_count"][side])[0][0])
        # The bin of the closed-form range (either neighbour when it lies on a boundary,
        # as R = h = 10 m does with 0.1 m bins: the trace's last bit decides).
        r = expected[side]
        bins = {
            int(range_bin(r * (1 - 1e-12), **_window(spec))),
            int(range_bin(r * (1 + 1e-12), **_window(spec))),
        }
        assert first in bins, (side, first, bins)
        assert line["sample_count"][side, first + 1 :].all()
