"""Tests for leviathan.sonar.display: dB image, B-scan preview, fan and display identity."""

from __future__ import annotations

import io
import math
import os

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from PIL import Image
from reference_impls import reference_fan_grid

from leviathan.catalogue import get_vehicle
from leviathan.sonar import SonarFrame, beam_grid_for
from leviathan.sonar.display import (
    FAN_BACKGROUND_RGB,
    MISSING_RGB,
    db_image,
    display_product_hash,
    fan_pixels,
    fan_png,
    fan_raster,
    preview_pixels,
    preview_png,
)

FLAG_EMPTY = 1
FLAG_VALID = 2


def _frame(
    linear: np.ndarray,
    *,
    speckle: np.ndarray | None = None,
    fov_deg: float = 90.0,
    range_min_m: float = 0.0,
    range_max_m: float = 10.0,
    dynamic_range_db: float = 60.0,
) -> SonarFrame:
    """A synthetic frame over ``linear`` [range_bin, bearing] with consistent metadata."""
    linear = np.asarray(linear, dtype=np.float64)
    n, b = linear.shape
    half = math.radians(fov_deg) / 2.0
    bearing_rad = np.linspace(-half, half, b) if b > 1 else np.zeros(1)
    width = (range_max_m - range_min_m) / n
    validity = np.where(linear == 0.0, FLAG_EMPTY, 0) | np.where(np.isfinite(linear), FLAG_VALID, 0)
    channels = {"linear_return": linear, "validity": validity.astype(np.uint16)}
    if speckle is not None:
        channels["speckle_return"] = np.asarray(speckle, dtype=np.float64)
    spec = {
        "azimuth_fov_deg": fov_deg,
        "range_min_m": range_min_m,
        "range_max_m": range_max_m,
        "range_bin_count": n,
        "bearing_count": b,
        "dynamic_range_db": dynamic_range_db,
    }
    metadata = {
        "sensor_id": "test/sonar",
        "sample_index": 0,
        "time_ns": 0,
        "spec": spec,
        "bearing_rad": bearing_rad,
        "range_bin_edges_m": range_min_m + width * np.arange(n + 1, dtype=np.float64),
    }
    return SonarFrame(channels=channels, metadata=metadata)


def _ramp_frame() -> SonarFrame:
    """A 6 × 4 frame: powers of ten down the range, one NaN and one empty cell."""
    linear = np.array(
        [[10.0 ** (-k)] * 4 for k in range(6)],
        dtype=np.float64,
    )
    linear[2, 1] = np.nan
    linear[3, 2] = 0.0
    return _frame(linear)


# --------------------------------------------------------------------------- db_image


def test_db_image_dtype_and_shape() -> None:
    db = db_image(_ramp_frame())
    assert db.dtype == np.float64
    assert db.shape == (6, 4)


def test_db_image_powers_of_ten_are_exact() -> None:
    frame = _frame(np.array([[1.0], [0.1], [0.01]]))
    assert_array_equal(db_image(frame, dynamic_range_db=60.0)[:, 0], [0.0, -10.0, -20.0])


def test_db_image_is_relative_to_brightest_cell() -> None:
    frame = _frame(np.array([[2.0, 0.2], [0.02, 0.002]]))
    assert_array_equal(db_image(frame), [[0.0, -10.0], [-20.0, -30.0]])


def test_db_image_clips_to_dynamic_range() -> None:
    frame = _frame(np.array([[1.0, 1e-3, 1e-9]]))
    assert_array_equal(db_image(frame, dynamic_range_db=20.0), [[0.0, -20.0, -20.0]])


def test_db_image_empty_cells_are_minus_dr_and_nan_stays_nan() -> None:
    db = db_image(_ramp_frame(), dynamic_range_db=30.0)
    assert db[3, 2] == -30.0
    assert np.isnan(db[2, 1])
    assert np.count_nonzero(np.isnan(db)) == 1


def test_db_image_uses_spec_dynamic_range_by_default() -> None:
    frame = _frame(np.array([[1.0, 1e-9]]), dynamic_range_db=40.0)
    assert_array_equal(db_image(frame), [[0.0, -40.0]])


