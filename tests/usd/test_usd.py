"""OpenUSD export: validity, exact round trip of poses, camera lens, time codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from world_cases import with_sensor

from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform
from leviathan.geometry import box_mesh, plane_mesh
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene
from leviathan.time import Clock
from leviathan.usd import (
    R_OPENCV_USDCAMERA,
    R_SENSOR_USDCAMERA,
    R_ZUP_NED,
    CameraLens,
    VehicleTrack,
    camera_lens,
    export_stage,
    intrinsics_from_lens,
    transform_from_usd_matrix,
    usd_matrix,
)

pxr = pytest.importorskip("pxr", reason="usd-core is needed to read stages back")
from pxr import Usd, UsdGeom, UsdPhysics, UsdSemantics, UsdUtils, UsdValidation  # noqa: E402

STEP_A_NS = 20_000_000
STEP_B_NS = 10_000_000
SUFFIXES = (".usda", ".usdc")
PROVENANCE = {
    "snapshot_hash": "5" * 64,
    "root_seed": 2**64 - 1,
    "leviathan_version": "0.1.0",
}


# --------------------------------------------------------------------------- inputs


def _scene() -> Scene:
    seabed = Instance(
        object_id="seabed",
        mesh=plane_mesh(40.0, 30.0, divisions_x=4, divisions_y=3),
        T_world_object=Transform.from_euler(0.0, 0.0, 0.1, translation=(1.0 / 3.0, -2.0, 20.0)),
        semantic_label="seabed",
        material=TEST_LAMBERT_MEDIUM,
    )
    target = Instance(
        object_id="target.box-1",  # not a valid USD prim name: sanitised, kept as an attribute
        mesh=box_mesh((1.1, 2.0, 0.3), center=(0.1, 0.2, 0.3)),
        T_world_object=Transform.from_euler(0.1, -0.2, 2.9, translation=(5.0, -3.0, 18.7)),
        semantic_label="target",
        material=None,
    )
    return Scene([seabed, target], name="usd_test_scene")


def _off_centre_camera_vehicle():
    """Torpedo AUV with a non-square, off-centre, tilted camera."""
    base = get_vehicle("torpedo_auv")
    odd = with_sensor(
        base,
        "front_camera",
        fx_px=700.25,
        fy_px=650.5,
        cx_px=600.75,
        cy_px=380.125,
        mount=base.sensor("front_camera").mount.model_copy(update={"rpy_deg": (3.0, -10.0, 5.0)}),
    )
    return odd.model_copy(update={"name": "odd_camera_auv"})


def _clock_ticks() -> tuple[list[int], list[int], list[dict]]:
    """Ticks from two epochs: 20 ms steps, then 10 ms steps."""
    clock = Clock(STEP_A_NS)
    ticks, times = [], []
    for step_ns, count in ((STEP_A_NS, 4), (STEP_B_NS, 5)):
        clock.set_step(step_ns)
        for _ in range(count):
            ticks.append(clock.tick)
            times.append(clock.time_ns)
            clock.advance(1)
    ticks.append(clock.tick)
    times.append(clock.time_ns)
    return ticks, times, clock.provenance()["epochs"]


def _tracks(times: list[int]) -> list[VehicleTrack]:
    rng = np.random.default_rng(20240611)
    tracks = []
    for name, spec in (
        ("reference_survey_vehicle", get_vehicle("reference_survey_vehicle")),
        ("torpedo_auv", get_vehicle("torpedo_auv")),
        ("odd_camera_auv", _off_centre_camera_vehicle()),
    ):
        poses = [
            Transform.from_euler(
                *rng.uniform(-np.pi, np.pi, size=3), translation=rng.uniform(-50.0, 50.0, size=3)
            )
            for _ in times
        ]
        tracks.append(VehicleTrack(name=name, spec=spec, times_ns=times, poses=poses))
    return tracks


@pytest.fixture(scope="module")
def inputs() -> dict:
    ticks, times, epochs = _clock_ticks()
    return {
        "scene": _scene(),
        "vehicles": _tracks(times),
        "ticks": ticks,
        "epochs": epochs,
        "provenance": PROVENANCE,
    }


@pytest.fixture(scope="module", params=SUFFIXES)
def exported(request, inputs, tmp_path_factory) -> tuple[Path, Usd.Stage]:
    path = tmp_path_factory.mktemp("usd") / f"world{request.param}"
    assert export_stage(path, **inputs) == path
    return path, Usd.Stage.Open(str(path))


def _vehicle_prim(stage: Usd.Stage, name: str) -> Usd.Prim:
    prim = stage.GetPrimAtPath(f"/World/NED/vehicles/{name}")
    assert prim.IsValid(), name
    return prim


def _world_ned(xformable: UsdGeom.Xformable, time: Usd.TimeCode) -> Transform:
    """World transform in NED: USD local-to-world with the fixed root rotation undone."""
    m = np.array(xformable.ComputeLocalToWorldTransform(time), dtype=np.float64)
    # m = M_local_chain @ M_root (row vectors); M_root = diag(R_ZUP_NED, 1) is its own inverse.
    root = np.eye(4)
    root[:3, :3] = R_ZUP_NED
    undone = np.empty((4, 4))
    for i in range(4):
        for j in range(4):  # one non-zero term per element: exact
            undone[i, j] = sum(m[i, k] * root[k, j] for k in range(4))
    return transform_from_usd_matrix(undone)


def _local(prim: Usd.Prim, time: Usd.TimeCode) -> Transform:
    matrix = UsdGeom.Xformable(prim).GetLocalTransformation(time)
    return transform_from_usd_matrix(matrix)


# --------------------------------------------------------------------------- validity


def test_stage_passes_every_registered_validator(exported):
    _, stage = exported
    validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
    assert len(validators) > 0
    errors = UsdValidation.ValidationContext(validators).Validate(stage)
    for error in errors:
        print(error.GetErrorAsString())
    assert [e.GetErrorAsString() for e in errors] == []


def test_stage_opens_without_composition_errors_or_diagnostics(exported):
    path, _ = exported
    delegate = UsdUtils.CoalescingDiagnosticDelegate()
    stage = Usd.Stage.Open(str(path), Usd.Stage.LoadAll)
    for prim in stage.Traverse():
        prim.GetAttributes()
    diagnostics = [d.commentary for d in delegate.TakeUncoalescedDiagnostics()]
    assert stage.GetCompositionErrors() == []
    assert diagnostics == []


def test_stage_metadata(exported, inputs):
    _, stage = exported
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    assert UsdPhysics.GetStageKilogramsPerUnit(stage) == 1.0
    assert stage.GetDefaultPrim().GetPath() == "/World"
    assert stage.GetTimeCodesPerSecond() == 1e9 / STEP_B_NS
    assert stage.GetStartTimeCode() == 0.0
    # 4 ticks of 20 ms then 6 more of 10 ms after the epoch change at 80 ms.
    assert stage.GetEndTimeCode() == 8.0 + 5.0


def test_root_records_frames_and_provenance(exported, inputs):
    _, stage = exported
    root = stage.GetPrimAtPath("/World")
    get = lambda name: root.GetAttribute(name).Get()  # noqa: E731
    assert get("leviathan:frame") == "NED"
    assert get("leviathan:bodyFrame") == "FRD"
    assert get("leviathan:cameraFrame") == "OpenCV"
    assert get("leviathan:snapshotHash") == PROVENANCE["snapshot_hash"]
    assert get("leviathan:rootSeed") == PROVENANCE["root_seed"]
    assert get("leviathan:leviathanVersion") == PROVENANCE["leviathan_version"]
    assert get("leviathan:timeCodeNanoseconds") == STEP_B_NS
    assert json.loads(get("leviathan:epochs")) == inputs["epochs"]
    assert list(get("leviathan:ticks")) == inputs["ticks"]


def test_ned_root_rotation_is_exact_rx180(exported):
    _, stage = exported
    ned = stage.GetPrimAtPath("/World/NED")
    m = np.array(UsdGeom.Xformable(ned).GetLocalTransformation(), dtype=np.float64)
    expected = np.eye(4)
    expected[:3, :3] = np.diag([1.0, -1.0, -1.0])
    assert_array_equal(m, expected)


# --------------------------------------------------------------------------- time


def test_each_tick_is_one_exact_integer_time_sample(exported, inputs):
    _, stage = exported
    g_ns = stage.GetPrimAtPath("/World").GetAttribute("leviathan:timeCodeNanoseconds").Get()
    times = inputs["vehicles"][0].times_ns
    for track in inputs["vehicles"]:
        op_attr = _vehicle_prim(stage, track.name).GetAttribute("xformOp:transform")
        samples = op_attr.GetTimeSamples()
        assert samples == [float(t // g_ns) for t in times]
        assert [int(s) * g_ns for s in samples] == list(times)
        assert len(set(samples)) == len(times)
    assert samples == [0.0, 2.0, 4.0, 6.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0]


# --------------------------------------------------------------------------- poses


def test_vehicle_world_transforms_round_trip_exactly(exported, inputs):
    _, stage = exported
    for track in inputs["vehicles"]:
        xformable = UsdGeom.Xformable(_vehicle_prim(stage, track.name))
        for time_code, pose in zip(
            xformable.GetPrim().GetAttribute("xformOp:transform").GetTimeSamples(),
            track.poses,
            strict=True,
        ):
            t = Usd.TimeCode(time_code)
            assert _local(xformable.GetPrim(), t) == pose
            world = _world_ned(xformable, t)
            assert_array_equal(world.rotation, pose.rotation)
            assert_array_equal(world.translation, pose.translation)


def test_sensor_world_transforms_round_trip_exactly(exported, inputs):
    _, stage = exported
    for track in inputs["vehicles"]:
        vehicle = _vehicle_prim(stage, track.name)
        times = vehicle.GetAttribute("xformOp:transform").GetTimeSamples()
        for sensor in track.spec.sensors:
            prim = stage.GetPrimAtPath(f"{vehicle.GetPath()}/sensors/{sensor.name}")
            T_body_sensor = sensor.mount.transform()
            assert _local(prim, Usd.TimeCode.Default()) == T_body_sensor
            assert prim.GetAttribute("leviathan:schedule:periodNs").Get() == (
                sensor.schedule.period_ns
            )
            assert prim.GetAttribute("leviathan:schedule:phaseNs").Get() == sensor.schedule.phase_ns
            for time_code, pose in zip(times, track.poses, strict=True):
                t = Usd.TimeCode(time_code)
                expected = pose @ T_body_sensor
                # Composing the local double matrices ourselves ...
                assert _local(vehicle, t) @ _local(prim, t) == expected
                # ... and as any USD reader does.
                world = _world_ned(UsdGeom.Xformable(prim), t)
                assert_array_equal(world.rotation, expected.rotation)
                assert_array_equal(world.translation, expected.translation)


def test_thrusters_sit_at_their_positions(exported, inputs):
    _, stage = exported
    track = inputs["vehicles"][0]
    for thruster in track.spec.thrusters:
        prim = stage.GetPrimAtPath(f"/World/NED/vehicles/{track.name}/thrusters/{thruster.name}")
        local = _local(prim, Usd.TimeCode.Default())
        assert_array_equal(local.translation, thruster.position_m)
        assert_array_equal(local.rotation, np.eye(3))
        assert tuple(prim.GetAttribute("leviathan:thruster:direction").Get()) == thruster.direction
        assert prim.GetAttribute("leviathan:thruster:maxThrustN").Get() == thruster.max_thrust_n
        assert prim.GetAttribute("leviathan:thruster:minThrustN").Get() == thruster.min_thrust_n


def test_mass_properties(exported, inputs):
    _, stage = exported
    track = inputs["vehicles"][0]
    prim = _vehicle_prim(stage, track.name)
    assert prim.HasAPI(UsdPhysics.MassAPI)
    mass = UsdPhysics.MassAPI(prim)
    m = track.spec.mass
    assert mass.GetMassAttr().Get() == np.float32(m.mass_kg)
    assert_array_equal(np.array(mass.GetDiagonalInertiaAttr().Get()), np.float32(m.inertia_kg_m2))
    assert tuple(mass.GetCenterOfMassAttr().Get()) == (0.0, 0.0, 0.0)
    assert prim.GetAttribute("leviathan:massKg").Get() == m.mass_kg
    assert tuple(prim.GetAttribute("leviathan:buoyancy:centerOfBuoyancyM").Get()) == m.cb_m
    assert prim.GetAttribute("leviathan:role").Get() == track.spec.role


# --------------------------------------------------------------------------- camera


def _camera_prims(stage: Usd.Stage, inputs: dict):
    for track in inputs["vehicles"]:
        for sensor in track.spec.sensors:
            if sensor.kind == "camera":
                base = f"/World/NED/vehicles/{track.name}/sensors/{sensor.name}"
                yield track, sensor, stage.GetPrimAtPath(f"{base}/camera")


def _lens(camera: UsdGeom.Camera) -> CameraLens:
    near, far = camera.GetClippingRangeAttr().Get()
    return CameraLens(
        focal_length=float(camera.GetFocalLengthAttr().Get()),
        horizontal_aperture=float(camera.GetHorizontalApertureAttr().Get()),
        vertical_aperture=float(camera.GetVerticalApertureAttr().Get()),
        horizontal_aperture_offset=float(camera.GetHorizontalApertureOffsetAttr().Get()),
        vertical_aperture_offset=float(camera.GetVerticalApertureOffsetAttr().Get()),
        clipping_range=(float(near), float(far)),
    )


def test_camera_prim_pose_is_sensor_pose_with_fixed_axis_change(exported, inputs):
    _, stage = exported
    cameras = list(_camera_prims(stage, inputs))
    assert len(cameras) == 2
    for track, sensor, prim in cameras:
        assert prim.IsA(UsdGeom.Camera)
        t = Usd.TimeCode(prim.GetStage().GetEndTimeCode())
        expected = track.poses[-1] @ sensor.mount.transform() @ Transform(R_SENSOR_USDCAMERA)
        world = _world_ned(UsdGeom.Xformable(prim), t)
        assert_array_equal(world.rotation, expected.rotation)
        assert_array_equal(world.translation, expected.translation)


def test_camera_lens_reproduces_intrinsics(exported, inputs):
    _, stage = exported
    for _, sensor, prim in _camera_prims(stage, inputs):
        lens = _lens(UsdGeom.Camera(prim))
        got = intrinsics_from_lens(lens, sensor.width_px, sensor.height_px)
        if sensor.fx_px == sensor.fy_px:  # catalogue camera: every value exact in float32
            assert (got.fx_px, got.fy_px, got.cx_px, got.cy_px) == (
                sensor.fx_px, sensor.fy_px, sensor.cx_px, sensor.cy_px,
            )  # fmt: skip
        # float32 attributes: relative 2^-24 per value, a few ulps through the ratios.
        assert got.fx_px == pytest.approx(sensor.fx_px, rel=1e-6)
        assert got.fy_px == pytest.approx(sensor.fy_px, rel=1e-6)
        assert got.cx_px == pytest.approx(sensor.cx_px, abs=1e-3)
        assert got.cy_px == pytest.approx(sensor.cy_px, abs=1e-3)
        assert lens.clipping_range == pytest.approx((sensor.near_m, sensor.far_m), rel=1e-7)


def test_usd_camera_projects_like_opencv(exported, inputs):
    """USD's own frustum maps camera-frame points to the OpenCV pixel of the intrinsics."""
    _, stage = exported
    rng = np.random.default_rng(7)
    for _, sensor, prim in _camera_prims(stage, inputs):
        frustum = UsdGeom.Camera(prim).GetCamera(Usd.TimeCode.Default()).frustum
        projection = np.array(frustum.ComputeProjectionMatrix(), dtype=np.float64)
        points_cv = np.column_stack(
            [rng.uniform(-2, 2, 20), rng.uniform(-1, 1, 20), rng.uniform(1, 10, 20)]
        )
        for p in points_cv:
            u_cv = sensor.fx_px * p[0] / p[2] + sensor.cx_px
            v_cv = sensor.fy_px * p[1] / p[2] + sensor.cy_px
            p_usd = R_OPENCV_USDCAMERA.T @ p  # OpenCV -> USD camera axes
            clip = np.append(p_usd, 1.0) @ projection
            ndc = clip[:3] / clip[3]
            u = (ndc[0] + 1.0) / 2.0 * sensor.width_px - 0.5
            v = (1.0 - ndc[1]) / 2.0 * sensor.height_px - 0.5
            assert u == pytest.approx(u_cv, abs=1e-3)
            assert v == pytest.approx(v_cv, abs=1e-3)


