"""The service's limits, security and faults: capacity, step limit, idle release (410),
restart, body size (413), token, shutdown (503), disconnects, unparsable bodies (400), Ctrl-C."""

from __future__ import annotations

import json
import re
import signal
import socket
import time

import httpx
import pytest
from service_helpers import ERROR_KEYS, FakeClock, serve_process, start_service, thrust_setup
from websockets.exceptions import InvalidStatus

from leviathan.client import (
    ServiceClient,
    ServiceInvalidError,
    ServiceLimitError,
    ServiceNotFoundError,
    ServiceRequestError,
)
from leviathan.service import ServiceSettings
from leviathan.service._auth import require_token_for
from leviathan.world import World


def test_the_33rd_world_is_refused_and_nothing_changes() -> None:
    service = start_service()
    try:
        with ServiceClient(service.url) as client:
            worlds = [
                client.create_world(vehicles=[thrust_setup()], step_ns=10_000_000)
                for _ in range(32)
            ]
            with pytest.raises(ServiceLimitError) as info:
                client.create_world(vehicles=[thrust_setup()], step_ns=10_000_000)
            assert info.value.status == 409 and info.value.code == "limit_reached"
            assert len(client.world_ids()) == 32
            worlds[0].delete()
            client.create_world(vehicles=[thrust_setup()], step_ns=10_000_000)
    finally:
        service.stop()


def test_a_world_stops_at_its_step_limit_and_keeps_its_state() -> None:
    service = start_service(ServiceSettings(max_steps=10))
    try:
        with ServiceClient(service.url) as client:
            world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
            world.step(8)
            before = world.snapshot().content_hash
            with pytest.raises(ServiceLimitError):
                world.step(3)
            assert world.tick == 8 and world.snapshot().content_hash == before
            world.step(2)
            assert world.tick == 10
    finally:
        service.stop()


def test_idle_worlds_are_released_after_an_hour_then_410() -> None:
    clock = FakeClock()
    service = start_service(clock=clock)
    try:
        with ServiceClient(service.url) as client:
            idle = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
            busy = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
            clock.now += 3599.0
            busy.step(1)
            clock.now += 1.0
            response = client._http.get(f"/worlds/{idle.id}/state")
            assert response.status_code == 410 and set(response.json()) == ERROR_KEYS
            assert response.json()["code"] == "world_released"
            with pytest.raises(ServiceNotFoundError):
                idle.step(1)
            assert client.world_ids() == [busy.id]
            clock.now += 3600.0
            assert client.world_ids() == []
    finally:
        service.stop()


def test_a_restarted_service_has_no_worlds() -> None:
    first = start_service()
    with ServiceClient(first.url) as client:
        world_id = client.create_world(vehicles=[thrust_setup()], step_s="0.01").id
    first.stop()
    second = start_service()
    try:
        with ServiceClient(second.url) as client:
            assert client.world_ids() == []
            with pytest.raises(ServiceNotFoundError) as info:
                client.world(world_id)
            assert info.value.status == 404
    finally:
        second.stop()


@pytest.fixture(scope="module")
def guarded():
    service = start_service(ServiceSettings(max_body_bytes=4096), token="s3cret")
    yield service
    service.stop()


def test_token_missing_or_wrong_is_401_on_http_schema_and_websocket(guarded) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
        for path in ("/health", "/openapi.json", "/worlds"):
            response = httpx.get(guarded.url + path, headers=headers)
            assert response.status_code == 401 and set(response.json()) == ERROR_KEYS
    with ServiceClient(guarded.url, token="s3cret") as client:
        world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
        assert next(world.stream())["type"] == "state"
    with ServiceClient(guarded.url, token="nope") as stranger:
        with pytest.raises(ServiceRequestError) as info:
            stranger.health()
        assert info.value.status == 401
        with pytest.raises(InvalidStatus):
            next(_stream_of(stranger, world.id))


def _stream_of(client: ServiceClient, world_id: str):
    from leviathan.client import RemoteWorld

    return RemoteWorld(client, world_id).stream()


