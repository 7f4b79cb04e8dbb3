"""One sensor protocol: a registry keyed by spec kind, immutable sample contexts, typed products.

A World samples every sensor through :func:`leviathan.sensors.sample_sensor`; these
tests check the registry, the context, that a sensor kind the World has never heard
of is sampled without any World change, and that sampling through the protocol is
bit for bit the direct call of each sensor function.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Literal

import numpy as np
import pytest
from pydantic import BaseModel, ConfigDict
from sensor_helpers import registered_kind
from world_cases import (
    TICK_NS,
    inspector_setup,
    seabed_scene,
    seabed_world,
    small_survey_spec,
    survey_setup,
)

from leviathan.frames import Transform, sensor_pose
from leviathan.geometry import hull_mesh
from leviathan.identity import content_hash
from leviathan.materials import get_material
from leviathan.scene import Instance, Scene
from leviathan.sensors import (
    BodyKinematics,
    CameraSensor,
    DVLSensor,
    ImagingSonarSensor,
    IMUSensor,
    SampleContext,
    SensorKind,
    SensorProduct,
    SensorSample,
    SideScanSensor,
    channel_doc,
    kinds_producing,
    measure_dvl,
    measure_imu,
    product_types,
    register_sensor_kind,
    registered_sensor_kinds,
    render_camera,
    sample_sensor,
    sensor_declarations,
    sensor_kind_for,
    unregister_sensor_kind,
)
from leviathan.side_scan import SideScanLine
from leviathan.sonar import SonarFrame, render
from leviathan.specs import (
    BUILT_IN_SENSOR_SPECS,
    MountSpec,
    ScheduleSpec,
    VehicleSpec,
    WaterSpec,
)
from leviathan.world import CaptureGroup, World

# --------------------------------------------------------------------------- a toy kind


class ToyDepthGaugeSpec(BaseModel):
    """A sensor kind the library does not know: the depth of its mount [m]."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["toy_depth_gauge"] = "toy_depth_gauge"
    name: str
    schedule: ScheduleSpec
    mount: MountSpec = MountSpec(translation_m=(0.0, 0.0, 0.5))


@dataclass(frozen=True, eq=False)
class ToyReading:
    """The toy kind's immutable product."""

    sensor_id: str
    sample_index: int
    time_ns: int
    depth_m: float

    def __content__(self) -> dict:
        return dataclasses.asdict(self)

    @cached_property
    def content_hash(self) -> str:
        return content_hash(self)


class ToyDepthGauge:
    kind = "toy_depth_gauge"
    spec_type = ToyDepthGaugeSpec
    product_type = ToyReading
    channels = MappingProxyType({"depth_m": channel_doc("m", "-", "scalar", "mount depth")})

    def sample(self, spec: ToyDepthGaugeSpec, context: SampleContext) -> ToyReading:
        pose = sensor_pose(context.T_world_body, spec.mount.transform())
        return ToyReading(**context.ids(), depth_m=float(pose.translation[2]))


@pytest.fixture
def toy_kind() -> Iterator[ToyDepthGauge]:
    with registered_kind(ToyDepthGauge()) as sensor:
        yield sensor


def _with_toy(spec: VehicleSpec, period_ns: int) -> VehicleSpec:
    # VehicleSpec's sensor union lists the library's kinds, so a kind defined in a
    # test enters through model_construct; the World itself is unchanged.
    toy = ToyDepthGaugeSpec(name="gauge", schedule=ScheduleSpec(period_ns=period_ns))
    fields = {name: getattr(spec, name) for name in type(spec).model_fields}
    return VehicleSpec.model_construct(**{**fields, "sensors": (*spec.sensors, toy)})


# --------------------------------------------------------------------------- helpers


