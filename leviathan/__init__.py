"""LEVIATHAN: a GPU-first underwater robotics simulator with exact, reproducible ground truth.

The public API is what this module and its submodules' ``__all__`` export:

* :mod:`leviathan.frames` — frames and transforms (``Transform`` = T_A_B).
* :mod:`leviathan.time`, :mod:`leviathan.schedule` — integer-nanosecond clock and sensor schedules.
* :mod:`leviathan.identity`, :mod:`leviathan.random` — content hashing and keyed randomness.
* :mod:`leviathan.specs`, :mod:`leviathan.catalogue` — validated documents and built-in vehicles.
* :mod:`leviathan.acoustics`, :mod:`leviathan.materials` — seawater acoustics, materials.
* :mod:`leviathan.scene`, :mod:`leviathan.geometry` — the canonical scene and mesh generators.
* :mod:`leviathan.tracing` — the ray-tracing backend choice (numpy reference or Warp).
* :mod:`leviathan.kernels` — the NVIDIA Warp float64 tracing kernels (CPU and CUDA).
* :mod:`leviathan.sonar` — the canonical imaging sonar (``render`` and ``SonarFrame``).
* :mod:`leviathan.parity` — the frozen 28-scene fixture and the bit-for-bit check.
* :mod:`leviathan.dynamics`, :mod:`leviathan.controllers` — 6-DOF vehicle model and controllers.
* :mod:`leviathan.sensors` — DVL, IMU and camera samples.
* :mod:`leviathan.world` — the canonical World (``World``, ``WorldRegistry``).
* :mod:`leviathan.usd` — OpenUSD export (usd-core imported lazily).
"""

from leviathan.frames import Transform
from leviathan.identity import content_hash, display_hash
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.time import Clock, NonIntegerStepError, seconds_to_ns
from leviathan.world import Environment, SceneObject, VehicleSetup, World, WorldRegistry

__version__ = "0.1.0"

__all__ = [
    "Clock",
    "Environment",
    "Instance",
    "NonIntegerStepError",
    "Scene",
    "SceneObject",
    "Transform",
    "TriangleMesh",
    "VehicleSetup",
    "World",
    "WorldRegistry",
    "__version__",
    "content_hash",
    "display_hash",
    "seconds_to_ns",
]
