"""The survey demo's bathymetry: the mapping AUV's multibeam soundings gridded.

The demo World's mapping AUV (``reference_mapping_auv``, its multibeam with the demo's
coarser water column, :data:`DEMO_MULTIBEAM_CHANGES`) flies its straight
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

__all__ = [
    "DEMO_CELL_M",
    "DEMO_MULTIBEAM_CHANGES",
    "MULTIBEAM_NOTE",
    "demo_bathymetry",
    "demo_mapper",
]

DEMO_CELL_M = 0.5
"""Bathymetry grid cell of the demo [m]."""

DEMO_MULTIBEAM_CHANGES = {
    "range_max_m": 40.0,
    "range_bin_count": 160,
    "top_k": 1,
    "schedule": {"period_ns": 400_000_000, "phase_ns": 0},
}
"""The demo's changes to the mapping AUV's multibeam: a water column of 160 bins of 0.25 m
to 40 m with one contributor per cell (the catalogue's 1190 bins x 4 contributors hold
about 140 MB of per-cell truth per ping), pinging at 2.5 Hz instead of 5 Hz (the demo's
time budget); beams, widths and the detector are as declared."""

MULTIBEAM_NOTE = (
    "The mapping AUV's multibeam records a water column of 160 bins to 40 m with one "
    "contributor per cell (reduced from the catalogue's 1190 bins to 60 m and four) to keep "
    "its per-cell truth a few megabytes per ping, and pings at 2.5 Hz (the catalogue's 5 Hz) "
    "to keep the demo short; its beams and detector are the catalogue's."
)
"""The demo manifest's note on the multibeam."""


def usable_soundings(sample: Any) -> np.ndarray:
    """:func:`leviathan.bathymetry.usable_soundings` (imported when first used)."""
    from leviathan.bathymetry import usable_soundings as usable

    return usable(sample)


def demo_mapper() -> Any:
    """The catalogue ``reference_mapping_auv`` with :data:`DEMO_MULTIBEAM_CHANGES`."""
    from leviathan.catalogue import get_vehicle

    mapper = get_vehicle("reference_mapping_auv")
    multibeam = mapper.sensor("multibeam").model_dump()
    multibeam.update(DEMO_MULTIBEAM_CHANGES)
    sensors = [multibeam if s.name == "multibeam" else s.model_dump() for s in mapper.sensors]
    return type(mapper).model_validate({**mapper.model_dump(), "sensors": sensors})


def demo_bathymetry(
    out: Path, scene: Any, soundings: list[np.ndarray], progress: bool = False
) -> dict[str, Any]:
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
    if progress:
        f = report.figures()
        print(
            f"[demo] bathymetry: {f['sounding_count']} multibeam soundings in "
            f"{f['cell_m']:g} m cells, grid RMS error {f['rms_error_m']:.3f} m, "
            f"max {f['max_abs_error_m']:.3f} m, "
            f"{100.0 * f['special_order_share']:.1f} % within Special Order TVU"
        )
    return {
        "sensor": "mapper/multibeam",
        "figures": report.figures(),
        "seabed": SEABED_FILE,
        "files": {key: str(path.relative_to(out)) for key, path in paths.items()},
    }
