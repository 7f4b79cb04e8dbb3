"""The survey demo's bathymetry: the mapping AUV's multibeam soundings gridded.

The demo World's mapping AUV (``reference_mapping_auv``, its multibeam with the demo's
coarser water column, ``leviathan.demo.DEMO_MULTIBEAM_CHANGES``) flies its straight
leg over the demo seabed. Its usable soundings, collected during the run, are gridded
in 0.5 m cells and compared with the true seabed
(:func:`leviathan.multibeam.compare_with_seabed`); the outputs go to ``bathymetry/``
(depth and error PNGs, grids, figures) with the true seabed beside the record
(``seabed.npz``), so ``leviathan bathymetry OUT`` recomputes the same figures from the
files. The figures go into the manifest. Targets on the seabed (crate, drum, pipeline)
are soundings too: they show in the error map as features above the true seabed mesh.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DEMO_CELL_M", "demo_bathymetry"]

DEMO_CELL_M = 0.5
"""Bathymetry grid cell of the demo [m]."""


def demo_bathymetry(out: Path, scene: Any, soundings: list[np.ndarray]) -> dict[str, Any]:
    """Grids the run's soundings against ``scene``'s seabed into ``out``; the manifest entry."""
    from leviathan.bathymetry import (
        BATHYMETRY_FOLDER,
        SEABED_FILE,
        read_true_seabed,
        write_bathymetry,
        write_true_seabed,
    )
    from leviathan.multibeam import compare_with_seabed

    write_true_seabed(out / SEABED_FILE, scene)
    points = np.concatenate(soundings) if soundings else np.zeros((0, 3))
    if points.shape[0] == 0:
        return {"figures": None, "files": {}, "note": "no multibeam soundings in this run"}
    # The true seabed as the command reads it back, so both give the same figures.
    report = compare_with_seabed(points, read_true_seabed(out / SEABED_FILE), cell_m=DEMO_CELL_M)
    paths = write_bathymetry(out / BATHYMETRY_FOLDER, report)
    return {
        "sensor": "mapper/multibeam",
        "figures": report.figures(),
        "seabed": SEABED_FILE,
        "files": {key: str(path.relative_to(out)) for key, path in paths.items()},
    }