def _world(spec: VehicleSpec | None = None) -> World:
    """A survey vehicle (sonar, DVL, IMU) and an inspection ROV (camera) over a seabed."""
    return seabed_world(
        survey_setup(spec),
        inspector_setup(
            "rov",
            focal_px=12.0,
            speed_m_per_s=0.5,
            depth_m=25.0,
            heading_rad=0.5,
            position_ned_m=(10.0, 2.0, 25.0),
            rpy_rad=(0.0, 0.6, 0.5),
        ),
        seed=23,
        environment=seabed_scene(water=WaterSpec(current_ned_m_per_s=(0.1, -0.05, 0.0))),
        tracing_backend="reference",
    )


def _context(**update) -> SampleContext:
    fields = {
        "sensor_id": "auv/imu",
        "sample_index": 3,
        "time_ns": 30_000_000,
        "kinematics": BodyKinematics(T_world_body=Transform.from_euler(0.1, 0.0, 0.2)),
        "scene": Scene([]),
        "root_seed": 5,
        "water": WaterSpec(),
        "backend": "reference",
        "device": "cpu",
    }
    return SampleContext(**{**fields, **update})


# --------------------------------------------------------------------------- registry


def test_every_spec_kind_maps_to_its_sensor() -> None:
    kinds = {member.model_fields["kind"].default: member for member in BUILT_IN_SENSOR_SPECS}
    registry = registered_sensor_kinds()
    assert sorted(registry) == sorted(kinds)
    for kind, spec_type in kinds.items():
        assert registry[kind].kind == kind
        assert registry[kind].spec_type is spec_type
        assert isinstance(registry[kind], SensorKind)
    assert type(registry["imaging_sonar"]) is ImagingSonarSensor
    assert type(registry["dvl"]) is DVLSensor
    assert type(registry["imu"]) is IMUSensor
    assert type(registry["camera"]) is CameraSensor
    assert type(registry["side_scan"]) is SideScanSensor
    assert product_types() == (SensorSample, SideScanLine, SonarFrame)


def _toy_sample(kind: str) -> SensorSample:
    return SensorSample(
        kind=kind,
        sensor_id="auv/gauge",
        sample_index=0,
        time_ns=0,
        channels={"depth_m": np.array([1.5])},
        metadata={},
    )


class ToySampleGauge(ToyDepthGauge):
    """The toy kind again, now returning the library's SensorSample."""

    product_type = SensorSample

    def sample(self, spec: ToyDepthGaugeSpec, context: SampleContext) -> SensorSample:
        raise NotImplementedError  # only its registration matters here


def test_sensor_sample_kinds_come_from_the_registry() -> None:
    assert kinds_producing(SensorSample) == ("camera", "dvl", "imu", "multibeam", "pressure")
    assert kinds_producing(SonarFrame) == ("imaging_sonar",)
    with pytest.raises(ValueError, match=r"kind: expected a registered sensor kind .*'toy_depth"):
        _toy_sample("toy_depth_gauge")
    with registered_kind(ToySampleGauge()):
        assert kinds_producing(SensorSample) == (
            "camera",
            "dvl",
            "imu",
            "multibeam",
            "pressure",
            "toy_depth_gauge",
        )
        assert _toy_sample("toy_depth_gauge").kind == "toy_depth_gauge"
    with pytest.raises(ValueError, match="kind: expected a registered sensor kind"):
        _toy_sample("toy_depth_gauge")


def test_sensor_kind_for_finds_each_spec_of_a_vehicle() -> None:
    for spec in small_survey_spec().sensors:
        assert sensor_kind_for(spec) is registered_sensor_kinds()[spec.kind]


def test_an_unknown_kind_is_refused_by_name() -> None:
    unknown = ToyDepthGaugeSpec(name="gauge", schedule=ScheduleSpec(period_ns=TICK_NS))
    with pytest.raises(LookupError, match="no sensor kind 'toy_depth_gauge' is registered"):
        sensor_kind_for(unknown)
    with pytest.raises(TypeError, match="expected a sensor spec with a 'kind' tag"):
        sensor_kind_for(object())


def test_a_spec_of_the_wrong_class_for_its_kind_is_refused() -> None:
    class Impostor:
        kind = "imu"

    with pytest.raises(TypeError, match="sensor kind 'imu' samples a IMUSpec, got Impostor"):
        sensor_kind_for(Impostor())


