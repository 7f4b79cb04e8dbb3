"""Canonical camera: depth, range, normals, ids, sea surface, preview and identity."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from leviathan.frames import Transform
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.sensors import SensorSample, camera_preview_png, render_camera
from leviathan.sensors._camera import camera_ray_directions
from leviathan.specs import CameraSpec, MountSpec, ScheduleSpec

WIDTH, HEIGHT = 33, 21
WALL_X_M = 10.0
# Level vehicle 10 m deep looking north; the camera sits at the body origin.
POSE = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0))


def _spec(*, rpy_deg: tuple[float, float, float] = (0.0, 0.0, 0.0), **over: object) -> CameraSpec:
    base: dict[str, object] = {
        "name": "cam",
        "width_px": WIDTH,
        "height_px": HEIGHT,
        "fx_px": 20.0,
        "fy_px": 20.0,
        "cx_px": (WIDTH - 1) / 2.0,
        "cy_px": (HEIGHT - 1) / 2.0,
        "near_m": 0.05,
        "far_m": 50.0,
        "schedule": ScheduleSpec(period_ns=100_000_000),
        "mount": MountSpec(translation_m=(0.0, 0.0, 0.0), rpy_deg=rpy_deg),
        "hardware_note": "declared test value, not a device specification",
    }
    base.update(over)
    return CameraSpec(**base)  # type: ignore[arg-type]


def _wall(x: float = WALL_X_M, *, object_id: str = "wall", label: str = "wall") -> Instance:
    """A square in the world plane x = const, exactly (no rotation rounding)."""
    v = np.array([[x, -50.0, -20.0], [x, 50.0, -20.0], [x, 50.0, 40.0], [x, -50.0, 40.0]])
    mesh = TriangleMesh(v, np.array([[0, 1, 2], [0, 2, 3]]))
    return Instance(object_id, mesh, Transform.identity(), label, TEST_LAMBERT_MEDIUM)


def _render(scene: Scene, spec: CameraSpec, pose: Transform = POSE) -> SensorSample:
    return render_camera(scene, spec, pose, sensor_id="auv/cam", sample_index=2, time_ns=200)


def test_channels_have_documented_dtypes_and_shapes() -> None:
    sample = _render(Scene([_wall()]), _spec())
    expected = {
        "depth_z_m": (np.float64, (HEIGHT, WIDTH)),
        "range_m": (np.float64, (HEIGHT, WIDTH)),
        "normal_camera": (np.float64, (HEIGHT, WIDTH, 3)),
        "instance_id": (np.int32, (HEIGHT, WIDTH)),
        "semantic_id": (np.int32, (HEIGHT, WIDTH)),
        "object_id": (np.int32, (HEIGHT, WIDTH)),
    }
    assert sample.kind == "camera"
    assert set(sample.channels) == set(expected)
    for name, (dtype, shape) in expected.items():
        assert sample[name].dtype == dtype and sample[name].shape == shape, name
    preview = sample.display["preview_srgb"]
    assert preview.dtype == np.uint8 and preview.shape == (HEIGHT, WIDTH, 3)


def test_principal_point_at_image_centre_looks_along_the_optical_axis() -> None:
    d = camera_ray_directions(_spec()).reshape(HEIGHT, WIDTH, 3)
    np.testing.assert_array_equal(d[HEIGHT // 2, WIDTH // 2], [0.0, 0.0, 1.0])
    # Top-left pixel looks left (-x) and up (-y) in the OpenCV optical frame.
    assert d[0, 0, 0] < 0 and d[0, 0, 1] < 0


def test_centre_depth_equals_wall_distance() -> None:
    sample = _render(Scene([_wall()]), _spec())
    assert abs(sample["depth_z_m"][HEIGHT // 2, WIDTH // 2] - WALL_X_M) <= 1e-9
    assert abs(sample["range_m"][HEIGHT // 2, WIDTH // 2] - WALL_X_M) <= 1e-9


def test_fronto_parallel_wall_has_uniform_depth() -> None:
    sample = _render(Scene([_wall()]), _spec())
    depth = sample["depth_z_m"]
    assert np.all(np.isfinite(depth))
    np.testing.assert_allclose(depth, WALL_X_M, rtol=0, atol=1e-9)
    # Range grows off axis: range = depth / d_z.
    d_z = camera_ray_directions(_spec())[:, 2].reshape(HEIGHT, WIDTH)
    np.testing.assert_allclose(sample["range_m"], WALL_X_M / d_z, rtol=1e-12)


def test_wall_normal_faces_the_camera() -> None:
    sample = _render(Scene([_wall()]), _spec())
    np.testing.assert_allclose(
        sample["normal_camera"].reshape(-1, 3), [[0.0, 0.0, -1.0]] * (HEIGHT * WIDTH), atol=1e-15
    )


def test_ids_index_the_metadata_tables() -> None:
    scene = Scene([_wall(object_id="pier", label="structure")])
    sample = _render(scene, _spec())
    np.testing.assert_array_equal(sample["instance_id"], 0)
    labels, objects = sample.metadata["semantic_labels"], sample.metadata["object_ids"]
    assert {labels[i] for i in np.unique(sample["semantic_id"])} == {"structure"}
    assert {objects[i] for i in np.unique(sample["object_id"])} == {"pier"}


def test_nothing_hit_is_missing() -> None:
    # Looking straight down into empty water: no seabed, no surface.
    sample = _render(Scene([]), _spec(rpy_deg=(0.0, -90.0, 0.0)))
    for name in ("depth_z_m", "range_m", "normal_camera"):
        assert np.all(np.isnan(sample[name])), name
    for name in ("instance_id", "semantic_id", "object_id"):
        np.testing.assert_array_equal(sample[name], -1)


def test_beyond_far_is_missing() -> None:
    sample = _render(Scene([_wall()]), _spec(far_m=9.0))
    assert np.all(np.isnan(sample["depth_z_m"]))
    np.testing.assert_array_equal(sample["instance_id"], -1)


def test_geometry_nearer_than_near_is_clipped_away() -> None:
    # A second wall 0.02 m in front of the camera lies before the near plane (0.05 m).
    scene = Scene([_wall(0.02, object_id="glass", label="glass"), _wall()])
    sample = _render(scene, _spec())
    np.testing.assert_array_equal(sample["instance_id"], 1)
    np.testing.assert_allclose(sample["depth_z_m"], WALL_X_M, rtol=0, atol=1e-9)


def test_looking_up_sees_the_sea_surface() -> None:
    scene = Scene([_wall(-100.0)])  # behind the camera, out of view
    sample = _render(scene, _spec(rpy_deg=(0.0, 90.0, 0.0)))
    np.testing.assert_array_equal(sample["instance_id"], scene.sea_surface_instance)
    labels = sample.metadata["semantic_labels"]
    assert {labels[i] for i in np.unique(sample["semantic_id"])} == {"sea_surface"}
    # The surface is 10 m above and perpendicular to the optical axis.
    np.testing.assert_allclose(sample["depth_z_m"], 10.0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(
        sample["normal_camera"][HEIGHT // 2, WIDTH // 2], [0.0, 0.0, -1.0], atol=1e-15
    )


def test_tilted_camera_normal_faces_camera() -> None:
    sample = _render(Scene([_wall()]), _spec(rpy_deg=(0.0, 0.0, 20.0)))
    d = camera_ray_directions(_spec()).reshape(HEIGHT, WIDTH, 3)
    n = sample["normal_camera"]
    assert np.all(np.sum(n * d, axis=-1) < 0.0)
    yaw = math.radians(20.0)
    # The wall normal (-x world) seen from a camera yawed right by 20°: to the left, towards it.
    np.testing.assert_allclose(n[0, 0], [math.sin(yaw), 0.0, -math.cos(yaw)], atol=1e-15)


def test_content_hash_is_reproducible() -> None:
    scene, spec = Scene([_wall()]), _spec()
    a, b = _render(scene, spec), _render(scene, spec)
    assert a.content_hash == b.content_hash
    for name in a.channels:
        np.testing.assert_array_equal(a[name], b[name])


def test_preview_is_deterministic_and_outside_the_identity(tmp_path) -> None:
    scene, spec = Scene([_wall()]), _spec(rpy_deg=(0.0, 20.0, 0.0))
    a, b = _render(scene, spec), _render(scene, spec)
    png = camera_preview_png(a, tmp_path / "preview.png")
    assert png == camera_preview_png(b)
    assert (tmp_path / "preview.png").read_bytes() == png
    assert png.startswith(b"\x89PNG")
    hashes = a.display_hashes()
    assert hashes == b.display_hashes()
    assert hashes["preview_srgb"] != a.content_hash
    stripped = dataclasses.replace(a, display={})
    assert stripped.content_hash == a.content_hash
    # The upper rows see the sea surface, the others the wall: two distinct colours.
    assert len({tuple(p) for p in a.display["preview_srgb"].reshape(-1, 3)}) > 2


def test_camera_preview_png_refuses_non_camera_samples() -> None:
    from leviathan.sensors import BodyKinematics, measure_imu
    from leviathan.specs import IMUSpec

    imu = IMUSpec(
        name="imu",
        schedule=ScheduleSpec(period_ns=10_000_000),
        mount=MountSpec(translation_m=(0.0, 0.0, 0.0)),
        hardware_note="declared test value",
    )
    sample = measure_imu(imu, BodyKinematics(POSE), sensor_id="auv/imu", sample_index=0, time_ns=0)
    with pytest.raises(ValueError, match="camera"):
        camera_preview_png(sample)


def test_channels_are_read_only() -> None:
    sample = _render(Scene([_wall()]), _spec())
    with pytest.raises(ValueError):
        sample["depth_z_m"][0, 0] = 1.0
    with pytest.raises(TypeError):
        sample.channels["depth_z_m"] = np.zeros(1)  # type: ignore[index]
