"""USD: the side-scan's mount and its two fans authored under the vehicle."""

from __future__ import annotations

import json

import numpy as np
import pytest

from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene
from leviathan.sensors import sensor_declarations
from leviathan.usd import VehicleTrack, export_stage, transform_from_usd_matrix

pxr = pytest.importorskip("pxr", reason="usd-core is needed to read stages back")
from pxr import Usd, UsdGeom  # noqa: E402


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
    seabed = Instance(
        "seabed",
        plane_mesh(40.0, 40.0),
        Transform.from_euler(0, 0, 0, translation=(0, 0, 30.0)),
        "seabed",
        TEST_LAMBERT_MEDIUM,
    )
    spec = get_vehicle("reference_mapping_auv")
    track = VehicleTrack(
        name="mapper",
        spec=spec,
        times_ns=[0, 10_000_000],
        poses=[Transform.from_euler(0, 0, 0, translation=(0, 0, 20.0))] * 2,
    )
    path = tmp_path_factory.mktemp("usd") / "mapper.usda"
    export_stage(
        path,
        scene=Scene([seabed]),
        vehicles=[track],
        ticks=[0, 1],
        epochs=[{"start_tick": 0, "start_time_ns": 0, "step_ns": 10_000_000}],
        provenance={"snapshot_hash": "0" * 64, "root_seed": 1, "leviathan_version": "x"},
    )
    return Usd.Stage.Open(str(path)), spec


def test_the_side_scan_prim_is_its_mount_with_kind_and_spec(stage) -> None:
    st, spec = stage
    prim = st.GetPrimAtPath("/World/NED/vehicles/mapper/sensors/side_scan")
    assert prim.IsValid()
    assert prim.GetAttribute("leviathan:kind").Get() == "side_scan"
    assert json.loads(prim.GetAttribute("leviathan:spec").Get()) == spec.sensor(
        "side_scan"
    ).model_dump(mode="json")
    local = UsdGeom.Xformable(prim).GetLocalTransformation(Usd.TimeCode.Default())
    mount = spec.sensor("side_scan").mount.transform()
    np.testing.assert_allclose(transform_from_usd_matrix(local).matrix, mount.matrix, atol=1e-12)


def test_both_fans_are_authored_as_guides_in_sensor_frd(stage) -> None:
    st, spec = stage
    fov = st.GetPrimAtPath("/World/NED/vehicles/mapper/sensors/side_scan/fieldOfView")
    children = {c.GetName(): c for c in fov.GetChildren()}
    footprint = sensor_declarations("side_scan").footprint(spec.sensor("side_scan"))
    assert len(children) == len(footprint.parts) == 4
    port = next(c for n, c in children.items() if "port" in n and "axis" not in n)
    star = next(c for n, c in children.items() if "starboard" in n and "axis" not in n)
    for prim, sign in ((port, -1.0), (star, 1.0)):
        points = np.array(UsdGeom.Mesh(prim).GetPointsAttr().Get(), dtype=np.float64)
        assert (sign * points[:, 1] >= -1e-6).all()  # port at -y, starboard at +y (FRD)
        assert points[:, 2].max() == pytest.approx(40.0, abs=1e-3)  # reaches nadir at R_max
        assert UsdGeom.Imageable(prim).GetPurposeAttr().Get() == UsdGeom.Tokens.guide
