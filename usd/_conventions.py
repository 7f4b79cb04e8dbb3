"""Fixed conventions of LEVIATHAN's OpenUSD export, in plain numpy (no pxr needed).

Everything here is a pure function or a constant, so readers of an exported
stage can undo each convention exactly, and tests can check them without
usd-core. The conventions themselves are documented in :mod:`leviathan.usd`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leviathan.frames import R_SENSOR_CAMERA, Transform
from leviathan.sensors import PinholeIntrinsics
from leviathan.specs import CameraSpec
from leviathan.time import Epoch


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


R_ZUP_NED: np.ndarray = _read_only(np.diag([1.0, -1.0, -1.0]))
"""Fixed rotation of ``/World/NED``: maps NED vectors into the Z-up display frame
(north, west, up). Rx(180°), its own inverse. Shape (3, 3), read-only."""

R_OPENCV_USDCAMERA: np.ndarray = _read_only(np.diag([1.0, -1.0, -1.0]))
"""Maps USD-camera vectors (x right, y up, looking along -z) into OpenCV optical
axes (x right, y down, looking along +z). Rx(180°), its own inverse."""

R_SENSOR_USDCAMERA: np.ndarray = _read_only(
    np.array(
        [
            [
                sum(R_SENSOR_CAMERA[i, k] * R_OPENCV_USDCAMERA[k, j] for k in range(3)) + 0.0
                for j in range(3)
            ]
            for i in range(3)
        ],
        dtype=np.float64,
    )
)
"""Fixed rotation of a camera sensor's ``UsdGeom.Camera`` child: maps USD-camera
vectors into sensor FRD, ``R_SENSOR_CAMERA @ R_OPENCV_USDCAMERA``. Entries are
exactly 0 and ±1 (a signed permutation)."""

CAMERA_PIXEL_PITCH_LENS_UNITS: float = 2.0**-15
"""Nominal horizontal pixel pitch used to turn pixel intrinsics into USD lens
attributes, in USD lens units (tenths of a scene unit; the stage is in metres,
so 2^-15 × 0.1 m ≈ 3.05 µm, a typical machine-vision pixel). A power of two so
that ``width_px × pitch`` and ``fx_px × pitch`` are exact in the float32
attributes USD stores. Only ratios enter the projection, so the choice does
not change the image; it matters only to depth-of-field effects."""

MAX_EXACT_TIME_CODE: int = 2**53
"""Time codes are float64; integers up to 2^53 are exact."""


# --------------------------------------------------------------------------- names


def _sanitise(name: str) -> str:
    text = "".join(c if (c.isascii() and (c.isalnum() or c == "_")) else "_" for c in name)
    if not text or text[0].isdigit():
        text = "_" + text
    return text


def prim_names(names: Sequence[str]) -> list[str]:
    """Map identifiers to unique, valid USD prim names, keeping order.

    Characters outside ``[A-Za-z0-9_]`` become ``_`` and a leading digit gets a
    ``_`` prefix. A name that would then collide with another gets the suffix
    ``_<position>``. The original identifiers are always written alongside as
    ``leviathan:*`` attributes, so nothing is lost.

    Args:
        names: Identifiers such as object ids or vehicle and sensor names.

    Returns:
        One prim name per input, pairwise distinct.

    Raises:
        ValueError: If the names still collide after suffixing (only possible
            for adversarial inputs such as ``["a", "a", "a_1"]``).
    """
    base = [_sanitise(str(n)) for n in names]
    counts: dict[str, int] = {}
    for b in base:
        counts[b] = counts.get(b, 0) + 1
    result = [b if counts[b] == 1 else f"{b}_{i}" for i, b in enumerate(base)]
    if len(set(result)) != len(result):
        raise ValueError(
            f"cannot give the identifiers {list(names)!r} distinct USD prim names "
            f"(got {result!r}); rename them so that they differ in [A-Za-z0-9_]"
        )
    return result


# --------------------------------------------------------------------------- matrices


def usd_matrix(transform: Transform) -> np.ndarray:
    """Return the USD (row-vector) matrix of ``T_A_B``: the transpose of ``T_A_B.matrix``.

    Args:
        transform: A rigid transform in our column-vector convention.

    Returns:
        float64 array, shape (4, 4): rotation block ``R^T``, translation in row 3.
    """
    if not isinstance(transform, Transform):
        raise TypeError(f"expected a Transform, got {type(transform).__name__}")
    return transform.matrix.T.copy()


def transform_from_usd_matrix(matrix: Any) -> Transform:
    """Inverse of :func:`usd_matrix`: build ``T_A_B`` from a USD row-vector matrix.

    Args:
        matrix: USD matrix, anything numpy converts to shape (4, 4) (e.g. a
            ``Gf.Matrix4d``).

    Returns:
        The transform; values are copied exactly.

    Raises:
        ValueError: If the matrix is not a rigid transform (see
            :meth:`Transform.from_matrix`).
    """
    return Transform.from_matrix(np.array(matrix, dtype=np.float64).T)


# --------------------------------------------------------------------------- time


def epochs_from_dicts(epochs: Iterable[Mapping[str, int] | Epoch]) -> tuple[Epoch, ...]:
    """Validate clock epochs given as ``{start_tick, start_time_ns, step_ns}`` dicts.

    Args:
        epochs: The clock's epochs in order (dicts as produced by
            :meth:`leviathan.time.Epoch.to_dict`, or :class:`Epoch` objects).

    Returns:
        The epochs as :class:`leviathan.time.Epoch`.

    Raises:
        ValueError: If there are none, a dict has other keys, or start ticks are
            not strictly increasing.
    """
    result: list[Epoch] = []
    expected = {"start_tick", "start_time_ns", "step_ns"}
    for index, epoch in enumerate(epochs):
        if isinstance(epoch, Epoch):
            result.append(epoch)
            continue
        if not isinstance(epoch, Mapping) or set(epoch) != expected:
            given = sorted(epoch) if isinstance(epoch, Mapping) else type(epoch).__name__
            raise ValueError(
                f"epochs[{index}] must be a mapping with exactly the keys {sorted(expected)}, "
                f"got {given!r}; pass Clock.provenance()['epochs']"
            )
        result.append(Epoch(**dict(epoch)))
    if not result:
        raise ValueError("epochs must hold at least one epoch; pass Clock.provenance()['epochs']")
    for previous, current in itertools.pairwise(result):
        if not current.start_tick > previous.start_tick:
            raise ValueError(
                f"epoch start ticks must be strictly increasing, got {previous.start_tick} "
                f"then {current.start_tick}"
            )
    return tuple(result)


def tick_time_ns(epochs: Sequence[Epoch], tick: int) -> int:
    """Time [ns] of ``tick`` under the epoch in force there (the last one starting at or before it).

    Raises:
        ValueError: If ``tick`` is before the first epoch.
    """
    if tick < epochs[0].start_tick:
        raise ValueError(f"tick {tick} is before the first epoch (tick {epochs[0].start_tick})")
    epoch = epochs[0]
    for candidate in epochs:
        if candidate.start_tick <= tick:
            epoch = candidate
    return epoch.time_ns(tick)


def time_code_nanoseconds(epochs: Sequence[Epoch]) -> int:
    """Length of one USD time code [ns]: the gcd of every epoch's step and start time.

    Every committed tick time is ``start_time_ns + n * step_ns`` of its epoch,
    hence a multiple of this ``g``; its time code ``time_ns / g`` is therefore
    an exact integer, distinct for distinct ticks, and epochs with different
    steps share one time axis (e.g. 20 ms then 10 ms steps give g = 10 ms:
    time codes 0, 2, 4, ... then +1 per tick). ``timeCodesPerSecond`` is 1e9 / g.

    Args:
        epochs: Validated epochs (see :func:`epochs_from_dicts`).

    Returns:
        ``g`` [ns], a positive int.
    """
    g = 0
    for epoch in epochs:
        g = math.gcd(g, epoch.step_ns, epoch.start_time_ns)
    return g


# --------------------------------------------------------------------------- camera


@dataclass(frozen=True)
class CameraLens:
    """USD camera lens attributes (float64 here; USD stores them as float32).

    Attributes:
        focal_length: ``focalLength`` [lens units = tenths of a metre].
        horizontal_aperture: ``horizontalAperture`` [lens units].
        vertical_aperture: ``verticalAperture`` [lens units].
        horizontal_aperture_offset: ``horizontalApertureOffset`` [lens units].
        vertical_aperture_offset: ``verticalApertureOffset`` [lens units].
        clipping_range: ``clippingRange`` (near, far) along the optical axis [m].
    """

    __content_type__ = "leviathan.usd.conventions.CameraLens"

    focal_length: float
    horizontal_aperture: float
    vertical_aperture: float
    horizontal_aperture_offset: float
    vertical_aperture_offset: float
    clipping_range: tuple[float, float]


@dataclass(frozen=True)
class CameraIntrinsics:
    """Pinhole intrinsics in pixels, OpenCV pixel-centre convention (pixel 0 centred at 0)."""

    __content_type__ = "leviathan.usd.conventions.CameraIntrinsics"

    fx_px: float
    fy_px: float
    cx_px: float
    cy_px: float


def camera_lens(spec: CameraSpec | PinholeIntrinsics) -> CameraLens:
    """Convert pinhole intrinsics to USD lens attributes.

    With horizontal pitch ``p`` = :data:`CAMERA_PIXEL_PITCH_LENS_UNITS` and
    vertical pitch ``q = p fx / fy`` (so non-square pixels are kept)::

        focalLength              = fx p
        horizontalAperture       = W p          verticalAperture       = H q
        horizontalApertureOffset = ((W - 1)/2 - cx) p
        verticalApertureOffset   = (cy - (H - 1)/2) q

    USD's film window is ``offset ± aperture / 2`` with the optical axis at 0
    and film +y up, while OpenCV's ``(cx, cy)`` count from the centre of the
    top-left pixel with v down; hence the signs and the ``(W - 1)/2`` image
    centre. ``clippingRange = (near_m, far_m)``: both are distances along the
    optical axis in either convention.

    Args:
        spec: The camera (a spec, or the pinhole model its kind declares).

    Returns:
        The lens attributes in float64.
    """
    p = CAMERA_PIXEL_PITCH_LENS_UNITS
    q = p * spec.fx_px / spec.fy_px
    return CameraLens(
        focal_length=spec.fx_px * p,
        horizontal_aperture=spec.width_px * p,
        vertical_aperture=spec.height_px * q,
        horizontal_aperture_offset=((spec.width_px - 1) / 2.0 - spec.cx_px) * p,
        vertical_aperture_offset=(spec.cy_px - (spec.height_px - 1) / 2.0) * q,
        clipping_range=(spec.near_m, spec.far_m),
    )


def intrinsics_from_lens(lens: CameraLens, width_px: int, height_px: int) -> CameraIntrinsics:
    """Inverse of :func:`camera_lens`: recover pixel intrinsics from USD lens attributes.

    Args:
        lens: Lens attributes (e.g. read back from a ``UsdGeom.Camera``).
        width_px: Image width [px].
        height_px: Image height [px].

    Returns:
        ``fx = f W / hAp``, ``fy = f H / vAp``, ``cx = (W-1)/2 - hOff W / hAp``,
        ``cy = (H-1)/2 + vOff H / vAp``.
    """
    px_per_unit_x = width_px / lens.horizontal_aperture
    px_per_unit_y = height_px / lens.vertical_aperture
    return CameraIntrinsics(
        fx_px=lens.focal_length * px_per_unit_x,
        fy_px=lens.focal_length * px_per_unit_y,
        cx_px=(width_px - 1) / 2.0 - lens.horizontal_aperture_offset * px_per_unit_x,
        cy_px=(height_px - 1) / 2.0 + lens.vertical_aperture_offset * px_per_unit_y,
    )
