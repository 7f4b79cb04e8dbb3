"""The survey demo's mapping line: the catalogue multibeam over the demo seabed, gridded.

The reference mapping AUV flies one straight line over the demo's seabed (the same
``leviathan.demo.survey_environment``) carrying only its multibeam, with a coarser water column
(:data:`MAPPING_WATER_COLUMN`; its side-scan, DVL and IMU are left out of this line to
keep the demo short). The line is recorded to
``mapping/dataset.h5`` with the true seabed beside it (``mapping/seabed.npz``), and
:func:`leviathan.bathymetry.bathymetry_run` grids it in 0.5 m cells and compares it with
the true seabed (``mapping/bathymetry/``: depth and error PNGs, grids, figures). The
figures go into the demo's manifest. Targets on the seabed (crate, drum, pipeline) are
soundings too, so they show in the error map as features above the true seabed mesh.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["MAPPING_CELL_M", "MAPPING_SECONDS", "MAPPING_WATER_COLUMN", "mapping_line"]

MAPPING_SECONDS = 4
"""Simulated length of the mapping line [s] (21 pings at 5 Hz)."""
MAPPING_CELL_M = 0.5
"""Bathymetry grid cell of the mapping line [m]."""
MAPPING_WATER_COLUMN = {"range_max_m": 40.0, "range_bin_count": 200, "top_k": 1}
"""The demo's change to the catalogue multibeam: a water column of 200 bins of 0.2 m to
40 m with one contributor per cell (the catalogue's 1190 bins x 4 contributors record
about 140 MB of per-cell truth per ping); beams, widths and the detector are as declared."""


def mapping_line(out: Path, *, environment: Any, tick_ns: int, root_seed: int) -> dict:
    """Runs the mapping line over ``environment`` (the demo's) and writes ``out / "mapping"``;
    returns its manifest entry."""
    from leviathan.bathymetry import SEABED_FILE, bathymetry_run, write_true_seabed
    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import Autopilot
    from leviathan.datasets import RUN_DATASET_NAME, export_world
    from leviathan.identity import content_hash
    from leviathan.world import VehicleSetup, World

    mapper = get_vehicle("reference_mapping_auv")
    multibeam = mapper.sensor("multibeam").model_dump()
    multibeam.update(MAPPING_WATER_COLUMN)
    mapper = type(mapper).model_validate({**mapper.model_dump(), "sensors": [multibeam]})
    world = World.create(
        vehicles=[
            VehicleSetup(
                "mapper",
                mapper,
                Autopilot(speed_m_per_s=1.5, depth_m=18.0, heading_rad=0.0),
                position_ned_m=(-2.0, 0.0, 18.0),
            )
        ],
        environment=environment,
        root_seed=root_seed,
        step_ns=tick_ns,
    )
    ticks = MAPPING_SECONDS * 1_000_000_000 // tick_ns
    groups = world.step(ticks)
    folder = out / "mapping"
    folder.mkdir()
    export_world(world, groups, hdf5=folder / RUN_DATASET_NAME)
    write_true_seabed(folder / SEABED_FILE, world.environment.scene_at(0))
    report, paths = bathymetry_run(folder, cell_m=MAPPING_CELL_M)
    entry: dict[str, Any] = {
        "vehicle": "reference_mapping_auv (multibeam only)",
        "water_column_change": dict(MAPPING_WATER_COLUMN),
        "simulated_s": MAPPING_SECONDS,
        "pings": sum(1 for g in groups if "mapper/multibeam" in g.samples),
        "run_hash": content_hash([g.content_hash for g in groups]),
        "bathymetry": report.figures(),
        "files": {key: str(path.relative_to(out)) for key, path in paths.items()},
    }
    return entry
