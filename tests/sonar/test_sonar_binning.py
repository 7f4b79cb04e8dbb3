"""Range bins: the one binning function, its exact boundaries and the published edges.

The sonar puts a slant range R in image row ``k = min(floor((R - r_min) / width), N - 1)``
(float64, in this order). ``_frozen_bin`` below is that arithmetic transcribed from
the renderer as it was when the fixture was frozen; ``range_bin`` must equal it for
every float64, and ``range_bin_boundaries`` must reproduce it through
``np.searchsorted``. The published ``range_bin_edges_m`` stay the rounded nominal
edges (frozen content), within a stated number of ulps of the exact boundaries.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from leviathan.parity import build_scene
from leviathan.sonar import SonarFrame, range_bin, range_bin_boundaries, range_bin_edges
from leviathan.sonar.display import fan_pixels, preview_pixels

# Windows of the frozen scenes and the survey vehicle, then seeded random ones.
_NAMED_WINDOWS = [
    (1.0, 40.0, 48),
    (1.0, 40.0, 40),
    (1.0, 40.0, 24),
    (1.0, 30.0, 30),
    (0.2, 4.0, 32),
    (60.0, 150.0, 45),
    (0.5, 60.0, 512),
    (0.0, 10.0, 6),
    (0.0, 10.0, 7),
    (0.0, 1.0, 1),
]


def _random_windows(count: int, seed: int) -> list[tuple[float, float, int]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        r_min = float(rng.choice([0.0, rng.uniform(0.0, 100.0)]))
        r_max = r_min + float(rng.uniform(1e-3, 300.0))
        out.append((r_min, r_max, int(rng.integers(1, 1500))))
    return out


WINDOWS = _NAMED_WINDOWS + _random_windows(40, seed=20261130)


def _window(r_min: float, r_max: float, n: int) -> dict:
    return {"range_min_m": r_min, "range_max_m": r_max, "range_bin_count": n}


def _frozen_bin(range_m: np.ndarray, r_min: float, r_max: float, n: int) -> np.ndarray:
    """The renderer's binning as frozen: in-window test, then floor and clamp; -1 outside."""
    r = np.asarray(range_m, dtype=np.float64)
    out = np.full(r.shape, -1, dtype=np.int64)
    inside = (r >= r_min) & (r < r_max)
    width = (r_max - r_min) / float(n)
    out[inside] = np.minimum(np.floor((r[inside] - r_min) / width).astype(np.int64), n - 1)
    return out


def _neighbours(values: np.ndarray, steps: int = 3) -> np.ndarray:
    """Each value and its ``steps`` nextafter neighbours on both sides."""
    out = [values]
    up, down = values.copy(), values.copy()
    for _ in range(steps):
        up = np.nextafter(up, np.inf)
        down = np.nextafter(down, -np.inf)
        out += [up, down]
    return np.concatenate(out)


def _probes(r_min: float, r_max: float, n: int, seed: int) -> np.ndarray:
    """Every edge and boundary with neighbours, the window ends, outside values, random ranges."""
    rng = np.random.default_rng(seed)
    edges = range_bin_edges(**_window(r_min, r_max, n))
    bounds = range_bin_boundaries(**_window(r_min, r_max, n))
    special = np.array([r_min, r_max, 0.0, -0.0, -1.0, 2.0 * r_max + 1.0], dtype=np.float64)
    return np.concatenate(
        [
            _neighbours(np.concatenate([edges, bounds, special])),
            rng.uniform(r_min - 1.0, r_max + 1.0, size=2000),
            np.array([np.nan, np.inf, -np.inf]),
        ]
    )


@pytest.mark.parametrize(("r_min", "r_max", "n"), WINDOWS)
def test_range_bin_equals_the_frozen_assignment(r_min: float, r_max: float, n: int) -> None:
    probes = _probes(r_min, r_max, n, seed=n)
    got = range_bin(probes, **_window(r_min, r_max, n))
    assert got.dtype == np.int64
    assert got.shape == probes.shape
    assert_array_equal(got, _frozen_bin(probes, r_min, r_max, n))


