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

Static content is prepared once: prepared instances are cached by (mesh hash,
world transform, leaf size), so a seabed is built on its first ping and reused
after. A vehicle hull (an instance with ``vehicle`` set) or a moving object (``moving``)
is at a new pose at every sample, so it is prepared differently: its BVH is built once per hull mesh
from the object-local triangles and only refitted at each pose
(:func:`prepare_posed_instance`), in a cache of its own that never evicts the
static scene's entries.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from leviathan._raycast_stages.bvh import DEFAULT_LEAF_SIZE, Bvh, build_bvh, refit_bvh

__all__ = [
    "PreparedInstance",
    "PreparedScene",
    "clear_prepared_cache",
    "prepare_instance",
    "prepare_posed_instance",
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
# Hull trees by (mesh hash, leaf size): built once per hull mesh.
_HULL_TREES: dict[tuple[str, int], Bvh] = {}
# Posed hulls by (mesh hash, transform, leaf size): the sensors of one sample
# instant share one; kept apart so that poses never evict static content.
_POSED: dict[tuple[str, str, int], PreparedInstance] = {}
_POSED_LIMIT = 16


def _transform_key(T) -> str:
    return T.rotation.tobytes().hex() + T.translation.tobytes().hex()


# The service steps Worlds on worker threads that share these caches: evict and insert
# under one lock (a plain dict's pop-first races another thread's pop-first).
_CACHE_LOCK = threading.Lock()


def _cache_put(cache: dict, key: tuple, value: PreparedInstance, limit: int) -> None:
    with _CACHE_LOCK:
        while len(cache) >= limit:
            cache.pop(next(iter(cache)), None)
        cache[key] = value


def prepare_posed_instance(
    mesh, T_world_object, *, leaf_size: int = DEFAULT_LEAF_SIZE
) -> PreparedInstance:
    """Prepares a rigid moving mesh at one pose without rebuilding its BVH.

    The tree is built once per mesh (cached by mesh hash and leaf size) from the
    object-local triangles; at each pose the world triangles are computed as in
    :func:`prepare_instance` and the tree's boxes refitted over them
    (:func:`leviathan.raycast.refit_bvh`). The traced result equals that over a
    fresh :func:`prepare_instance` of the same world vertices, bit for bit,
    because the nearest hit does not depend on the tree.

    Args:
        mesh: The object-local :class:`leviathan.scene.TriangleMesh`.
        T_world_object: Its pose in world NED.
        leaf_size: Maximum triangles per BVH leaf.

    Returns:
        The prepared instance at that pose.
    """
    key = (mesh.content_hash, _transform_key(T_world_object), leaf_size)
    hit = _POSED.get(key)
    if hit is not None:
        return hit
    tree_key = (mesh.content_hash, leaf_size)
    tree = _HULL_TREES.get(tree_key)
    if tree is None:
        local = np.ascontiguousarray(mesh.vertices, dtype=np.float64)
        *_, tri_min, tri_max = _world_triangles(local, mesh.faces)
        tree = build_bvh(tri_min, tri_max, leaf_size=leaf_size)
        _HULL_TREES[tree_key] = tree
    world = T_world_object.apply_point(mesh.vertices)
    v0, e1, e2, normal, tri_min, tri_max = _world_triangles(world, mesh.faces)
    bvh = refit_bvh(tree, tri_min, tri_max)
    arrays = [np.ascontiguousarray(a) for a in (v0, e1, e2, normal)]
    for a in arrays:
        a.setflags(write=False)
    hit = PreparedInstance(*arrays, bvh=bvh)
    _cache_put(_POSED, key, hit, _POSED_LIMIT)
    return hit


def prepare_scene(scene, *, leaf_size: int = DEFAULT_LEAF_SIZE) -> PreparedScene:
    """Prepares every mesh instance of a :class:`leviathan.scene.Scene`.

    Prepared instances are cached by (mesh hash, world transform, leaf size), so
    a static seabed is prepared once across pings; the cache never changes a
    result because preparation is a pure function of those keys. Vehicle hulls
    and moving objects go through :func:`prepare_posed_instance` (tree built once
    per mesh, refitted per pose; the nearest hits are those of a fresh build).
    """
    prepared = []
    for inst in scene.instances:
        T = inst.T_world_object
        if inst.vehicle is not None or inst.moving:
            prepared.append(prepare_posed_instance(inst.mesh, T, leaf_size=leaf_size))
            continue
        key = (inst.mesh.content_hash, _transform_key(T), leaf_size)
        hit = _CACHE.get(key)
        if hit is None:
            world = T.apply_point(inst.mesh.vertices)
            hit = prepare_instance(world, inst.mesh.faces, leaf_size=leaf_size)
            _cache_put(_CACHE, key, hit, _CACHE_LIMIT)
        prepared.append(hit)
    return PreparedScene(instances=tuple(prepared), scene_hash=scene.content_hash)


def clear_prepared_cache() -> None:
    """Forgets every cached prepared instance, so the next :func:`prepare_scene` builds anew.

    Results never depend on the cache; this exists so a benchmark can time a cold
    BVH build. Hull trees and posed hulls are forgotten too.
    """
    _CACHE.clear()
    _HULL_TREES.clear()
    _POSED.clear()