def test_oversized_bodies_get_413_before_parsing(guarded) -> None:
    headers = {"Authorization": "Bearer s3cret"}
    big = b'{"vehicles": [' + b" " * 5000 + b"]}"
    response = httpx.post(guarded.url + "/worlds", content=big, headers=headers)
    assert response.status_code == 413 and response.json()["code"] == "body_too_large"

    def chunks():
        for _ in range(10):
            yield b" " * 1000

    streamed = httpx.post(guarded.url + "/worlds", content=chunks(), headers=headers)
    assert streamed.status_code == 413 and set(streamed.json()) == ERROR_KEYS


@pytest.mark.parametrize("body", [b'{"vehicles": [', b"\xff\xfe{}"], ids=["json", "utf8"])
def test_an_unparsable_body_is_400_in_the_error_shape(guarded, body: bytes) -> None:
    headers = {"Authorization": "Bearer s3cret", "content-type": "application/json"}
    response = httpx.post(guarded.url + "/worlds", content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert set(response.json()) == ERROR_KEYS and response.json()["field"] == "body"
    assert response.json()["code"] == "malformed"


def test_a_client_disconnecting_mid_step_leaves_the_world_whole() -> None:
    service = start_service()
    try:
        with ServiceClient(service.url) as client:
            world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
            host, port = service.url.removeprefix("http://").split(":")
            body = b'{"n": 1500}'
            with socket.create_connection((host, int(port))) as sock:
                head = (
                    f"POST /worlds/{world.id}/step HTTP/1.1\r\nHost: x\r\n"
                    "Content-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n"
                )
                sock.sendall(head.encode() + body)
                time.sleep(0.05)
            # Whatever the step had done when the client left, it commits whole or not at
            # all, the lock is released, and the World keeps answering.
            deadline = time.monotonic() + 60
            while world.tick not in (0, 1500) and time.monotonic() < deadline:
                time.sleep(0.05)
            tick = world.tick
            assert tick in (0, 1500)
            world.step(1)
            local = World.create(vehicles=[thrust_setup()], step_s="0.01")
            local.step(tick + 1)
            assert world.snapshot().content_hash == local.snapshot().content_hash
    finally:
        service.stop()


def test_shutting_down_answers_503() -> None:
    service = start_service()
    try:
        service.host.begin_shutdown()
        response = httpx.get(service.url + "/health")
        assert response.status_code == 503 and response.json()["code"] == "shutting_down"
    finally:
        service.stop()


def test_off_loopback_needs_a_token() -> None:
    require_token_for("127.0.0.1", None)
    require_token_for("::1", None)
    require_token_for("0.0.0.0", "t")
    with pytest.raises(ValueError, match="--host"):
        require_token_for("0.0.0.0", None)
    with pytest.raises(ValueError, match="token"):
        require_token_for("192.168.1.5", "")


def test_serve_prints_its_url_and_stops_cleanly_on_ctrl_c() -> None:
    proc = serve_process()
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        assert httpx.get(url + "/health").json()["status"] == "ok"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_invalid_requests_raise_value_errors_in_the_client() -> None:
    service = start_service()
    try:
        with ServiceClient(service.url) as client:
            with pytest.raises(ValueError):
                client.create_world(vehicles=[thrust_setup()])  # no tick length
            with pytest.raises(ServiceInvalidError):
                client.create_world(vehicles=[thrust_setup()], step_s="0.01", root_seed=-1)
    finally:
        service.stop()


def test_idle_release_runs_in_the_background_without_a_request() -> None:
    clock = FakeClock()
    service = start_service(ServiceSettings(sweep_s=0.02), clock=clock)
    try:
        with ServiceClient(service.url) as client:
            world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
            stream = world.stream()
            assert next(stream)["type"] == "state"
            clock.now += 3600.0
            # No request from here on: only the background sweep can release it.
            deadline = time.monotonic() + 10
            while service.host.hosted(world.id) is not None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert service.host.hosted(world.id) is None
            assert next(stream) == {"type": "closed", "world_id": world.id, "reason": "released"}
            stream.close()
            response = client._http.post(f"/worlds/{world.id}/step", json={"n": 1})
            assert response.status_code == 410 and response.json()["code"] == "world_released"
    finally:
        service.stop()


def test_no_cors_headers_by_default_and_only_the_configured_origin_gets_them() -> None:
    plain = start_service()
    allowed = "http://dashboard.example:5173"
    cors = start_service(ServiceSettings(cors_origins=(allowed,)), token="s3cret")
    preflight = {"Origin": allowed, "Access-Control-Request-Method": "POST"}
    try:
        for response in (
            httpx.get(plain.url + "/health", headers={"Origin": allowed}),
            httpx.options(plain.url + "/worlds", headers=preflight),
        ):
            assert not any(k.startswith("access-control-") for k in response.headers)
        # A browser's preflight carries no token; the answer names only the origin.
        answer = httpx.options(cors.url + "/worlds", headers=preflight)
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == allowed
        token = {"Authorization": "Bearer s3cret"}
        ok = httpx.get(cors.url + "/health", headers={"Origin": allowed, **token})
        assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == allowed
        other = httpx.get(cors.url + "/health", headers={"Origin": "http://evil.example", **token})
        assert "access-control-allow-origin" not in other.headers
        assert httpx.get(cors.url + "/health", headers={"Origin": allowed}).status_code == 401
    finally:
        plain.stop()
        cors.stop()


def test_serve_cli_passes_cors_origins_and_refuses_off_loopback_without_a_token(
    monkeypatch, capsys
) -> None:
    import leviathan.service
    from leviathan import cli

    seen = {}
    monkeypatch.setattr(leviathan.service, "serve", lambda **kw: seen.update(kw))
    argv = ["serve", "--cors-origin", "http://a.example", "--cors-origin", "http://b.example"]
    assert cli.main(argv) == 0
    assert seen["settings"].cors_origins == ("http://a.example", "http://b.example")
    assert cli.main(["serve"]) == 0 and seen["settings"].cors_origins == ()
    monkeypatch.undo()
    monkeypatch.delenv("LEVIATHAN_TOKEN", raising=False)
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "0"]) != 0
    err = capsys.readouterr().err
    assert "requires a token" in err and "Traceback" not in err


