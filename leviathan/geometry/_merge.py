"""Merging meshes into one, in the order given."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leviathan.scene import TriangleMesh


def merge_meshes(meshes: Sequence[TriangleMesh]) -> TriangleMesh:
    """Concatenates meshes in order into one mesh.

    Vertices of ``meshes[k]`` follow those of ``meshes[:k]`` and its faces are
    offset by their total vertex count; triangles keep their order, so triangle
    ``t`` of ``meshes[k]`` becomes ``t + sum(m.triangle_count for m in meshes[:k])``.
    Nothing is deduplicated.

    Args:
        meshes: One or more meshes.

    Returns:
        The merged mesh.

    Raises:
        TypeError: If ``meshes`` is not a sequence of ``TriangleMesh``.
        ValueError: If ``meshes`` is empty.
    """
    if isinstance(meshes, TriangleMesh) or not isinstance(meshes, Sequence):
        raise TypeError(f"meshes: expected a sequence of TriangleMesh, got {type(meshes).__name__}")
    items = list(meshes)
    if not items:
        raise ValueError("meshes: expected at least one TriangleMesh, got an empty sequence")
    for k, mesh in enumerate(items):
        if not isinstance(mesh, TriangleMesh):
            raise TypeError(f"meshes[{k}]: expected a TriangleMesh, got {type(mesh).__name__}")
    offsets = np.cumsum([0] + [m.vertices.shape[0] for m in items[:-1]], dtype=np.int64)
    vertices = np.concatenate([m.vertices for m in items], axis=0)
    faces = np.concatenate([m.faces + off for m, off in zip(items, offsets, strict=True)], axis=0)
    return TriangleMesh(vertices, faces)
