"""``leviathan.raycast``: the ray-casting stages every backend shares, and the dispatch.

The pipeline of one ray cast, in order:

1. Scene preparation (host, shared): :func:`prepare_scene` gives each mesh
   instance's world-space triangles, unit normals and padded BVH (:class:`Bvh`,
   :func:`build_bvh`), cached per instance; a vehicle hull keeps one tree per
   hull mesh, refitted at each pose (:func:`refit_bvh`, :func:`prepare_posed_instance`).
2. Nearest mesh hit (the one backend-specific stage): ``nearest_hits`` of the
   numpy reference (:mod:`leviathan.reference_cpu.trace`) or of the Warp
   float64 kernels (:mod:`leviathan.kernels`). Both check their rays with
   :func:`check_rays` / :func:`check_t_max` and return a :class:`TraceResult`,
   bit for bit the same. :func:`resolve_backend` picks one; :func:`trace_meshes`
   calls it.
3. The analytic sea surface (host, shared), added by :func:`trace_rays`, which
   the sonar, the camera and the DVL all trace through.

This package is the one public path of every name above. The shared stages of 1
and the result of 2 are defined in :mod:`leviathan._raycast_stages`, which both
backends import; the dispatch here imports the backends, so the stages cannot
sit inside this package without an import circle.
"""

import leviathan._raycast_stages as _stages

# A star import on purpose: the shared stages' own __all__ is the one list of their
# names, so this package re-exports exactly that list instead of a hand copy of it.
from leviathan._raycast_stages import *  # noqa: F403
from leviathan.raycast._dispatch import BACKENDS, resolve_backend, trace_meshes, trace_rays
from leviathan.raycast._sea_surface import intersect_sea_surface

__all__ = [
    "BACKENDS",
    "intersect_sea_surface",
    "resolve_backend",
    "trace_meshes",
    "trace_rays",
    *_stages.__all__,
]
