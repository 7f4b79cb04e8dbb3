"""Coordinate frames, rigid transforms and attitude conventions.

Frames (all right-handed, lengths in metres, values float64):

* world: NED, x north, y east, z down, origin at the sea surface;
* body: FRD, x forward, y starboard, z down, origin at the centre of gravity;
* camera: OpenCV optical, x right, y down, z forward along the optical axis;
* sensor (acoustic and inertial): FRD, x along the boresight, y starboard, z down.

A transform ``T_A_B`` maps a point expressed in frame B into frame A::

    p_A = R_A_B p_B + t_A_B        T_A_C = T_A_B @ T_B_C        T_B_A = T_A_B.inverse()

Attitude is roll φ, pitch θ, yaw ψ [rad] applied in ZYX order:
``R_world_body = Rz(ψ) Ry(θ) Rx(φ)``.

Arithmetic order is part of the contract. Every product of a rotation with a
vector or with another rotation is written out element by element in a fixed
order, ``out_i = ((R_i0 * v_0 + R_i1 * v_1) + R_i2 * v_2) + t_i``, with separate
IEEE multiplies and adds. ``@``, ``np.dot``, ``np.matmul``, ``einsum`` and
``np.sum`` are not used on these paths because they may reorder or fuse
operations (BLAS blocking, FMA). A GPU backend reproduces the same order, so
results are bit-for-bit identical between backends.
"""

from __future__ import annotations

from leviathan.frames._attitude import (
    euler_from_rotation,
    quaternion_from_rotation,
    rotation_from_euler,
    rotation_from_quaternion,
    wrap_angle,
)
from leviathan.frames._sensor_frames import (
    R_CAMERA_SENSOR,
    R_SENSOR_CAMERA,
    T_SENSOR_CAMERA,
    sensor_pose,
)
from leviathan.frames._transform import Transform

__all__ = [
    "R_CAMERA_SENSOR",
    "R_SENSOR_CAMERA",
    "T_SENSOR_CAMERA",
    "Transform",
    "euler_from_rotation",
    "quaternion_from_rotation",
    "rotation_from_euler",
    "rotation_from_quaternion",
    "sensor_pose",
    "wrap_angle",
]