@pytest.mark.parametrize(("r_min", "r_max", "n"), WINDOWS)
def test_searchsorted_on_boundaries_reproduces_range_bin(
    r_min: float, r_max: float, n: int
) -> None:
    bounds = range_bin_boundaries(**_window(r_min, r_max, n))
    probes = _probes(r_min, r_max, n, seed=n + 1)
    k = np.searchsorted(bounds, probes, side="right") - 1
    k = np.where((k >= 0) & (k < n), k, -1)
    assert_array_equal(k, range_bin(probes, **_window(r_min, r_max, n)))


@pytest.mark.parametrize(("r_min", "r_max", "n"), WINDOWS)
def test_each_boundary_is_the_first_value_of_its_bin(r_min: float, r_max: float, n: int) -> None:
    bounds = range_bin_boundaries(**_window(r_min, r_max, n))
    assert bounds.dtype == np.float64
    assert bounds.shape == (n + 1,)
    assert bounds[0] == r_min
    assert bounds[n] == r_max
    assert np.all(np.diff(bounds) >= 0.0)
    inner = bounds[1:n]
    k = np.arange(1, n)
    assert np.all(range_bin(inner, **_window(r_min, r_max, n)) >= k)
    assert np.all(range_bin(np.nextafter(inner, -np.inf), **_window(r_min, r_max, n)) < k)


@pytest.mark.parametrize(("r_min", "r_max", "n"), WINDOWS)
def test_published_edges_are_the_frozen_formula(r_min: float, r_max: float, n: int) -> None:
    width = (r_max - r_min) / float(n)
    assert_array_equal(
        range_bin_edges(**_window(r_min, r_max, n)),
        r_min + width * np.arange(n + 1, dtype=np.float64),
    )


@pytest.mark.parametrize(("r_min", "r_max", "n"), WINDOWS)
def test_published_edges_lie_within_six_ulp_of_the_boundaries(
    r_min: float, r_max: float, n: int
) -> None:
    edges = range_bin_edges(**_window(r_min, r_max, n))
    bounds = range_bin_boundaries(**_window(r_min, r_max, n))
    assert np.all(np.abs(bounds[1:n] - edges[1:n]) <= 6.0 * np.spacing(edges[1:n]))


def test_some_range_on_a_published_edge_belongs_to_the_lower_bin() -> None:
    # Why the function exists: in the window of the frozen scene range_window_near,
    # (0.2, 4.0) m in 32 bins, a range exactly on a printed edge can sit in the bin
    # below it, so searching the published edges puts it one bin too far.
    window = _window(0.2, 4.0, 32)
    edges = range_bin_edges(**window)[1:32]
    k = np.arange(1, 32)
    below = range_bin(edges, **window) == k - 1
    assert np.any(below)
    searched = np.searchsorted(range_bin_edges(**window), edges[below], side="right") - 1
    assert_array_equal(searched, k[below])


def test_range_bin_keeps_the_input_shape_and_takes_scalars() -> None:
    window = _window(1.0, 40.0, 48)
    assert range_bin(np.full((2, 3), 5.0), **window).shape == (2, 3)
    scalar = range_bin(1.0, **window)
    assert scalar.shape == ()
    assert int(scalar) == 0


def test_range_bin_accepts_integer_and_float32_ranges() -> None:
    window = _window(0.0, 10.0, 7)
    r32 = np.array([0.1, 3.3, 9.99], dtype=np.float32)
    assert_array_equal(range_bin(r32, **window), range_bin(r32.astype(np.float64), **window))
    assert_array_equal(range_bin(np.array([0, 5, 10]), **window), [0, 3, -1])


