"""``leviathan.multibeam``: the multibeam echosounder's soundings, their truth, and bathymetry.

* one ping (:func:`multibeam_ping`): the water column on the shared fan render
  (:func:`leviathan.sonar.render_fan`), bottom detections, soundings and truth;
* beam geometry (:func:`beam_geometry`; formulas in :mod:`leviathan.reference_cpu.multibeam`);
* per-beam truth (:func:`beam_truth`): the beam axis's nearest hit and the footprint;
* bathymetry (:func:`compare_with_seabed`, :func:`grid_soundings`): soundings gridded in
  north/east cells and compared with the true seabed, with IHO S-44 Special Order TVU.

Sound speed is the water's at the sensor's depth, constant along every ray: no
refraction (a sound-speed profile is a later, analytic-tier feature).
"""

from leviathan.multibeam._bathymetry import (
    SPECIAL_ORDER_TVU,
    BathymetryGrid,
    BathymetryReport,
    compare_with_seabed,
    grid_soundings,
    planar_grid_bound,
    true_depth,
    tvu_m,
)
from leviathan.multibeam._geometry import FOOTPRINT_RAY_COUNT, BeamGeometry, beam_geometry
from leviathan.multibeam._ping import (
    MULTIBEAM_MODEL_VERSION,
    MultibeamPing,
    multibeam_ping,
    multibeam_rays,
)
from leviathan.multibeam._truth import BeamTruth, beam_truth

__all__ = [
    "FOOTPRINT_RAY_COUNT",
    "MULTIBEAM_MODEL_VERSION",
    "SPECIAL_ORDER_TVU",
    "BathymetryGrid",
    "BathymetryReport",
    "BeamGeometry",
    "BeamTruth",
    "MultibeamPing",
    "beam_geometry",
    "beam_truth",
    "compare_with_seabed",
    "grid_soundings",
    "multibeam_ping",
    "multibeam_rays",
    "planar_grid_bound",
    "true_depth",
    "tvu_m",
]
