"""The ray-cast stages every tracing backend shares: what a backend takes and what it gives.

* :mod:`~leviathan._raycast_stages.bvh`: the deterministic BVH (:class:`Bvh`,
  :func:`build_bvh`, :func:`refit_bvh`).
* :mod:`~leviathan._raycast_stages.prepare`: scene preparation, the world-space
  triangles and BVH of each instance (:class:`PreparedScene`, :func:`prepare_scene`).
* :mod:`~leviathan._raycast_stages.result`: the checked rays and the
  :class:`TraceResult` both backends return.

Users import these names from :mod:`leviathan.raycast`, their one public path. They
live in a package of their own because both backends (:mod:`leviathan.reference_cpu`
and :mod:`leviathan.kernels`) build on them, and :mod:`leviathan.raycast` holds the
dispatch that imports the backends: were the stages inside it, every backend would
import the package that imports it (an import circle).
"""
