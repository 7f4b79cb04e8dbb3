"""A run's bathymetry: its multibeam soundings gridded and checked against the true seabed.

A run folder holds the run's lossless record (``dataset.h5``,
:data:`leviathan.datasets.RUN_DATASET_NAME`) and the true seabed it was run over
(``seabed.npz``, :func:`write_true_seabed`: the world-NED triangles of the scene's
instances labelled ``"seabed"``, with the scene's content hash). :func:`bathymetry_run`
reads every multibeam sample of the record, keeps the soundings whose quality is
``DETECTED`` without ``SEA_SURFACE`` or ``MOVING_BODY`` (a sounding of the surface or
of a vehicle is no seabed), grids them and compares them with the true seabed
(:func:`leviathan.multibeam.compare_with_seabed`: mean and count per north/east cell,
error map, RMS, max, and the share of soundings within IHO S-44 Special Order TVU).
It writes ``bathymetry/`` beside them: ``depth.png`` and ``error.png`` (display
products), ``bathymetry.h5`` (the grids) and ``bathymetry.json`` (the figures).

The soundings assume a constant sound speed along each ray (no refraction), as the
multibeam does.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from leviathan.frames import Transform
from leviathan.multibeam import BathymetryReport, compare_with_seabed
from leviathan.reference_cpu.multibeam import DETECTION_FLAGS
from leviathan.scene import Instance, Scene, TriangleMesh

__all__ = [
    "BATHYMETRY_FOLDER",
    "SEABED_FILE",
    "bathymetry_run",
    "read_true_seabed",
    "run_soundings",
    "usable_soundings",
    "write_bathymetry",
    "write_true_seabed",
]

SEABED_FILE = "seabed.npz"
"""The true seabed's file in a run folder (:func:`write_true_seabed`)."""

BATHYMETRY_FOLDER = "bathymetry"
"""Where :func:`bathymetry_run` writes its outputs, inside the run folder by default."""

_USABLE = DETECTION_FLAGS["DETECTED"]
_NOT_SEABED = DETECTION_FLAGS["SEA_SURFACE"] | DETECTION_FLAGS["MOVING_BODY"]


def write_true_seabed(path: str | os.PathLike[str], scene: Scene) -> Path:
    """Writes the world-NED triangles of ``scene``'s ``"seabed"`` instances (atomically).

    Returns:
        The written file's path.
    """
    from leviathan._files import write_npz
    from leviathan.raycast import prepare_scene

    seabed = [inst for inst in scene.instances if inst.semantic_label == "seabed"]
    if not seabed:
        raise ValueError("scene: expected at least one instance labelled 'seabed', got none")
    prepared = prepare_scene(Scene(seabed, name=scene.name))
    v0 = np.concatenate([p.v0 for p in prepared.instances])
    v1 = v0 + np.concatenate([p.e1 for p in prepared.instances])
    v2 = v0 + np.concatenate([p.e2 for p in prepared.instances])
    triangles = np.stack([v0, v1, v2], axis=1)
    return write_npz(
        path,
        {"triangles_ned_m": triangles, "scene_hash": np.array(scene.content_hash)},
    )


def read_true_seabed(path: str | os.PathLike[str]) -> Scene:
    """The true seabed of :func:`write_true_seabed` as a one-instance scene."""
    with np.load(path, allow_pickle=False) as data:
        triangles = np.asarray(data["triangles_ned_m"], dtype=np.float64)
    if triangles.ndim != 3 or triangles.shape[1:] != (3, 3) or triangles.shape[0] == 0:
        raise ValueError(
            f"{path}: triangles_ned_m: expected shape [n >= 1, 3, 3], got {triangles.shape}"
        )
    vertices = triangles.reshape(-1, 3)
    faces = np.arange(vertices.shape[0], dtype=np.int64).reshape(-1, 3)
    mesh = TriangleMesh(vertices, faces)
    return Scene([Instance("seabed", mesh, Transform.identity(), "seabed")], name="true seabed")


def usable_soundings(sample: Any) -> np.ndarray:
    """A multibeam sample's soundings that are seabed candidates (world NED [m], [n, 3]).

    Kept: quality ``DETECTED`` without ``SEA_SURFACE`` or ``MOVING_BODY``.
    """
    q = np.asarray(sample.channels["quality"])
    keep = ((q & _USABLE) != 0) & ((q & _NOT_SEABED) == 0)
    return np.asarray(sample.channels["sounding_ned_m"])[keep]