# --------------------------------------------------------------------------- scene


def test_meshes_keep_object_local_points_and_exact_instance_pose(exported, inputs):
    _, stage = exported
    scope = stage.GetPrimAtPath("/World/NED/scene")
    meshes = [p for p in scope.GetChildren() if p.IsA(UsdGeom.Mesh)]
    assert len(meshes) == 2
    for instance, prim in zip(inputs["scene"].instances, meshes, strict=True):
        assert prim.GetAttribute("leviathan:objectId").Get() == instance.object_id
        mesh = UsdGeom.Mesh(prim)
        points = np.array(mesh.GetPointsAttr().Get())
        assert points.dtype == np.float32
        assert points.shape == instance.mesh.vertices.shape
        assert_array_equal(points, instance.mesh.vertices.astype(np.float32))
        np.testing.assert_allclose(points, instance.mesh.vertices, rtol=2.0**-24, atol=0.0)
        faces = np.array(mesh.GetFaceVertexIndicesAttr().Get()).reshape(-1, 3)
        assert_array_equal(faces, instance.mesh.faces)
        assert set(mesh.GetFaceVertexCountsAttr().Get()) == {3}
        assert _local(prim, Usd.TimeCode.Default()) == instance.T_world_object
        world = _world_ned(mesh, Usd.TimeCode.Default())
        assert world == instance.T_world_object


