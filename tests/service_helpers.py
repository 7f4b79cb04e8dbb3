"""Shared by the service tests: a real uvicorn on 127.0.0.1 (random port) in a thread,
and small, cheap Worlds (an IMU and a DVL, no sonar or camera)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn

from leviathan.catalogue import get_vehicle
from leviathan.controllers import Autopilot, DirectThrust
from leviathan.service import ServiceSettings, create_app
from leviathan.service._server import ServiceServer
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.world import VehicleSetup

#: The keys of the service's one error shape.
ERROR_KEYS = {"code", "message", "field", "value", "expected"}


@dataclass
class RunningService:
    """A service serving on a free loopback port until :meth:`stop`."""

    url: str
    app: Any
    server: ServiceServer
    thread: threading.Thread

    @property
    def host(self) -> Any:
        return self.app.state.host

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        assert not self.thread.is_alive(), "the service did not stop"


def start_service(
    settings: ServiceSettings | None = None,
    *,
    token: str | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunningService:
    """Starts uvicorn on 127.0.0.1 with port 0 (the OS picks a free one)."""
    app = create_app(settings, token=token, lifecycle_clock=clock)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", ws="websockets-sansio", lifespan="on"
    )
    server = ServiceServer(config)
    thread = threading.Thread(target=server.run, name="leviathan-test-service", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test service did not start")
        time.sleep(0.01)
    return RunningService(server.url, app, server, thread)


class FakeClock:
    """An injectable monotonic lifecycle clock [s]."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def small_spec(sensors: tuple[str, ...] = ("imu", "dvl")) -> VehicleSpec:
    """The reference survey vehicle with only cheap sensors."""
    doc = get_vehicle("reference_survey_vehicle").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["name"] in sensors]
    return spec_from_dict(doc, VehicleSpec)


def small_setup(name: str = "auv", *, heading_rad: float = 0.3, **kwargs: Any) -> VehicleSetup:
    """A vehicle under an autopilot."""
    return VehicleSetup(
        name,
        small_spec(**kwargs),
        Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=heading_rad),
        position_ned_m=(0.0, 0.0, 2.0),
    )


def thrust_setup(name: str = "rov") -> VehicleSetup:
    """A vehicle under constant thrust, no sensors."""
    spec = small_spec(sensors=())
    return VehicleSetup(name, spec, DirectThrust([1.0] * len(spec.thrusters)))


def replay(world: Any, plan: Any) -> list[str]:
    """Applies a plan of ``("step", n)`` and ``("current", ned)`` operations to a World.

    Works on a World and a RemoteWorld alike; returns the capture-group hashes in order.
    """
    hashes: list[str] = []
    for op, arg in plan:
        if op == "step":
            hashes.extend(g.content_hash for g in world.step(arg))
        else:
            world.set_current(arg)
    return hashes


def wait_until(predicate: Callable[[], Any], what: str, timeout_s: float = 20.0) -> Any:
    """``predicate()``'s first truthy value, polled every 50 ms; fails naming ``what``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def serve_process() -> subprocess.Popen:
    """``leviathan serve --port 0`` in a child process, text pipes, with no
    ``LEVIATHAN_TOKEN`` from this environment and SIGINT's default disposition."""
    env = {k: v for k, v in os.environ.items() if k != "LEVIATHAN_TOKEN"}
    return subprocess.Popen(
        [sys.executable, "-m", "leviathan", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
