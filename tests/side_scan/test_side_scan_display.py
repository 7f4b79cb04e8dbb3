"""Waterfall and ground-range waterfall: display products with their own identity."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from PIL import Image
from side_scan_cases import box_on_seabed, scene, seabed, side_scan_spec

from leviathan.frames import Transform
from leviathan.side_scan import render
from leviathan.side_scan.display import ground_range_waterfall, waterfall
from leviathan.sonar import range_bin

H = 10.0


@pytest.fixture(scope="module")
def lines():
    spec = side_scan_spec(across_track_sample_count=1201, range_bin_count=120)
    sc = scene(
        seabed(5.0 + H), box_on_seabed(5.0 + H, y_near=8.0, width=2.0, height=1.5, length=4.0)
    )
    out = []
    for k in range(6):
        pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(-3.0 + 1.2 * k, 0.0, 5.0))
        out.append(
            render(
                sc,
                spec,
                pose,
                sensor_id="auv/side_scan",
                sample_index=k,
                time_ns=k * 100_000_000,
                backend="reference",
                sampling_warnings=False,
            )
        )
    return out


def test_a_waterfall_holds_the_lines_bit_for_bit_newest_at_the_top(lines) -> None:
    w = waterfall(lines)
    assert w.values.shape == (6, 240)
    for row, line in enumerate(reversed(lines)):
        port = w.values[row, :120][::-1]
        star = w.values[row, 120:]
        assert port.tobytes() == line["linear_return"][0].tobytes()
        assert star.tobytes() == line["linear_return"][1].tobytes()
    assert w.line_hashes == tuple(line.content_hash for line in reversed(lines))
    assert w.axis_m[119] < 0 < w.axis_m[120]


def test_the_nadir_gap_is_dark_around_the_centre(lines) -> None:
    w = waterfall(lines)
    first = int(range_bin(H, range_min_m=0.0, range_max_m=30.0, range_bin_count=120))
    centre = w.pixels[:, 120 - first : 120 + first]
    assert (centre == 0).all()
    assert w.pixels[:, 120 + first + 2 :].max() > 100


def test_display_hash_is_its_own_and_changes_with_the_lines(lines) -> None:
    a, b = waterfall(lines), waterfall(lines[:-1])
    assert a.display_hash != b.display_hash
    assert a.display_hash == waterfall(list(lines)).display_hash
    assert a.display_hash not in {line.content_hash for line in lines}
    g = ground_range_waterfall(lines)
    assert g.display_hash != a.display_hash
    png = Image.open(io.BytesIO(a.png()))
    assert png.size == (240, 6) and png.mode == "RGB"
    assert np.array_equal(np.asarray(png), a.pixels)


def test_ground_range_waterfall_maps_flat_bottom_ground_range(lines) -> None:
    g = ground_range_waterfall(lines)
    line, row = lines[3], 2  # sensor at x = 0.6 m, abeam of the box; newest first
    n = 120
    gr = (np.arange(n) + 0.5) * (30.0 / n)
    k = range_bin(np.sqrt(gr * gr + H * H), range_min_m=0.0, range_max_m=30.0, range_bin_count=n)
    ok = k >= 0
    np.testing.assert_array_equal(g.values[row, n:][ok], line["linear_return"][1, k[ok]])
    assert g.outside[row, n:][~ok].all() and not g.outside[row, n:][ok].any()
    # Corrected: the seabed starts at nadir (no water column in ground range).
    assert g.values[row, n] > 0 and g.values[row, n - 1] > 0
    # The box shadow lies where the closed form puts it: x H / (h - H) beyond the box.
    x_far, box_h = 10.0, 1.5
    shadow = (gr > x_far + 0.3) & (gr < x_far * H / (H - box_h) - 0.3)
    assert shadow.sum() >= 3
    assert (g.values[row, n:][shadow] == 0).all()
    assert math.isfinite(line.metadata["altitude_m"])


def test_lines_of_two_sensors_do_not_mix(lines) -> None:
    other = render(
        scene(seabed(15.0)),
        side_scan_spec(range_bin_count=60),
        Transform.identity(),
        sensor_id="auv/side_scan",
        sample_index=0,
        time_ns=0,
        backend="reference",
        sampling_warnings=False,
    )
    with pytest.raises(ValueError, match=r"lines\[1\]"):
        waterfall([lines[0], other])
    with pytest.raises(ValueError, match="lines"):
        waterfall([])
    with pytest.raises(ValueError, match="dynamic_range_db"):
        waterfall(lines, dynamic_range_db=-3.0)
