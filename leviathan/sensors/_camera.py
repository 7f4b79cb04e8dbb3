"""Canonical pinhole camera: exact per-pixel geometric ground truth by ray casting.

Frames. The mount places the sensor FRD frame (x along the optical axis); the
camera frame is OpenCV optical (x right, y down, z forward), reached by the fixed
rotation ``R_SENSOR_CAMERA`` of :mod:`leviathan.frames`. The camera's world pose
is ``T_world_camera = T_world_body @ spec.mount.transform() @ T_SENSOR_CAMERA``.

Pixel convention. Pixel ``(u, v)`` is column ``u`` (0 at the left) and row ``v``
(0 at the top); its centre lies at the continuous image coordinates ``(u, v)``,
so the image spans ``[-0.5, W - 0.5] x [-0.5, H - 0.5]`` and ``cx = (W - 1) / 2``,
``cy = (H - 1) / 2`` put the principal point at the image centre (OpenCV's
convention). One ray per pixel, through the pixel centre, with unit direction in
the camera frame::

    d_c = (x, y, 1) / sqrt((x² + y²) + 1),   x = (u − cx) / fx,   y = (v − cy) / fy

Hits. Each ray's nearest hit (meshes and the sea surface, reference tracer) at
range ``t`` has camera z-depth ``z = t · d_c,z``. ``near_m`` and ``far_m`` clip
along the optical axis, as in a rasteriser: geometry with ``z < near_m`` is
clipped away, so the ray is traced again from its crossing of the near plane and
sees what lies behind; a pixel whose nearest remaining hit has ``z > far_m``, or
that hits nothing, is missing (NaN, -1). The sea surface is an ordinary hit with
its own instance, semantic label and object id.

Normals. ``normal_camera`` is the hit triangle's world normal (``(0, 0, -1)`` for
the sea surface) rotated into the camera frame and flipped, where needed, so
that it faces the camera: ``n · d_c <= 0``. Surfaces are two-sided.

Display. ``preview_srgb`` is a shaded picture for people, not data: headlight
Lambertian shading ``|n · d_c|`` times a per-semantic-label base colour (from the
label's SHA-256), blended towards water blue with range, water blue where nothing
is hit. It uses only correctly rounded operations, so it is bitwise reproducible.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan._files import encode_png
from leviathan.frames import T_SENSOR_CAMERA, Transform, sensor_pose
from leviathan.raycast import PreparedScene, trace_rays
from leviathan.ros import header
from leviathan.scene import Scene
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import (
    Footprint,
    FootprintPart,
    PinholeIntrinsics,
    RosEncoding,
    RosTopic,
    channel_doc,
)
from leviathan.sensors._protocol import register_sensor_kind
from leviathan.sensors._sample import SensorSample, _check_sample_inputs, _prepared_for
from leviathan.specs import CameraSpec

__all__ = [
    "CAMERA_MODEL_VERSION",
    "FOG_LENGTH_M",
    "WATER_RGB",
    "CameraSensor",
    "camera_preview_png",
    "camera_ray_directions",
    "label_base_rgb",
    "render_camera",
]

CAMERA_MODEL_VERSION = "leviathan.camera.v1"
"""Name and version of the camera model; part of every camera sample's identity."""

WATER_RGB: tuple[float, float, float] = (0.02, 0.16, 0.26)
"""Linear RGB of open water in the preview (background and fog colour), each in [0, 1]."""

FOG_LENGTH_M = 15.0
"""Preview fog: a hit at range R keeps the fraction ``1 / (1 + R / FOG_LENGTH_M)`` [m]."""


@lru_cache(maxsize=16)
def _ray_grid(width: int, height: int, fx: float, fy: float, cx: float, cy: float) -> np.ndarray:
    u = np.arange(width, dtype=np.float64)
    v = np.arange(height, dtype=np.float64)
    x = np.broadcast_to((u - cx) / fx, (height, width)).ravel()
    y = np.broadcast_to(((v - cy) / fy)[:, None], (height, width)).ravel()
    norm = np.sqrt((x * x + y * y) + 1.0)
    d = np.stack([x / norm, y / norm, 1.0 / norm], axis=1)
    d.setflags(write=False)
    return d


