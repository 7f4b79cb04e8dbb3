"""Seeded geometry shared by the tracing tests: triangle soups, grids, rays, prepared scenes."""

from __future__ import annotations

import numpy as np

from leviathan.raycast import PreparedScene, prepare_instance

Mesh = tuple[np.ndarray, np.ndarray]


def random_soup(rng: np.random.Generator, count: int, spread: float = 20.0) -> Mesh:
    """``count`` independent random triangles around points in a cube of half-width ``spread``."""
    centres = rng.uniform(-spread, spread, (count, 3))
    verts = centres[:, None, :] + rng.normal(scale=1.5, size=(count, 3, 3))
    faces = np.arange(count * 3).reshape(count, 3)
    return verts.reshape(-1, 3), faces


def grid(n: int, size: float, z: float, tilt: float = 0.0) -> Mesh:
    """An ``n`` x ``n`` quad grid (two triangles a quad) at depth ``z``, tilted along x."""
    xs = np.linspace(-size / 2, size / 2, n + 1)
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    Z = z + tilt * X
    v = np.stack([X.ravel(), Y.ravel(), Z.ravel()], 1)
    a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a, b = a.ravel(), b.ravel()
    v00 = a * (n + 1) + b
    v10 = v00 + n + 1
    faces = np.concatenate([np.stack([v00, v10, v10 + 1], 1), np.stack([v00, v10 + 1, v00 + 1], 1)])
    return v, faces


def prepared(*meshes: Mesh, leaf_size: int = 4) -> PreparedScene:
    """A prepared scene of the given world-space meshes, one instance each."""
    return PreparedScene(
        instances=tuple(prepare_instance(v, f, leaf_size=leaf_size) for v, f in meshes),
        scene_hash="",
    )


def unit(v: np.ndarray) -> np.ndarray:
    """Rows of ``v`` scaled to unit length."""
    return v / np.sqrt((v * v).sum(axis=1))[:, None]


def random_rays(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rays from a cube of half-width 25 m in uniformly random directions."""
    return rng.uniform(-25, 25, (n, 3)), unit(rng.normal(size=(n, 3)))
