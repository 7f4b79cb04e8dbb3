"""The reference multibeam's beam geometry and bottom detector, against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from leviathan.reference_cpu import multibeam as ref

F = ref.DETECTION_FLAGS


def test_equiangular_beams_are_symmetric_and_span_the_swath() -> None:
    a = ref.beam_angles(math.radians(130.0), 9, "equiangular")
    assert a[0] == -math.radians(65.0) and a[-1] == math.radians(65.0)
    assert a[4] == 0.0
    assert np.array_equal(a, -a[::-1])
    step = np.diff(a)
    assert np.allclose(step, step[0], rtol=0, atol=1e-15)


def test_equidistant_beams_are_equally_spaced_on_a_flat_bottom() -> None:
    depth = 37.0
    swath = math.radians(120.0)
    a = ref.beam_angles(swath, 11, "equidistant")
    y = np.array([depth * math.tan(x) for x in a.tolist()])
    spacing = 2.0 * depth * math.tan(0.5 * swath) / 10.0
    assert np.allclose(np.diff(y), spacing, rtol=0, atol=1e-12 * depth)
    assert y[-1] - y[0] == pytest.approx(2.0 * depth * math.tan(0.5 * swath), rel=1e-15)


def test_unknown_spacing_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="spacing: expected one of"):
        ref.beam_angles(1.0, 3, "logarithmic")


def test_beam_widths_broaden_as_one_over_cos() -> None:
    a = np.array([0.0, math.radians(60.0)])
    w = ref.beam_widths(math.radians(1.0), a)
    assert w[0] == math.radians(1.0)
    assert w[1] == pytest.approx(math.radians(2.0), rel=1e-15)


def test_axis_directions_are_unit_and_in_the_across_track_plane() -> None:
    a = ref.beam_angles(math.radians(150.0), 7, "equiangular")
    u = ref.beam_axis_directions(a)
    assert np.all(u[:, 0] == 0.0)
    assert np.allclose(u[:, 1] ** 2 + u[:, 2] ** 2, 1.0, rtol=0, atol=1e-15)
    assert np.all(np.sign(u[:, 1]) == np.sign(a))


def _centres(m: int, width: float = 0.1) -> np.ndarray:
    return (np.arange(m) + 0.5) * width


def test_detector_takes_the_return_weighted_mean_over_its_window() -> None:
    a = np.zeros((20, 1))
    a[9, 0], a[10, 0], a[11, 0] = 1.0, 4.0, 2.0
    a[12, 0] = 0.01  # more than 10 dB below the peak: outside the window
    d = ref.detect_bottom(
        a, _centres(20), threshold_db=-100.0, window_db=10.0, max_half_window_bins=8
    )
    c = _centres(20)
    expected = (c[9] * 1.0 + c[10] * 4.0 + c[11] * 2.0) / 7.0
    assert d.flag[0] == F["DETECTED"]
    assert d.range_m[0] == expected
    assert (d.window_first_bin[0], d.window_last_bin[0], d.peak_bin[0]) == (9, 11, 10)
    assert d.peak_return[0] == 4.0


def test_detector_window_is_capped_at_its_half_width() -> None:
    a = np.ones((30, 1))
    a[15, 0] = 2.0
    d = ref.detect_bottom(
        a, _centres(30), threshold_db=-100.0, window_db=10.0, max_half_window_bins=2
    )
    assert (d.window_first_bin[0], d.window_last_bin[0]) == (13, 17)


def test_detector_flags_no_bottom_below_threshold_and_missing() -> None:
    a = np.zeros((10, 3))
    a[4, 1] = 1e-12  # -120 dB
    a[:, 2] = np.nan
    d = ref.detect_bottom(
        a, _centres(10), threshold_db=-100.0, window_db=10.0, max_half_window_bins=3
    )
    assert d.flag.tolist() == [F["NO_BOTTOM"], F["BELOW_THRESHOLD"], F["MISSING_RETURN"]]
    assert np.all(np.isnan(d.range_m))
    assert d.peak_bin.tolist() == [-1, 4, -1]


def test_detector_ties_take_the_first_peak_and_stop_at_missing_bins() -> None:
    a = np.zeros((10, 1))
    a[3, 0] = a[6, 0] = 1.0
    a[4, 0] = np.nan
    a[2, 0] = 0.5
    d = ref.detect_bottom(
        a, _centres(10), threshold_db=-100.0, window_db=10.0, max_half_window_bins=3
    )
    assert d.peak_bin[0] == 3
    assert (d.window_first_bin[0], d.window_last_bin[0]) == (2, 3)


def _random_returns(rng: np.random.Generator, bins: int, beams: int) -> np.ndarray:
    """Returns with ties, zeros, negatives, NaN runs, whole-NaN and all-zero beams, +inf."""
    a = rng.choice([0.0, 0.25, 0.5, 1.0, 2.0], size=(bins, beams)) * rng.random((bins, beams))
    a[rng.random((bins, beams)) < 0.1] = np.nan
    a[rng.random((bins, beams)) < 0.05] = 1.0  # ties of the peak
    a[rng.random((bins, beams)) < 0.02] = -0.5
    a[rng.random((bins, beams)) < 0.02] = -0.0
    if beams > 3 and bins:
        a[:, 0] = np.nan
        a[:, 1] = 0.0
        a[:, 2] = -1.0
        a[bins // 2, 3] = np.inf
    return a


@pytest.mark.parametrize("bins", [0, 1, 7, 300])
@pytest.mark.parametrize("half_window", [0, 1, 4, 1000])
def test_detector_equals_the_scalar_scan_it_replaced(bins: int, half_window: int) -> None:
    # The peak search runs on whole columns (argmax over NaN-as--inf); the first
    # written detector scanned each beam bin by bin. Every output, bit for bit.
    from reference_impls import reference_detect_bottom

    rng = np.random.default_rng(bins * 1000 + half_window)
    for beams, threshold_db in ((1, -100.0), (9, -3.0), (64, -100.0), (64, 0.0)):
        a = _random_returns(rng, bins, beams)
        centres = _centres(bins)
        kwargs = dict(threshold_db=threshold_db, window_db=3.0, max_half_window_bins=half_window)
        got = ref.detect_bottom(a, centres, **kwargs)
        want = reference_detect_bottom(a, centres, **kwargs)
        fields = ("range_m", "peak_return", "peak_bin", "window_first_bin", "window_last_bin")
        for name, expected in zip((*fields, "flag"), want, strict=True):
            value = getattr(got, name)
            assert value.dtype == expected.dtype, name
            np.testing.assert_array_equal(
                value.view(np.uint64) if value.dtype == np.float64 else value,
                expected.view(np.uint64) if expected.dtype == np.float64 else expected,
                err_msg=name,
            )