def run_soundings(dataset_path: str | os.PathLike[str]) -> np.ndarray:
    """The usable soundings (world NED [m], float64 [n, 3]) of every multibeam in a record."""
    from leviathan.datasets import read_hdf5

    points = []
    for group in read_hdf5(dataset_path).groups():
        for sample in group.samples.values():
            if getattr(sample, "kind", None) == "multibeam":
                points.append(usable_soundings(sample))
    if not points or sum(p.shape[0] for p in points) == 0:
        raise ValueError(f"{dataset_path}: expected multibeam soundings, found none")
    return np.concatenate(points)


def _png(
    values: np.ndarray, grid: Any, title: str, label: str, cmap: str, symmetric: bool
) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, cols = values.shape
    i0, j0 = grid.first_index
    c = grid.cell_m
    extent = (j0 * c, (j0 + cols) * c, i0 * c, (i0 + rows) * c)
    fig, ax = plt.subplots(figsize=(6, 6), dpi=100)
    finite = values[np.isfinite(values)]
    kwargs: dict[str, Any] = {}
    if symmetric and finite.size:
        m = float(np.max(np.abs(finite))) or 1e-12
        kwargs = {"vmin": -m, "vmax": m}
    image = ax.imshow(values, origin="lower", extent=extent, cmap=cmap, **kwargs)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_xlabel("east [m]")
    ax.set_ylabel("north [m]")
    ax.set_title(title)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


def _write_h5(path: Path, report: BathymetryReport) -> None:
    import h5py

    from leviathan._files import atomic_path

    with atomic_path(path) as tmp, h5py.File(tmp, "w", track_order=True) as f:
        for name, array in (
            ("depth_m", report.grid.depth_m),
            ("count", report.grid.count),
            ("true_depth_m", report.true_depth_m),
            ("error_m", report.error_m),
            ("sounding_error_m", report.sounding_error_m),
        ):
            f.create_dataset(name, data=array, track_times=False)
        f.attrs["first_index_north_east"] = np.array(report.grid.first_index, dtype=np.int64)
        f.attrs["figures"] = json.dumps(report.figures())
        f.attrs["layout"] = (
            "cell (i, j) spans north [(i0 + i) c, (i0 + i + 1) c), east [(j0 + j) c, "
            "(j0 + j + 1) c); depth_m the mean sounding z (world NED, NaN empty)"
        )


def bathymetry_run(
    run_dir: str | os.PathLike[str],
    *,
    cell_m: float = 0.5,
    out: str | os.PathLike[str] | None = None,
    backend: str = "auto",
    device: str | None = None,
) -> tuple[BathymetryReport, dict[str, Path]]:
    """Grids a run's soundings and compares them with its true seabed (module docstring).

    Args:
        run_dir: The run folder (``dataset.h5`` and ``seabed.npz``).
        cell_m: Grid cell size [m].
        out: Output folder (default ``run_dir/bathymetry``); replaced as a whole.
        backend, device: Tracing backend for the true seabed (every backend gives the
            same bits).

    Returns:
        The report and the written files by name.
    """
    from leviathan.datasets import RUN_DATASET_NAME

    run = Path(run_dir)
    dataset = run / RUN_DATASET_NAME
    seabed_path = run / SEABED_FILE
    for path, what in ((dataset, "the run's record"), (seabed_path, "the true seabed")):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file ({what})")
    points = run_soundings(dataset)
    report = compare_with_seabed(
        points, read_true_seabed(seabed_path), cell_m=cell_m, backend=backend, device=device
    )
    target = Path(out) if out is not None else run / BATHYMETRY_FOLDER
    return report, write_bathymetry(target, report)


def write_bathymetry(target: str | os.PathLike[str], report: BathymetryReport) -> dict[str, Path]:
    """Writes a report's depth and error PNGs, grids (HDF5) and figures (JSON) into ``target``.

    The folder is replaced whole (:func:`leviathan._files.atomic_directory`).

    Returns:
        The written files by name (``depth_png``, ``error_png``, ``grids``, ``figures``).
    """
    from leviathan._files import atomic_directory, write_atomically

    target = Path(target)
    names = {
        "depth_png": "depth.png",
        "error_png": "error.png",
        "grids": "bathymetry.h5",
        "figures": "bathymetry.json",
    }
    with atomic_directory(target) as tmp:
        g = report.grid
        title = f"Gridded depth, {g.cell_m:g} m cells"
        write_atomically(
            tmp / names["depth_png"], _png(g.depth_m, g, title, "depth [m]", "viridis_r", False)
        )
        write_atomically(
            tmp / names["error_png"],
            _png(report.error_m, g, "Grid minus true seabed", "error [m]", "RdBu_r", True),
        )
        _write_h5(tmp / names["grids"], report)
        write_atomically(
            tmp / names["figures"], (json.dumps(report.figures(), indent=2) + "\n").encode()
        )
    return {key: target / name for key, name in names.items()}