def test_semantic_labels_and_acoustic_attributes(exported, inputs):
    _, stage = exported
    seabed = stage.GetPrimAtPath("/World/NED/scene/seabed")
    target = stage.GetPrimAtPath("/World/NED/scene/target_box_1")
    sea = stage.GetPrimAtPath("/World/NED/scene/sea_surface")
    for prim, label in ((seabed, "seabed"), (target, "target"), (sea, "sea_surface")):
        labels = UsdSemantics.LabelsAPI(prim, "class")
        assert prim.HasAPI(UsdSemantics.LabelsAPI, "class")
        assert list(labels.GetLabelsAttr().Get()) == [label]
    mu = TEST_LAMBERT_MEDIUM.mu
    assert seabed.GetAttribute("leviathan:acoustic:status").Get() == "known"
    assert seabed.GetAttribute("leviathan:acoustic:model").Get() == "lambert"
    assert seabed.GetAttribute("leviathan:acoustic:mu:value").Get() == mu.value
    assert seabed.GetAttribute("leviathan:acoustic:mu:units").Get() == mu.units
    assert seabed.GetAttribute("leviathan:acoustic:mu:source").Get() == mu.source
    assert seabed.GetAttribute("leviathan:acoustic:mu:evidenceClass").Get() == "test_reference"
    assert target.GetAttribute("leviathan:acoustic:status").Get() == "unknown"
    assert not target.HasAttribute("leviathan:acoustic:model")
    assert sea.GetAttribute("leviathan:acoustic:status").Get() == "interface"
    assert sea.GetAttribute("leviathan:seaSurface:plane").Get() == "z = 0 (world NED)"
    assert sea.GetAttribute("leviathan:instanceIndex").Get() == 2