def test_serve_reads_the_token_from_the_environment(monkeypatch) -> None:
    from leviathan.service import _server

    class Stop(Exception):
        pass

    seen = {}

    def fake_create_app(settings, *, token):
        seen["token"] = token
        raise Stop

    monkeypatch.setattr(_server, "create_app", fake_create_app)
    monkeypatch.setenv("LEVIATHAN_TOKEN", "from-env")
    with pytest.raises(Stop):
        _server.serve(host="0.0.0.0", port=0)
    assert seen["token"] == "from-env"
    with pytest.raises(Stop):
        _server.serve(host="0.0.0.0", port=0, token="given")
    assert seen["token"] == "given"


def test_websocket_needs_the_token_too_and_a_refused_request_changes_nothing(guarded) -> None:
    from websockets.sync.client import connect

    with ServiceClient(guarded.url, token="s3cret") as client:
        world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
        with ServiceClient(guarded.url) as anonymous:
            with pytest.raises(InvalidStatus):
                next(_stream_of(anonymous, world.id))
            with pytest.raises(ServiceRequestError) as info:
                anonymous.request("POST", f"/worlds/{world.id}/step", json={"n": 5})
            assert info.value.status == 401
        assert world.tick == 0
        ws_url = "ws" + guarded.url.removeprefix("http") + f"/worlds/{world.id}/stream"
        with pytest.raises(InvalidStatus):
            connect(ws_url + "?token=wrong", open_timeout=5).close()
        with connect(ws_url + "?token=s3cret", open_timeout=5) as ws:
            assert json.loads(ws.recv(timeout=5))["type"] == "state"
