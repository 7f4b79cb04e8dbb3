"""Pinned type tags: every hashed LEVIATHAN type names itself, so moving code changes no hash.

The canonical encoding carries a type name for enums, dataclasses, pydantic models and
``__content__`` classes (tags 0x0D-0x10). For LEVIATHAN types that name is the class's own
``__content_type__`` string, never its module path; see the *Type tags* section of
:mod:`leviathan.identity`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import importlib
import pkgutil
import struct
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pydantic
import pytest

from leviathan.acoustics import MediumSupport
from leviathan.identity import (
    CONTENT_DOMAIN,
    TYPE_TAG_ATTRIBUTE,
    canonical_encode,
    content_hash,
)
from leviathan.materials import EvidenceClass
from leviathan.specs import WaterSpec
from leviathan.world import CaptureGroup

# The top-level package and the three packages installed from folders outside it.
PACKAGES = ("leviathan", "leviathan.kernels", "leviathan.reference_cpu", "leviathan.usd")

# Whole packages whose classes are never hashed, so none of them carries a tag.
UNTAGGED_PACKAGES: dict[str, str] = {
    "leviathan.service": "the service face: request and response models, hosting "
    "bookkeeping; it forwards the library's hashed records unchanged and hashes nothing",
    "leviathan.sweep": "sweep documents, plans, tasks and summaries: a run key hashes the run's "
    "canonical document as plain data (dicts and lists), never a sweep class",
}

# Classes defined in the package that the encoder would hash by type name but that are
# never hashed, so they carry no tag. Each entry says why.
UNTAGGED: dict[str, str] = {
    "leviathan.parity._scene_parts.FixtureCase": "the fields every frozen scene case shares, "
    "never instantiated (SceneCase, SideScanCase and MultibeamCase carry their own tags)",
    "leviathan._fan_product.FanProduct": "the behaviour SonarFrame and SideScanLine share, "
    "never instantiated (each product dataclass carries its own tag)",
    "leviathan.specs._world_documents._AutopilotGains": "shared gain fields of the "
    "controller documents, never instantiated (each document class carries its own tag)",
    "leviathan.specs._world_documents._LambertMu": "the Lambert material document's mu "
    "field (a MaterialParameterDocument bounded > 0); documents are never hashed by type",
    "leviathan.documents._ControllerFile": "how load_controller reads a file into a "
    "controller document; built from and never hashed",
    "leviathan.acoustics._Range": "validity interval, held only as class constants of the "
    "*Validity classes and never part of a hashed value",
    "leviathan.world._registry._Entry": "registry bookkeeping (world and last use); the "
    "registry never hashes it",
    "leviathan.world._vehicles.LiveVehicle": "the World's live per-vehicle state; snapshots "
    "hash its spec, controller and state, never the holder",
    "leviathan.world._transactions.Checkpoint": "what a World operation may change, kept "
    "only to roll a failed operation back; never hashed",
    "leviathan.sonar._fan_geometry.FanRaster": "display geometry of fan pictures (which "
    "cell each pixel shows); display products are hashed from their pixels, never this",
    "leviathan.world._state.WorldState": "the World's live state; snapshots hash what it "
    "holds (specs, states, controllers, clock, environment), never the holder",
    "leviathan.sensors._context.SampleContext": "what a sensor reads at one sample instant; "
    "the products it gives are hashed (with their ids), the context never is",
    "leviathan.controllers._protocol.Controller": "a typing.Protocol, never instantiated; "
    "a tag on it would become a protocol member every runtime isinstance check demands",
    "leviathan.learning.vehicles.Randomization": "learning tier (float32, not canonical): "
    "randomisation ranges, never hashed",
    "leviathan.learning.tasks.DepthHeadingHold": "learning tier (float32, not canonical): "
    "task parameters, never hashed",
    "leviathan.learning.tasks.WaypointReach": "learning tier (float32, not canonical): "
    "task parameters, never hashed",
    "leviathan.learning.tasks.AltitudeSurvey": "learning tier (float32, not canonical): "
    "task parameters, never hashed",
    "leviathan.analytic._faults._FaultBase": "analytic tier: shared fields of the fault "
    "documents, never instantiated (each fault kind carries its own tag)",
    "leviathan.analytic._scenario._Doc": "analytic tier: shared strict config of the scenario "
    "documents, never instantiated (each document class carries its own tag)",
}

# Every hashed type: its public import path -> its pinned tag. The tags are the module
# paths the classes had when tags were introduced; they never change when code moves.
EXPECTED_TAGS: dict[str, str] = {
    "leviathan.sensors.DVLNoiseModel": "leviathan.analytic.DVLNoiseModel",
    "leviathan.analytic.DeadFault": "leviathan.analytic.DeadFault",
    "leviathan.analytic.GeneratorRecord": "leviathan.analytic.GeneratorRecord",
    "leviathan.sensors.IMUNoiseModel": "leviathan.analytic.IMUNoiseModel",
    "leviathan.analytic.LossOfEffectivenessFault": "leviathan.analytic.LossOfEffectivenessFault",
    "leviathan.analytic.ReducedLimitFault": "leviathan.analytic.ReducedLimitFault",
    "leviathan.analytic.ReversedFault": "leviathan.analytic.ReversedFault",
    "leviathan.analytic.ScenarioDocument": "leviathan.analytic.ScenarioDocument",
    "leviathan.analytic.ScenarioResult": "leviathan.analytic.ScenarioResult",
    "leviathan.analytic.SensorDocument": "leviathan.analytic.SensorDocument",
    "leviathan.analytic.SensorStream": "leviathan.analytic.SensorStream",
    "leviathan.analytic.SlowedResponseFault": "leviathan.analytic.SlowedResponseFault",
    "leviathan.analytic.StuckFault": "leviathan.analytic.StuckFault",
    "leviathan.analytic.VehicleRun": "leviathan.analytic.VehicleRun",
    "leviathan.analytic.Figure": "leviathan.analytic.Figure",
    "leviathan.analytic.SonarImage": "leviathan.analytic.SonarImage",
    "leviathan.analytic.SonarImageReport": "leviathan.analytic.SonarImageReport",
    "leviathan.sensors.SonarNoiseEffect": "leviathan.analytic.SonarNoiseEffect",
    "leviathan.sensors.SonarNoiseModel": "leviathan.analytic.SonarNoiseModel",
    "leviathan.sensors.PressureNoiseModel": "leviathan.sensors.PressureNoiseModel",
    "leviathan.sensors.AnalyticTier": "leviathan.sensors.AnalyticTier",
    "leviathan.sensors.Footprint": "leviathan.sensors.Footprint",
    "leviathan.sensors.FootprintPart": "leviathan.sensors.FootprintPart",
    "leviathan.sensors.RosEncoding": "leviathan.sensors.RosEncoding",
    "leviathan.sensors.PinholeIntrinsics": "leviathan.sensors.PinholeIntrinsics",
    "leviathan.sensors.RosTopic": "leviathan.sensors.RosTopic",
    "leviathan.sensors.SensorDeclarations": "leviathan.sensors.SensorDeclarations",
    "leviathan.specs.PressureSpec": "leviathan.specs.PressureSpec",
    "leviathan.specs.MultibeamSpec": "leviathan.specs.MultibeamSpec",
    "leviathan.acoustics.MediumSupport": "leviathan.acoustics.MediumSupport",
    "leviathan.controllers.Autopilot": "leviathan.controllers.Autopilot",
    "leviathan.controllers.DirectThrust": "leviathan.controllers.DirectThrust",
    "leviathan.controllers.WaypointFollower": "leviathan.controllers.WaypointFollower",
    "leviathan.dynamics.VehicleState": "leviathan.dynamics.VehicleState",
    "leviathan.kernels.CompileReport": "leviathan.kernels.backend.CompileReport",
    "leviathan.materials.AcousticStatus": "leviathan.materials.AcousticStatus",
    "leviathan.materials.DeclaredMaterial": "leviathan.materials.DeclaredMaterial",
    "leviathan.materials.EvidenceClass": "leviathan.materials.EvidenceClass",
    "leviathan.materials.LambertMaterial": "leviathan.materials.LambertMaterial",
    "leviathan.materials.MaterialParameter": "leviathan.materials.MaterialParameter",
    "leviathan.parity.SceneCheck": "leviathan.parity.fixture.SceneCheck",
    "leviathan.parity.SceneCase": "leviathan.parity.scenes.SceneCase",
    "leviathan.parity.SideScanCase": "leviathan.parity.side_scan_scenes.SideScanCase",
    "leviathan.random.KeyedRandom": "leviathan.random.KeyedRandom",
    "leviathan.random.RandomEffectRecord": "leviathan.random.RandomEffectRecord",
    "leviathan.raycast.Bvh": "leviathan.reference_cpu.bvh.Bvh",
    "leviathan.raycast.PreparedInstance": "leviathan.reference_cpu.prepare.PreparedInstance",
    "leviathan.raycast.PreparedScene": "leviathan.reference_cpu.prepare.PreparedScene",
    "leviathan.raycast.TraceResult": "leviathan.reference_cpu.trace.TraceResult",
    "leviathan.reference_cpu.sonar.BeamGrid": "leviathan.reference_cpu.sonar.BeamGrid",
    "leviathan.reference_cpu.multibeam.Detections": "leviathan.reference_cpu.multibeam.Detections",
    "leviathan.multibeam.BeamGeometry": "leviathan.multibeam.BeamGeometry",
    "leviathan.parity.MultibeamCase": "leviathan.parity.multibeam_scenes.MultibeamCase",
    "leviathan.multibeam.MultibeamPing": "leviathan.multibeam.MultibeamPing",
    "leviathan.multibeam.BathymetryGrid": "leviathan.multibeam.BathymetryGrid",
    "leviathan.multibeam.BathymetryReport": "leviathan.multibeam.BathymetryReport",
    "leviathan.reference_cpu.side_scan.SideScanRays": (
        "leviathan.reference_cpu.side_scan.SideScanRays"
    ),
    "leviathan.side_scan.SideScanLine": "leviathan.side_scan.SideScanLine",
    "leviathan.side_scan.display.Waterfall": "leviathan.side_scan.display.Waterfall",
    "leviathan.specs.SideScanBeamPatternSpec": "leviathan.specs.SideScanBeamPatternSpec",
    "leviathan.specs.SideScanSonarSpec": "leviathan.specs.SideScanSonarSpec",
    "leviathan.scene.Instance": "leviathan.scene.Instance",
    "leviathan.scene.MeshSource": "leviathan.scene.MeshSource",
    "leviathan.scene.Scene": "leviathan.scene.Scene",
    "leviathan.scene.SeaSurface": "leviathan.scene.SeaSurface",
    "leviathan.scene.TriangleMesh": "leviathan.scene.TriangleMesh",
    "leviathan.schedule.OffTickSample": "leviathan.schedule.OffTickSample",
    "leviathan.schedule.ScheduledSample": "leviathan.schedule.ScheduledSample",
    "leviathan.schedule.SensorSchedule": "leviathan.schedule.SensorSchedule",
    "leviathan.sensors.BodyKinematics": "leviathan.sensors.sample.BodyKinematics",
    "leviathan.sensors.SensorSample": "leviathan.sensors.sample.SensorSample",
    "leviathan.sonar.SonarFrame": "leviathan.sonar.frame.SonarFrame",
    "leviathan.sonar.FanRays": "leviathan.sonar.FanRays",
    # The World documents moved from the analytic scenarios keep their tags.
    "leviathan.specs.AutopilotDocument": "leviathan.analytic.AutopilotDocument",
    "leviathan.specs.DirectThrustDocument": "leviathan.analytic.DirectThrustDocument",
    "leviathan.specs.EnvironmentDocument": "leviathan.analytic.EnvironmentDocument",
    "leviathan.specs.LawnmowerDocument": "leviathan.analytic.LawnmowerDocument",
    "leviathan.specs.VehicleSetupDocument": "leviathan.analytic.VehicleDocument",
    "leviathan.specs.WaypointFollowerDocument": "leviathan.analytic.WaypointFollowerDocument",
    "leviathan.specs.BuiltinMaterialDocument": "leviathan.specs.BuiltinMaterialDocument",
    "leviathan.specs.DeclaredMaterialDocument": "leviathan.specs.DeclaredMaterialDocument",
    "leviathan.specs.LambertMaterialDocument": "leviathan.specs.LambertMaterialDocument",
    "leviathan.specs.MaterialParameterDocument": "leviathan.specs.MaterialParameterDocument",
    "leviathan.specs.MeshDocument": "leviathan.specs.MeshDocument",
    "leviathan.specs.PoseDocument": "leviathan.specs.PoseDocument",
    "leviathan.specs.SceneObjectDocument": "leviathan.specs.SceneObjectDocument",
    "leviathan.specs.BeamPatternSpec": "leviathan.specs.BeamPatternSpec",
    "leviathan.specs.CameraSpec": "leviathan.specs.CameraSpec",
    "leviathan.specs.CurrentLayer": "leviathan.specs.CurrentLayer",
    "leviathan.specs.DVLSpec": "leviathan.specs.DVLSpec",
    "leviathan.specs.HullSpec": "leviathan.specs.HullSpec",
    "leviathan.specs.IMUSpec": "leviathan.specs.IMUSpec",
    "leviathan.specs.ImagingSonarSpec": "leviathan.specs.ImagingSonarSpec",
    "leviathan.specs.MassPropertiesSpec": "leviathan.specs.MassPropertiesSpec",
    "leviathan.specs.MountSpec": "leviathan.specs.MountSpec",
    "leviathan.specs.ScheduleSpec": "leviathan.specs.ScheduleSpec",
    "leviathan.specs.SpecModel": "leviathan.specs.SpecModel",
    "leviathan.specs.ThrusterSpec": "leviathan.specs.ThrusterSpec",
    "leviathan.specs.VehicleSpec": "leviathan.specs.VehicleSpec",
    "leviathan.specs.WaterSpec": "leviathan.specs.WaterSpec",
    "leviathan.time.Epoch": "leviathan.time.Epoch",
    "leviathan.usd.CameraIntrinsics": "leviathan.usd.conventions.CameraIntrinsics",
    "leviathan.usd.CameraLens": "leviathan.usd.conventions.CameraLens",
    "leviathan.usd.VehicleTrack": "leviathan.usd.stage.VehicleTrack",
    "leviathan.world.CaptureGroup": "leviathan.world.records.CaptureGroup",
    "leviathan.world.Environment": "leviathan.world.environment.Environment",
    "leviathan.world.SceneObject": "leviathan.world.environment.SceneObject",
    "leviathan.world.VehicleSetup": "leviathan.world.setup.VehicleSetup",
    "leviathan.world.VehicleTrackRecord": "leviathan.world.records.VehicleTrackRecord",
    "leviathan.world.WorldSnapshot": "leviathan.world.records.WorldSnapshot",
}


def _package_modules() -> list[ModuleType]:
    """Import every module of the installed package (``__main__`` would run the CLI)."""
    names = set(PACKAGES)
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names.update(info.name for info in pkgutil.walk_packages(path, f"{package}."))
    return [importlib.import_module(n) for n in sorted(names) if not n.endswith(".__main__")]


def _classes_defined_in(module: ModuleType) -> list[type]:
    """The classes a module defines, nested ones included (imported ones excluded)."""
    found: list[type] = []
    pending = [v for v in vars(module).values() if isinstance(v, type)]
    while pending:
        cls = pending.pop()
        if cls.__module__ != module.__name__ or cls in found:
            continue
        found.append(cls)
        pending.extend(v for v in vars(cls).values() if isinstance(v, type))
    return found


def _hashed_by_type_name(cls: type) -> bool:
    """Whether the encoder writes ``cls``'s type name (tags 0x0D to 0x10)."""
    return (
        getattr(cls, "__content__", None) is not None
        or dataclasses.is_dataclass(cls)
        or issubclass(cls, pydantic.BaseModel | enum.Enum)
    )