def test_a_kind_cannot_be_registered_twice_without_replace(toy_kind: ToyDepthGauge) -> None:
    with pytest.raises(ValueError, match="'toy_depth_gauge' is already registered"):
        register_sensor_kind(ToyDepthGauge())
    assert registered_sensor_kinds()["toy_depth_gauge"] is toy_kind


def test_a_sensor_must_agree_with_its_spec_kind() -> None:
    class Mislabelled(ToyDepthGauge):
        kind = "depth_gauge"

    with pytest.raises(ValueError, match=r"'depth_gauge' disagrees with ToyDepthGaugeSpec\.kind"):
        register_sensor_kind(Mislabelled())
    with pytest.raises(TypeError, match="expected an object with kind, spec_type"):
        register_sensor_kind(object())  # type: ignore[arg-type]
    assert "depth_gauge" not in registered_sensor_kinds()


@pytest.mark.parametrize("rules", [["depth_m"], {"depth_m": "not a function"}, {3: abs}])
def test_channel_rules_must_map_channel_names_to_functions(rules: object) -> None:
    class Ruled(ToyDepthGauge):
        channel_rules = rules

    with pytest.raises(TypeError, match=r"sensor\.channel_rules: expected a mapping"):
        register_sensor_kind(Ruled())
    assert "toy_depth_gauge" not in registered_sensor_kinds()


def test_a_kind_without_channel_rules_declares_none(toy_kind: ToyDepthGauge) -> None:
    assert dict(sensor_declarations("toy_depth_gauge").channel_rules) == {}


def test_unregistering_an_unknown_kind_names_it() -> None:
    with pytest.raises(KeyError, match="no sensor kind 'sub_bottom_profiler' is registered"):
        unregister_sensor_kind("sub_bottom_profiler")


def test_the_registry_view_is_read_only() -> None:
    view = registered_sensor_kinds()
    with pytest.raises(TypeError):
        view["toy_depth_gauge"] = ToyDepthGauge()  # type: ignore[index]
    assert "toy_depth_gauge" not in registered_sensor_kinds()


# --------------------------------------------------------------------------- a new kind


def test_a_registered_toy_kind_is_sampled_by_a_world(toy_kind: ToyDepthGauge) -> None:
    plain = _world()
    world = _world(_with_toy(small_survey_spec(), period_ns=5 * TICK_NS))
    groups = world.step(10)
    readings = [g.samples["survey/gauge"] for g in groups if "survey/gauge" in g.samples]
    assert [r.time_ns for r in readings] == [0, 5 * TICK_NS, 10 * TICK_NS]
    assert [r.sample_index for r in readings] == [0, 1, 2]
    assert all(isinstance(r, ToyReading) and isinstance(r, SensorProduct) for r in readings)
    # The last reading is the depth of the mount in the committed state of tick 10.
    mount = MountSpec(translation_m=(0.0, 0.0, 0.5)).transform()
    pose = sensor_pose(world.vehicle_state("survey").T_world_body, mount)
    assert readings[-1].depth_m == float(pose.translation[2])
    # The other sensors are sampled exactly as without the toy.
    plain_groups = plain.step(10)
    for group, plain_group in zip(groups, plain_groups, strict=True):
        for sensor_id, sample in plain_group.samples.items():
            assert group.samples[sensor_id].content_hash == sample.content_hash


# The snapshot hashes the vehicle document, whose sensor union does not list the toy spec.
@pytest.mark.filterwarnings("ignore::UserWarning:pydantic")
def test_a_world_refuses_a_kind_once_unregistered(toy_kind: ToyDepthGauge) -> None:
    world = _world(_with_toy(small_survey_spec(), period_ns=5 * TICK_NS))
    world.step(1)
    before = world.snapshot().content_hash
    unregister_sensor_kind("toy_depth_gauge")
    try:
        with pytest.raises(LookupError, match="no sensor kind 'toy_depth_gauge'"):
            world.step(5)
        assert world.snapshot().content_hash == before  # the failed step rolled back
    finally:
        register_sensor_kind(toy_kind)


