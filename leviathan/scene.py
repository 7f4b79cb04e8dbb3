"""The canonical scene: frozen, hashed geometry at one sample instant.

A :class:`Scene` is the input of every ray-cast sensor. It holds mesh
instances (object-local triangle meshes placed by a world transform at the
sample time), each with an object id, a semantic label, an acoustic material
or none, and whether it belongs to a moving body. The sea surface, the plane
``z = 0`` of world NED, is part of every scene: it is always the last
instance, an analytic interface rather than a mesh.

Instance indices are the positions in :attr:`Scene.instances` (mesh instances
first, in the order given, then the sea surface). In a World, the scene a
vehicle's sensors see holds the environment's instances, then the other
vehicles' hulls (``Instance.vehicle`` set, ``moving``) in vehicle-name order.
They are the ``instance`` ids reported by the sonar's ground truth and they
take part in the exact-tie rule (the lowest ``(instance, triangle)`` wins), so
the sea surface loses any exact range tie with scene content.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from leviathan.frames import Transform
from leviathan.identity import content_hash_property
from leviathan.materials import AcousticMaterial, AcousticStatus, material_status

__all__ = [
    "SEA_SURFACE_LABEL",
    "SEA_SURFACE_OBJECT_ID",
    "Instance",
    "MeshSource",
    "Scene",
    "SeaSurface",
    "TriangleMesh",
]

SEA_SURFACE_OBJECT_ID = "sea_surface"
SEA_SURFACE_LABEL = "sea_surface"


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class MeshSource:
    """Where a :class:`TriangleMesh` was loaded from: the path and the file's SHA-256.

    Recorded beside the mesh, never part of its content hash (the hash is the
    vertices and faces themselves).
    """

    __content_type__ = "leviathan.scene.MeshSource"

    path: str
    sha256: str


@dataclass(frozen=True, eq=False)
class TriangleMesh:
    """An object-local triangle mesh in float64.

    Args:
        vertices: Vertex positions in the object frame [m], shape [vertex_count, 3].
        faces: Vertex indices of each triangle, shape [triangle_count, 3]; the
            winding does not matter (surfaces are two-sided).

    Degenerate (zero-area) triangles are kept so that triangle indices stay
    those of the source mesh; they can never be hit.
    """

    __content_type__ = "leviathan.scene.TriangleMesh"

    vertices: np.ndarray
    faces: np.ndarray
    source: MeshSource | None = field(default=None, compare=False)
    """The file the mesh was loaded from (:meth:`load`), else ``None``; not content."""

    def __post_init__(self) -> None:
        v = np.asarray(self.vertices)
        f = np.asarray(self.faces)
        if v.ndim != 2 or v.shape[1] != 3 or v.shape[0] == 0:
            raise ValueError(f"vertices: expected shape [vertex_count >= 1, 3], got {v.shape}")
        if not np.issubdtype(v.dtype, np.floating) and not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"vertices: expected a real numeric array, got dtype {v.dtype}")
        v = v.astype(np.float64)
        if not np.all(np.isfinite(v)):
            bad = np.argwhere(~np.isfinite(v))[0]
            raise ValueError(f"vertices: non-finite value at index {tuple(int(i) for i in bad)}")
        if f.ndim != 2 or f.shape[1] != 3 or f.shape[0] == 0:
            raise ValueError(f"faces: expected shape [triangle_count >= 1, 3], got {f.shape}")
        if not np.issubdtype(f.dtype, np.integer):
            raise ValueError(f"faces: expected an integer array, got dtype {f.dtype}")
        f = f.astype(np.int64)
        if f.min() < 0 or f.max() >= v.shape[0]:
            raise ValueError(
                f"faces: vertex indices must lie in [0, {v.shape[0] - 1}], "
                f"got range [{int(f.min())}, {int(f.max())}]"
            )
        object.__setattr__(self, "vertices", _readonly(v))
        object.__setattr__(self, "faces", _readonly(f))

    @property
    def triangle_count(self) -> int:
        """Number of triangles."""
        return int(self.faces.shape[0])

    @classmethod
    def from_trimesh(cls, mesh: object) -> TriangleMesh:
        """Builds a mesh from a ``trimesh.Trimesh`` (its vertices and faces, unchanged)."""
        vertices = getattr(mesh, "vertices", None)
        faces = getattr(mesh, "faces", None)
        if vertices is None or faces is None:
            raise TypeError(f"mesh: expected a trimesh.Trimesh, got {type(mesh).__name__}")
        return cls(np.asarray(vertices, dtype=np.float64), np.asarray(faces, dtype=np.int64))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, sha256: str | None = None) -> TriangleMesh:
        """Loads a mesh file (any format trimesh reads: PLY, STL, OBJ, GLB, OFF, ...) unprocessed.

        The bytes are read once, hashed and parsed (trimesh with ``process=False``:
        vertices and faces exactly as stored, nothing merged or dropped). The mesh
        records where it came from in :attr:`source`, with the file's SHA-256, as a
        hull mesh file is pinned (:class:`leviathan.specs.HullSpec`). A format that
        refers to other files (``.gltf`` buffers, ``.obj`` materials) reads them as
        trimesh does; only the named file is hashed, so pin a self-contained file
        (``.ply``, ``.stl``, ``.glb``).

        Args:
            path: The mesh file; its suffix names the format.
            sha256: The file's expected SHA-256 (64 lowercase hex digits, as
                ``sha256sum`` prints it), or ``None`` to accept any content. With it,
                a changed file is refused instead of silently changing the scene.

        Returns:
            The mesh (object frame as stored in the file [m]).

        Raises:
            OSError: The file cannot be read.
            ValueError: ``sha256`` is given and differs from the file's (the message
                gives the file's), or the file holds no triangle mesh.
        """
        import trimesh

        path = Path(path)
        if sha256 is not None and not _SHA256_HEX.match(str(sha256)):
            raise ValueError(
                f"sha256: expected 64 lowercase hex digits (e.g. from `sha256sum FILE`), "
                f"got {sha256!r}"
            )
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if sha256 is not None and digest != sha256:
            raise ValueError(
                f"sha256: the mesh file {str(path)!r} has SHA-256 {digest}, expected {sha256}; "
                "pass the new digest if the file changed on purpose"
            )
        suffix = path.suffix.lower().lstrip(".")
        try:
            loaded = trimesh.load(
                io.BytesIO(data),
                file_type=suffix,
                resolver=trimesh.resolvers.FilePathResolver(str(path)),
                force="mesh",
                process=False,
            )
            mesh = cls.from_trimesh(loaded)
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise ValueError(f"{str(path)!r} holds no usable triangle mesh: {exc}") from exc
        object.__setattr__(mesh, "source", MeshSource(path=str(path), sha256=digest))
        return mesh

    def __content__(self) -> dict:
        return {"vertices": self.vertices, "faces": self.faces}

    content_hash = content_hash_property("SHA-256 of the mesh's canonical content.")


@dataclass(frozen=True, eq=False)
class Instance:
    """One placed mesh in the scene at the sample instant.

    Args:
        object_id: Identifier of the object this instance belongs to.
        mesh: Object-local triangle mesh.
        T_world_object: Pose of the object frame in world NED at the sample time.
        semantic_label: Semantic class reported by ground truth (e.g. ``"seabed"``).
        material: Acoustic material, or ``None`` for "acoustic property unknown".
        moving: Whether the instance belongs to a moving body.
        vehicle: World name of the vehicle whose hull this instance is, or ``None``
            for scene content. A hull's ``object_id`` is that name too, so ground
            truth names the vehicle; its BVH topology is built once per hull mesh
            and refitted at each pose (:func:`leviathan.raycast.prepare_scene`).
    """

    __content_type__ = "leviathan.scene.Instance"

    object_id: str
    mesh: TriangleMesh
    T_world_object: Transform
    semantic_label: str
    material: AcousticMaterial | None = None
    moving: bool = False
    vehicle: str | None = None

    def __post_init__(self) -> None:
        if self.vehicle is not None and (
            not isinstance(self.vehicle, str) or self.vehicle != self.object_id
        ):
            raise ValueError(
                f"vehicle: a hull instance's vehicle must be its object_id "
                f"({self.object_id!r}), got {self.vehicle!r}"
            )
        if not isinstance(self.object_id, str) or not self.object_id:
            raise ValueError(f"object_id: expected a non-empty string, got {self.object_id!r}")
        if self.object_id == SEA_SURFACE_OBJECT_ID:
            raise ValueError(
                f"object_id: {SEA_SURFACE_OBJECT_ID!r} is reserved for the sea surface, "
                "which every scene already contains"
            )
        if not isinstance(self.mesh, TriangleMesh):
            raise TypeError(f"mesh: expected a TriangleMesh, got {type(self.mesh).__name__}")
        if not isinstance(self.T_world_object, Transform):
            raise TypeError(
                f"T_world_object: expected a Transform, got {type(self.T_world_object).__name__}"
            )
        if not isinstance(self.semantic_label, str) or not self.semantic_label:
            raise ValueError(
                f"semantic_label: expected a non-empty string, got {self.semantic_label!r}"
            )
        material_status(self.material)  # validates the type
        object.__setattr__(self, "moving", bool(self.moving))

    @property
    def acoustic_status(self) -> AcousticStatus:
        """Acoustic status of this instance's surface."""
        return material_status(self.material)

    def __content__(self) -> dict:
        content = {
            "object_id": self.object_id,
            "mesh": self.mesh.content_hash,
            "T_world_object": self.T_world_object.to_dict(),
            "semantic_label": self.semantic_label,
            "material": self.material,
            "moving": self.moving,
        }
        # Only hulls carry the key, so scene content keeps the identity it had before.
        if self.vehicle is not None:
            content["vehicle"] = self.vehicle
        return content


