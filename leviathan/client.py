"""The Python client of ``leviathan serve``: the same script in-process or against a server.

:class:`ServiceClient` talks to one service; :class:`RemoteWorld` mirrors
:class:`~leviathan.world.World`'s methods and returns the same records
(:class:`~leviathan.world.CaptureGroup` with its samples,
:class:`~leviathan.world.WorldSnapshot`, :class:`~leviathan.world.VehicleTrackRecord`),
rebuilt from the lossless wire form, so their ``content_hash`` values are those
the World computed on the server (the client checks that they are)::

    from leviathan.client import ServiceClient
    from leviathan.controllers import Autopilot
    from leviathan.world import VehicleSetup

    with ServiceClient("http://127.0.0.1:8000") as client:
        world = client.create_world(
            vehicles=[VehicleSetup("auv", "torpedo_auv", Autopilot(
                speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0))],
            step_s="0.01",
        )
        groups = world.step(100)
        print(world.snapshot().content_hash)

A refused request raises a :class:`ServiceRequestError` that is also the library's
exception type for the same refusal (``ValueError`` for bad input,
:class:`~leviathan.world.WorldLimitError` for limits, ``LookupError`` for an
unknown or released World), so ``except`` clauses work either way.

The client needs no web framework: it imports the wire codec (:mod:`leviathan.wire`)
and the document builder (:mod:`leviathan.documents`) it shares with the service,
never :mod:`leviathan.service`, FastAPI or uvicorn.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from leviathan._files import write_atomically
from leviathan.controllers import Controller
from leviathan.documents import controller_document, environment_document, vehicle_setup_document
from leviathan.dynamics import VehicleState
from leviathan.sensors import BodyKinematics
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.usd import check_stage_path
from leviathan.wire import WireError, decode_record, decode_value
from leviathan.world import (
    CaptureGroup,
    Environment,
    ThrusterFaultRefusedError,
    VehicleSetup,
    VehicleTrackRecord,
    World,
    WorldLimitError,
    WorldSnapshot,
)

__all__ = [
    "RemoteWorld",
    "ServiceClient",
    "ServiceConflictError",
    "ServiceInvalidError",
    "ServiceLimitError",
    "ServiceNotFoundError",
    "ServiceRefusedError",
    "ServiceRequestError",
]


class ServiceRequestError(Exception):
    """A request the service refused, with its error shape.

    Attributes:
        status: HTTP status.
        code, field, value, expected: The service's error fields.
    """

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.code = body.get("code", "unknown")
        self.field = body.get("field")
        self.value = body.get("value")
        self.expected = body.get("expected")
        self.message = body.get("message", f"HTTP {status}")
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"{self.message} [{self.status} {self.code}]"


class ServiceInvalidError(ServiceRequestError, ValueError):
    """422 (or 400, 413): input the service or the library refused."""


class ServiceLimitError(ServiceRequestError, WorldLimitError):
    """409: capacity or a World's step limit."""


class ServiceRefusedError(ServiceRequestError, ThrusterFaultRefusedError):
    """409: an operation a live World refuses."""


class ServiceConflictError(ServiceRequestError, ValueError):
    """409 ``conflict``: a request the World's current state rules out (a ``ValueError``
    in-process, e.g. a track from a tick not reached yet)."""


class ServiceNotFoundError(ServiceRequestError, LookupError):
    """404 or 410: an unknown World (or resource), or one released after idling."""