@pytest.mark.parametrize(
    ("kwargs", "error", "field"),
    [
        (_window(-1.0, 10.0, 4), ValueError, "range_min_m"),
        (_window(float("nan"), 10.0, 4), ValueError, "range_min_m"),
        (_window(True, 10.0, 4), TypeError, "range_min_m"),
        (_window(5.0, 5.0, 4), ValueError, "range_max_m"),
        (_window(0.0, float("inf"), 4), ValueError, "range_max_m"),
        (_window(0.0, "10", 4), TypeError, "range_max_m"),
        (_window(0.0, 10.0, 0), ValueError, "range_bin_count"),
        (_window(0.0, 10.0, 4.0), TypeError, "range_bin_count"),
    ],
)
def test_bad_windows_are_refused_naming_the_field(kwargs: dict, error: type, field: str) -> None:
    for function in (range_bin_edges, range_bin_boundaries):
        with pytest.raises(error, match=field):
            function(**kwargs)
    with pytest.raises(error, match=field):
        range_bin(np.array([1.0]), **kwargs)


def test_non_real_ranges_are_refused() -> None:
    with pytest.raises(TypeError, match="range_m"):
        range_bin(np.array(["1.0"]), **_window(0.0, 10.0, 4))
    with pytest.raises(TypeError, match="range_m"):
        range_bin(np.array([True]), **_window(0.0, 10.0, 4))


@pytest.mark.parametrize(
    "scene_name", ["flat_survey", "range_window_near", "range_window_far", "topk_16"]
)
def test_rendered_contributors_re_bin_into_their_rows(scene_name: str) -> None:
    frame = build_scene(scene_name).render(backend="reference")
    spec = frame.metadata["spec"]
    window = _window(spec["range_min_m"], spec["range_max_m"], spec["range_bin_count"])
    for channel in ("primary_range_m", "topk_range_m"):
        ranges = frame.channels[channel]
        rows = np.broadcast_to(
            np.arange(ranges.shape[0]).reshape(-1, *([1] * (ranges.ndim - 1))), ranges.shape
        )
        occupied = ~np.isnan(ranges)
        assert np.count_nonzero(occupied) > 0
        assert_array_equal(range_bin(ranges[occupied], **window), rows[occupied])
        bounds = range_bin_boundaries(**window)
        searched = np.searchsorted(bounds, ranges[occupied], side="right") - 1
        assert_array_equal(searched, rows[occupied])


def test_rendered_edges_metadata_is_range_bin_edges() -> None:
    frame = build_scene("flat_survey").render(backend="reference")
    spec = frame.metadata["spec"]
    window = _window(spec["range_min_m"], spec["range_max_m"], spec["range_bin_count"])
    assert_array_equal(frame.metadata["range_bin_edges_m"], range_bin_edges(**window))


def test_fan_pixel_on_a_published_edge_shows_the_sonars_bin() -> None:
    # A window (found by searching r_min) where the centre of fan pixel (row 0,
    # column 27) lies exactly on published edge 2, a value the sonar puts in bin 1.
    r_min, r_max, n, fov_deg, width_px = 9.921916691102409, 10.0, 8, 90.0, 64
    window = _window(r_min, r_max, n)
    edges = range_bin_edges(**window)
    height = 34  # fan_pixels: floor(64 / (2 sin 67.5°)) for 3 bearings over 90°
    scale = r_max / height
    x, y = (27 + 0.5 - 0.5 * width_px) * scale, (height - 0.5) * scale
    r_pixel = np.sqrt(np.float64(x * x + y * y))
    assert r_pixel == edges[2]
    assert int(range_bin(r_pixel, **window)) == 1

    linear = np.repeat(10.0 ** -np.arange(n, dtype=np.float64)[:, None], 3, axis=1)
    frame = SonarFrame(
        channels={"linear_return": linear, "validity": np.full((n, 3), 2, dtype=np.uint16)},
        metadata={
            "spec": {
                "azimuth_fov_deg": fov_deg,
                "bearing_count": 3,
                "dynamic_range_db": 80.0,
                **window,
            },
            "bearing_rad": np.radians([-45.0, 0.0, 45.0]),
            "range_bin_edges_m": edges,
        },
    )
    pixels = fan_pixels(frame, width_px=width_px)
    assert pixels.shape == (height, width_px, 3)
    # The B-scan preview draws range bin k in its row n - 1 - k; rows are 10 dB apart.
    grey = preview_pixels(frame)[::-1, 0, 0]
    assert len(set(grey.tolist())) == n
    assert pixels[0, 27, 0] == grey[1]
