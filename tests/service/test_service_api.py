"""The service over a real uvicorn: parity with in-process Worlds, every operation,
the error shape, samples, export, the WebSocket and Play."""

from __future__ import annotations

import copy
import io
import json
import threading
import time

import httpx
import numpy as np
import pytest
from service_helpers import ERROR_KEYS, replay, small_setup, thrust_setup

from leviathan.catalogue import get_vehicle
from leviathan.client import (
    RemoteWorld,
    ServiceClient,
    ServiceInvalidError,
    ServiceNotFoundError,
    ServiceRefusedError,
)
from leviathan.controllers import Autopilot, DirectThrust, WaypointFollower
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.materials import get_material
from leviathan.specs import CurrentLayer
from leviathan.world import (
    CaptureGroup,
    Environment,
    SceneObject,
    ThrusterFaultRefusedError,
    VehicleSetup,
    World,
    WorldSnapshot,
)


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
    out.extend(str(world.refused_sample_indices(run)) for run in world.off_tick_samples)
    state = world.vehicle_state("auv")
    assert state.position_ned_m.dtype == np.float64 and state.thrust_n.shape == (5,)
    out.append(str([getattr(state, f).tolist() for f in ("position_ned_m", "attitude_q")]))
    out.append(str([state.velocity_body.tolist(), state.thrust_n.tolist()]))
    kin = world.body_kinematics("auv")
    out.append(str([kin.T_world_body.rotation.tolist(), kin.T_world_body.translation.tolist()]))
    out.append(str([kin.linear_acceleration_body_m_s2.tolist(), kin.velocity_body_m_s.tolist()]))
    with pytest.raises(ThrusterFaultRefusedError, match="refused"):
        world.inject_thruster_fault("auv", "port")
    world.reset()
    groups(world.step(3))
    out.append(world.snapshot().content_hash)
    return out


def test_scripted_session_has_the_in_process_hashes(client) -> None:
    kwargs = dict(vehicles=[small_setup(), thrust_setup()], root_seed=7, step_s="0.01")
    local = _script(World.create(**kwargs))
    remote = _script(client.create_world(**kwargs))
    assert remote == local


def test_remote_world_has_every_public_method_of_world() -> None:
    public = {n for n in dir(World) if not n.startswith("_")} - {"create"}
    assert public <= set(dir(RemoteWorld)), sorted(public - set(dir(RemoteWorld)))


def test_create_by_catalogue_name_with_an_environment_matches_in_process(client) -> None:
    kwargs = dict(
        vehicles=[
            VehicleSetup(
                "auv",
                "torpedo_auv",
                Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.2),
                position_ned_m=(1.0, 2.0, 3.0),
            )
        ],
        environment=_seabed(),
        root_seed=3,
        step_ns=10_000_000,
    )
    local, remote = World.create(**kwargs), client.create_world(**kwargs)
    assert remote.vehicle_spec("auv") == local.vehicle_spec("auv")
    assert [g.content_hash for g in remote.step(3)] == [g.content_hash for g in local.step(3)]
    assert remote.snapshot().content_hash == local.snapshot().content_hash


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
    assert sorted(arrays) == sorted(sample.channels)
    for name, array in sample.channels.items():
        np.testing.assert_array_equal(arrays[name], array, strict=True)
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


