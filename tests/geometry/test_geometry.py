"""Tests for leviathan.geometry: deterministic float64 mesh generators."""

from __future__ import annotations

import hashlib
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from leviathan.geometry import (
    SEABED_ROUGHNESS_FRACTION,
    box_mesh,
    cylinder_mesh,
    heightfield_mesh,
    merge_meshes,
    plane_mesh,
    seabed_grid_shape,
    seabed_mesh,
    uv_sphere_mesh,
)
from leviathan.scene import TriangleMesh

SEABED_KWARGS = {
    "triangle_count": 20_000,
    "size_m": (200.0, 120.0),
    "mean_depth_m": 35.0,
    "relief_m": 3.0,
    "seed": 20240601,
    "origin": (-100.0, -60.0),
}

# name -> zero-argument builder; the subprocess check (this file as a worker) rebuilds them.
BUILDERS: dict[str, Callable[[], TriangleMesh]] = {
    "plane": lambda: plane_mesh(4.0, 3.0, divisions_x=5, divisions_y=7, center=(1.0, -2.0, 9.5)),
    "box": lambda: box_mesh((1.0, 2.0, 3.0), center=(0.25, -0.5, 4.0)),
    "sphere": lambda: uv_sphere_mesh(1.7, segments=24, rings=12, center=(3.0, 0.0, 8.0)),
    "cylinder": lambda: cylinder_mesh(0.3, 2.5, segments=20, axis="x", center=(0.0, 1.0, 2.0)),
    "heightfield": lambda: heightfield_mesh(
        np.arange(12.0).reshape(3, 4) * 0.1 + 10.0, spacing_m=(0.5, 0.25), origin=(1.0, 2.0)
    ),
    "seabed": lambda: seabed_mesh(**SEABED_KWARGS),
}


def _digest(mesh: TriangleMesh) -> str:
    return hashlib.sha256(mesh.vertices.tobytes() + mesh.faces.tobytes()).hexdigest()


def _face_normals(mesh: TriangleMesh) -> np.ndarray:
    v = mesh.vertices[mesh.faces]
    return np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])


def _assert_outward(mesh: TriangleMesh, center: tuple[float, float, float]) -> None:
    centroids = mesh.vertices[mesh.faces].mean(axis=1) - np.asarray(center)
    assert np.all(np.sum(_face_normals(mesh) * centroids, axis=1) > 0.0)


# ----------------------------------------------------------------- dtypes, shapes, counts


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_dtypes_and_shapes(name: str) -> None:
    mesh = BUILDERS[name]()
    assert mesh.vertices.dtype == np.float64
    assert mesh.faces.dtype == np.int64
    assert mesh.vertices.ndim == 2 and mesh.vertices.shape[1] == 3
    assert mesh.faces.ndim == 2 and mesh.faces.shape[1] == 3


@pytest.mark.parametrize(
    ("mesh", "vertex_count", "triangle_count"),
    [
        (plane_mesh(1.0, 1.0), 4, 2),
        (plane_mesh(4.0, 3.0, divisions_x=5, divisions_y=7), 48, 70),
        (box_mesh((1.0, 1.0, 1.0)), 8, 12),
        (uv_sphere_mesh(1.0, segments=16, rings=8), 2 + 7 * 16, 2 * 16 * 7),
        (uv_sphere_mesh(1.0, segments=3, rings=2), 5, 6),
        (cylinder_mesh(1.0, 2.0, segments=16), 34, 64),
        (cylinder_mesh(1.0, 2.0, segments=16, capped=False), 32, 32),
        (heightfield_mesh(np.zeros((4, 6))), 24, 30),
    ],
)
def test_vertex_and_triangle_counts(
    mesh: TriangleMesh, vertex_count: int, triangle_count: int
) -> None:
    assert mesh.vertices.shape == (vertex_count, 3)
    assert mesh.faces.shape == (triangle_count, 3)
    assert mesh.triangle_count == triangle_count


# ----------------------------------------------------------------- determinism


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_two_calls_are_identical(name: str) -> None:
    first, second = BUILDERS[name](), BUILDERS[name]()
    assert_array_equal(first.vertices, second.vertices)
    assert_array_equal(first.faces, second.faces)


def _digests() -> str:
    """One ``name sha256`` line per builder, in name order."""
    return "".join(f"{name} {_digest(BUILDERS[name]())}\n" for name in sorted(BUILDERS))


