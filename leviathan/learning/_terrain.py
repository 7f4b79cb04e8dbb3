"""The learning tier's seabed: a float32 ``wp.Mesh`` in world NED and its vertical depth query.

NOT CANONICAL: Warp's float32 mesh BVH (see :mod:`leviathan.learning.sensing`, which casts the
DVL and sonar rays against it). Compile options as :mod:`leviathan.learning._device_funcs`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import warp as wp

from leviathan._validation import (
    check_finite,
    check_integer,
    check_pair,
    check_positive,
    check_root_seed,
)
from leviathan.geometry import seabed_mesh
from leviathan.kernels.backend import check_device
from leviathan.learning._device_funcs import seabed_depth

wp.set_module_options({"fuse_fp": False, "fast_math": False, "enable_backward": False})

_MAX_RESOLUTION = 2048  # 8.4 M triangles: beyond this the host mesh build is the bottleneck


@wp.kernel
def _vertical_depth_kernel(
    mesh: wp.uint64,
    north_m: wp.array(dtype=wp.float32),
    east_m: wp.array(dtype=wp.float32),
    top_m: wp.float32,
    span_m: wp.float32,
    depth_m: wp.array(dtype=wp.float32),
):
    i = wp.tid()
    depth_m[i] = seabed_depth(mesh, north_m[i], east_m[i], top_m, span_m, wp.nan)


class Terrain:
    """A float32 ``wp.Mesh`` seabed in world NED for the learning tier.

    Surfaces are two-sided (Warp reports back-face hits too), so the winding
    does not matter. The vertex and triangle arrays the mesh was built from are
    kept (read-only) because ``wp.Mesh`` refers to its points array.

    Attributes:
        mesh: The Warp mesh (float32 points, int32 indices) on ``device``.
        device: Warp device name, e.g. ``"cpu"`` or ``"cuda:0"``.
        vertices_ned: Vertex positions in world NED [m], float32, shape
            [vertex_count, 3], read-only.
        triangles: Vertex indices of each triangle, int32, shape
            [triangle_count, 3], read-only.
    """

    def __init__(self, vertices_ned: Any, triangles: Any, *, device: str = "cpu") -> None:
        """Builds the mesh; prefer :meth:`from_mesh` or :meth:`generated`.

        Args: as :meth:`from_mesh`.
        """
        device = check_device(device)
        vertices = np.asarray(vertices_ned)
        faces = np.asarray(triangles)
        if vertices.ndim != 2 or vertices.shape[1] != 3 or vertices.shape[0] < 3:
            raise ValueError(
                f"vertices_ned: expected shape [vertex_count >= 3, 3], got {vertices.shape}"
            )
        if vertices.dtype == np.bool_ or not (
            np.issubdtype(vertices.dtype, np.floating) or np.issubdtype(vertices.dtype, np.integer)
        ):
            raise TypeError(
                f"vertices_ned: expected a real numeric array, got dtype {vertices.dtype}"
            )
        with np.errstate(over="ignore"):
            vertices32 = vertices.astype(np.float32)
        if not np.all(np.isfinite(vertices32)):
            bad = tuple(int(i) for i in np.argwhere(~np.isfinite(vertices32))[0])
            raise ValueError(
                f"vertices_ned: value {vertices[bad]!r} at index {bad} is not finite in float32"
            )
        if faces.ndim != 2 or faces.shape[1] != 3 or faces.shape[0] < 1:
            raise ValueError(
                f"triangles: expected shape [triangle_count >= 1, 3], got {faces.shape}"
            )
        if faces.dtype == np.bool_ or not np.issubdtype(faces.dtype, np.integer):
            raise TypeError(f"triangles: expected an integer array, got dtype {faces.dtype}")
        out_of_range = (faces < 0) | (faces >= vertices.shape[0])
        if np.any(out_of_range):
            bad = tuple(int(i) for i in np.argwhere(out_of_range)[0])
            raise ValueError(
                f"triangles: index {int(faces[bad])} at {bad} is outside "
                f"[0, {vertices.shape[0] - 1}] (vertex_count = {vertices.shape[0]})"
            )
        faces32 = faces.astype(np.int32)
        vertices32.setflags(write=False)
        faces32.setflags(write=False)
        self.device = device
        self.vertices_ned = vertices32
        self.triangles = faces32
        self._points = wp.array(vertices32, dtype=wp.vec3f, device=device)
        self._indices = wp.array(faces32.reshape(-1), dtype=wp.int32, device=device)
        self.mesh = wp.Mesh(points=self._points, indices=self._indices)
        self._top_m = float(vertices32[:, 2].min())
        self._bottom_m = float(vertices32[:, 2].max())

    def __repr__(self) -> str:
        return (
            f"Terrain(vertex_count={len(self.vertices_ned)}, "
            f"triangle_count={len(self.triangles)}, device={self.device!r})"
        )

    @classmethod
    def from_mesh(cls, vertices_ned: Any, triangles: Any, *, device: str = "cpu") -> Terrain:
        """A terrain from a triangle mesh given in world NED.

        Args:
            vertices_ned: Vertex positions in world NED [m], shape [vertex_count >= 3, 3],
                real values finite in float32 (they are rounded to float32).
            triangles: Vertex indices, integers in ``[0, vertex_count)``, shape
                [triangle_count >= 1, 3].
            device: Warp device name.

        Returns:
            The terrain on ``device``.

        Raises:
            TypeError: If an array has the wrong dtype or ``device`` is not a string.
            ValueError: If a shape, value or index is out of range, or the device is absent.
        """
        return cls(vertices_ned, triangles, device=device)

    @classmethod
    def generated(
        cls,
        *,
        size_m: tuple[float, float] = (400.0, 400.0),
        depth_m: float = 30.0,
        relief_m: float = 4.0,
        seed: int = 0,
        resolution: int = 128,
        device: str = "cpu",
    ) -> Terrain:
        """A keyed random seabed centred on the world origin.

        The surface is :func:`leviathan.geometry.seabed_mesh` with
        ``triangle_count = 2 * resolution**2``, ``mean_depth_m = depth_m`` and
        ``origin = (-size_m[0] / 2, -size_m[1] / 2)`` (so it spans north
        ``[-sx/2, sx/2]`` and east ``[-sy/2, sy/2]``), rounded to float32: the
        same seed gives the same seabed on every machine before the float32
        ray casts. Depths stay within ``depth_m +/- 1.05 * relief_m``.

        Args:
            size_m: Extent (north, east) [m], both finite and > 0.
            depth_m: Mean seabed depth (NED z, positive down) [m], finite.
            relief_m: Relief amplitude [m], finite and >= 0 (0: flat).
            seed: Root seed of the keyed draws, ``0 <= seed < 2**64``.
            resolution: About ``resolution**2`` grid cells (the grid shape follows
                ``size_m``; square ``size_m`` gives ``resolution`` cells a side),
                1 to 2048.
            device: Warp device name.

        Returns:
            The terrain on ``device``.

        Raises:
            TypeError: If an argument has the wrong type.
            ValueError: If an argument is out of range or the device is absent.
        """
        sx, sy = (
            check_positive(f"size_m[{i}]", s) for i, s in enumerate(check_pair("size_m", size_m))
        )
        depth = check_finite("depth_m", depth_m)
        relief = check_finite("relief_m", relief_m, unit="m", at_least=0.0)
        seed = check_root_seed("seed", seed)
        resolution = check_integer("resolution", resolution, low=1, high=_MAX_RESOLUTION)
        device = check_device(device)
        surface = seabed_mesh(
            triangle_count=2 * resolution * resolution,
            size_m=(sx, sy),
            mean_depth_m=depth,
            relief_m=relief,
            seed=seed,
            origin=(-0.5 * sx, -0.5 * sy),
        )
        return cls(surface.vertices, surface.faces, device=device)

    def depth_at(self, north_m: Any, east_m: Any) -> np.ndarray:
        """Seabed depth below (or above) points, by vertical float32 ray casts on the device.

        Each point casts a ray straight down from above the shallowest vertex;
        its depth is that of the first (shallowest) surface at that position.

        Args:
            north_m: North coordinates [m], any shape broadcastable with ``east_m``.
            east_m: East coordinates [m].

        Returns:
            Depths (NED z) [m], float32, of the broadcast shape; NaN where the
            position is outside the terrain's footprint.

        Raises:
            TypeError: If a coordinate array is not real numeric.
            ValueError: If a coordinate is not finite or the shapes do not broadcast.
        """
        arrays = []
        for name, value in (("north_m", north_m), ("east_m", east_m)):
            array = np.asarray(value)
            if array.dtype == np.bool_ or not (
                np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)
            ):
                raise TypeError(f"{name}: expected real coordinates [m], got dtype {array.dtype}")
            if not np.all(np.isfinite(array)):
                raise ValueError(f"{name}: expected finite coordinates [m], got non-finite values")
            arrays.append(array)
        try:
            north, east = np.broadcast_arrays(*arrays)
        except ValueError:
            raise ValueError(
                f"north_m, east_m: shapes {arrays[0].shape} and {arrays[1].shape} do not broadcast"
            ) from None
        shape = north.shape
        if north.size == 0:
            return np.zeros(shape, dtype=np.float32)
        top = self._top_m - 1.0
        span = (self._bottom_m - self._top_m) + 2.0
        depth = wp.empty(north.size, dtype=wp.float32, device=self.device)
        wp.launch(
            _vertical_depth_kernel,
            dim=north.size,
            inputs=[
                self.mesh.id,
                wp.array(
                    north.astype(np.float32).reshape(-1), dtype=wp.float32, device=self.device
                ),
                wp.array(east.astype(np.float32).reshape(-1), dtype=wp.float32, device=self.device),
                top,
                span,
            ],
            outputs=[depth],
            device=self.device,
        )
        return depth.numpy().reshape(shape)
