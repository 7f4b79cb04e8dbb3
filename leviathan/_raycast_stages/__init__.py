"""The ray-cast stages every tracing backend shares: what a backend takes and what it gives.

* :mod:`~leviathan._raycast_stages.bvh`: the deterministic BVH (:class:`Bvh`,
  :func:`build_bvh`, :func:`refit_bvh`).
* :mod:`~leviathan._raycast_stages.prepare`: scene preparation, the world-space
  triangles and BVH of each instance (:class:`PreparedScene`, :func:`prepare_scene`).
* :mod:`~leviathan._raycast_stages.result`: the checked rays and the
  :class:`TraceResult` both backends return.

Users import these names from :mod:`leviathan.raycast`, their one public path; the
backends import them from this package (not from its modules). They
live in a package of their own because both backends (:mod:`leviathan.reference_cpu`
and :mod:`leviathan.kernels`) build on them, and :mod:`leviathan.raycast` holds the
dispatch that imports the backends: were the stages inside it, every backend would
import the package that imports it (an import circle).
"""

from leviathan._raycast_stages.bvh import (
    BVH_PAD_RELATIVE,
    DEFAULT_LEAF_SIZE,
    Bvh,
    build_bvh,
    refit_bvh,
)
from leviathan._raycast_stages.prepare import (
    PreparedInstance,
    PreparedScene,
    clear_prepared_cache,
    prepare_instance,
    prepare_posed_instance,
    prepare_scene,
)
from leviathan._raycast_stages.result import TraceResult, check_rays, check_t_max

__all__ = [
    "BVH_PAD_RELATIVE",
    "DEFAULT_LEAF_SIZE",
    "Bvh",
    "PreparedInstance",
    "PreparedScene",
    "TraceResult",
    "build_bvh",
    "check_rays",
    "check_t_max",
    "clear_prepared_cache",
    "prepare_instance",
    "prepare_posed_instance",
    "prepare_scene",
    "refit_bvh",
]
