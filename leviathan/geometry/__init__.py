"""Deterministic float64 mesh generators: primitives, heightfields and seabeds.

Every generator is a pure function of its arguments: the same arguments give
bitwise the same vertex and face arrays on every run and every machine. To keep
that promise the module avoids three things:

* numpy transcendentals (``np.sin``, ``np.cos``), whose SIMD code paths differ
  between CPU instruction sets. Angles are evaluated with Python's ``math`` (the
  platform libm, one call per angle) and only exactly rounded numpy operations
  (``+``, ``-``, ``*``, ``/``) touch whole arrays;
* global random state: seabed relief uses keyed randomness
  (:mod:`leviathan.random`), whose uniform draws are exact integer arithmetic;
* mesh processing (trimesh merging, reordering, deduplication): vertex and
  triangle orders are the documented ones below.

All meshes are returned in the object-local frame with NED-like axes: x north
(forward), y east (starboard), z down. Windings follow the right-hand rule:
closed solids wind outward; flat grids (plane, heightfield, seabed) wind so that
their normal points to ``-z`` (up, towards the water column above a seabed).
:class:`~leviathan.scene.TriangleMesh` surfaces are two-sided, so the winding is a
convention for readers and exporters, not something ray casts depend on.
"""

from __future__ import annotations

from leviathan.geometry._grids import heightfield_mesh, plane_mesh
from leviathan.geometry._hull import HULL_END_RINGS, hull_mesh
from leviathan.geometry._merge import merge_meshes
from leviathan.geometry._seabed import (
    SEABED_COMPONENT_COUNT,
    SEABED_ROUGHNESS_FRACTION,
    seabed_grid_shape,
    seabed_mesh,
)
from leviathan.geometry._solids import box_mesh, capsule_mesh, cylinder_mesh, uv_sphere_mesh

__all__ = [
    "HULL_END_RINGS",
    "SEABED_COMPONENT_COUNT",
    "SEABED_ROUGHNESS_FRACTION",
    "box_mesh",
    "capsule_mesh",
    "cylinder_mesh",
    "heightfield_mesh",
    "hull_mesh",
    "merge_meshes",
    "plane_mesh",
    "seabed_grid_shape",
    "seabed_mesh",
    "uv_sphere_mesh",
]