def test_client_usd_export_checks_the_path_before_downloading_and_keeps_old_file_on_failure(
    client, tmp_path, monkeypatch
) -> None:
    world = client.create_world(vehicles=[small_setup()], step_s="0.01")
    requests = []
    real_request = client.request
    monkeypatch.setattr(
        client, "request", lambda *a, **k: requests.append(a) or real_request(*a, **k)
    )
    with pytest.raises(ValueError, match="extension"):
        world.export_usd(tmp_path / "stage.txt")
    with pytest.raises(OSError):
        world.export_usd(tmp_path / "missing" / "stage.usda")
    assert requests == []  # refused before anything was downloaded
    target = tmp_path / "stage.usda"
    target.write_bytes(b"old")

    def failing(*args, **kwargs):
        raise RuntimeError("connection lost")

    monkeypatch.setattr(client, "request", failing)
    with pytest.raises(RuntimeError):
        world.export_usd(target)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stage.usda"]


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
    # An unknown vehicle is 404 (a LookupError, like the KeyError in-process).
    with pytest.raises(ServiceNotFoundError, match="vehicle") as missing:
        world.set_controller("nobody", Autopilot(speed_m_per_s=1, depth_m=1, heading_rad=0))
    assert isinstance(missing.value, LookupError) and missing.value.field == "vehicle"
    assert world.snapshot().content_hash == before
    with pytest.raises(ServiceNotFoundError):
        client.world("world-0")


def test_a_world_whose_side_scan_pings_faster_than_its_two_way_time_is_refused(client) -> None:
    """POST /worlds and a sensors edit answer 422 in the one error shape, naming the
    sensor's field, the minimum and the water's sound speed; nothing is opened or changed."""
    doc = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    fast = copy.deepcopy(doc)
    for sensor in fast["sensors"]:
        if sensor["name"] == "side_scan":
            sensor["schedule"]["period_ns"] = 50_000_000  # 2 x 40 m / ~1490 m/s = 53.7 ms
    controller = {"kind": "autopilot", "speed_m_per_s": 1.0, "depth_m": 20.0, "heading_rad": 0.0}
    vehicle = {"name": "auv", "controller": controller, "position_ned_m": [0.0, 0.0, 20.0]}
    body = {"vehicles": [{**vehicle, "spec": fast}], "step_s": "0.01"}
    response = client._http.post("/worlds", json=body)
    assert response.status_code == 422, response.text
    error = response.json()
    assert set(error) == ERROR_KEYS and error["code"] == "invalid"
    assert error["field"] == "auv/side_scan.schedule.period_ns"
    assert error["value"] == "50000000 ns"
    assert error["expected"].startswith("a ping period >= ")
    assert "m/s" in error["message"] and "range_max_m 40.0 m" in error["message"]
    assert client.world_ids() == []
    created = client._http.post("/worlds", json={**body, "vehicles": [{**vehicle, "spec": doc}]})
    assert created.status_code == 201, created.text
    world = client.world(created.json()["id"])
    before = world.snapshot().content_hash
    edit = client._http.post(
        f"/worlds/{world.id}/edit", json={"vehicle": "auv", "sensors": fast["sensors"]}
    )
    assert edit.status_code == 422, edit.text
    assert edit.json()["field"] == "auv/side_scan.schedule.period_ns"
    assert world.snapshot().content_hash == before


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
    for page in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        assert httpx.get(service.url + page).status_code == 404
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


def test_realtime_play_keeps_simulated_time_at_wall_time(client) -> None:
    world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    start_ns = world.time_ns
    wall_start = time.monotonic()
    world.play("realtime", ticks_per_step=10, rate=1.0)  # 0.1 s of simulated time a step
    time.sleep(0.5)
    paused = world.pause()
    wall_s = time.monotonic() - wall_start
    assert paused["playing"] is False and paused["stopped_reason"] == "paused"
    played_s = (world.time_ns - start_ns) / 1e9
    # Paced by the wall clock: never ahead of it by more than the step in progress
    # (as fast as possible would be many seconds ahead), and not stalled either.
    assert 0.1 <= played_s <= wall_s + 0.1 + 1e-3, (played_s, wall_s)
    tick = world.tick
    time.sleep(0.1)
    assert world.tick == tick


def test_pause_ends_a_slow_realtime_wait_at_once(client) -> None:
    # At the slowest rate the schema allows, the first step is followed by a wait of
    # years for the wall clock to catch up; Pause must not wait it out (schemathesis
    # found the Pause request hanging).
    world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    world.play("realtime", rate=5e-324)
    deadline = time.monotonic() + 10
    while world.tick == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    paused = world.pause()
    assert paused["playing"] is False and paused["stopped_reason"] == "paused"
    assert time.monotonic() - started < 5.0
    assert world.tick == 1


