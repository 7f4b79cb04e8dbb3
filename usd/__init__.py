"""OpenUSD export of LEVIATHAN scenes and vehicle tracks.

``import leviathan.usd`` does not need usd-core; :func:`export_stage` imports
``pxr`` when called and raises an ImportError naming ``usd-core`` if it is
missing. The stage layout is described in :func:`export_stage`; the fixed
conventions below are pure numpy (:func:`usd_matrix`, :data:`R_ZUP_NED`, ...),
so a reader of a stage can undo each one exactly.

Frames
    Everything under the stage's ``/World/NED`` prim is world NED (x north,
    y east, z down), with vehicle bodies in FRD and sensors in sensor FRD,
    exactly as in :mod:`leviathan.frames`. ``/World/NED`` carries one fixed
    rotation, :data:`R_ZUP_NED` = Rx(180°) = diag(1, -1, -1), so that Z-up
    viewers show the content right way up: north stays +X, east becomes -Y
    (+Y points west) and down becomes -Z (+Z points up). The displayed frame
    is therefore north-west-up, still right-handed. It is written as an exact
    matrix (entries 0 and ±1), not as ``rotateX = 180``, whose sin(π) ≈ 1.2e-16
    would perturb every transform below it.

Matrices
    USD multiplies row vectors from the left (``p' = p M``), so a USD matrix is
    the TRANSPOSE of our column-vector homogeneous matrix ``T_A_B.matrix``:
    rotation block ``R^T`` and translation in the bottom row.

Cameras
    A USD camera looks down its local -Z with +Y up and +X right; OpenCV's
    optical frame looks down +Z with +Y down and +X right. The two differ by
    Rx(180°): :data:`R_OPENCV_USDCAMERA` = diag(1, -1, -1). A camera sensor's
    prim is its sensor-FRD frame (the mount ``T_body_sensor``); its child
    ``UsdGeom.Camera`` carries the fixed rotation
    :data:`R_SENSOR_USDCAMERA` = ``R_SENSOR_CAMERA @ R_OPENCV_USDCAMERA``,
    which maps USD-camera axes into sensor FRD: USD camera +X = sensor +y
    (starboard), +Y = sensor -z (up), -Z = sensor +x (boresight).

Time codes
    See :func:`time_code_nanoseconds`: one time code is ``g`` nanoseconds,
    where ``g`` is the gcd of every epoch's step and start time, so every
    committed tick lands on an exact, distinct integer time code.
"""

from leviathan.usd._conventions import (
    CAMERA_PIXEL_PITCH_LENS_UNITS,
    R_OPENCV_USDCAMERA,
    R_SENSOR_USDCAMERA,
    R_ZUP_NED,
    CameraIntrinsics,
    CameraLens,
    camera_lens,
    intrinsics_from_lens,
    time_code_nanoseconds,
    transform_from_usd_matrix,
    usd_matrix,
)
from leviathan.usd._stage import STAGE_SUFFIXES, check_stage_path, export_stage
from leviathan.usd._track import VehicleTrack

__all__ = [
    "CAMERA_PIXEL_PITCH_LENS_UNITS",
    "R_OPENCV_USDCAMERA",
    "R_SENSOR_USDCAMERA",
    "R_ZUP_NED",
    "STAGE_SUFFIXES",
    "CameraIntrinsics",
    "CameraLens",
    "VehicleTrack",
    "camera_lens",
    "check_stage_path",
    "export_stage",
    "intrinsics_from_lens",
    "time_code_nanoseconds",
    "transform_from_usd_matrix",
    "usd_matrix",
]
