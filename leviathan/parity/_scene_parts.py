"""The frozen scenes' building blocks: the case records, their registry, specs and helpers.

Frozen with the fixture, like the scene list in :mod:`leviathan.parity._scenes`: a change here
moves every scene built from it, and the parity suite will say so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from leviathan.frames import Transform
from leviathan.geometry import plane_mesh, uv_sphere_mesh
from leviathan.materials import (
    TEST_LAMBERT_MEDIUM,
    AcousticMaterial,
    DeclaredMaterial,
    EvidenceClass,
    MaterialParameter,
)
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.sonar import SonarFrame
from leviathan.specs import BeamPatternSpec, ImagingSonarSpec, MountSpec, ScheduleSpec, WaterSpec

SENSOR_ID = "fixture/sonar"
FIXTURE_SEED = 20261130
_PERIOD_NS = 200_000_000


@dataclass(frozen=True, eq=False)
class FixtureCase:
    """The fields of one frozen scene of any fixture (each subclass carries its own tag).

    Attributes:
        name, description: The scene's name in its fixture and what it covers.
        scene, spec, sensor_pose: What is rendered, by which sensor, from where
            (``T_world_sensor``).
        sample_index, time_ns: The scene's place in its fixture (index, index x period).
        water, seed, sensor_id: The water, the root seed (speckle) and the sensor id.
    """

    name: str
    description: str
    scene: Scene
    spec: Any
    sensor_pose: Transform
    sample_index: int
    time_ns: int
    water: WaterSpec = field(default_factory=WaterSpec)
    seed: int | None = None
    sensor_id: str = SENSOR_ID

    def _render_with(self, render: Callable[..., Any], backend: str, device: str | None, **extra):
        """``render`` (the kind's renderer) called with this scene's every argument."""
        return render(
            self.scene,
            self.spec,
            self.sensor_pose,
            sensor_id=self.sensor_id,
            sample_index=self.sample_index,
            time_ns=self.time_ns,
            seed=self.seed,
            water=self.water,
            backend=backend,
            device=device,
            **extra,
        )


@dataclass(frozen=True, eq=False)
class SceneCase(FixtureCase):
    """One frozen scene: everything ``leviathan.sonar.render`` needs."""

    __content_type__ = "leviathan.parity.scenes.SceneCase"

    spec: ImagingSonarSpec

    def render(self, *, backend: str = "reference", device: str | None = None) -> SonarFrame:
        """Renders this scene with the given backend."""
        from leviathan.sonar import render

        # The frozen scenes sample coarsely on purpose (as few as 3 elevations): they pin
        # the arithmetic bit for bit, not a full picture.
        return self._render_with(render, backend, device, sampling_warnings=False)


Builder = Callable[[], dict]
Entry = tuple[str, str, Builder]
_Case = TypeVar("_Case", bound=FixtureCase)
_Spec = TypeVar("_Spec")


def case_register(cases: list[Entry]) -> Callable[[str], Callable[[Builder], Builder]]:
    """The ``@case(description)`` decorator that appends a builder to ``cases``.

    Each builder is registered with its description, under its own name, in the order the
    builders are written (the order is part of the fixture: it gives each scene its sample
    index and time).
    """

    def case(description: str) -> Callable[[Builder], Builder]:
        def register(builder: Builder) -> Builder:
            cases.append((builder.__name__, description, builder))
            return builder

        return register

    return case


def build_case(
    case_type: type[_Case], cases: list[Entry], name: str, *, period_ns: int, what: str
) -> _Case:
    """The scene ``name`` of ``cases`` as a ``case_type``, at its fixture index and time.

    Raises:
        KeyError: If no scene is called ``name`` (the message names the ``what`` and
            lists the available names).
    """
    for index, (case_name, description, builder) in enumerate(cases):
        if case_name == name:
            return case_type(
                name=case_name,
                description=description,
                sample_index=index,
                time_ns=index * period_ns,
                **builder(),
            )
    names = ", ".join(case_name for case_name, _, _ in cases)
    raise KeyError(f"scene: unknown {what} {name!r}; available: {names}")


def fixture_spec(
    spec_type: type[_Spec], fields: Mapping[str, object], *, period_ns: int, over: dict[str, object]
) -> _Spec:
    """A fixture's sensor spec: its ``fields``, what every fixture's sensor shares (top-K 4,
    no speckle, ``period_ns``, mounted at the body origin, the hardware note), then ``over``."""
    shared: dict[str, object] = dict(
        top_k=4,
        speckle=False,
        schedule=ScheduleSpec(period_ns=period_ns),
        mount=MountSpec(translation_m=(0.0, 0.0, 0.0)),
        hardware_note="parity fixture test value",
    )
    return spec_type(**{**fields, **shared, **over})


def _spec(**over: object) -> ImagingSonarSpec:
    base: dict[str, object] = dict(
        name="sonar",
        frequency_hz=900e3,
        azimuth_fov_deg=60.0,
        elevation_aperture_deg=20.0,
        bearing_count=32,
        elevation_sample_count=4,
        range_min_m=1.0,
        range_max_m=40.0,
        range_bin_count=48,
        beam_pattern=_gauss(60.0, 20.0),
    )
    return fixture_spec(ImagingSonarSpec, base, period_ns=_PERIOD_NS, over=over)


def _gauss(az: float, el: float) -> BeamPatternSpec:
    return BeamPatternSpec(
        kind="gaussian", azimuth_3db_full_width_deg=az, elevation_3db_full_width_deg=el
    )


def _pose(
    x: float, y: float, depth: float, *, roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0
) -> Transform:
    """Sensor pose T_world_body @ T_body_sensor; angles in degrees, mount pitch in ``pitch``."""
    body = Transform.from_euler(0.0, 0.0, math.radians(yaw), translation=(x, y, depth))
    mount = Transform.from_euler(
        math.radians(roll), math.radians(pitch), 0.0, translation=(0.4, 0.0, 0.2)
    )
    return body @ mount


def _at(
    x: float, y: float, z: float, *, roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0
) -> Transform:
    return Transform.from_euler(
        math.radians(roll), math.radians(pitch), math.radians(yaw), translation=(x, y, z)
    )


def _seabed(
    depth: float,
    *,
    tilt_deg: float = 0.0,
    size: float = 200.0,
    divisions: int = 20,
    material=TEST_LAMBERT_MEDIUM,
) -> Instance:
    """A flat square seabed ``depth`` [m] down, rolled ``tilt_deg`` about north."""
    mesh = plane_mesh(size, size, divisions_x=divisions, divisions_y=divisions)
    return Instance("seabed", mesh, _at(0.0, 0.0, depth, roll=tilt_deg), "seabed", material)


def _target(
    object_id: str,
    mesh: TriangleMesh,
    T_world_object: Transform,
    material: AcousticMaterial | None,
    *,
    label: str | None = None,
    moving: bool = False,
) -> Instance:
    """The scene object ``object_id`` at ``T_world_object``, labelled ``label`` or its id."""
    semantic_label = object_id if label is None else label
    return Instance(object_id, mesh, T_world_object, semantic_label, material, moving=moving)


def _moving_vehicle(
    radius: float, T_world_object: Transform, material: AcousticMaterial
) -> Instance:
    """A moving sphere of ``radius`` [m] labelled ``"vehicle"`` (a vehicle passing the sensor)."""
    mesh = uv_sphere_mesh(radius, segments=16, rings=8)
    return _target("auv_target", mesh, T_world_object, material, label="vehicle", moving=True)


_UNSUPPORTED = DeclaredMaterial(
    name="declared_apl94_test",
    model="apl94_sediment",
    parameters=(
        MaterialParameter(
            name="ratio_of_density",
            value=1.8,
            units="1",
            meaning="sediment/water density ratio",
            source="parity fixture test declaration; model not implemented",
            evidence_class=EvidenceClass.TEST_REFERENCE,
        ),
    ),
)
