"""Shared side-scan test scenes and specs (flat, tilted, box on a seabed)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sonar_cases import sonar_test_spec

from leviathan.frames import Transform
from leviathan.geometry import box_mesh
from leviathan.materials import TEST_LAMBERT_BRIGHT, TEST_LAMBERT_MEDIUM
from leviathan.parity._side_scan_scenes import SIDE_SCAN_FIELDS
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.specs import SideScanSonarSpec


def side_scan_spec(**over: Any) -> SideScanSonarSpec:
    """A test side-scan: the parity fixture's (0–90° depression sampled, gaussian 0.5° x 50°
    beams at 20°), sampled finer: 3001 rays a fan, 300 bins to 30 m."""
    base = dict(
        SIDE_SCAN_FIELDS, across_track_sample_count=3001, range_max_m=30.0, range_bin_count=300
    )
    return sonar_test_spec(SideScanSonarSpec, base, period_ns=100_000_000, over=over)


def seabed(
    z: float, *, tilt_rad: float = 0.0, half: float = 200.0, material=TEST_LAMBERT_MEDIUM
) -> Instance:
    """A square seabed at depth ``z`` under the origin, tilted about world x: ``z + y tan β``."""
    xy = np.array([[-half, -half], [half, -half], [half, half], [-half, half]], dtype=np.float64)
    zz = z + math.tan(tilt_rad) * xy[:, 1]
    mesh = TriangleMesh(np.column_stack([xy, zz]), np.array([[0, 1, 2], [0, 2, 3]]))
    return Instance("seabed", mesh, Transform.identity(), "seabed", material)


def box_on_seabed(
    z: float, *, y_near: float, width: float, height: float, length: float = 60.0
) -> Instance:
    """A box on the seabed at depth ``z``, starboard from ``y_near`` to ``y_near + width``."""
    mesh = box_mesh((length, width, height), center=(0.0, y_near + 0.5 * width, z - 0.5 * height))
    return Instance("box", mesh, Transform.identity(), "box", TEST_LAMBERT_BRIGHT)


def scene(*instances: Instance) -> Scene:
    return Scene(list(instances))