def camera_ray_directions(spec: CameraSpec) -> np.ndarray:
    """Unit pixel-centre ray directions in the camera (OpenCV optical) frame.

    Args:
        spec: The camera spec (image size and intrinsics).

    Returns:
        Read-only float64 array, shape [height_px * width_px, 3], row-major over
        pixels: ray ``v * width_px + u`` belongs to pixel column u, row v.
    """
    if not isinstance(spec, CameraSpec):
        raise TypeError(f"spec: expected a CameraSpec, got {type(spec).__name__}")
    return _ray_grid(spec.width_px, spec.height_px, spec.fx_px, spec.fy_px, spec.cx_px, spec.cy_px)


def label_base_rgb(label: str) -> tuple[float, float, float]:
    """Preview base colour of a semantic label, linear RGB in [0.25, 1].

    Derived from the first three bytes of SHA-256(label, UTF-8), so it is stable
    across runs, machines and scenes.
    """
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return tuple(0.25 + 0.75 * (b / 255.0) for b in digest[:3])  # type: ignore[return-value]


def _intrinsics(spec: CameraSpec) -> PinholeIntrinsics:
    """The spec's pinhole model: its fields that :class:`PinholeIntrinsics` names."""
    fields = dataclasses.fields(PinholeIntrinsics)
    return PinholeIntrinsics(**{f.name: getattr(spec, f.name) for f in fields})