def _raise_for(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    try:
        body = response.json()
        if not isinstance(body, dict):
            raise ValueError
    except ValueError:
        body = {"code": "http_error", "message": response.text[:500]}
    status = response.status_code
    code = body.get("code")
    if status in (404, 410):
        raise ServiceNotFoundError(status, body)
    if status == 409 and code == "limit_reached":
        raise ServiceLimitError(status, body)
    if status == 409 and code == "conflict":
        raise ServiceConflictError(status, body)
    if status == 409:
        raise ServiceRefusedError(status, body)
    if status in (400, 413, 422):
        raise ServiceInvalidError(status, body)
    raise ServiceRequestError(status, body)


class ServiceClient:
    """A connection to one ``leviathan serve``.

    Args:
        url: The service URL, e.g. ``"http://127.0.0.1:8000"``.
        token: The service's token, if it has one.
        timeout: Seconds to wait for one response (a long step needs more).
    """

    def __init__(self, url: str, token: str | None = None, *, timeout: float = 300.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (the service's Worlds stay open)."""
        self._http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One request; a refusal raises :class:`ServiceRequestError`."""
        response = self._http.request(method, path, **kwargs)
        _raise_for(response)
        return response

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        """One request's JSON answer."""
        return self.request(method, path, **kwargs).json()

    def health(self) -> dict[str, Any]:
        """The service's version and limits."""
        return self.json("GET", "/health")

    def world_ids(self) -> list[str]:
        """Ids of the open Worlds."""
        return [w["id"] for w in self.json("GET", "/worlds")["worlds"]]

    def world(self, world_id: str) -> RemoteWorld:
        """An open World by id (raises :class:`ServiceNotFoundError` if it is not)."""
        self.json("GET", f"/worlds/{world_id}")
        return RemoteWorld(self, world_id)

    def create_world(
        self,
        *,
        vehicles: Sequence[VehicleSetup],
        environment: Environment | None = None,
        root_seed: int = 0,
        step_ns: int | None = None,
        step_s: str | float | None = None,
        tracing_backend: str = "auto",
    ) -> RemoteWorld:
        """:meth:`World.create` on the service; the arguments are those of World.create."""
        if isinstance(vehicles, VehicleSetup | str | bytes):
            raise TypeError("vehicles: expected a sequence of VehicleSetup")
        body = {
            "vehicles": [vehicle_setup_document(v) for v in vehicles],
            "environment": environment_document(environment),
            "root_seed": root_seed,
            "tracing_backend": tracing_backend,
            **_step_length(step_ns, step_s),
        }
        info = self.json("POST", "/worlds", json=body)
        return RemoteWorld(self, info["id"])


def _step_length(step_ns: int | None, step_s: str | float | None) -> dict[str, Any]:
    """The request's tick length: ``step_ns``, or ``step_s`` as the decimal text the
    service reads (a float goes as its shortest repr, as in-process)."""
    body: dict[str, Any] = {}
    if step_ns is not None:
        body["step_ns"] = step_ns
    if step_s is not None:
        # The service reads plain decimal text ('0.01'); '1e-2' or 0.01 mean the same.
        if isinstance(step_s, float | str) and not isinstance(step_s, bool):
            try:
                step_s = format(
                    Decimal(repr(step_s) if isinstance(step_s, float) else step_s.strip()), "f"
                )
            except InvalidOperation:
                pass  # the service names what it expects
        body["step_s"] = step_s
    return body


class RemoteWorld:
    """A World held by a service, with :class:`~leviathan.world.World`'s methods.

    Args:
        client: The service connection.
        world_id: The World's id on that service.
    """

    def __init__(self, client: ServiceClient, world_id: str) -> None:
        self.client = client
        self.id = world_id
        self._path = f"/worlds/{world_id}"

    def __repr__(self) -> str:
        return f"RemoteWorld({self.client.url!r}, {self.id!r})"

    def _json(self, method: str, suffix: str = "", **kwargs: Any) -> Any:
        return self.client.json(method, self._path + suffix, **kwargs)

    def info(self) -> dict[str, Any]:
        """Tick, time, step, limit, vehicles, sensors and whether it is playing."""
        return self._json("GET")

    @property
    def tick(self) -> int:
        """Committed tick index."""
        return self.info()["tick"]

    @property
    def time_ns(self) -> int:
        """Committed simulation time [ns]."""
        return self.info()["time_ns"]

    @property
    def step_limit(self) -> int:
        """Most ticks this World may reach."""
        return self.info()["step_limit"]

    @property
    def vehicle_names(self) -> tuple[str, ...]:
        """Vehicle names, sorted."""
        return tuple(self.info()["vehicles"])

    def sensor_ids(self) -> tuple[str, ...]:
        """Every sensor id (``vehicle/sensor``), sorted."""
        return tuple(self.info()["sensor_ids"])

    def state(self) -> dict[str, Any]:
        """:meth:`World.state`."""
        return self._json("GET", "/state")["state"]

    def step(self, n: int = 1) -> list[CaptureGroup]:
        """:meth:`World.step`: the new capture groups, rebuilt with their hashes checked."""
        answer = self._json("POST", "/step", json={"n": n, "detail": "records"})
        groups = []
        for summary, record in zip(answer["groups"], answer["records"], strict=True):
            group = decode_record(record)
            if group.content_hash != summary["content_hash"]:
                raise WireError(
                    f"step: capture group at tick {summary['tick']} came back with hash "
                    f"{group.content_hash[:12]}, the service computed "
                    f"{summary['content_hash'][:12]}"
                )
            groups.append(group)
        return groups

    def step_summary(self, n: int = 1) -> dict[str, Any]:
        """Steps ``n`` ticks and returns the service's summary (hashes, small values)."""
        return self._json("POST", "/step", json={"n": n})

    def track_states(self, vehicle: str, *, from_tick: int = 0) -> VehicleTrackRecord:
        """:meth:`World.track_states`."""
        t = self._json("GET", "/track", params={"vehicle": vehicle, "from_tick": from_tick})
        return VehicleTrackRecord(
            name=t["vehicle"],
            ticks=np.array(t["ticks"], dtype=np.int64).reshape(-1),
            times_ns=np.array(t["times_ns"], dtype=np.int64).reshape(-1),
            position_ned_m=np.array(t["position_ned_m"], dtype=np.float64).reshape(-1, 3),
            attitude_q=np.array(t["attitude_q"], dtype=np.float64).reshape(-1, 4),
            velocity_body=np.array(t["velocity_body"], dtype=np.float64).reshape(-1, 6),
        )

    def track(self, vehicle: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`World.track`: ``(ticks, times_ns, T_world_body [n, 4, 4])``."""
        t = self._json("GET", "/track", params={"vehicle": vehicle, "matrices": "true"})
        return (
            np.array(t["ticks"], dtype=np.int64).reshape(-1),
            np.array(t["times_ns"], dtype=np.int64).reshape(-1),
            np.array(t["T_world_body"], dtype=np.float64).reshape(-1, 4, 4),
        )

    def snapshot(self) -> WorldSnapshot:
        """:meth:`World.snapshot`, rebuilt with its hash checked."""
        answer = self._json("GET", "/snapshot")
        snap = decode_record(answer["record"])
        if snap.content_hash != answer["content_hash"]:
            raise WireError(
                f"snapshot: came back with hash {snap.content_hash[:12]}, the service "
                f"computed {answer['content_hash'][:12]}"
            )
        return snap

    def reset(self) -> None:
        """:meth:`World.reset`."""
        self._json("POST", "/reset")

    def set_current(
        self, current_ned_m_per_s: Sequence[float] | None = None, *, profile: Any = None
    ) -> None:
        """:meth:`World.set_current`: a uniform NED current [m/s] or a depth profile."""
        body: dict[str, Any] = {}
        if profile is not None:
            body["profile"] = [
                p.model_dump(mode="json") if hasattr(p, "model_dump") else dict(p) for p in profile
            ]
        if current_ned_m_per_s is not None:
            body["current_ned_m_per_s"] = [float(x) for x in current_ned_m_per_s]
        self._json("PUT", "/current", json=body)

    def set_controller(self, vehicle: str, controller: Controller) -> None:
        """:meth:`World.set_controller`."""
        self._json("PUT", f"/vehicles/{vehicle}/controller", json=controller_document(controller))

    def set_step(self, step: int | str | float) -> None:
        """:meth:`World.set_step` (int: ns; str or float: seconds)."""
        if isinstance(step, int) and not isinstance(step, bool):
            self._json("PUT", "/step-length", json=_step_length(step, None))
        else:
            self._json("PUT", "/step-length", json=_step_length(None, step))

    def edit(
        self,
        *,
        vehicle: str | None = None,
        spec: VehicleSpec | str | None = None,
        sensors: Sequence[Any] | None = None,
        controller: Controller | None = None,
        environment: Environment | None = None,
    ) -> None:
        """:meth:`World.edit`."""
        body: dict[str, Any] = {} if vehicle is None else {"vehicle": vehicle}
        if spec is not None:
            body["spec"] = spec if isinstance(spec, str) else spec.model_dump(mode="json")
        if sensors is not None:
            body["sensors"] = [s.model_dump(mode="json") for s in sensors]
        if controller is not None:
            body["controller"] = controller_document(controller)
        if environment is not None:
            body["environment"] = environment_document(environment)
        self._json("POST", "/edit", json=body)

    def vehicle_spec(self, vehicle: str) -> VehicleSpec:
        """:meth:`World.vehicle_spec`."""
        return spec_from_dict(self._json("GET", f"/vehicles/{vehicle}/spec"), VehicleSpec)

    def vehicle_state(self, name: str) -> VehicleState:
        """:meth:`World.vehicle_state`: the committed state of one vehicle."""
        return decode_record(self._json("GET", f"/vehicles/{name}/state"))

    def body_kinematics(self, vehicle: str) -> BodyKinematics:
        """:meth:`World.body_kinematics`: what the vehicle's sensors read at the committed tick."""
        return decode_record(self._json("GET", f"/vehicles/{vehicle}/kinematics"))

    def inject_thruster_fault(self, vehicle: str, thruster: str, **_: Any) -> None:
        """:meth:`World.inject_thruster_fault`: refused by the live World, as in-process.

        Raises:
            ServiceRefusedError: Always (a :class:`~leviathan.world.ThrusterFaultRefusedError`).
        """
        self._json("POST", f"/vehicles/{vehicle}/thruster-faults/{thruster}")

    # Pure arithmetic on an off-tick run: the same function, no request needed.
    refused_sample_indices = staticmethod(World.refused_sample_indices)

    @property
    def off_tick_samples(self) -> tuple[dict, ...]:
        """:attr:`World.off_tick_samples`."""
        return tuple(decode_value(r) for r in self._json("GET", "/off-tick"))

    def export_usd(self, path: str | Path) -> Path:
        """:meth:`World.export_usd`: downloads the stage and writes it to ``path`` here.

        The path is checked before the download (as in-process) and the file is
        written atomically, so a failed download leaves nothing half-written.
        """
        path = check_stage_path(path)
        fmt = path.suffix.lstrip(".")
        data = self.client.request("GET", self._path + "/usd", params={"format": fmt}).content
        return write_atomically(path, data)

    def sample(self, sample_id: str) -> Any:
        """One recent sample (a member's ``sample_id``), rebuilt losslessly."""
        return decode_record(self._json("GET", f"/samples/{sample_id}"))

    def sample_arrays(self, sample_id: str) -> dict[str, np.ndarray]:
        """One recent sample's channels, from the service's ``.npz``."""
        data = self.client.request("GET", f"{self._path}/samples/{sample_id}/npz").content
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}

    def play(
        self,
        mode: str = "realtime",
        *,
        ticks_per_step: int = 1,
        rate: float = 1.0,
        until_tick: int | None = None,
    ) -> dict[str, Any]:
        """Starts server-side Play (``"realtime"`` or ``"fast"``)."""
        body = {"mode": mode, "ticks_per_step": ticks_per_step, "rate": rate}
        if until_tick is not None:
            body["until_tick"] = until_tick
        return self._json("POST", "/play", json=body)

    def pause(self) -> dict[str, Any]:
        """Stops server-side Play after the step in progress."""
        return self._json("POST", "/pause")

    def play_status(self) -> dict[str, Any]:
        """Whether the World is playing, and why it last stopped."""
        return self._json("GET", "/play")

    def stream(self, *, open_timeout: float = 10.0) -> Iterator[dict[str, Any]]:
        """The World's pushed messages (state after each committed step) until closed."""
        from websockets.sync.client import connect

        url = "ws" + self.client.url[len("http") :] + self._path + "/stream"
        headers = {"Authorization": f"Bearer {self.client.token}"} if self.client.token else None
        with connect(url, additional_headers=headers, open_timeout=open_timeout) as ws:
            for text in ws:
                yield json.loads(text)

    def delete(self) -> None:
        """Closes the World on the service."""
        self.client.request("DELETE", self._path)