def test_a_capture_group_holds_only_registered_products(toy_kind: ToyDepthGauge) -> None:
    reading = ToyReading(sensor_id="auv/gauge", sample_index=0, time_ns=0, depth_m=3.0)
    group = CaptureGroup(tick=0, time_ns=0, samples={"auv/gauge": reading})
    assert group.samples["auv/gauge"] is reading
    unregister_sensor_kind("toy_depth_gauge")
    try:
        with pytest.raises(TypeError, match=r"samples\['auv/gauge'\]: expected a SensorSample"):
            CaptureGroup(tick=0, time_ns=0, samples={"auv/gauge": reading})
    finally:
        register_sensor_kind(toy_kind)


def test_sample_sensor_checks_the_product_type_and_ids(toy_kind: ToyDepthGauge) -> None:
    spec = ToyDepthGaugeSpec(name="gauge", schedule=ScheduleSpec(period_ns=TICK_NS))
    context = _context(sensor_id="auv/gauge")
    assert sample_sensor(spec, context).sensor_id == "auv/gauge"

    class WrongIds(ToyDepthGauge):
        def sample(self, spec, context):
            return ToyReading(sensor_id="other/gauge", sample_index=0, time_ns=0, depth_m=0.0)

    class WrongType(ToyDepthGauge):
        def sample(self, spec, context):
            return {"depth_m": 0.0}

    register_sensor_kind(WrongIds(), replace=True)
    with pytest.raises(ValueError, match="expected the context's"):
        sample_sensor(spec, context)
    register_sensor_kind(WrongType(), replace=True)
    with pytest.raises(TypeError, match="returned a dict, expected its product_type ToyReading"):
        sample_sensor(spec, context)
    with pytest.raises(TypeError, match="context: expected a SampleContext"):
        sample_sensor(spec, context.ids())


# --------------------------------------------------------------------------- context


def test_sample_context_is_immutable() -> None:
    context = _context()
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.time_ns = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.root_seed = 6  # type: ignore[misc]
    with pytest.raises(ValueError):
        context.kinematics.velocity_body_m_s[0] = 1.0
    with pytest.raises(ValueError):
        context.T_world_body.translation[0] = 1.0
    ids = context.ids()
    ids["sensor_id"] = "other/imu"
    assert context.sensor_id == "auv/imu"


@pytest.mark.parametrize(
    ("update", "error", "match"),
    [
        ({"sensor_id": ""}, ValueError, "sensor_id: expected a non-empty string"),
        ({"sample_index": -1}, ValueError, "sample_index: expected an int >= 0"),
        ({"time_ns": 0.5}, TypeError, "time_ns: expected an integer number of nanoseconds"),
        ({"root_seed": None}, ValueError, r"root_seed: expected an integer in \[0, 2\*\*64\)"),
        ({"root_seed": 2**64}, ValueError, r"seed: expected an integer in \[0, 2\*\*64\)"),
        ({"kinematics": Transform.identity()}, TypeError, "kinematics: expected a"),
        ({"scene": None}, TypeError, "scene: expected a leviathan.scene.Scene"),
        ({"water": {}}, TypeError, "water: expected a"),
        ({"backend": ""}, TypeError, "backend: expected the concrete name"),
        ({"device": None}, TypeError, "device: expected the concrete name"),
    ],
)
def test_sample_context_refuses_bad_fields(update, error, match) -> None:
    with pytest.raises(error, match=match):
        _context(**update)


def test_sample_context_fields_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        SampleContext("auv/imu", 0, 0)  # type: ignore[misc]


# --------------------------------------------------------------------------- equivalence