def render_camera(
    scene: Scene,
    spec: CameraSpec,
    T_world_body: Transform,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
    prepared: PreparedScene | None = None,
    backend: str = "auto",
    device: str | None = None,
) -> SensorSample:
    """Render one camera frame of exact geometric ground truth.

    Args:
        scene: The canonical scene at the sample instant.
        spec: Camera spec (intrinsics, clipping, mount).
        T_world_body: Vehicle body pose in world NED.
        sensor_id: Stable sensor id, ``"vehicle/sensor"``.
        sample_index: Index n of the sample in the sensor's schedule, >= 0.
        time_ns: Sample time [ns].
        prepared: ``prepare_scene(scene)`` if already computed; prepared here otherwise.
        backend: Tracing backend (:data:`leviathan.raycast.BACKENDS`); every backend
            gives the same sample, bit for bit.
        device: Device for the backend (``None``: its default).

    Returns:
        A ``kind="camera"`` :class:`SensorSample` with channels over
        ``[height_px, width_px]``:

        * ``depth_z_m`` float64: camera z-depth [m], NaN where missing;
        * ``range_m`` float64: distance from the camera centre to the hit [m], NaN
          where missing;
        * ``normal_camera`` float64 [H, W, 3]: unit surface normal in the camera
          frame facing the camera, NaN where missing;
        * ``instance_id`` int32: scene instance index (the sea surface is
          ``scene.sea_surface_instance``), -1 where missing;
        * ``semantic_id`` int32: index into ``metadata["semantic_labels"]``, -1;
        * ``object_id`` int32: index into ``metadata["object_ids"]``, -1;

        and the display product ``preview_srgb`` uint8 [H, W, 3].

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If an identifier is malformed or ``prepared`` belongs to
            another scene.
    """
    ids = _check_sample_inputs(
        spec, CameraSpec, (sensor_id, sample_index, time_ns), T_world_body=T_world_body
    )
    prepared = _prepared_for(scene, prepared)

    H, W = spec.height_px, spec.width_px
    near, far = float(spec.near_m), float(spec.far_m)
    T_body_sensor = spec.mount.transform()
    T_world_sensor = sensor_pose(T_world_body, T_body_sensor)
    T_world_camera = T_world_sensor @ T_SENSOR_CAMERA

    d_cam = camera_ray_directions(spec)
    dz = d_cam[:, 2]
    d = T_world_camera.apply_direction(d_cam)
    o = np.ascontiguousarray(np.broadcast_to(T_world_camera.translation, d.shape))
    # The far plane is a depth; the ray farthest off axis reaches it at the longest range.
    t_max = far / float(np.min(dz))
    sea = scene.sea_surface_instance
    hits = trace_rays(
        prepared, o, d, t_max=t_max, sea_surface_instance=sea, backend=backend, device=device
    )
    range_m = hits.t.copy()
    inst = hits.instance.copy()
    tri = hits.triangle.copy()

    # Near-plane clipping: trace again from where the ray crosses the near plane.
    clipped = np.nonzero((inst >= 0) & (range_m * dz < near))[0]
    if clipped.size:
        t_near = near / dz[clipped]
        dc = d[clipped]
        oc = o[clipped]
        start = np.stack(
            [
                oc[:, 0] + t_near * dc[:, 0],
                oc[:, 1] + t_near * dc[:, 1],
                oc[:, 2] + t_near * dc[:, 2],
            ],
            axis=1,
        )
        again = trace_rays(
            prepared,
            start,
            dc,
            t_max=t_max,
            sea_surface_instance=sea,
            backend=backend,
            device=device,
        )
        range_m[clipped] = t_near + again.t
        inst[clipped] = again.instance
        tri[clipped] = again.triangle

    depth = range_m * dz
    valid = (inst >= 0) & (depth >= near) & (depth <= far)
    ray = np.nonzero(valid)[0]
    hit_inst = inst[ray].astype(np.int64)

    normal_world = np.zeros((ray.size, 3), dtype=np.float64)
    normal_world[hit_inst == sea] = scene.sea_surface.normal_world
    for k, prep in enumerate(prepared.instances):
        sel = hit_inst == k
        if np.any(sel):
            normal_world[sel] = prep.normal[tri[ray][sel]]
    n_cam = T_world_camera.inverse().apply_direction(normal_world)
    dv = d_cam[ray]
    cos_view = (n_cam[:, 0] * dv[:, 0] + n_cam[:, 1] * dv[:, 1]) + n_cam[:, 2] * dv[:, 2]
    n_cam = np.where((cos_view > 0.0)[:, None], -n_cam, n_cam)

    tables = scene.instance_tables
    n_pix = H * W

    def scatter(values: np.ndarray, fill: Any, dtype: Any, extra: tuple[int, ...] = ()):
        out = np.full((n_pix, *extra), fill, dtype=dtype)
        out[ray] = values
        return out.reshape(H, W, *extra)

    channels = MappingProxyType(
        {
            "depth_z_m": scatter(depth[ray], np.nan, np.float64),
            "range_m": scatter(range_m[ray], np.nan, np.float64),
            "normal_camera": scatter(n_cam, np.nan, np.float64, (3,)),
            "instance_id": scatter(hit_inst, -1, np.int32),
            "semantic_id": scatter(tables["semantic_index"][hit_inst], -1, np.int32),
            "object_id": scatter(tables["object_index"][hit_inst], -1, np.int32),
        }
    )
    preview = _preview_pixels(
        shape=(H, W),
        ray=ray,
        cos_view=np.abs(cos_view),
        range_m=range_m[ray],
        semantic=tables["semantic_index"][hit_inst],
        labels=scene.semantic_labels,
    )
    metadata = {
        "model": CAMERA_MODEL_VERSION,
        "intrinsics": dataclasses.asdict(_intrinsics(spec)),
        "T_world_sensor": T_world_sensor.to_dict(),
        "T_world_camera": T_world_camera.to_dict(),
        "T_body_sensor": T_body_sensor.to_dict(),
        "scene_hash": scene.content_hash,
        "sea_surface_instance": sea,
        "semantic_labels": list(scene.semantic_labels),
        "object_ids": list(scene.object_ids),
        "instance_semantic_index": tables["semantic_index"].tolist(),
        "instance_object_index": tables["object_index"].tolist(),
    }
    return SensorSample(
        kind="camera",
        **ids,
        channels=channels,
        metadata=metadata,
        display={"preview_srgb": preview},
    )


