"""Canonical forward-looking imaging sonar: rendering, frames and display products.

``render(scene, spec, sensor_pose, *, sensor_id, sample_index, time_ns, seed=None,
water=None, backend="auto", device=None)`` returns a :class:`SonarFrame` whose channels are
arrays over ``[range_bin, bearing]`` (R x B), with sentinels -1 (ids) and NaN
(missing floats, never 0):

==========================  =================  ==================================================
channel                     dtype / shape      meaning
==========================  =================  ==================================================
linear_return               f8 [R,B]           sum of contributions (0 in empty cells, NaN when
                                               any contributor's radiometry is unknown or the
                                               medium is unsupported)
speckle_return              f8 [R,B]           linear_return x unit-mean exponential (keyed on
                                               seed, sensor, sample, "speckle", cell); only when
                                               the spec enables speckle
sample_count                i4 [R,B]           ray samples integrated into the cell
validity                    u2 [R,B]           bit flags, see :data:`CELL_FLAGS`
primary_basis               u1 [R,B]           dominance rule: 0 empty, 1 contribution,
                                               2 geometric weight, 3 geometric weight
                                               without absorption (unsupported medium)
truncation                  f8 [R,B]           share of the return outside the top-K
primary_instance/object/    i4 [R,B]           dominant sample's instance index, object index
triangle/semantic                              (into metadata["object_ids"]), triangle index,
                                               semantic index (into metadata["semantic_labels"])
primary_range_m             f8 [R,B]           exact slant range of the dominant sample [m]
primary_elevation_rad       f8 [R,B]           its elevation in the sensor frame (down +) [rad]
primary_incidence_rad       f8 [R,B]           angle between surface normal and reversed ray
primary_hit_point_world     f8 [R,B,3]         hit point in world NED [m]
primary_normal_world        f8 [R,B,3]         unit triangle normal (mesh winding) in world NED
primary_acoustic_status     u1 [R,B]           :class:`leviathan.materials.AcousticStatus`
primary_moving              u1 [R,B]           1 if the instance belongs to a moving body
topk_*                      [R,B,K]            contributors ordered by dominance (descending),
                                               then range, elevation, instance, triangle:
                                               instance, triangle, range_m, elevation_rad,
                                               contribution, geometric_weight, energy_fraction
==========================  =================  ==================================================

Per sample: ``contribution = mu cos^2(theta) * G^2 * (R^2 dOmega / cos theta) / R^4 *
10^(-alpha 2R / 10)`` with Lambert ``mu``, the two-way beam pattern ``G^2``, the
quadrature solid angle ``dOmega = cos(e) db w_e`` and Francois-Garrison absorption
``alpha`` at the sensor's depth; the geometric weight is everything but the
surface response. See :mod:`leviathan.reference_cpu.sonar` for the exact order of
operations, :mod:`leviathan.reference_cpu.trace` for ray casting, and
:func:`render` for the stages of a ping (each in an internal module named for it;
:mod:`leviathan.sonar.display` is the public module of display products).

The acoustic fan render (:func:`render_fan` on :func:`fan_rays`) is this pipeline for
any rays grouped in columns (the side-scan's sides, a multibeam's receive beams);
:mod:`leviathan.sonar.beams` holds the fans' beam patterns, ping-period and
range-window rules; :class:`StageClock`, :func:`spec_range_window`, :func:`ping_header`
and :func:`scene_record` are what the fan sonars' ping functions share around it.

Range bins: image row ``k`` holds the samples with ``range_bin(R) == k``, ``k =
min(floor((R - r_min) / width), N - 1)`` in float64 with ``width = (r_max - r_min) /
N``. ``metadata["range_bin_edges_m"]`` (:func:`range_bin_edges`) are the rounded
nominal edges and may sit a few ulps off the values where ``k`` changes; re-bin a
range with :func:`range_bin`, or search :func:`range_bin_boundaries` with
``np.searchsorted(b, R, side="right") - 1``, which agrees with it for every float64.

:func:`rebuild_primary_hit_point` rebuilds a frame's ``primary_hit_point_world`` bit for
bit from its range, elevation and sample-count channels and its metadata;
:func:`rebuild_topk_range`, :func:`rebuild_primary_normal`,
:func:`rebuild_primary_incidence`, :func:`rebuild_topk_geometric_weight` and
:func:`rebuild_topk_contribution` rebuild those channels from the frame's
``rule_support`` as well (the triangles its truth names, the surfaces' ``mu`` and
status). They are the imaging sonar kind's
channel rules: the HDF5 dataset stores the rule instead of the values.
"""

from leviathan.sonar import _ground_truth, _rebuild
from leviathan.sonar._binning import range_bin, range_bin_boundaries, range_bin_edges
from leviathan.sonar._fan import FanRays, FanRender, check_ping_inputs, fan_rays, render_fan
from leviathan.sonar._frame import CHANNEL_NAMES, SonarFrame, fan_channel_names

# Star imports on purpose: the stage's own __all__ is the one list of the cell flags
# and bases (of the channel rules), so this package re-exports exactly that list
# instead of a hand copy of it.
from leviathan.sonar._ground_truth import *  # noqa: F403
from leviathan.sonar._ping import StageClock, ping_header, scene_record, spec_range_window
from leviathan.sonar._rebuild import *  # noqa: F403
from leviathan.sonar._render import (
    RENDER_STAGES,
    SONAR_MODEL_VERSION,
    SPECKLE_EFFECT,
    beam_grid_for,
    render,
)
from leviathan.sonar._sampling_warnings import SonarSamplingWarning

__all__ = [
    "CHANNEL_NAMES",
    "FanRays",
    "FanRender",
    "RENDER_STAGES",
    "SONAR_MODEL_VERSION",
    "SPECKLE_EFFECT",
    "SonarFrame",
    "SonarSamplingWarning",
    "StageClock",
    "beam_grid_for",
    "check_ping_inputs",
    "fan_channel_names",
    "fan_rays",
    "ping_header",
    "range_bin",
    "range_bin_boundaries",
    "range_bin_edges",
    "render",
    "render_fan",
    "scene_record",
    "spec_range_window",
    *_ground_truth.__all__,
    *_rebuild.__all__,
]
