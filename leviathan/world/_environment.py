"""The World's environment: water, current and scene geometry with optional constant motion."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from leviathan.frames import Transform
from leviathan.identity import content_hash_property
from leviathan.materials import AcousticMaterial, material_status
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.specs import WaterSpec
from leviathan.time import ns_to_seconds

__all__ = ["Environment", "SceneObject"]


@dataclass(frozen=True, eq=False)
class SceneObject:
    """A seabed, structure or target placed in the World.

    Args:
        object_id: Identifier reported by ground truth.
        mesh: Object-local triangle mesh.
        T_world_object: Pose in world NED at time 0.
        semantic_label: Semantic class (e.g. ``"seabed"``, ``"target"``).
        material: Acoustic material, or ``None`` ("acoustic property unknown").
        velocity_ned_m_per_s: Constant translation velocity in world NED [m/s];
            non-zero makes the object a moving body, posed at each sample instant as
            ``t_world_object(t) = t_world_object(0) + v * t``.
    """

    __content_type__ = "leviathan.world.environment.SceneObject"

    object_id: str
    mesh: TriangleMesh
    T_world_object: Transform
    semantic_label: str
    material: AcousticMaterial | None = None
    velocity_ned_m_per_s: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        v = tuple(float(x) for x in self.velocity_ned_m_per_s)
        if len(v) != 3 or not all(np.isfinite(v)):
            raise ValueError(
                "velocity_ned_m_per_s: expected 3 finite values [m/s], "
                f"got {self.velocity_ned_m_per_s!r}"
            )
        object.__setattr__(self, "velocity_ned_m_per_s", v)
        material_status(self.material)
        # Validates the remaining fields exactly as a scene instance would.
        self.instance_at(0)

    @classmethod
    def from_mesh_file(
        cls,
        object_id: str,
        path: str | os.PathLike[str],
        *,
        sha256: str,
        T_world_object: Transform,
        semantic_label: str,
        material: AcousticMaterial | None = None,
        velocity_ned_m_per_s: tuple[float, float, float] = (0.0, 0.0, 0.0),
    ) -> SceneObject:
        """A scene object whose mesh is a file, pinned by its SHA-256 as a hull mesh is.

        The file is read with :meth:`leviathan.scene.TriangleMesh.load` (any format
        trimesh reads, unprocessed) and refused if its SHA-256 is not ``sha256``; the
        mesh keeps its ``source`` (path and digest). The other arguments are the
        constructor's.

        Raises:
            OSError: The file cannot be read.
            ValueError: The file's SHA-256 differs (the message gives it) or it holds
                no triangle mesh.
        """
        mesh = TriangleMesh.load(path, sha256=sha256)
        return cls(object_id, mesh, T_world_object, semantic_label, material, velocity_ned_m_per_s)

    @cached_property
    def moving(self) -> bool:
        """Whether the object moves."""
        # Cached: the velocity is frozen, and a World asks every object at every tick.
        return any(x != 0.0 for x in self.velocity_ned_m_per_s)

    def instance_at(self, time_ns: int) -> Instance:
        """The scene instance at ``time_ns`` (seconds derived from the integer time)."""
        if not self.moving:
            return self._static_instance
        return self._build_instance(time_ns)

    @cached_property
    def _static_instance(self) -> Instance:
        # A static object's instance is the same at every instant; instances are
        # immutable, so one is built and shared by every scene the World forms.
        return self._build_instance(0)

    def _build_instance(self, time_ns: int) -> Instance:
        T = self.T_world_object
        moving = self.moving
        if moving:
            t_s = ns_to_seconds(time_ns)
            vx, vy, vz = self.velocity_ned_m_per_s
            x, y, z = T.translation.tolist()
            # The rotation is the object's own, checked when it was built: only the
            # translation is new (and validated).
            T = T.with_translation((x + vx * t_s, y + vy * t_s, z + vz * t_s))
        return Instance(
            self.object_id, self.mesh, T, self.semantic_label, self.material, moving=moving
        )

    def __content__(self) -> dict:
        return {
            "instance": self.instance_at(0).__content__(),
            "velocity_ned_m_per_s": list(self.velocity_ned_m_per_s),
        }


@dataclass(frozen=True, eq=False)
class Environment:
    """Water properties, current and scene objects.

    Args:
        water: Water properties and current (uniform or a depth profile).
        objects: Scene objects, in the order that defines instance indices.
        name: Optional scenario name.
    """

    __content_type__ = "leviathan.world.environment.Environment"

    water: WaterSpec = field(default_factory=WaterSpec)
    objects: tuple[SceneObject, ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.water, WaterSpec):
            raise TypeError(f"water: expected a WaterSpec, got {type(self.water).__name__}")
        objects = tuple(self.objects)
        for i, obj in enumerate(objects):
            if not isinstance(obj, SceneObject):
                raise TypeError(f"objects[{i}]: expected a SceneObject, got {type(obj).__name__}")
        object.__setattr__(self, "objects", objects)

    def scene_at(self, time_ns: int) -> Scene:
        """The canonical scene at the sample instant ``time_ns``."""
        if self._static_scene is not None:
            return self._static_scene
        return Scene([o.instance_at(time_ns) for o in self.objects], name=self.name)

    @cached_property
    def _static_scene(self) -> Scene | None:
        # Without moving objects the scene is the same at every instant: one immutable
        # Scene serves every sample, and its content hash and prepared BVH are reused.
        if any(o.moving for o in self.objects):
            return None
        return Scene([o.instance_at(0) for o in self.objects], name=self.name)

    def current_ned(self, depth_m: float) -> np.ndarray:
        """Current velocity in world NED at a depth [m/s]."""
        return np.asarray(self.water.current_at_depth(depth_m), dtype=np.float64)

    def with_water(self, water: WaterSpec) -> Environment:
        """A copy with other water properties."""
        return Environment(water=water, objects=self.objects, name=self.name)

    def __content__(self) -> dict:
        return {
            "name": self.name,
            "water": self.water,
            "objects": [o.__content__() for o in self.objects],
        }

    content_hash = content_hash_property("SHA-256 of the environment's canonical content.")
