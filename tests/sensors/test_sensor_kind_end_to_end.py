"""A sensor kind defined in this test alone reaches every face of the library, with no edit
outside this file: a World samples it, the MCAP and HDF5 writers export it, the scene
endpoint of a real service describes it, and an analytic scenario records it with the
kind's own noise model.

The kind: a thermometer reading the water temperature at its mount, with keyed noise.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import httpx
import numpy as np
import pytest
import uvicorn
from pydantic import BaseModel, ConfigDict, Field
from sensor_helpers import registered_kind
from world_cases import TICK_NS, autopilot_setup, seabed_world

from leviathan.analytic import run_scenario, scenario_from_dict
from leviathan.catalogue import get_vehicle
from leviathan.datasets import DatasetRecorder, read_hdf5
from leviathan.random import normal
from leviathan.ros import header
from leviathan.sensors import (
    AnalyticTier,
    Footprint,
    FootprintPart,
    RosEncoding,
    RosTopic,
    SampleContext,
    SensorSample,
    channel_doc,
    sensor_declarations,
)
from leviathan.service import create_app
from leviathan.specs import MountSpec, ScheduleSpec, VehicleSpec, spec_from_dict
from leviathan.world import World

KIND = "toy_thermometer"
MESSAGE = "toy_msgs/Temperature"


class ThermometerSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["toy_thermometer"] = "toy_thermometer"
    name: str
    noise_std_c: float = Field(default=0.0, ge=0)
    schedule: ScheduleSpec
    mount: MountSpec = MountSpec(translation_m=(0.0, 0.0, 0.0))


class ThermometerNoise(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["toy_thermometer"] = "toy_thermometer"
    offset_c: float = 0.0


def _message(sample: SensorSample, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        (
            "",
            {
                "header": header(sample.time_ns, frame_id),
                "temperature": float(sample.channels["temperature_c"]),
            },
        )
    ]


def _recorder(noise: ThermometerNoise | None, generator: Any, period_ns: int) -> Any:
    def record(sample: SensorSample) -> dict[str, Any]:
        true = float(sample.channels["true_temperature_c"])
        offset = 0.0 if noise is None else noise.offset_c
        return {
            "true_temperature_c": np.array(true),
            "temperature_c": np.array(true + offset + 0.01 * generator.standard_normal()),
        }

    return record


class Thermometer:
    kind = KIND
    spec_type = ThermometerSpec
    product_type = SensorSample
    reads_scene = False
    reads_surfaces = False
    channels = MappingProxyType(
        {
            "temperature_c": channel_doc("degC", "-", "scalar", "measured water temperature"),
            "true_temperature_c": channel_doc("degC", "-", "scalar", "noise-free temperature"),
        }
    )
    ros = RosEncoding(
        frame="sensor",
        topics=(RosTopic("", "toy_msgs/msg/Temperature"),),
        encode=_message,
        definitions={MESSAGE: "std_msgs/Header header\nfloat64 temperature\n"},
    )
    analytic = AnalyticTier(noise_model=ThermometerNoise, start=_recorder)

    def sample(self, spec: ThermometerSpec, context: SampleContext) -> SensorSample:
        true = float(context.water.temperature_c)
        measured = true
        if spec.noise_std_c > 0.0:
            draw = normal(context.root_seed, context.sensor_id, context.sample_index, "toy", [0])
            measured = true + spec.noise_std_c * float(draw[0])
        return SensorSample(
            kind=KIND,
            sensor_id=context.sensor_id,
            sample_index=context.sample_index,
            time_ns=context.time_ns,
            channels={"temperature_c": np.array(measured), "true_temperature_c": np.array(true)},
            metadata={"noise_std_c": spec.noise_std_c},
        )

    def footprint(self, spec: ThermometerSpec) -> Footprint:
        probe = np.array([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0]])
        return Footprint(
            "grey: toy probe", (FootprintPart("toy-probe", "lines", probe, "#888888"),)
        )


@pytest.fixture
def thermometer() -> Iterator[Thermometer]:
    with registered_kind(Thermometer()) as kind:
        yield kind


def _vehicle_document() -> dict[str, Any]:
    doc = get_vehicle("reference_survey_vehicle").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["kind"] == "imu"] + [
        {
            "kind": KIND,
            "name": "thermo",
            "noise_std_c": 0.05,
            "schedule": {"period_ns": 5 * TICK_NS},
            "mount": {"translation_m": [0.3, 0.0, 0.0]},
        }
    ]
    return doc


def _world() -> World:
    # The vehicle document is validated as any user's would be: no model_construct.
    spec = spec_from_dict(_vehicle_document(), VehicleSpec)
    return seabed_world(
        autopilot_setup("auv", spec, heading_rad=0.2), seed=3, tracing_backend="reference"
    )


def test_a_world_samples_the_kind(thermometer: Thermometer) -> None:
    groups = _world().step(20)
    readings = [g.samples["auv/thermo"] for g in groups if "auv/thermo" in g.samples]
    assert [r.sample_index for r in readings] == [0, 1, 2, 3, 4]
    assert all(float(r["true_temperature_c"]) == 10.0 for r in readings)
    assert len({float(r["temperature_c"]) for r in readings}) == 5  # keyed noise per sample


def test_the_writers_export_the_kind_and_read_it_back(
    thermometer: Thermometer, tmp_path: Path
) -> None:
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    world = _world()
    with DatasetRecorder(
        world, mcap=tmp_path / "run.mcap", hdf5=tmp_path / "run.h5", manifest={"job": "t"}
    ) as recorder:
        groups = world.step(20)
        recorder.record(groups)
    readings = [g.samples["auv/thermo"] for g in groups if "auv/thermo" in g.samples]

    # HDF5: the samples come back with their content hashes and the kind's channel docs.
    dataset = read_hdf5(tmp_path / "run.h5")
    back = [g.samples["auv/thermo"] for g in dataset.groups() if "auv/thermo" in g.samples]
    assert [b.content_hash for b in back] == [r.content_hash for r in readings]
    assert dataset.vehicles["auv"].sensor("thermo").kind == KIND

    # MCAP: the kind's own message type, decoded by an independent reader (rosbags).
    store = get_typestore(Stores.ROS2_HUMBLE)
    store.register(get_types_from_msg(thermometer.ros.definitions[MESSAGE], MESSAGE))
    with AnyReader([tmp_path / "run.mcap"], default_typestore=store) as reader:
        (connection,) = [c for c in reader.connections if c.topic == "/auv/thermo"]
        assert connection.msgtype == "toy_msgs/msg/Temperature"
        messages = [
            reader.deserialize(raw, c.msgtype) for c, _, raw in reader.messages([connection])
        ]
    assert [m.temperature for m in messages] == [float(r["temperature_c"]) for r in readings]
    assert {m.header.frame_id for m in messages} == {"auv/thermo"}


def _serve() -> tuple[uvicorn.Server, threading.Thread, str]:
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, thread, f"http://127.0.0.1:{port}"


def test_the_scene_endpoint_describes_the_kind(thermometer: Thermometer) -> None:
    server, thread, url = _serve()
    try:
        body = {
            "vehicles": [
                {
                    "name": "auv",
                    "spec": _vehicle_document(),
                    "controller": {"kind": "direct_thrust", "commands_n": [0.0] * 5},
                }
            ],
            "step_s": "0.01",
        }
        created = httpx.post(f"{url}/worlds", json=body, timeout=30)
        assert created.status_code == 201, created.text
        world_id = created.json()["id"]
        scene = httpx.get(f"{url}/worlds/{world_id}/scene", timeout=30).json()
        (vehicle,) = scene["vehicles"]
        sensor = next(s for s in vehicle["sensors"] if s["kind"] == KIND)
        assert sensor["sensor_id"] == "auv/thermo"
        assert sensor["footprint"]["legend"] == "grey: toy probe"
        (part,) = sensor["footprint"]["parts"]
        assert part["name"] == "toy-probe" and part["points_sensor_m"][3] == 0.2
    finally:
        server.should_exit = True
        thread.join(15)


def test_a_scenario_records_the_kind_with_its_noise_model(thermometer: Thermometer) -> None:
    doc = {
        "name": "toy",
        "step_ns": TICK_NS,
        "duration_ticks": 20,
        "vehicles": [
            {
                "name": "auv",
                "spec": _vehicle_document(),
                "position_ned_m": [0.0, 0.0, 20.0],
                "controller": {"kind": "direct_thrust", "commands_n": [0.0] * 5},
            }
        ],
        "sensors": [
            {"id": "auv/thermo", "seed": 4, "noise": {"kind": KIND, "offset_c": 0.5}},
            {"id": "auv/imu", "seed": 5},
        ],
    }
    result = run_scenario(scenario_from_dict(doc))
    stream = result.sensors["auv/thermo"]
    assert stream.kind == KIND and isinstance(stream.noise, ThermometerNoise)
    assert stream.arrays["sample_index"].tolist() == [0, 1, 2, 3, 4]
    errors = stream.errors()["temperature_c"]
    assert np.all(np.abs(errors - 0.5) < 0.1)  # the declared offset, plus the recorder's noise
    assert json.dumps(result.manifest()["sensors"]["auv/thermo"]["noise"]) == json.dumps(
        {"kind": KIND, "offset_c": 0.5}
    )


def test_the_kind_is_gone_once_unregistered() -> None:
    with pytest.raises(LookupError, match=f"no sensor kind '{KIND}' is registered"):
        sensor_declarations(KIND)
    with pytest.raises(Exception, match="does not match any of the expected tags"):
        spec_from_dict(_vehicle_document(), VehicleSpec)