def test_subprocess_builds_the_same_bytes() -> None:
    result = subprocess.run(
        # this file is the worker (see the end): it imports only the installed package
        [sys.executable, str(Path(__file__).resolve()), "--worker"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    expected = _digests()
    assert len(expected.splitlines()) == len(BUILDERS)
    assert result.stdout == expected


# ----------------------------------------------------------------- plane


def test_plane_bounds_are_exact() -> None:
    mesh = plane_mesh(4.0, 3.0, divisions_x=5, divisions_y=7, center=(1.0, -2.0, 9.5))
    assert_array_equal(mesh.vertices.min(axis=0), [-1.0, -3.5, 9.5])
    assert_array_equal(mesh.vertices.max(axis=0), [3.0, -0.5, 9.5])


def test_plane_normals_point_up_along_z() -> None:
    normals = _face_normals(plane_mesh(4.0, 3.0, divisions_x=5, divisions_y=7))
    assert_array_equal(normals[:, :2], 0.0)
    assert np.all(normals[:, 2] < 0.0)


def test_plane_triangle_order_is_row_major() -> None:
    mesh = plane_mesh(2.0, 2.0, divisions_x=2, divisions_y=2)
    # Cell (i=1, j=0): v00 = 1, v10 = 2, v01 = 4, v11 = 5.
    assert_array_equal(mesh.faces[2], [1, 5, 2])
    assert_array_equal(mesh.faces[3], [1, 4, 5])


# ----------------------------------------------------------------- box, sphere, cylinder


def test_box_bounds_and_outward_winding() -> None:
    center = (0.25, -0.5, 4.0)
    mesh = box_mesh((1.0, 2.0, 3.0), center=center)
    assert_array_equal(mesh.vertices.min(axis=0), [-0.25, -1.5, 2.5])
    assert_array_equal(mesh.vertices.max(axis=0), [0.75, 0.5, 5.5])
    _assert_outward(mesh, center)


def test_sphere_bounds_and_radius() -> None:
    center = (3.0, 0.0, 8.0)
    mesh = uv_sphere_mesh(1.7, segments=24, rings=12, center=center)
    assert_array_equal(mesh.vertices[0], [3.0, 0.0, 8.0 - 1.7])
    assert_array_equal(mesh.vertices[-1], [3.0, 0.0, 8.0 + 1.7])
    assert np.all(mesh.vertices >= np.asarray(center) - 1.7)
    assert np.all(mesh.vertices <= np.asarray(center) + 1.7)
    # Reason for the tolerance: trig and the centre offset each round once.
    radius = np.linalg.norm(mesh.vertices - np.asarray(center), axis=1)
    np.testing.assert_allclose(radius, 1.7, rtol=0.0, atol=1e-12)


def test_sphere_winding_is_outward() -> None:
    center = (3.0, 0.0, 8.0)
    _assert_outward(uv_sphere_mesh(1.7, segments=24, rings=12, center=center), center)


@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_cylinder_extent_follows_axis(axis: str) -> None:
    mesh = cylinder_mesh(0.5, 4.0, segments=16, axis=axis)
    extent = np.ptp(mesh.vertices, axis=0)
    along = "xyz".index(axis)
    assert extent[along] == 4.0
    assert np.all(np.delete(extent, along) == 1.0)


@pytest.mark.parametrize("axis", ["x", "y", "z"])
@pytest.mark.parametrize("capped", [True, False])
def test_cylinder_winding_is_outward(axis: str, capped: bool) -> None:
    center = (1.0, -1.0, 2.0)
    mesh = cylinder_mesh(0.5, 4.0, segments=16, axis=axis, capped=capped, center=center)
    _assert_outward(mesh, center)


# ----------------------------------------------------------------- heightfield


def test_heightfield_depths_equal_input_exactly() -> None:
    depths = 30.0 + np.random.default_rng(5).standard_normal((6, 9))
    mesh = heightfield_mesh(depths, spacing_m=(0.5, 0.25), origin=(1.0, 2.0))
    assert_array_equal(mesh.vertices[:, 2], depths.ravel())


def test_heightfield_grid_positions() -> None:
    mesh = heightfield_mesh(np.zeros((3, 4)), spacing_m=(0.5, 0.25), origin=(1.0, 2.0))
    grid = mesh.vertices.reshape(3, 4, 3)
    assert_array_equal(grid[0, :, 0], [1.0, 1.5, 2.0, 2.5])
    assert_array_equal(grid[:, 0, 1], [2.0, 2.25, 2.5])


# ----------------------------------------------------------------- seabed


@pytest.mark.parametrize("requested", [1_000, 10_000, 12_345, 100_000])
@pytest.mark.parametrize("size_m", [(100.0, 100.0), (300.0, 50.0), (20.0, 90.0)])
def test_seabed_triangle_count_meets_request_within_few_percent(
    requested: int, size_m: tuple[float, float]
) -> None:
    kwargs = {**SEABED_KWARGS, "triangle_count": requested, "size_m": size_m}
    mesh = seabed_mesh(**kwargs)
    nx, ny = seabed_grid_shape(requested, size_m)
    assert mesh.triangle_count == 2 * nx * ny
    assert requested <= mesh.triangle_count <= 1.05 * requested


def test_seabed_cells_follow_aspect() -> None:
    nx, ny = seabed_grid_shape(100_000, (300.0, 50.0))
    assert math.isclose(nx / ny, 6.0, rel_tol=0.05)


def test_seabed_depths_stay_within_relief_bound() -> None:
    depths = seabed_mesh(**SEABED_KWARGS).vertices[:, 2]
    mean, relief = SEABED_KWARGS["mean_depth_m"], SEABED_KWARGS["relief_m"]
    assert np.all(np.abs(depths - mean) <= 1.1 * relief)
    # The relief is actually used, not collapsed to the roughness alone.
    assert np.ptp(depths) > relief


def test_seabed_with_zero_relief_is_flat() -> None:
    depths = seabed_mesh(**{**SEABED_KWARGS, "relief_m": 0.0}).vertices[:, 2]
    assert_array_equal(depths, SEABED_KWARGS["mean_depth_m"])


def test_seabed_seed_changes_depths_only() -> None:
    first = seabed_mesh(**SEABED_KWARGS)
    other = seabed_mesh(**{**SEABED_KWARGS, "seed": SEABED_KWARGS["seed"] + 1})
    assert_array_equal(first.faces, other.faces)
    assert_array_equal(first.vertices[:, :2], other.vertices[:, :2])
    assert not np.array_equal(first.vertices[:, 2], other.vertices[:, 2])


def test_seabed_smooth_field_does_not_depend_on_origin() -> None:
    here = seabed_mesh(**SEABED_KWARGS)
    there = seabed_mesh(**{**SEABED_KWARGS, "origin": (500.0, 250.0)})
    assert_array_equal(here.vertices[:, 2], there.vertices[:, 2])


def test_seabed_roughness_is_small() -> None:
    # Neighbouring vertices differ by the smooth slope plus at most twice the roughness.
    depths = seabed_mesh(**{**SEABED_KWARGS, "triangle_count": 200_000}).vertices[:, 2]
    nx, _ = seabed_grid_shape(200_000, SEABED_KWARGS["size_m"])
    step = np.abs(np.diff(depths.reshape(-1, nx + 1), axis=1))
    assert step.max() < 3.0 * SEABED_ROUGHNESS_FRACTION * SEABED_KWARGS["relief_m"]


# ----------------------------------------------------------------- merge


def test_merge_preserves_order_and_reindexes_faces() -> None:
    a, b, c = box_mesh((1.0, 1.0, 1.0)), plane_mesh(2.0, 2.0), uv_sphere_mesh(1.0)
    merged = merge_meshes([a, b, c])
    assert_array_equal(merged.vertices, np.concatenate([a.vertices, b.vertices, c.vertices]))
    assert_array_equal(merged.faces[:12], a.faces)
    assert_array_equal(merged.faces[12:14], b.faces + 8)
    assert_array_equal(merged.faces[14:], c.faces + 12)
    assert_array_equal(merged.vertices[merged.faces[14:]], c.vertices[c.faces])


def test_merge_of_one_mesh_is_that_mesh() -> None:
    box = box_mesh((1.0, 2.0, 3.0))
    merged = merge_meshes([box])
    assert_array_equal(merged.vertices, box.vertices)
    assert_array_equal(merged.faces, box.faces)


# ----------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: plane_mesh(0.0, 1.0), ValueError, "size_x_m"),
        (lambda: plane_mesh(1.0, -1.0), ValueError, "size_y_m"),
        (lambda: plane_mesh(math.inf, 1.0), ValueError, "size_x_m"),
        (lambda: plane_mesh(1.0, 1.0, divisions_x=0), ValueError, "divisions_x"),
        (lambda: plane_mesh(1.0, 1.0, divisions_y=1.5), TypeError, "divisions_y"),
        (lambda: plane_mesh(1.0, 1.0, center=(0.0, 0.0)), ValueError, "center"),
        (lambda: plane_mesh(1.0, 1.0, center=(0.0, math.nan, 0.0)), ValueError, r"center\[1\]"),
        (lambda: box_mesh((1.0, 0.0, 1.0)), ValueError, r"size_m\[1\]"),
        (lambda: box_mesh((1.0, 1.0)), ValueError, "size_m"),
        (lambda: box_mesh("abc"), TypeError, "size_m"),
        (lambda: uv_sphere_mesh(-1.0), ValueError, "radius_m"),
        (lambda: uv_sphere_mesh(1.0, segments=2), ValueError, "segments"),
        (lambda: uv_sphere_mesh(1.0, rings=1), ValueError, "rings"),
        (lambda: uv_sphere_mesh(1.0, rings=True), TypeError, "rings"),
        (lambda: cylinder_mesh(1.0, 0.0), ValueError, "length_m"),
        (lambda: cylinder_mesh(1.0, 1.0, axis="w"), ValueError, "axis"),
        (lambda: cylinder_mesh(1.0, 1.0, capped="yes"), TypeError, "capped"),
        (lambda: heightfield_mesh(np.zeros(4)), ValueError, "depths_m"),
        (lambda: heightfield_mesh(np.zeros((1, 4))), ValueError, "depths_m"),
        (lambda: heightfield_mesh(np.array([[0.0, 1.0], [np.nan, 0.0]])), ValueError, "(1, 0)"),
        (lambda: heightfield_mesh(np.array([["a", "b"], ["c", "d"]])), TypeError, "depths_m"),
        (lambda: heightfield_mesh(np.zeros((2, 2)), spacing_m=(0.0, 1.0)), ValueError, "spacing"),
        (
            lambda: seabed_mesh(**{**SEABED_KWARGS, "triangle_count": 1}),
            ValueError,
            "triangle_count",
        ),
        (
            lambda: seabed_mesh(**{**SEABED_KWARGS, "triangle_count": 1e4}),
            TypeError,
            "triangle_count",
        ),
        (lambda: seabed_mesh(**{**SEABED_KWARGS, "size_m": (0.0, 1.0)}), ValueError, "size_m"),
        (lambda: seabed_mesh(**{**SEABED_KWARGS, "relief_m": -1.0}), ValueError, "relief_m"),
        (
            lambda: seabed_mesh(**{**SEABED_KWARGS, "mean_depth_m": math.nan}),
            ValueError,
            "mean_depth_m",
        ),
        (lambda: seabed_mesh(**{**SEABED_KWARGS, "seed": -1}), ValueError, "seed"),
        (lambda: seabed_mesh(**{**SEABED_KWARGS, "seed": 2**64}), ValueError, "seed"),
        (lambda: merge_meshes([]), ValueError, "meshes"),
        (lambda: merge_meshes([box_mesh(), "box"]), TypeError, r"meshes\[1\]"),
        (lambda: merge_meshes(box_mesh()), TypeError, "meshes"),
    ],
)
def test_invalid_arguments_are_rejected(
    build: Callable[[], TriangleMesh], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        build()


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    sys.stdout.write(_digests())


def test_capsule_is_closed_outward_and_spans_its_length() -> None:
    import trimesh

    from leviathan.geometry import capsule_mesh

    r, length, n, rings = 0.088, 1.8, 32, 8
    mesh = capsule_mesh(r, length, segments=n, rings=rings)
    assert mesh.vertices.shape == (2 + 2 * rings * n, 3)
    assert mesh.faces.shape == (4 * rings * n, 3)
    assert_array_equal(mesh.vertices.min(axis=0), [-0.9, -r, -r])
    assert_array_equal(mesh.vertices.max(axis=0), [0.9, r, r])
    solid = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
    assert solid.is_watertight and solid.is_winding_consistent
    # Inscribed polygons: the volume lies just below the true capsule's, and above it
    # shrunk by cos(pi / n) in radius.
    exact = math.pi * r * r * (length - 2 * r) + 4.0 / 3.0 * math.pi * r**3
    assert exact * math.cos(math.pi / n) ** 2 * math.cos(math.pi / (4 * rings)) < solid.volume
    assert solid.volume < exact


def test_capsule_shorter_than_its_diameter_is_refused() -> None:
    from leviathan.geometry import capsule_mesh

    with pytest.raises(ValueError, match="length_m"):
        capsule_mesh(0.5, 0.9)


def test_hull_meshes_match_their_declared_dimensions() -> None:
    from leviathan.catalogue import get_vehicle
    from leviathan.geometry import hull_mesh

    for name, extent in (
        ("reference_survey_vehicle", (1.8, 0.176, 0.176)),
        ("torpedo_auv", (1.6, 0.153, 0.153)),
        ("inspection_rov", (0.45, 0.34, 0.25)),
    ):
        mesh = hull_mesh(get_vehicle(name).hull)
        span = mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)
        np.testing.assert_allclose(span, extent, rtol=0, atol=1e-12)
        # Centred on the CG (the body origin).
        np.testing.assert_allclose(mesh.vertices.max(axis=0), np.array(extent) / 2, atol=1e-12)
