"""Scene preparation, the stage every backend shares: world-space triangles, bounds, BVH.

The reference (:mod:`leviathan.reference_cpu.trace`) and the Warp backend
(:mod:`leviathan.kernels`) consume exactly these arrays. Preparation is
deterministic: identical scenes give identical arrays.

Per instance (triangles kept in the mesh's own order; the BVH's ``tri_order``
gives the leaf layout):

* ``v0``, ``e1``, ``e2``: float64 [triangle_count, 3]: first vertex and the two
  edge vectors ``v1 - v0`` and ``v2 - v0`` in world NED [m]. Ray/triangle
  arithmetic uses these, never the raw vertices.
* ``normal``: float64 [triangle_count, 3]: unit normal ``e1 x e2 / |e1 x e2|``
  in world NED (zero for degenerate triangles, which can never be hit).
* ``bounds``: float64 [6]: the instance's padded bounding box (the BVH root box),
  used for instance culling.

World vertices are ``T_world_object.apply_point(vertices)``, whose element-wise
arithmetic order is fixed by :mod:`leviathan.frames`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leviathan.raycast._bvh import DEFAULT_LEAF_SIZE, Bvh, build_bvh

__all__ = [
    "PreparedInstance",
    "PreparedScene",
    "clear_prepared_cache",
    "prepare_instance",
    "prepare_scene",
]


@dataclass(frozen=True, eq=False)
class PreparedInstance:
    """World-space triangle data and BVH of one mesh instance."""

    __content_type__ = "leviathan.reference_cpu.prepare.PreparedInstance"

    v0: np.ndarray
    e1: np.ndarray
    e2: np.ndarray
    normal: np.ndarray
    bvh: Bvh

    @property
    def triangle_count(self) -> int:
        """Number of triangles."""
        return int(self.v0.shape[0])

    @property
    def bounds(self) -> np.ndarray:
        """Padded instance bounds (min xyz, max xyz) [m], shape [6]."""
        return self.bvh.node_bounds[0]


@dataclass(frozen=True, eq=False)
class PreparedScene:
    """Prepared mesh instances in instance order (the sea surface is analytic)."""

    __content_type__ = "leviathan.reference_cpu.prepare.PreparedScene"

    instances: tuple[PreparedInstance, ...]
    scene_hash: str

    @property
    def instance_bounds(self) -> np.ndarray:
        """Padded bounds of every mesh instance, float64 [instance_count, 6]."""
        if not self.instances:
            return np.zeros((0, 6), dtype=np.float64)
        return np.stack([p.bounds for p in self.instances])


def _world_triangles(vertices_world: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, ...]:
    p0 = vertices_world[faces[:, 0]]
    p1 = vertices_world[faces[:, 1]]
    p2 = vertices_world[faces[:, 2]]
    e1 = p1 - p0
    e2 = p2 - p0
    # Cross product written element by element (fixed order, no fused ops).
    nx = e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1]
    ny = e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2]
    nz = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    length = np.sqrt((nx * nx + ny * ny) + nz * nz)
    safe = np.where(length > 0.0, length, 1.0)
    normal = np.stack([nx / safe, ny / safe, nz / safe], axis=1)
    normal[length == 0.0] = 0.0
    tri_min = np.minimum(np.minimum(p0, p1), p2)
    tri_max = np.maximum(np.maximum(p0, p1), p2)
    return p0, e1, e2, normal, tri_min, tri_max


def prepare_instance(
    vertices_world: np.ndarray, faces: np.ndarray, *, leaf_size: int = DEFAULT_LEAF_SIZE
) -> PreparedInstance:
    """Prepares one instance from its world-space vertices.

    Args:
        vertices_world: Vertex positions in world NED [m], shape [vertex_count, 3].
        faces: Vertex indices, int, shape [triangle_count, 3].
        leaf_size: Maximum triangles per BVH leaf.

    Returns:
        The prepared instance.
    """
    vertices_world = np.ascontiguousarray(vertices_world, dtype=np.float64)
    faces = np.ascontiguousarray(faces, dtype=np.int64)
    v0, e1, e2, normal, tri_min, tri_max = _world_triangles(vertices_world, faces)
    bvh = build_bvh(tri_min, tri_max, leaf_size=leaf_size)
    arrays = [np.ascontiguousarray(a) for a in (v0, e1, e2, normal)]
    for a in arrays:
        a.setflags(write=False)
    return PreparedInstance(*arrays, bvh=bvh)


_CACHE: dict[tuple[str, str, int], PreparedInstance] = {}
_CACHE_LIMIT = 64


def prepare_scene(scene, *, leaf_size: int = DEFAULT_LEAF_SIZE) -> PreparedScene:
    """Prepares every mesh instance of a :class:`leviathan.scene.Scene`.

    Prepared instances are cached by (mesh hash, world transform, leaf size), so
    a static seabed is prepared once across pings; the cache never changes a
    result because preparation is a pure function of those keys.
    """
    prepared = []
    for inst in scene.instances:
        T = inst.T_world_object
        key = (
            inst.mesh.content_hash,
            T.rotation.tobytes().hex() + T.translation.tobytes().hex(),
            leaf_size,
        )
        hit = _CACHE.get(key)
        if hit is None:
            world = T.apply_point(inst.mesh.vertices)
            hit = prepare_instance(world, inst.mesh.faces, leaf_size=leaf_size)
            if len(_CACHE) >= _CACHE_LIMIT:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = hit
        prepared.append(hit)
    return PreparedScene(instances=tuple(prepared), scene_hash=scene.content_hash)


def clear_prepared_cache() -> None:
    """Forgets every cached prepared instance, so the next :func:`prepare_scene` builds anew.

    Results never depend on the cache; this exists so a benchmark can time a cold
    BVH build.
    """
    _CACHE.clear()
