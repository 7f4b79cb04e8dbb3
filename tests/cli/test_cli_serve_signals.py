"""``leviathan serve`` shuts down gracefully on SIGINT and SIGTERM: open WebSocket streams
get a close code, requests are answered, the process says ``stopped`` and exits 0."""

from __future__ import annotations

import signal
import time

import pytest
from service_helpers import serve_process

from leviathan.client import ServiceClient
from leviathan.controllers import Autopilot
from leviathan.world import VehicleSetup


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_closes_its_streams_and_exits_0(signum: int) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    proc = serve_process()
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("LEVIATHAN service at http://127.0.0.1:"), line
        url = line.split(" at ")[1].split()[0]
        with ServiceClient(url) as client:
            world = client.create_world(
                vehicles=[
                    VehicleSetup(
                        "auv",
                        "torpedo_auv",
                        Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0),
                    )
                ],
                step_s="0.01",
            )
            stream = url.replace("http://", "ws://") + f"/worlds/{world.id}/stream"
            with connect(stream) as websocket:
                assert '"type":"state"' in websocket.recv(timeout=30)
                proc.send_signal(signum)
                sent = time.monotonic()
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        websocket.recv(timeout=30)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1012  # service restart: a shutdown
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert err.strip().splitlines()[-1] == "stopped"
        assert time.monotonic() - sent < 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
