"""The Warp compile options of LEVIATHAN's float64 kernel modules, written once.

Each of those modules begins with ``wp.set_module_options(KERNEL_OPTIONS)``
(Warp copies the values into that module's own options):

* ``fuse_fp=False``: no FMA contraction (CUDA gets ``--fmad=false``), so every
  ``a * b + c`` rounds twice, as numpy's does;
* ``fast_math=False``: IEEE division and square root, no reassociation;
* ``enable_backward=False``: no adjoint code; nothing here is differentiated;
* ``optimization_level=3``: ``-O3`` on the CPU too (Warp's CPU default is
  ``-O2``); under the two options above it changes the speed, never a result.

The tests read each module's options back (``kernel.module.options``).
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["KERNEL_OPTIONS"]

KERNEL_OPTIONS = MappingProxyType(
    {"fuse_fp": False, "fast_math": False, "enable_backward": False, "optimization_level": 3}
)
