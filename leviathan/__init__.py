"""LEVIATHAN: a GPU-first underwater robotics simulator with exact, reproducible ground truth.

The public API is what this module and its submodules' ``__all__`` export. This
module re-exports, whole, the ``__all__`` of the foundation modules and of the
World (frames, identity, scene, time, world), so ``from leviathan import World,
Transform`` works; every other name is imported from its own module:

* :mod:`leviathan.frames` — frames and transforms (``Transform`` = T_A_B).
* :mod:`leviathan.time`, :mod:`leviathan.schedule` — integer-nanosecond clock and sensor schedules.
* :mod:`leviathan.identity`, :mod:`leviathan.random` — content hashing and keyed randomness.
* :mod:`leviathan.specs`, :mod:`leviathan.catalogue` — validated documents and built-in vehicles.
* :mod:`leviathan.acoustics`, :mod:`leviathan.materials` — seawater acoustics, materials.
* :mod:`leviathan.scene`, :mod:`leviathan.geometry` — the canonical scene and mesh generators.
* :mod:`leviathan.raycast` — scene preparation and the tracing backend choice (numpy or Warp).
* :mod:`leviathan.kernels` — the NVIDIA Warp float64 tracing kernels (CPU and CUDA).
* :mod:`leviathan.sonar` — the canonical imaging sonar (``render`` and ``SonarFrame``).
* :mod:`leviathan.parity` — the frozen 28-scene fixture and the bit-for-bit check.
* :mod:`leviathan.dynamics`, :mod:`leviathan.controllers` — 6-DOF vehicle model and controllers.
* :mod:`leviathan.sensors` — the sensor protocol and registry; imaging sonar, DVL, IMU, camera.
* :mod:`leviathan.world` — the canonical World (``World``, ``WorldRegistry``).
* :mod:`leviathan.usd` — OpenUSD export (usd-core imported lazily).
* :mod:`leviathan.datasets` — ROS 2 bags in MCAP and HDF5 with the per-cell truth.
* :mod:`leviathan.learning` — batched float32 Gymnasium environments (not canonical).
* :mod:`leviathan.service`, :mod:`leviathan.client` — ``leviathan serve`` and its Python client.
"""

# First: in the command line's own process, Ctrl-C during these imports exits 130
# cleanly (leviathan._startup); in any other process it does nothing.
from leviathan import _startup

_startup.install_if_command_line()

from leviathan import frames, identity, scene, time, world  # noqa: E402
from leviathan._version import __version__  # noqa: E402

# Star imports on purpose: each submodule's own __all__ is the one list of its
# names, so this module re-exports exactly that list instead of a hand copy of it.
from leviathan.frames import *  # noqa: E402, F403
from leviathan.identity import *  # noqa: E402, F403
from leviathan.scene import *  # noqa: E402, F403
from leviathan.time import *  # noqa: E402, F403
from leviathan.world import *  # noqa: E402, F403

__all__ = [
    "__version__",
    *frames.__all__,
    *identity.__all__,
    *scene.__all__,
    *time.__all__,
    *world.__all__,
]