def _hashed_classes() -> dict[str, type]:
    """Every class of the package hashed by type name, by ``module.qualname``."""
    return {
        f"{cls.__module__}.{cls.__qualname__}": cls
        for module in _package_modules()
        for cls in _classes_defined_in(module)
        if _hashed_by_type_name(cls)
    }


def _resolve(public_path: str) -> Any:
    module, _, name = public_path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _str(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def test_every_hashed_class_in_the_package_has_its_own_tag() -> None:
    untagged = sorted(
        name
        for name, cls in _hashed_classes().items()
        if TYPE_TAG_ATTRIBUTE not in vars(cls)
        and name not in UNTAGGED
        and not _in_untagged_package(cls)
    )
    assert untagged == [], f"add {TYPE_TAG_ATTRIBUTE} to these classes: {untagged}"


def _in_untagged_package(cls: type) -> bool:
    return any(
        cls.__module__ == package or cls.__module__.startswith(package + ".")
        for package in UNTAGGED_PACKAGES
    )


def test_untagged_packages_exist_and_carry_no_tag() -> None:
    hashed = _hashed_classes().values()
    for package in UNTAGGED_PACKAGES:
        importlib.import_module(package)
        members = [cls for cls in hashed if _in_untagged_package(cls)]
        assert members, f"{package}: no class left to exempt; drop the entry"
        assert [cls for cls in members if TYPE_TAG_ATTRIBUTE in vars(cls)] == []


def test_untagged_exemptions_exist_and_carry_no_tag() -> None:
    hashed = _hashed_classes()
    assert sorted(name for name in UNTAGGED if name in hashed) == sorted(UNTAGGED)
    assert [name for name in UNTAGGED if TYPE_TAG_ATTRIBUTE in vars(hashed[name])] == []


def test_tag_table_lists_exactly_the_tagged_classes() -> None:
    table = {_resolve(path): tag for path, tag in EXPECTED_TAGS.items()}
    assert len(table) == len(EXPECTED_TAGS), "two table paths name the same class"
    found = {
        cls: vars(cls)[TYPE_TAG_ATTRIBUTE]
        for cls in _hashed_classes().values()
        if TYPE_TAG_ATTRIBUTE in vars(cls)
    }
    assert table == found


def test_tags_are_unique() -> None:
    # Two types sharing a tag would give equal content of different types one identity.
    tags = list(EXPECTED_TAGS.values())
    assert sorted(tag for tag in set(tags) if tags.count(tag) > 1) == []


MOVABLE = {
    "dataclass": (MediumSupport, lambda: MediumSupport(supported=True, reasons=())),
    "pydantic": (WaterSpec, WaterSpec),
    "content_hook": (CaptureGroup, lambda: CaptureGroup(tick=0, time_ns=0, samples={})),
    "enum": (EvidenceClass, lambda: EvidenceClass.ASSUMED),
}


@contextlib.contextmanager
def _moved(cls: type, module: str, qualname: str) -> Iterator[None]:
    """Pretend ``cls`` now lives at ``module.qualname``, as after a code reorganisation."""
    # Not monkeypatch: __qualname__ lives in the type's slot, not its __dict__, and
    # monkeypatch would try to delete it on undo.
    old = cls.__module__, cls.__qualname__
    cls.__module__, cls.__qualname__ = module, qualname
    try:
        yield
    finally:
        cls.__module__, cls.__qualname__ = old


@pytest.mark.parametrize("kind", sorted(MOVABLE))
def test_moving_a_tagged_class_keeps_its_hash(kind: str) -> None:
    cls, make = MOVABLE[kind]
    before = content_hash(make())
    with _moved(cls, "leviathan.reorganised.elsewhere", f"Renamed{cls.__name__}"):
        assert content_hash(make()) == before


@pytest.mark.parametrize("kind", sorted(MOVABLE))
def test_encoding_carries_the_pinned_tag_not_the_module_path(kind: str, monkeypatch) -> None:
    cls, make = MOVABLE[kind]
    monkeypatch.setattr(cls, "__module__", "leviathan.reorganised.elsewhere")
    encoded = canonical_encode(make())
    # The type tag byte (0x0D..0x10) is followed by name(T) = str(tag(T)).
    assert encoded[len(CONTENT_DOMAIN) + 1 :].startswith(_str(vars(cls)[TYPE_TAG_ATTRIBUTE]))
    assert b"reorganised" not in encoded


@dataclasses.dataclass(frozen=True)
class UserRecord:
    """A user's hashed type: no pinned tag, so the module path is its type name."""

    depth_m: float


def test_untagged_user_class_hashes_by_module_path() -> None:
    encoded = canonical_encode(UserRecord(depth_m=3.0))
    assert encoded[len(CONTENT_DOMAIN) + 1 :].startswith(_str(f"{__name__}.UserRecord"))


def test_moving_an_untagged_user_class_changes_its_hash(monkeypatch) -> None:
    before = content_hash(UserRecord(depth_m=3.0))
    monkeypatch.setattr(UserRecord, "__module__", "user_code.elsewhere")
    assert content_hash(UserRecord(depth_m=3.0)) != before


def test_module_merely_starting_with_leviathan_is_not_the_package(monkeypatch) -> None:
    monkeypatch.setattr(UserRecord, "__module__", "leviathanx.tools")
    encoded = canonical_encode(UserRecord(depth_m=3.0))
    assert encoded[len(CONTENT_DOMAIN) + 1 :].startswith(_str("leviathanx.tools.UserRecord"))


class _Mode(enum.Enum):
    """An untagged enum."""

    FAST = "fast"


class _Spec(pydantic.BaseModel):
    """An untagged pydantic model."""

    range_m: float = 1.0


class _Hooked:
    """An untagged class with a content hook."""

    def __content__(self) -> dict:
        return {"range_m": 1.0}


UNTAGGED_KINDS = {
    "dataclass": (UserRecord, lambda: UserRecord(depth_m=3.0)),
    "enum": (_Mode, lambda: _Mode.FAST),
    "pydantic": (_Spec, _Spec),
    "content_hook": (_Hooked, _Hooked),
}


@pytest.mark.parametrize("module", ["leviathan", "leviathan.sonar._frame"])
@pytest.mark.parametrize("kind", sorted(UNTAGGED_KINDS))
def test_untagged_class_in_the_package_is_refused(kind: str, module: str, monkeypatch) -> None:
    cls, make = UNTAGGED_KINDS[kind]
    monkeypatch.setattr(cls, "__module__", module)
    with pytest.raises(TypeError, match=rf"{module}\.{cls.__qualname__}.*__content_type__"):
        content_hash({"payload": make()})


def test_refusal_names_the_location_and_the_line_to_add(monkeypatch) -> None:
    monkeypatch.setattr(UserRecord, "__module__", "leviathan.records")
    with pytest.raises(TypeError) as info:
        content_hash({"payload": UserRecord(depth_m=3.0)})
    message = str(info.value)
    assert message.startswith("$['payload']: leviathan.records.UserRecord ")
    assert '__content_type__ = "leviathan.records.UserRecord"' in message


class UserSupport(MediumSupport):
    """A user's subclass of a tagged library dataclass, without a tag of its own."""


def test_subclass_does_not_inherit_the_parent_tag() -> None:
    encoded = canonical_encode(UserSupport(supported=True, reasons=()))
    assert encoded[len(CONTENT_DOMAIN) + 1 :].startswith(_str(f"{__name__}.UserSupport"))
    assert content_hash(UserSupport(True, ())) != content_hash(MediumSupport(True, ()))


def test_untagged_subclass_in_the_package_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(UserSupport, "__module__", "leviathan.acoustics")
    with pytest.raises(TypeError, match=r"leviathan\.acoustics\.UserSupport.*not inherited"):
        content_hash(UserSupport(supported=True, reasons=()))


@pytest.mark.parametrize("tag", ["", 7, b"leviathan.x.Y"])
def test_tag_that_is_not_a_non_empty_str_is_refused(tag: object) -> None:
    bad = type("BadTag", (), {"__content_type__": tag, "__content__": lambda self: {}})
    with pytest.raises(TypeError, match=r"BadTag\.__content_type__ is .*non-empty str"):
        content_hash(bad())


def test_tag_is_not_a_pydantic_field_or_schema_entry() -> None:
    assert TYPE_TAG_ATTRIBUTE not in WaterSpec.model_fields
    assert TYPE_TAG_ATTRIBUTE not in WaterSpec().model_dump()
    assert TYPE_TAG_ATTRIBUTE not in str(WaterSpec.model_json_schema())


def test_tag_is_not_an_enum_member() -> None:
    assert TYPE_TAG_ATTRIBUTE not in EvidenceClass.__members__
    assert type(vars(EvidenceClass)[TYPE_TAG_ATTRIBUTE]) is str
