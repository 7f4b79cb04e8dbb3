"""``leviathan.reference_cpu``: the numpy reference, the scientific authority of the canonical tier.

Plain numpy, written for clarity, never importing warp:

* :mod:`leviathan.reference_cpu.trace`: the nearest mesh hit (``nearest_hits``),
  mirrored function by function, under the same names, by :mod:`leviathan.kernels`.
* :mod:`leviathan.reference_cpu.sonar`: the imaging sonar's beam quadrature and
  per-sample physics (``beam_grid``, ``sample_physics``), run on the host for every
  backend.

The stages both backends share (scene preparation, BVH, trace result) and the
backend dispatch are public in :mod:`leviathan.raycast` (the shared stages are
defined in :mod:`leviathan._raycast_stages`, which this package imports); the
sonar's binning, ground truth and frame are in :mod:`leviathan.sonar`.
"""

from leviathan.reference_cpu import sonar, trace

# The package exports its two stage modules; their own __all__ list their names.
__all__ = ["sonar", "trace"]