def test_db_image_without_positive_cells_is_minus_dr() -> None:
    frame = _frame(np.array([[0.0, np.nan], [0.0, 0.0]]))
    db = db_image(frame, dynamic_range_db=50.0)
    assert_array_equal(db, [[-50.0, np.nan], [-50.0, -50.0]])


def test_db_image_prefers_speckle_return() -> None:
    linear = np.array([[1.0, 1.0]])
    speckle = np.array([[1.0, 0.01]])
    db = db_image(_frame(linear, speckle=speckle))
    assert_array_equal(db, [[0.0, -20.0]])


@pytest.mark.parametrize("bad", [0.0, -10.0, math.inf, math.nan])
def test_db_image_refuses_bad_dynamic_range(bad: float) -> None:
    with pytest.raises(ValueError, match="finite and > 0"):
        db_image(_ramp_frame(), dynamic_range_db=bad)


def test_db_image_refuses_bad_spec_dynamic_range() -> None:
    with pytest.raises(ValueError, match="spec"):
        db_image(_frame(np.ones((2, 2)), dynamic_range_db=0.0))


def test_db_image_refuses_bool_dynamic_range() -> None:
    with pytest.raises(TypeError, match="real number"):
        db_image(_ramp_frame(), dynamic_range_db=True)


def test_db_image_refuses_negative_values() -> None:
    with pytest.raises(ValueError, match="negative or infinite"):
        db_image(_frame(np.array([[1.0, -1.0]])))


# --------------------------------------------------------------------------- preview


def test_preview_pixels_dtype_and_shape() -> None:
    pixels = preview_pixels(_ramp_frame())
    assert pixels.dtype == np.uint8
    assert pixels.shape == (6, 4, 3)


def test_preview_grey_levels() -> None:
    # 0, -10, -20 dB with DR 20 -> 255, round(127.5) = 128 (half to even), 0.
    frame = _frame(np.array([[1.0], [0.1], [0.01]]))
    pixels = preview_pixels(frame, dynamic_range_db=20.0)
    assert_array_equal(pixels[:, 0, 0], [0, 128, 255])  # far row first
    assert_array_equal(pixels[..., 0], pixels[..., 1])
    assert_array_equal(pixels[..., 0], pixels[..., 2])


def test_preview_near_range_is_bottom_row() -> None:
    linear = np.zeros((5, 3))
    linear[0, :] = 1.0  # nearest range bin
    pixels = preview_pixels(_frame(linear))
    assert_array_equal(pixels[-1], np.full((3, 3), 255, dtype=np.uint8))
    assert_array_equal(pixels[:-1], np.zeros((4, 3, 3), dtype=np.uint8))


def test_preview_port_is_left_column() -> None:
    linear = np.zeros((2, 3))
    linear[:, 0] = 1.0  # most port bearing
    pixels = preview_pixels(_frame(linear))
    assert_array_equal(pixels[:, 0, 0], [255, 255])
    assert_array_equal(pixels[:, 1:, 0], np.zeros((2, 2), dtype=np.uint8))


def test_preview_missing_cells_are_magenta() -> None:
    pixels = preview_pixels(_ramp_frame())
    # Range bin 2 of 6 is row 6 - 1 - 2 = 3.
    assert tuple(pixels[3, 1].tolist()) == MISSING_RGB
    others = np.ones((6, 4), dtype=bool)
    others[3, 1] = False
    assert np.all(pixels[others][:, 0] == pixels[others][:, 1])


def test_preview_png_decodes_to_preview_pixels() -> None:
    frame = _ramp_frame()
    data = preview_png(frame)
    with Image.open(io.BytesIO(data)) as image:
        assert image.mode == "RGB"
        assert image.format == "PNG"
        decoded = np.asarray(image)
    assert_array_equal(decoded, preview_pixels(frame))


def test_preview_png_has_no_metadata_chunks() -> None:
    with Image.open(io.BytesIO(preview_png(_ramp_frame()))) as image:
        assert image.info == {}


def test_preview_png_writes_file(tmp_path: os.PathLike[str]) -> None:
    frame = _ramp_frame()
    path = os.path.join(tmp_path, "preview.png")
    data = preview_png(frame, path)
    with open(path, "rb") as f:
        assert f.read() == data
    assert os.listdir(tmp_path) == ["preview.png"]  # no temp file left behind


