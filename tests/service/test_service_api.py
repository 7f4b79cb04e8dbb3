"""The service over a real uvicorn: parity with in-process Worlds, every operation,
the error shape, samples, export, the WebSocket and Play."""

from __future__ import annotations

import io
import json
import time

import httpx
import numpy as np
import pytest
from service_helpers import small_setup, start_service, thrust_setup

from leviathan.client import (
    RemoteWorld,
    ServiceClient,
    ServiceInvalidError,
    ServiceNotFoundError,
    ServiceRefusedError,
)
from leviathan.controllers import Autopilot, WaypointFollower
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.materials import get_material
from leviathan.specs import CurrentLayer
from leviathan.world import CaptureGroup, Environment, SceneObject, World, WorldSnapshot

ERROR_KEYS = {"code", "message", "field", "value", "expected"}


@pytest.fixture(scope="module")
def service():
    running = start_service()
    yield running
    running.stop()


@pytest.fixture()
def client(service):
    with ServiceClient(service.url) as c:
        yield c
        for wid in c.world_ids():
            c.world(wid).delete()


def _seabed() -> Environment:
    mesh = plane_mesh(40.0, 40.0, divisions_x=2, divisions_y=2)
    seabed = SceneObject(
        "seabed",
        mesh,
        Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 20.0)),
        "seabed",
        get_material("test_lambert_medium"),
    )
    return Environment(objects=(seabed,), name="flat")


def _script(world: World | RemoteWorld) -> list[str]:
    """Every World operation; the hashes and records it yields, in order."""
    out: list[str] = []

    def groups(gs: list[CaptureGroup]) -> None:
        assert all(isinstance(g, CaptureGroup) for g in gs)
        out.extend(g.content_hash for g in gs)
        out.extend(s.content_hash for g in gs for s in g.samples.values())

    groups(world.step(5))
    world.set_current([0.1, -0.05, 0.0])
    groups(world.step(3))
    world.set_current(profile=[CurrentLayer(depth_m=0.0, current_ned_m_per_s=(0.2, 0.0, 0.0))])
    groups(world.step(2))
    world.set_controller(
        "auv",
        WaypointFollower(
            [(10.0, 5.0, 4.0), (20.0, 0.0, 6.0)], speed_m_per_s=1.2, acceptance_radius_m=2.0
        ),
    )
    groups(world.step(3))
    world.set_step("0.02")
    groups(world.step(2))
    spec = world.vehicle_spec("auv")
    world.edit(vehicle="auv", sensors=[s for s in spec.sensors if s.name == "imu"])
    groups(world.step(2))
    world.edit(environment=_seabed())
    world.edit(
        vehicle="auv",
        spec=spec,
        controller=Autopilot(speed_m_per_s=0.5, depth_m=3.0, heading_rad=-0.2),
    )
    groups(world.step(4))
    snap = world.snapshot()
    assert isinstance(snap, WorldSnapshot)
    out.append(snap.content_hash)
    out.append(json.dumps(world.state(), sort_keys=True))
    track = world.track_states("auv", from_tick=3)
    out.append(str((track.ticks.tolist(), track.position_ned_m.tolist())))
    ticks, times, poses = world.track("rov")
    assert poses.dtype == np.float64 and poses.shape == (len(ticks), 4, 4)
    out.append(str((ticks.tolist(), times.tolist(), poses.tolist())))
    out.append(str(world.off_tick_samples))
    world.reset()
    groups(world.step(3))
    out.append(world.snapshot().content_hash)
    return out


def test_scripted_session_has_the_in_process_hashes(client) -> None:
    kwargs = dict(vehicles=[small_setup(), thrust_setup()], root_seed=7, step_s="0.01")
    local = _script(World.create(**kwargs))
    remote = _script(client.create_world(**kwargs))
    assert remote == local


def test_step_summary_names_members_with_hashes_and_small_values(client) -> None:
    world = client.create_world(vehicles=[small_setup()], step_s="0.01")
    summary = world.step_summary(10)
    assert summary["tick"] == 10
    member = next(m for g in summary["groups"] for m in g["members"] if m["kind"] == "imu")
    assert set(member) >= {"sensor_id", "sample_id", "content_hash", "channels", "scalars"}
    arrays = world.sample_arrays(member["sample_id"])
    for name, info in member["channels"].items():
        assert arrays[name].dtype.str == info["dtype"]
        assert list(arrays[name].shape) == info["shape"]
    sample = world.sample(member["sample_id"])
    assert sample.content_hash == member["content_hash"]
    for name, values in member["scalars"].items():
        np.testing.assert_array_equal(np.ravel(arrays[name]), np.array(values, dtype=float))