def test_world_body_kinematics_is_the_committed_state_under_the_last_command() -> None:
    world = _world()
    world.step(25)
    state = world.vehicle_state("rov")
    kin = world.body_kinematics("rov")
    assert kin.T_world_body.to_dict() == state.T_world_body.to_dict()
    np.testing.assert_array_equal(kin.velocity_body_m_s, state.velocity_body[:3])
    np.testing.assert_array_equal(kin.angular_velocity_body_rad_s, state.velocity_body[3:])
    assert np.any(kin.linear_acceleration_body_m_s2 != 0.0)
    assert kin.linear_acceleration_body_m_s2.dtype == np.float64


def test_sampling_through_the_protocol_equals_the_direct_calls() -> None:
    world = _world()
    group = world.step(40)[-1]
    assert group.tick == world.tick == 40
    assert set(group.sensor_ids) == {
        "rov/front_camera",
        "survey/dvl",
        "survey/imu",
        "survey/pressure",
        "survey/sonar",
    }
    base = world.environment.scene_at(group.time_ns)

    def seen_by(observer: str) -> Scene:
        # The scene a vehicle's sensors see: the environment, then the other
        # vehicle's hull posed at its committed pose (leviathan.world hull rule).
        other = "rov" if observer == "survey" else "survey"
        hull = world.vehicle_spec(other).hull
        posed = Instance(
            other,
            hull_mesh(hull),
            world.vehicle_state(other).T_world_body,
            hull.semantic_label,
            get_material(hull.material),
            moving=True,
            vehicle=other,
        )
        return Scene([*base.instances, posed], name=base.name)

    scene = seen_by("survey")
    survey = world.vehicle_spec("survey")
    survey_kin = world.body_kinematics("survey")

    def ids(sensor_id: str) -> dict:
        sample = group.samples[sensor_id]
        return {
            "sensor_id": sensor_id,
            "sample_index": sample.sample_index,
            "time_ns": group.time_ns,
        }

    sonar = survey.sensor("sonar")
    direct = {
        "survey/sonar": render(
            scene,
            sonar,
            world.vehicle_state("survey").T_world_body @ sonar.mount.transform(),
            **ids("survey/sonar"),
            seed=None,
            water=world.environment.water,
            backend="reference",
        ),
        "survey/dvl": measure_dvl(
            scene,
            survey.sensor("dvl"),
            survey_kin,
            **ids("survey/dvl"),
            seed=world.root_seed,
            backend="reference",
        ),
        "survey/imu": measure_imu(
            survey.sensor("imu"), survey_kin, **ids("survey/imu"), seed=world.root_seed
        ),
        "rov/front_camera": render_camera(
            seen_by("rov"),
            world.vehicle_spec("rov").sensor("front_camera"),
            world.vehicle_state("rov").T_world_body,
            **ids("rov/front_camera"),
            backend="reference",
        ),
    }
    for sensor_id, expected in direct.items():
        assert type(group.samples[sensor_id]) is type(expected)
        assert group.samples[sensor_id].content_hash == expected.content_hash, sensor_id
    camera = group.samples["rov/front_camera"]
    assert camera.display_hashes() == direct["rov/front_camera"].display_hashes()


def test_sample_sensor_on_a_hand_built_context_equals_measure_imu() -> None:
    spec = (
        small_survey_spec()
        .sensor("imu")
        .model_copy(update={"accel_noise_std_m_per_s2": 0.02, "gyro_noise_std_rad_per_s": 0.001})
    )
    kin = BodyKinematics(
        T_world_body=Transform.from_euler(0.05, -0.1, 1.2, translation=(3.0, 4.0, 20.0)),
        velocity_body_m_s=(1.0, 0.1, -0.02),
        angular_velocity_body_rad_s=(0.01, -0.02, 0.05),
        linear_acceleration_body_m_s2=(0.1, 0.0, -0.03),
        angular_acceleration_body_rad_s2=(0.0, 0.002, -0.001),
    )
    context = _context(kinematics=kin, root_seed=99)
    via_protocol = sample_sensor(spec, context)
    direct = measure_imu(
        spec, kin, sensor_id="auv/imu", sample_index=3, time_ns=30_000_000, seed=99
    )
    assert via_protocol.content_hash == direct.content_hash
