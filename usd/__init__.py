"""OpenUSD export of LEVIATHAN scenes and vehicle tracks.

``import leviathan.usd`` does not need usd-core; :func:`export_stage` imports
``pxr`` when called and raises an ImportError naming ``usd-core`` if it is
missing. Frame, matrix, camera and time-code conventions are in
:mod:`leviathan.usd.conventions`.
"""

from leviathan.usd.conventions import (
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
from leviathan.usd.stage import STAGE_SUFFIXES, VehicleTrack, export_stage

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
    "export_stage",
    "intrinsics_from_lens",
    "time_code_nanoseconds",
    "transform_from_usd_matrix",
    "usd_matrix",
]