def test_play_refuses_more_ticks_per_step_than_a_request_may_take(client, service) -> None:
    world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    limit = service.host.settings.max_ticks_per_request
    with pytest.raises(ServiceInvalidError) as info:
        world.play("fast", ticks_per_step=limit + 1)
    assert info.value.field == "ticks_per_step" and world.play_status()["playing"] is False
    assert world.tick == 0


def test_npz_holds_no_pickles(client) -> None:
    world = client.create_world(vehicles=[small_setup()], step_s="0.01")
    member = world.step_summary(1)["groups"][0]["members"][0]
    data = client.request("GET", f"/worlds/{world.id}/samples/{member['sample_id']}/npz").content
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        assert archive.files


def test_unknown_method_and_bad_query_parameters_have_the_error_shape(client) -> None:
    world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    http = client._http
    for response, status, field in (
        (http.patch(f"/worlds/{world.id}/step", json={"n": 1}), 405, "method"),
        (http.delete("/health"), 405, "method"),
        (http.get(f"/worlds/{world.id}/track"), 422, "vehicle"),
        (
            http.get(f"/worlds/{world.id}/track", params={"vehicle": "rov", "from_tick": -1}),
            422,
            "from_tick",
        ),
        (
            http.get(f"/worlds/{world.id}/track", params={"vehicle": "rov", "from_tick": "x"}),
            422,
            "from_tick",
        ),
    ):
        assert response.status_code == status, response.text
        body = response.json()
        assert set(body) == ERROR_KEYS and body["field"] == field
    assert http.patch(f"/worlds/{world.id}/step").json()["code"] == "method_not_allowed"
    # Allow lists every method of the path, however many routes serve it.
    assert http.patch(f"/worlds/{world.id}/play").headers["allow"] == "GET, POST"
    assert http.put(f"/worlds/{world.id}").headers["allow"] == "DELETE, GET"


def test_an_internal_error_is_a_500_in_the_one_shape_without_a_traceback(
    client, monkeypatch
) -> None:
    world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    secret = "/home/someone/secret.py line 42"

    def broken(*args, **kwargs):
        raise RuntimeError(secret)

    def broken_app_side(*args, **kwargs):
        raise ZeroDivisionError(secret)

    # One failure inside a World operation (worker pool), one in a handler itself.
    monkeypatch.setattr(World, "state", broken)
    monkeypatch.setattr("leviathan.service.routers._service.get_vehicle", broken_app_side)
    for path in (f"/worlds/{world.id}/state", "/catalogue/torpedo_auv"):
        response = client._http.get(path)
        assert response.status_code == 500, response.text
        body = response.json()
        assert set(body) == ERROR_KEYS and body["code"] == "internal"
        assert "Traceback" not in response.text and secret not in response.text
        assert 'File "' not in response.text
        # The same keep-alive connection still serves the next request.
        assert world.id in client.world_ids()