def _preview_pixels(
    *,
    shape: tuple[int, int],
    ray: np.ndarray,
    cos_view: np.ndarray,
    range_m: np.ndarray,
    semantic: np.ndarray,
    labels: tuple[str, ...],
) -> np.ndarray:
    """Shaded preview, uint8 [H, W, 3], gamma-2 encoded (``sqrt``, correctly rounded)."""
    H, W = shape
    water = np.array(WATER_RGB, dtype=np.float64)
    palette = np.array([label_base_rgb(label) for label in labels], dtype=np.float64)
    keep = 1.0 / (1.0 + range_m / FOG_LENGTH_M)
    lit = palette[semantic] * cos_view[:, None]
    colour = lit * keep[:, None] + water[None, :] * (1.0 - keep)[:, None]
    linear = np.broadcast_to(water, (H * W, 3)).copy()
    linear[ray] = colour
    # sqrt stands in for the sRGB curve: close to it, and exact on every platform.
    encoded = np.rint(np.sqrt(np.clip(linear, 0.0, 1.0)) * 255.0)
    return encoded.astype(np.uint8).reshape(H, W, 3)


def camera_preview_png(sample: SensorSample, path: str | os.PathLike[str] | None = None) -> bytes:
    """Encode a camera sample's ``preview_srgb`` as an 8-bit RGB PNG.

    Args:
        sample: A ``kind="camera"`` sample from :func:`render_camera`.
        path: If given, the PNG is also written there atomically (temp file in the
            same folder, then ``os.replace``), so no reader sees a partial file.

    Returns:
        The PNG bytes: only IHDR, IDAT and IEND (no time or host metadata), zlib
        level :data:`leviathan.sonar.display.PNG_COMPRESS_LEVEL` (the level of every
        LEVIATHAN PNG), so equal pixels give equal bytes.

    Raises:
        ValueError: If ``sample`` is not a camera sample with a preview.
    """
    if not isinstance(sample, SensorSample) or "preview_srgb" not in sample.display:
        kind = sample.kind if isinstance(sample, SensorSample) else type(sample).__name__
        raise ValueError(
            f"sample: expected a camera SensorSample with a 'preview_srgb' display product, "
            f"got {kind!r}; render one with render_camera(...)"
        )
    return encode_png(sample.display["preview_srgb"], path)


# --------------------------------------------------------------------------- declarations

_CAM = "camera optical (OpenCV: x right, y down, z forward)"
_HW = "row (v, top to bottom), column (u, left to right)"
_NAN = "NaN: missing (no contributor)"


