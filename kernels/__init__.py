"""``leviathan.kernels``: the NVIDIA Warp float64 backend (instance culling and BVH traversal).

* :mod:`leviathan.kernels.trace` holds the ``@wp.func`` helpers, the
  ``@wp.kernel`` and their thin launch wrappers. They mirror
  :mod:`leviathan.reference_cpu.trace` function by function, in float64,
  with ``fuse_fp=False`` and ``fast_math=False``, and reproduce the frozen
  fixture bit for bit.
* :mod:`leviathan.kernels.backend` is the host side: devices, uploads of the
  shared prepared arrays, compile reports and ``nearest_hits``, the twin of
  :func:`leviathan.reference_cpu.trace.nearest_hits`.

Most users never import this package: ``leviathan.sonar.render`` and the
sensors pick it through the dispatch in :mod:`leviathan.raycast` (``backend="auto"``).

Why there is no single-precision mode: float32 traversal is not
bit-identical across platforms (FMA contraction, rounding of the
ray/triangle terms), so exact dominance ties and the triangle picked at a
shared edge or vertex would depend on the machine, and the per-cell ground
truth could no longer be cited.
"""

from leviathan.kernels import backend

# A star import on purpose: backend's own __all__ is the one list of the host-side
# names, so the package re-exports exactly that list instead of a hand copy of it.
from leviathan.kernels.backend import *  # noqa: F403

__all__ = [*backend.__all__]
