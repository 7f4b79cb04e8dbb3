"""USD: the mapping AUV's fan sonars, each its mount with its field of view authored under
the vehicle: the multibeam's swath fan and the side-scan's two fans."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from multibeam_cases import flat_seabed

from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform
from leviathan.sensors import sensor_declarations
from leviathan.usd import VehicleTrack, export_stage, transform_from_usd_matrix

pxr = pytest.importorskip("pxr", reason="usd-core is needed to read stages back")
from pxr import Usd, UsdGeom  # noqa: E402

_SENSORS = "/World/NED/vehicles/mapper/sensors"


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
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
        scene=flat_seabed(30.0, size=40.0),
        vehicles=[track],
        ticks=[0, 1],
        epochs=[{"start_tick": 0, "start_time_ns": 0, "step_ns": 10_000_000}],
        provenance={"snapshot_hash": "0" * 64, "root_seed": 1, "leviathan_version": "x"},
    )
    return Usd.Stage.Open(str(path)), spec


@pytest.mark.parametrize("sensor", ["multibeam", "side_scan"])
def test_a_fan_sonar_prim_is_its_mount_with_kind_and_spec(stage, sensor: str) -> None:
    st, spec = stage
    prim = st.GetPrimAtPath(f"{_SENSORS}/{sensor}")
    assert prim.IsValid()
    assert prim.GetAttribute("leviathan:kind").Get() == sensor
    declared = spec.sensor(sensor)
    assert json.loads(prim.GetAttribute("leviathan:spec").Get()) == declared.model_dump(mode="json")
    local = UsdGeom.Xformable(prim).GetLocalTransformation(Usd.TimeCode.Default())
    np.testing.assert_allclose(
        transform_from_usd_matrix(local).matrix, declared.mount.transform().matrix, atol=1e-12
    )


def test_the_swath_fan_is_a_guide_in_the_across_track_plane(stage) -> None:
    st, spec = stage
    mb = spec.sensor("multibeam")
    (fan,) = st.GetPrimAtPath(f"{_SENSORS}/multibeam/fieldOfView").GetChildren()
    points = np.array(UsdGeom.Mesh(fan).GetPointsAttr().Get(), dtype=np.float64)
    assert np.abs(points[:, 0]).max() < 1e-6  # x = 0: across-track plane of sensor FRD
    half = math.radians(mb.swath_deg / 2.0)
    angles = np.arctan2(points[:, 1], points[:, 2])
    assert angles.min() == pytest.approx(-half, abs=1e-6)
    assert angles.max() == pytest.approx(half, abs=1e-6)
    ranges = np.hypot(points[:, 1], points[:, 2])
    assert ranges.max() == pytest.approx(mb.range_max_m, abs=1e-3)
    assert UsdGeom.Imageable(fan).GetPurposeAttr().Get() == UsdGeom.Tokens.guide


def test_both_fans_are_authored_as_guides_in_sensor_frd(stage) -> None:
    st, spec = stage
    fov = st.GetPrimAtPath(f"{_SENSORS}/side_scan/fieldOfView")
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