def test_refused_requests_racing_accepted_ones_change_nothing(client) -> None:
    """Refusals from several clients, interleaved with one client's accepted requests
    on the same World, leave exactly the hashes of the accepted requests alone."""
    kwargs = dict(vehicles=[small_setup()], root_seed=5, step_s="0.01")
    world = client.create_world(**kwargs)
    accepted = [("step", 2), ("current", (0.1, 0.0, 0.0)), ("step", 3)] * 6
    done = threading.Event()
    refusals: list[BaseException] = []
    unexpected: list[BaseException] = []
    spec = world.vehicle_spec("auv")
    refused_calls = (
        lambda w: w.set_step("0.0000000001"),
        lambda w: w.edit(vehicle="auv", controller=DirectThrust([1.0])),
        lambda w: w.edit(vehicle="auv", sensors=list(spec.sensors) * 2),
        lambda w: w.set_current(
            profile=[
                CurrentLayer(depth_m=5.0, current_ned_m_per_s=(0.1, 0.0, 0.0)),
                CurrentLayer(depth_m=1.0, current_ned_m_per_s=(0.2, 0.0, 0.0)),
            ]
        ),
        lambda w: w.set_controller("nobody", Autopilot(speed_m_per_s=1, depth_m=1, heading_rad=0)),
    )

    def refuse(k: int) -> None:
        with ServiceClient(client.url) as own:
            mine = RemoteWorld(own, world.id)
            i = k
            while not done.is_set():
                try:
                    refused_calls[i % len(refused_calls)](mine)
                    unexpected.append(AssertionError("a refusal was accepted"))
                except (ServiceInvalidError, ServiceNotFoundError) as error:
                    refusals.append(error)
                except BaseException as error:
                    unexpected.append(error)
                i += 1

    threads = [threading.Thread(target=refuse, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    try:
        remote_hashes = []
        for k, (op, arg) in enumerate(accepted):
            # Each accepted request follows at least one more refusal: they interleave.
            deadline = time.monotonic() + 10
            while len(refusals) <= k and not unexpected and time.monotonic() < deadline:
                time.sleep(0.001)
            if op == "step":
                remote_hashes.extend(g.content_hash for g in world.step(arg))
            else:
                world.set_current(arg)
    finally:
        done.set()
        for t in threads:
            t.join(30)
    assert unexpected == [], unexpected
    assert len(refusals) >= len(accepted)
    local = World.create(**kwargs)
    assert remote_hashes == replay(local, accepted)
    assert world.snapshot().content_hash == local.snapshot().content_hash


def test_concurrent_steps_on_one_world_are_serialised(client) -> None:
    kwargs = dict(vehicles=[small_setup(sensors=("imu",))], root_seed=2, step_s="0.01")
    world = client.create_world(**kwargs)
    rounds, ticks = 15, 2
    returned: list[list[CaptureGroup]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with ServiceClient(client.url) as own:
                mine = RemoteWorld(own, world.id)
                for _ in range(rounds):
                    returned.append(mine.step(ticks))
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    local = World.create(**kwargs)
    expected = {g.tick: g.content_hash for g in local.step(3 * rounds * ticks)}
    # Each request got whole, consecutive ticks; together they are the one sequence.
    got = {}
    for groups in returned:
        ticks_seen = [g.tick for g in groups]
        assert ticks_seen == list(range(ticks_seen[0], ticks_seen[0] + len(groups)))
        got.update({g.tick: g.content_hash for g in groups})
    assert got == expected
    assert world.snapshot().content_hash == local.snapshot().content_hash


def test_current_reads_back_what_was_set_uniform_or_profile(client) -> None:
    autopilot = Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0)
    world = client.create_world(
        vehicles=[VehicleSetup("auv", "torpedo_auv", autopilot)], step_s="0.01"
    )
    path = f"/worlds/{world.id}/current"
    assert client.json("GET", path) == {
        "world_id": world.id,
        "current_ned_m_per_s": [0.0, 0.0, 0.0],
        "profile": [],
    }
    world.set_current([0.1, -0.05, 0.0])
    assert client.json("GET", path)["current_ned_m_per_s"] == [0.1, -0.05, 0.0]
    world.set_current(
        profile=[
            CurrentLayer(depth_m=0.0, current_ned_m_per_s=(0.2, 0.0, 0.0)),
            CurrentLayer(depth_m=10.0, current_ned_m_per_s=(0.0, 0.1, 0.0)),
        ]
    )
    got = client.json("GET", path)
    assert got["current_ned_m_per_s"] == [0.0, 0.0, 0.0]
    assert [(layer["depth_m"], layer["current_ned_m_per_s"]) for layer in got["profile"]] == [
        (0.0, [0.2, 0.0, 0.0]),
        (10.0, [0.0, 0.1, 0.0]),
    ]
    with pytest.raises(ServiceNotFoundError) as refused:
        client.json("GET", "/worlds/no-such-world/current")
    assert refused.value.status == 404 and refused.value.code == "world_not_found"