def test_frame_methods_delegate_to_display() -> None:
    frame = _ramp_frame()
    assert_array_equal(frame.db_image(), db_image(frame))
    assert frame.preview_png() == preview_png(frame)
    assert frame.fan_png(width_px=64) == fan_png(frame, width_px=64)


# --------------------------------------------------------------------------- fan


def _bright_bearing_frame(bearing_deg: float) -> SonarFrame:
    """A 90° fan with 7 bearings (15° apart) bright only at ``bearing_deg``."""
    linear = np.zeros((8, 7))
    column = round((bearing_deg + 45.0) / 15.0)
    linear[:, column] = 1.0
    return _frame(linear)


def test_fan_pixels_dtype_and_shape() -> None:
    pixels = fan_pixels(_ramp_frame(), width_px=100)
    assert pixels.dtype == np.uint8
    # 90° FOV over 4 bearings (30° apart): half-angle 60°, height = floor(100 / (2 sin 60°)).
    assert pixels.shape == (math.floor(100 / (2 * math.sin(math.radians(60)))), 100, 3)


def test_fan_narrow_fov_is_square() -> None:
    frame = _frame(np.ones((4, 5)), fov_deg=20.0)
    assert fan_pixels(frame, width_px=64).shape == (64, 64, 3)


def test_fan_starboard_bearing_appears_right_of_centre() -> None:
    pixels = fan_pixels(_bright_bearing_frame(30.0), width_px=200)
    bright = np.argwhere(pixels[..., 0] == 255)
    assert bright.size > 0
    assert np.all(bright[:, 1] >= 100)  # columns 100.. are starboard of the apex
    # The bright sector rises at 30° right of the vertical through the apex.
    height = pixels.shape[0]
    rows, cols = bright[:, 0], bright[:, 1]
    x = cols + 0.5 - 100.0
    y = height - rows - 0.5
    angle = np.degrees(np.arctan2(x, y))
    assert np.all((angle >= 22.5) & (angle <= 37.5))


def test_fan_boresight_points_up_with_apex_at_bottom() -> None:
    linear = np.zeros((10, 7))
    linear[:, 3] = 1.0  # boresight bearing (0°)
    linear[9, 3] = 0.1  # farthest bin on boresight: darker
    pixels = fan_pixels(_frame(linear), width_px=128)
    centre = pixels[:, 63:65, 0]
    # Row -10 (not -1): right at the apex the pixel centres lie at ±45°, off boresight.
    assert np.all(centre[-10] == 255)  # nearest bin at the bottom
    assert np.all(centre[0] < 255) and np.all(centre[0] > 0)  # farthest bin at the top


def test_fan_outside_is_black_and_missing_is_magenta() -> None:
    linear = np.full((4, 3), np.nan)
    frame = _frame(linear, fov_deg=60.0, range_min_m=2.0, range_max_m=10.0)
    pixels = fan_pixels(frame, width_px=64)
    assert tuple(pixels[0, 0].tolist()) == FAN_BACKGROUND_RGB  # top-left corner
    assert tuple(pixels[-1, 32].tolist()) == FAN_BACKGROUND_RGB  # inside range_min_m
    colours = {tuple(c) for c in pixels.reshape(-1, 3).tolist()}
    assert colours == {FAN_BACKGROUND_RGB, MISSING_RGB}


def test_fan_pixels_are_deterministic() -> None:
    frame = _ramp_frame()
    first = fan_pixels(frame, width_px=97)
    second = fan_pixels(frame, width_px=97)
    assert_array_equal(first, second)
    assert fan_png(frame, width_px=97) == fan_png(frame, width_px=97)


def test_fan_png_decodes_to_fan_pixels(tmp_path: os.PathLike[str]) -> None:
    frame = _ramp_frame()
    path = os.path.join(tmp_path, "fan.png")
    data = fan_png(frame, path, width_px=80)
    with open(path, "rb") as f:
        assert f.read() == data
    with Image.open(io.BytesIO(data)) as image:
        decoded = np.asarray(image.convert("RGB"))
    assert_array_equal(decoded, fan_pixels(frame, width_px=80))