# --------------------------------------------------------------------------- files


def test_export_is_byte_for_byte_deterministic(inputs, tmp_path):
    for suffix in SUFFIXES:
        a = export_stage(tmp_path / f"a{suffix}", **inputs)
        b = export_stage(tmp_path / f"b{suffix}", **inputs)
        assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("name", ["world.usd", "world.usdz", "world.txt", "world.USDA", "world"])
def test_other_extensions_are_refused(inputs, tmp_path, name):
    with pytest.raises(ValueError, match=r"\.usda or \.usdc"):
        export_stage(tmp_path / name, **inputs)
    assert list(tmp_path.iterdir()) == []


def test_failed_write_leaves_existing_file_and_no_temporaries(inputs, tmp_path, monkeypatch):
    path = tmp_path / "world.usda"
    path.write_text("previous")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        export_stage(path, **inputs)
    assert path.read_text() == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["world.usda"]


def test_inconsistent_times_are_refused(inputs, tmp_path):
    track = inputs["vehicles"][0]
    shifted = VehicleTrack(
        name=track.name,
        spec=track.spec,
        times_ns=[t + 1 for t in track.times_ns],
        poses=track.poses,
    )
    with pytest.raises(ValueError, match="times_ns"):
        export_stage(tmp_path / "w.usda", **{**inputs, "vehicles": [shifted]})