def test_usd_export_names_the_file_itself(client, tmp_path) -> None:
    world = client.create_world(vehicles=[small_setup()], step_s="0.01")
    world.step(3)
    response = client.request("GET", f"/worlds/{world.id}/usd", params={"format": "usda"})
    assert f'filename="{world.id}-tick3.usda"' in response.headers["content-disposition"]
    assert response.content.startswith(b"#usda")
    path = world.export_usd(tmp_path / "mine.usdc")
    assert path.read_bytes()[:8] == b"PXR-USDC"
    bad = client._http.get(f"/worlds/{world.id}/usd", params={"format": "../../etc/passwd"})
    assert bad.status_code == 422 and set(bad.json()) == ERROR_KEYS


def test_unknown_world_unknown_vehicle_and_refusals_have_the_error_shape(client) -> None:
    http = client._http
    for response, status in (
        (http.get("/worlds/world-999"), 404),
        (http.post("/worlds/world-999/step", json={"n": 1}), 404),
        (http.get("/no/such/route"), 404),
        (http.post("/worlds", json={"vehicles": []}), 422),
        (
            http.post(
                "/worlds",
                json={
                    "vehicles": [
                        {
                            "name": "a",
                            "spec": "/etc/passwd",
                            "controller": {"kind": "direct_thrust", "commands_n": []},
                        }
                    ],
                    "step_s": "0.01",
                },
            ),
            422,
        ),
    ):
        assert response.status_code == status, response.text
        assert set(response.json()) == ERROR_KEYS
    world = client.create_world(vehicles=[small_setup()], step_s="0.01")
    before = world.snapshot().content_hash
    with pytest.raises(ServiceInvalidError) as info:
        world.set_step("0.0000000001")
    assert info.value.field
    with pytest.raises(ServiceInvalidError):
        world.step(0)
    with pytest.raises(ServiceInvalidError, match="vehicle"):
        world.set_controller("nobody", Autopilot(speed_m_per_s=1, depth_m=1, heading_rad=0))
    assert world.snapshot().content_hash == before
    with pytest.raises(ServiceNotFoundError):
        client.world("world-0")


def test_too_many_ticks_in_one_request_is_refused(client, service) -> None:
    world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    limit = service.host.settings.max_ticks_per_request
    response = client._http.post(f"/worlds/{world.id}/step", json={"n": limit + 1})
    assert response.status_code == 422
    assert response.json()["field"] == "n"
    assert world.tick == 0


def test_openapi_is_served_and_docs_fetch_nothing(service) -> None:
    schema = httpx.get(service.url + "/openapi.json").json()
    assert "/worlds/{world_id}/step" in schema["paths"]
    assert httpx.get(service.url + "/docs").status_code == 404
    assert (
        "access-control-allow-origin"
        not in httpx.get(service.url + "/health", headers={"Origin": "http://evil.example"}).headers
    )


def test_websocket_pushes_each_committed_step_and_survives_reconnect(client) -> None:
    world = client.create_world(vehicles=[small_setup()], step_s="0.01")
    stream = world.stream()
    first = next(stream)
    assert first["type"] == "state" and first["tick"] == 0
    world.step(2)
    world.step(3)
    pushed = [next(stream), next(stream)]
    assert [m["tick"] for m in pushed] == [2, 5]
    assert [m["seq"] for m in pushed] == [first["seq"] + 1, first["seq"] + 2]
    assert set(pushed[0]["state"]["vehicles"]["auv"]) >= {"position_ned_m", "heading_rad"}
    stream.close()  # the client drops the connection
    world.step(1)
    again = world.stream()
    resumed = next(again)
    assert resumed["tick"] == 6 and resumed["seq"] == pushed[-1]["seq"] + 1
    world.step(1)
    assert next(again)["tick"] == 7
    world.delete()
    assert next(again)["type"] == "closed"
    again.close()


def test_play_steps_on_the_server_until_paused_or_until_tick(client) -> None:
    world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    status = world.play("fast", ticks_per_step=5, until_tick=50)
    assert status["playing"] is True
    with pytest.raises(ServiceRefusedError):
        world.play("fast")
    deadline = time.monotonic() + 20
    while world.play_status()["playing"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert world.play_status()["stopped_reason"] == "until_tick"
    assert world.tick == 50
    local = World.create(vehicles=[thrust_setup()], step_s="0.01")
    local.step(50)
    assert world.snapshot().content_hash == local.snapshot().content_hash
    world.play("realtime", ticks_per_step=1, rate=1.0)
    time.sleep(0.3)
    paused = world.pause()
    assert paused["playing"] is False and paused["stopped_reason"] == "paused"
    tick = world.tick
    # Real time: about 0.3 s of 10 ms ticks played, not as fast as possible.
    assert 50 < tick < 50 + 200
    time.sleep(0.1)
    assert world.tick == tick


def test_npz_holds_no_pickles(client) -> None:
    world = client.create_world(vehicles=[small_setup()], step_s="0.01")
    member = world.step_summary(1)["groups"][0]["members"][0]
    data = client.request("GET", f"/worlds/{world.id}/samples/{member['sample_id']}/npz").content
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        assert archive.files