@dataclass(frozen=True)
class SeaSurface:
    """The sea surface: the plane ``z = 0`` of world NED, an acoustic interface.

    Its scattering is not modelled: samples on it have acoustic status
    ``INTERFACE``, their geometry is valid and their return is missing (NaN).
    """

    __content_type__ = "leviathan.scene.SeaSurface"

    object_id: str = SEA_SURFACE_OBJECT_ID
    semantic_label: str = SEA_SURFACE_LABEL
    moving: bool = False
    normal_world: tuple[float, float, float] = (0.0, 0.0, -1.0)

    @property
    def acoustic_status(self) -> AcousticStatus:
        """Always ``INTERFACE``."""
        return AcousticStatus.INTERFACE

    def __content__(self) -> dict:
        return {"plane": "z=0 world NED", "status": "interface"}


@dataclass(frozen=True, eq=False)
class Scene:
    """A frozen, hashed scene at one sample instant.

    Args:
        instances: Mesh instances; their order defines instance indices.
        name: Optional human-readable name (part of the identity).
    """

    __content_type__ = "leviathan.scene.Scene"

    instances: tuple[Instance, ...]
    name: str = ""
    sea_surface: SeaSurface = field(default_factory=SeaSurface)

    def __init__(self, instances: Sequence[Instance], *, name: str = "") -> None:
        items = tuple(instances)
        for i, inst in enumerate(items):
            if not isinstance(inst, Instance):
                raise TypeError(f"instances[{i}]: expected an Instance, got {type(inst).__name__}")
        object.__setattr__(self, "instances", items)
        object.__setattr__(self, "name", str(name))
        object.__setattr__(self, "sea_surface", SeaSurface())

    @property
    def mesh_instance_count(self) -> int:
        """Number of mesh instances (the sea surface excluded)."""
        return len(self.instances)

    @property
    def sea_surface_instance(self) -> int:
        """Instance index of the sea surface (always the last one)."""
        return len(self.instances)

    @property
    def instance_count(self) -> int:
        """Number of instances including the sea surface."""
        return len(self.instances) + 1

    @cached_property
    def object_ids(self) -> tuple[str, ...]:
        """Sorted unique object ids (sea surface included); ground truth indexes into it."""
        return tuple(sorted({i.object_id for i in self.instances} | {SEA_SURFACE_OBJECT_ID}))

    @cached_property
    def semantic_labels(self) -> tuple[str, ...]:
        """Sorted unique semantic labels (sea surface included)."""
        return tuple(sorted({i.semantic_label for i in self.instances} | {SEA_SURFACE_LABEL}))

    @cached_property
    def instance_tables(self) -> dict[str, np.ndarray]:
        """Per-instance lookup arrays (sea surface last).

        Returns ``object_index``, ``semantic_index`` (int32), ``acoustic_status``
        (uint8) and ``moving`` (uint8), each of shape [instance_count].
        """
        obj = {o: k for k, o in enumerate(self.object_ids)}
        sem = {s: k for k, s in enumerate(self.semantic_labels)}
        entries = [*self.instances, self.sea_surface]
        return {
            "object_index": np.array([obj[e.object_id] for e in entries], dtype=np.int32),
            "semantic_index": np.array([sem[e.semantic_label] for e in entries], dtype=np.int32),
            "acoustic_status": np.array([int(e.acoustic_status) for e in entries], dtype=np.uint8),
            "moving": np.array([1 if e.moving else 0 for e in entries], dtype=np.uint8),
        }

    @cached_property
    def vehicle_names(self) -> tuple[str, ...]:
        """World names of the vehicles whose hulls are in the scene, in instance order."""
        return tuple(i.vehicle for i in self.instances if i.vehicle is not None)

    @property
    def triangle_count(self) -> int:
        """Total number of mesh triangles."""
        return sum(i.mesh.triangle_count for i in self.instances)

    def __content__(self) -> dict:
        return {
            "name": self.name,
            "instances": [i.__content__() for i in self.instances],
            "sea_surface": self.sea_surface.__content__(),
        }

    content_hash = content_hash_property("SHA-256 of the scene's canonical content.")