def test_missing_provenance_is_refused(inputs, tmp_path):
    with pytest.raises(ValueError, match="root_seed"):
        export_stage(tmp_path / "w.usda", **{**inputs, "provenance": {"snapshot_hash": "x"}})


def test_missing_usd_core_raises_named_import_error(inputs, tmp_path, monkeypatch):
    # A None entry in sys.modules makes `from pxr import ...` raise ImportError.
    monkeypatch.setitem(sys.modules, "pxr", None)
    with pytest.raises(ImportError, match="usd-core"):
        export_stage(tmp_path / "w.usda", **inputs)
    assert list(tmp_path.iterdir()) == []


def test_import_does_not_need_pxr():
    code = "import sys; sys.modules['pxr'] = None; import leviathan.usd; print('ok')"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# --------------------------------------------------------------------------- conventions


def test_usd_matrix_is_the_transpose():
    T = Transform.from_euler(0.3, -0.2, 1.1, translation=(1.0, 2.0, 3.0))
    m = usd_matrix(T)
    assert_array_equal(m, T.matrix.T)
    assert_array_equal(m[3, :3], T.translation)
    assert transform_from_usd_matrix(m) == T


def test_usd_camera_looks_along_the_sensor_boresight():
    # USD camera -Z is the view direction, +Y is up, +X is right.
    assert_array_equal(R_SENSOR_USDCAMERA @ [0.0, 0.0, -1.0], [1.0, 0.0, 0.0])
    assert_array_equal(R_SENSOR_USDCAMERA @ [0.0, 1.0, 0.0], [0.0, 0.0, -1.0])
    assert_array_equal(R_SENSOR_USDCAMERA @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    assert np.linalg.det(R_SENSOR_USDCAMERA) == 1.0


def test_camera_lens_round_trips_in_float64():
    sensor = _off_centre_camera_vehicle().sensor("front_camera")
    got = intrinsics_from_lens(camera_lens(sensor), sensor.width_px, sensor.height_px)
    assert got.fx_px == sensor.fx_px
    assert got.fy_px == pytest.approx(sensor.fy_px, rel=1e-15)
    assert got.cx_px == pytest.approx(sensor.cx_px, rel=1e-15)
    assert got.cy_px == pytest.approx(sensor.cy_px, rel=1e-15)


def test_semantics_fall_back_to_a_namespaced_attribute(inputs, tmp_path, monkeypatch):
    from leviathan.usd import _stage as stage_module

    real = stage_module._import_pxr

    def without_semantics():
        modules = real()
        modules.UsdSemantics = None
        return modules

    monkeypatch.setattr(stage_module, "_import_pxr", without_semantics)
    path = export_stage(tmp_path / "w.usda", **inputs)
    stage = Usd.Stage.Open(str(path))
    prim = stage.GetPrimAtPath("/World/NED/scene/seabed")
    assert not prim.HasAPI(UsdSemantics.LabelsAPI, "class")
    assert list(prim.GetAttribute("leviathan:semantics:class").Get()) == ["seabed"]


def test_colliding_names_get_distinct_prims(inputs, tmp_path):
    scene = inputs["scene"]
    twin = Instance(
        object_id="sea.surface",  # sanitises to the sea surface's prim name
        mesh=box_mesh(),
        T_world_object=Transform.identity(),
        semantic_label="buoy",
    )
    path = export_stage(tmp_path / "w.usda", **{**inputs, "scene": Scene([*scene.instances, twin])})
    stage = Usd.Stage.Open(str(path))
    twin_prim = stage.GetPrimAtPath("/World/NED/scene/sea_surface_2")
    sea_prim = stage.GetPrimAtPath("/World/NED/scene/sea_surface_3")
    assert twin_prim.GetAttribute("leviathan:objectId").Get() == "sea.surface"
    assert sea_prim.GetAttribute("leviathan:objectId").Get() == "sea_surface"
    assert stage.GetPrimAtPath("/World/NED/scene/sea_surface_3/display").IsA(UsdGeom.Plane)


def test_each_hull_sits_under_its_vehicle_with_material_and_label(exported, inputs):
    from leviathan.geometry import hull_mesh

    _, stage = exported
    for track in inputs["vehicles"]:
        hull = track.spec.hull
        assert hull is not None, track.name  # every catalogue vehicle declares one
        prim = stage.GetPrimAtPath(f"/World/NED/vehicles/{track.name}/hull")
        assert prim.IsValid() and prim.GetTypeName() == "Mesh"
        mesh = hull_mesh(hull)
        points = np.array(UsdGeom.Mesh(prim).GetPointsAttr().Get(), dtype=np.float32)
        assert points.shape == mesh.vertices.shape
        assert_array_equal(points, mesh.vertices.astype(np.float32))
        indices = np.array(UsdGeom.Mesh(prim).GetFaceVertexIndicesAttr().Get())
        assert_array_equal(indices, mesh.faces.ravel())
        # No transform of its own: the vehicle prim's T_world_body poses it.
        assert UsdGeom.Xformable(prim).GetOrderedXformOps() == []
        assert prim.GetAttribute("leviathan:objectId").Get() == track.name
        assert prim.GetAttribute("leviathan:acoustic:status").Get() == "known"
        assert prim.GetAttribute("leviathan:acoustic:material").Get() == hull.material
        labels = UsdSemantics.LabelsAPI(prim, "class").GetLabelsAttr().Get()
        assert list(labels) == [hull.semantic_label]
