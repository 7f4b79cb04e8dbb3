"""USD: the multibeam's mount and its swath fan authored under the mapping AUV."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene
from leviathan.usd import VehicleTrack, export_stage, transform_from_usd_matrix

pxr = pytest.importorskip("pxr", reason="usd-core is needed to read stages back")
from pxr import Usd, UsdGeom  # noqa: E402

_PRIM = "/World/NED/vehicles/mapper/sensors/multibeam"


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


def test_the_multibeam_prim_is_its_mount_with_kind_and_spec(stage) -> None:
    st, spec = stage
    prim = st.GetPrimAtPath(_PRIM)
    assert prim.IsValid()
    assert prim.GetAttribute("leviathan:kind").Get() == "multibeam"
    mb = spec.sensor("multibeam")
    assert json.loads(prim.GetAttribute("leviathan:spec").Get()) == mb.model_dump(mode="json")
    local = UsdGeom.Xformable(prim).GetLocalTransformation(Usd.TimeCode.Default())
    np.testing.assert_allclose(
        transform_from_usd_matrix(local).matrix, mb.mount.transform().matrix, atol=1e-12
    )


def test_the_swath_fan_is_a_guide_in_the_across_track_plane(stage) -> None:
    st, spec = stage
    mb = spec.sensor("multibeam")
    (fan,) = st.GetPrimAtPath(f"{_PRIM}/fieldOfView").GetChildren()
    points = np.array(UsdGeom.Mesh(fan).GetPointsAttr().Get(), dtype=np.float64)
    assert np.abs(points[:, 0]).max() < 1e-6  # x = 0: across-track plane of sensor FRD
    half = math.radians(mb.swath_deg / 2.0)
    angles = np.arctan2(points[:, 1], points[:, 2])
    assert angles.min() == pytest.approx(-half, abs=1e-6)
    assert angles.max() == pytest.approx(half, abs=1e-6)
    ranges = np.hypot(points[:, 1], points[:, 2])
    assert ranges.max() == pytest.approx(mb.range_max_m, abs=1e-3)
    assert UsdGeom.Imageable(fan).GetPurposeAttr().Get() == UsdGeom.Tokens.guide