def _camera_messages(sample: SensorSample, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The sRGB preview, the z-depth image and the camera info, in the optical frame.

    The sRGB preview (``rgb8``), camera z-depth (``32FC1`` [m], REP 118; +Inf where
    nothing lies within ``far_m``, REP 117's "no object in range"; LEVIATHAN's
    channel holds NaN there) and a ``plumb_bob`` CameraInfo with zero distortion
    from the sample's intrinsics (``P = [K | 0]``, ``R = I``).
    """
    stamp = header(sample.time_ns, frame_id)
    rgb = np.ascontiguousarray(sample.display["preview_srgb"], dtype=np.uint8)
    height, width = int(rgb.shape[0]), int(rgb.shape[1])
    depth = np.asarray(sample.channels["depth_z_m"], dtype=np.float64).astype("<f4")
    depth[np.isnan(depth)] = np.inf  # REP 117: +Inf is "no object within range"
    intrinsics = sample.metadata["intrinsics"]
    fx, fy = float(intrinsics["fx_px"]), float(intrinsics["fy_px"])
    cx, cy = float(intrinsics["cx_px"]), float(intrinsics["cy_px"])
    image = {"header": stamp, "height": height, "width": width, "is_bigendian": 0}
    return [
        ("image", {**image, "encoding": "rgb8", "step": 3 * width, "data": rgb.tobytes()}),
        ("depth", {**image, "encoding": "32FC1", "step": 4 * width, "data": depth.tobytes()}),
        (
            "camera_info",
            {
                "header": stamp,
                "height": int(intrinsics["height_px"]),
                "width": int(intrinsics["width_px"]),
                "distortion_model": "plumb_bob",
                "d": [0.0, 0.0, 0.0, 0.0, 0.0],
                "k": [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0],
                "r": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                "p": [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0],
                "binning_x": 0,
                "binning_y": 0,
                "roi": {"x_offset": 0, "y_offset": 0, "height": 0, "width": 0, "do_rectify": False},
            },
        ),
    ]


class CameraSensor:
    """Camera frames: :func:`render_camera` on a sample context (no noise, no seed)."""

    kind = "camera"
    spec_type = CameraSpec
    product_type = SensorSample
    # Sees the scene; the surfaces' motion never enters its product.
    reads_surfaces = False
    channels = MappingProxyType(
        {
            "depth_z_m": channel_doc("m", _CAM, _HW, "camera z-depth of the nearest hit", _NAN),
            "range_m": channel_doc(
                "m", "-", _HW, "distance from the camera centre to the hit", _NAN
            ),
            "normal_camera": channel_doc(
                "1", _CAM, f"{_HW}, xyz", "unit surface normal facing the camera", _NAN
            ),
            "instance_id": channel_doc("-", "-", _HW, "scene instance index", "-1: nothing hit"),
            "semantic_id": channel_doc(
                "-", "-", _HW, "index into metadata semantic_labels", "-1: nothing hit"
            ),
            "object_id": channel_doc(
                "-", "-", _HW, "index into metadata object_ids", "-1: nothing hit"
            ),
        }
    )
    display_channels = MappingProxyType(
        {
            "preview_srgb": channel_doc(
                "-", "-", f"{_HW}, rgb", "sRGB preview for people (display product, not data)"
            ),
        }
    )
    ros = RosEncoding(
        frame="optical",
        topics=(
            RosTopic("image", "sensor_msgs/msg/Image"),
            RosTopic("depth", "sensor_msgs/msg/Image"),
            RosTopic("camera_info", "sensor_msgs/msg/CameraInfo"),
        ),
        encode=_camera_messages,
    )

    def footprint(self, spec: CameraSpec) -> Footprint:
        """The view frustum between ``near_m`` and ``far_m``, in sensor FRD."""

        # Pixel-centre convention: the image's edges are at -0.5 and W - 0.5.
        right, bottom = spec.width_px - 0.5, spec.height_px - 0.5
        image_corners = ((-0.5, -0.5), (right, -0.5), (right, bottom), (-0.5, bottom))

        def corners(depth: float) -> list[list[float]]:
            # Optical (x right, y down, z forward) -> sensor FRD (z, x, y).
            return [
                [
                    depth,
                    (u - spec.cx_px) / spec.fx_px * depth,
                    (v - spec.cy_px) / spec.fy_px * depth,
                ]
                for u, v in image_corners
            ]

        near, far = corners(spec.near_m), corners(spec.far_m)
        segments = []
        for i in range(4):
            j = (i + 1) % 4
            segments += [near[i], near[j], far[i], far[j], near[i], far[i]]
        return Footprint(
            legend="white: camera frustum",
            parts=(FootprintPart("camera-frustum", "lines", np.array(segments), "#ffffff", 0.45),),
        )

    def summary(self, spec: CameraSpec) -> str:
        """Image size, focal length and clipping range, in one line."""
        return (
            f"{spec.width_px}×{spec.height_px} px, fx {spec.fx_px:g} px, "
            f"{spec.near_m:g}–{spec.far_m:g} m"
        )

    def intrinsics(self, spec: CameraSpec) -> PinholeIntrinsics:
        """The spec's pinhole model (the USD export authors a ``UsdGeom.Camera`` from it)."""
        return _intrinsics(spec)

    def preview(self, sample: SensorSample) -> bytes:
        """The sRGB preview as PNG bytes (:func:`camera_preview_png`)."""
        return camera_preview_png(sample)

    def sample(self, spec: CameraSpec, context: SampleContext) -> SensorSample:
        """One camera frame of ``spec`` from the committed pose of ``context``."""
        return render_camera(
            context.scene, spec, context.T_world_body, **context.ids(), **context.tracing()
        )


register_sensor_kind(CameraSensor())