def test_fan_pixels_show_exactly_the_cells_of_the_fan_raster() -> None:
    # Every cell bright: a pixel is white exactly where the one fan geometry puts a cell.
    frame = _frame(np.ones((12, 9)), fov_deg=100.0, range_min_m=1.5, range_max_m=20.0)
    pixels = fan_pixels(frame, width_px=150)
    raster = fan_raster(
        np.asarray(frame.metadata["bearing_rad"]),
        azimuth_fov_rad=math.radians(100.0),
        range_min_m=1.5,
        range_max_m=20.0,
        range_bin_count=12,
        width_px=150,
    )
    assert pixels.shape[:2] == raster.shape
    assert_array_equal(np.all(pixels == 255, axis=-1), raster.inside)
    assert_array_equal(np.all(pixels == 0, axis=-1), ~raster.inside)


def _catalogue_sonar_grid() -> tuple[np.ndarray, float, float, float, int]:
    spec = get_vehicle("reference_survey_vehicle").sensor("sonar")
    bearing = np.asarray(beam_grid_for(spec)[0].bearing_rad)
    fov = math.radians(spec.azimuth_fov_deg)
    return bearing, fov, spec.range_min_m, spec.range_max_m, spec.range_bin_count


@pytest.mark.parametrize(
    ("fov_deg", "bearings", "bins", "width", "range_min_m", "range_max_m"),
    [
        (130.0, 256, 512, 512, 0.5, 60.0),
        (60.0, 64, 200, 300, 1.0, 30.0),
        (90.0, 7, 10, 64, 0.0, 10.0),
        (20.0, 1, 16, 100, 0.0, 5.0),
        (179.0, 101, 50, 333, 0.0, 20.0),
        (None, None, None, 640, None, None),  # the catalogue survey sonar
    ],
)
def test_fan_raster_equals_the_arctan2_reference(
    fov_deg, bearings, bins, width, range_min_m, range_max_m
) -> None:
    # The tangent comparisons pick the same cell as atan2 per pixel (the analytic tier's
    # first fan raster) wherever the two roundings agree, which is every pixel here.
    if fov_deg is None:
        bearing, fov, range_min_m, range_max_m, bins = _catalogue_sonar_grid()
    else:
        fov = math.radians(fov_deg)
        bearing = np.linspace(-fov / 2, fov / 2, bearings) if bearings > 1 else np.zeros(1)
    level = np.random.default_rng(bins).random((bins, bearing.shape[0]))
    expected, inside, extent = reference_fan_grid(
        level,
        bearing_rad=bearing,
        azimuth_fov_rad=fov,
        range_min_m=range_min_m,
        range_max_m=range_max_m,
        width_px=width,
    )
    raster = fan_raster(
        bearing,
        azimuth_fov_rad=fov,
        range_min_m=range_min_m,
        range_max_m=range_max_m,
        range_bin_count=bins,
        width_px=width,
    )
    assert raster.extent_m == extent
    assert raster.inside.dtype == np.bool_ and raster.inside.shape == inside.shape
    assert_array_equal(raster.inside, inside)
    got = raster.cells(level, np.nan)
    assert got.dtype == np.float64
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("bad", [1, 0, -5])
def test_fan_refuses_bad_width(bad: int) -> None:
    with pytest.raises(ValueError, match="width_px"):
        fan_pixels(_ramp_frame(), width_px=bad)


# --------------------------------------------------------------------------- identity


def test_display_hash_is_stable_and_separate_from_content_hash() -> None:
    frame = _ramp_frame()
    content_before = frame.content_hash
    h1 = display_product_hash(preview_pixels(frame))
    h2 = display_product_hash(preview_pixels(frame))
    assert h1 == h2
    assert len(h1) == 64
    assert h1 != frame.content_hash
    assert h1 != display_product_hash(fan_pixels(frame))
    assert frame.content_hash == content_before


def test_display_hash_changes_with_dynamic_range() -> None:
    frame = _ramp_frame()
    assert display_product_hash(preview_pixels(frame, dynamic_range_db=20.0)) != (
        display_product_hash(preview_pixels(frame, dynamic_range_db=60.0))
    )


def test_display_hash_refuses_non_pixel_arrays() -> None:
    with pytest.raises(ValueError, match="uint8"):
        display_product_hash(np.zeros((2, 2, 3)))
