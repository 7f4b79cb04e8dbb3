"""Warp device functions shared by the learning-tier kernels, float32.

NOT CANONICAL. One definition of the keyed hash, of the rotation matrix and of the
vertical seabed ray for the vehicle, sensing, terrain and task kernels; the modules that
call them keep the same compile options as this one (``fuse_fp=False``,
``fast_math=False``, ``enable_backward=False``; see :mod:`leviathan.learning.vehicles`
for why), so the shared code rounds as written.
"""

from __future__ import annotations

import warp as wp

wp.set_module_options({"fuse_fp": False, "fast_math": False, "enable_backward": False})

# MurmurHash3 fmix32 multipliers and the 32-bit golden-ratio increment (keeps 0 off the
# finaliser's only fixed point, so seed 0 of env 0 is no special case).
_FMIX_M1 = wp.constant(wp.uint32(0x85EBCA6B))
_FMIX_M2 = wp.constant(wp.uint32(0xC2B2AE35))
GOLDEN = wp.constant(wp.uint32(0x9E3779B9))
_INV_2_24 = wp.constant(wp.float32(1.0 / 16777216.0))


@wp.func
def fmix32(h: wp.uint32) -> wp.uint32:
    """MurmurHash3's finaliser: a bijection on 32 bits with full avalanche."""
    h = h ^ (h >> wp.uint32(16))
    h = h * _FMIX_M1
    h = h ^ (h >> wp.uint32(13))
    h = h * _FMIX_M2
    h = h ^ (h >> wp.uint32(16))
    return h


@wp.func
def keyed_hash(a: wp.uint32, b: wp.uint32, c: wp.uint32) -> wp.uint32:
    """Three chained :func:`fmix32` rounds over ``(a, b, c)``, each offset by the golden ratio."""
    return fmix32(fmix32(fmix32(a + GOLDEN) + b + GOLDEN) + c + GOLDEN)


@wp.func
def keyed_uniform(seed: wp.uint32, env: wp.uint32, parameter: wp.uint32) -> wp.float32:
    """Uniform in [0, 1) with 24 bits, a pure function of (seed, env, parameter)."""
    return wp.float32(keyed_hash(seed, env, parameter) >> wp.uint32(8)) * _INV_2_24


@wp.func
def rotation_unit(q: wp.vec4f) -> wp.mat33f:
    """``R_world_body`` of the unit quaternion ``(w, x, y, z)`` (not normalised here)."""
    qw = q[0]
    qx = q[1]
    qy = q[2]
    qz = q[3]
    one = wp.float32(1.0)
    two = wp.float32(2.0)
    return wp.mat33f(
        one - two * (qy * qy + qz * qz),
        two * (qx * qy - qz * qw),
        two * (qx * qz + qy * qw),
        two * (qx * qy + qz * qw),
        one - two * (qx * qx + qz * qz),
        two * (qy * qz - qx * qw),
        two * (qx * qz - qy * qw),
        two * (qy * qz + qx * qw),
        one - two * (qx * qx + qy * qy),
    )


@wp.func
def rotation_normalised(q: wp.vec4f) -> wp.mat33f:
    """``R_world_body`` of the quaternion ``(w, x, y, z)``, normalised first.

    As ``leviathan.dynamics.rotation_rows_from_quaternion``: each component divided by the norm.
    """
    norm = wp.sqrt(((q[0] * q[0] + q[1] * q[1]) + q[2] * q[2]) + q[3] * q[3])
    return rotation_unit(wp.vec4f(q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm))


@wp.func
def seabed_depth(
    mesh: wp.uint64, north: float, east: float, top: float, length: float, miss: float
) -> float:
    """Depth [m] of the first surface straight below (north, east); ``miss`` when there is none.

    The ray starts at depth ``top`` (above the shallowest vertex) and runs ``length``
    down: starting close above the terrain keeps the float32 hit distance, and so the
    depth, to a few ulps of the terrain's depth.
    """
    hit = wp.mesh_query_ray(mesh, wp.vec3f(north, east, top), wp.vec3f(0.0, 0.0, 1.0), length)
    depth = miss
    if hit.result:
        depth = top + hit.t
    return depth
