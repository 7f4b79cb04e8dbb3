"""What every array in a LEVIATHAN dataset means: units, frame, axes, meaning, sentinel.

One table, :data:`CHANNEL_DOCS`, keyed by ``(kind, name)``: every channel of
every sensor kind, the display products, the ground-truth track fields, the
capture-group columns and the mount transforms. The HDF5 writer copies each
entry onto its dataset as attributes (``units``, ``frame``, ``axes``,
``description``, ``sentinel``) and refuses a channel that has no entry, so a new
channel cannot be exported undocumented. The meanings restate the channel
documentation of :mod:`leviathan.sonar` and the sensors
(:func:`leviathan.sensors.measure_dvl`, :func:`~leviathan.sensors.measure_imu`,
:func:`~leviathan.sensors.render_camera`).

Units: ``m``, ``rad``, ``ns``, ``m/s``, ``m/s^2``, ``rad/s``, ``m^-2``; ``1`` for
a dimensionless quantity, ``-`` for what is not a quantity (ids, indices, flags,
codes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["CHANNEL_DOCS", "ChannelDoc"]


class ChannelDoc(NamedTuple):
    """What a stored array means: written as attributes on its dataset.

    Attributes:
        units: Physical units (``m``, ``rad/s``, ...), ``1`` if dimensionless, ``-`` if
            not a quantity.
        frame: Coordinate frame of vector components, ``-`` for scalars.
        axes: Array axes, e.g. ``range_bin, bearing, 3``.
        description: What the values are.
        sentinel: Value that marks "missing" and what it means, ``-`` if none.
    """

    units: str
    frame: str
    axes: str
    description: str
    sentinel: str


_RB = "range_bin, bearing"
_RBK = "range_bin, bearing, k (dominance order)"
_NAN = "NaN: missing (no contributor)"
_NONE = "-1: no contributor"
_CAM = "camera optical (OpenCV: x right, y down, z forward)"
_HW = "row (v, top to bottom), column (u, left to right)"
_S_FRD = "sensor FRD (x along the boresight)"


def _doc(units: str, frame: str, axes: str, description: str, sentinel: str = "-") -> ChannelDoc:
    return ChannelDoc(units, frame, axes, description, sentinel)


CHANNEL_DOCS: Mapping[tuple[str, str], ChannelDoc] = {
    # Imaging sonar (leviathan.sonar): arrays over [range_bin, bearing].
    ("imaging_sonar", "linear_return"): _doc(
        "m^-2",
        "-",
        _RB,
        "linear return: sum over the cell's ray samples of mu cos^2(theta) G^2 (R^2 dOmega / "
        "cos theta) / R^4 10^(-alpha 2R / 10); 0 in empty cells",
        "NaN: a contributor's radiometry is unknown or the medium unsupported",
    ),
    ("imaging_sonar", "speckle_return"): _doc(
        "m^-2",
        "-",
        _RB,
        "linear_return times unit-mean exponential speckle (keyed randomness); only when the "
        "spec enables speckle",
        "NaN where linear_return is NaN",
    ),
    ("imaging_sonar", "sample_count"): _doc("1", "-", _RB, "ray samples integrated in the cell"),
    ("imaging_sonar", "validity"): _doc(
        "-", "-", _RB, "bit flags, see leviathan.sonar.CELL_FLAGS (metadata cell_flags)"
    ),
    ("imaging_sonar", "primary_basis"): _doc(
        "-",
        "-",
        _RB,
        "dominance rule: 0 empty, 1 contribution, 2 geometric weight, 3 geometric weight "
        "without absorption (unsupported medium)",
    ),
    ("imaging_sonar", "truncation"): _doc(
        "1", "-", _RB, "share of the cell's return outside the top-K contributors", _NAN
    ),
    ("imaging_sonar", "primary_instance"): _doc(
        "-", "-", _RB, "scene instance index of the dominant sample", _NONE
    ),
    ("imaging_sonar", "primary_object"): _doc(
        "-", "-", _RB, "object index of the dominant sample, into metadata object_ids", _NONE
    ),
    ("imaging_sonar", "primary_triangle"): _doc(
        "-", "-", _RB, "triangle index of the dominant sample in its instance's mesh", _NONE
    ),
    ("imaging_sonar", "primary_semantic"): _doc(
        "-", "-", _RB, "semantic index of the dominant sample, into metadata semantic_labels", _NONE
    ),
    ("imaging_sonar", "primary_range_m"): _doc(
        "m", "-", _RB, "exact slant range of the dominant sample", _NAN
    ),
    ("imaging_sonar", "primary_elevation_rad"): _doc(
        "rad",
        "sensor frame, elevation positive down",
        _RB,
        "elevation of the dominant sample's ray",
        _NAN,
    ),
    ("imaging_sonar", "primary_incidence_rad"): _doc(
        "rad", "-", _RB, "angle between the surface normal and the reversed ray", _NAN
    ),
    ("imaging_sonar", "primary_hit_point_world"): _doc(
        "m", "world NED", f"{_RB}, xyz", "hit point of the dominant sample", _NAN
    ),
    ("imaging_sonar", "primary_normal_world"): _doc(
        "1", "world NED", f"{_RB}, xyz", "unit triangle normal (mesh winding) at the hit", _NAN
    ),
    ("imaging_sonar", "primary_acoustic_status"): _doc(
        "-",
        "-",
        _RB,
        "leviathan.materials.AcousticStatus of the dominant sample (0 none, 1 known, "
        "2 unknown, 3 unsupported, 4 interface)",
        "0: empty cell",
    ),
    ("imaging_sonar", "primary_moving"): _doc(
        "-", "-", _RB, "1 if the dominant sample's instance belongs to a moving body"
    ),
    ("imaging_sonar", "topk_instance"): _doc(
        "-", "-", _RBK, "instance index per contributor", _NONE
    ),
    ("imaging_sonar", "topk_triangle"): _doc(
        "-", "-", _RBK, "triangle index per contributor", _NONE
    ),
    ("imaging_sonar", "topk_range_m"): _doc("m", "-", _RBK, "slant range per contributor", _NAN),
    ("imaging_sonar", "topk_elevation_rad"): _doc(
        "rad", "sensor frame, elevation positive down", _RBK, "ray elevation per contributor", _NAN
    ),
    ("imaging_sonar", "topk_contribution"): _doc(
        "m^-2", "-", _RBK, "contribution to linear_return per contributor", _NAN
    ),
    ("imaging_sonar", "topk_geometric_weight"): _doc(
        "m^-2", "-", _RBK, "geometric weight (contribution without the surface response)", _NAN
    ),
    ("imaging_sonar", "topk_energy_fraction"): _doc(
        "1", "-", _RBK, "share of the cell's return per contributor", _NAN
    ),
    # DVL (leviathan.sensors.measure_dvl).
    ("dvl", "velocity_sensor_m_s"): _doc(
        "m/s", _S_FRD, "xyz", "measured bottom-track velocity of the sensor", "NaN: no lock"
    ),
    ("dvl", "true_velocity_sensor_m_s"): _doc(
        "m/s", _S_FRD, "xyz", "noise-free velocity of the sensor origin over ground"
    ),
    ("dvl", "beam_range_m"): _doc(
        "m", "-", "beam", "slant range of each valid beam", "NaN: invalid"
    ),
    ("dvl", "beam_valid"): _doc("-", "-", "beam", "1 for a valid beam, else 0"),
    ("dvl", "beam_instance"): _doc(
        "-", "-", "beam", "scene instance index of each beam's nearest hit", "-1: nothing hit"
    ),
    ("dvl", "altitude_m"): _doc(
        "m", "-", "scalar", "mean of R_k cos(beam angle) over valid beams", "NaN: no valid beam"
    ),
    ("dvl", "lock"): _doc("-", "-", "scalar", "1 when enough beams are valid for a lock"),
    # IMU (leviathan.sensors.measure_imu).
    ("imu", "specific_force_sensor_m_s2"): _doc(
        "m/s^2", _S_FRD, "xyz", "measured specific force (inertial acceleration minus gravity)"
    ),
    ("imu", "angular_rate_sensor_rad_s"): _doc("rad/s", _S_FRD, "xyz", "measured angular rate"),
    ("imu", "true_specific_force_sensor_m_s2"): _doc(
        "m/s^2", _S_FRD, "xyz", "noise-free specific force"
    ),
    ("imu", "true_angular_rate_sensor_rad_s"): _doc(
        "rad/s", _S_FRD, "xyz", "noise-free angular rate"
    ),
    # Camera (leviathan.sensors.render_camera).
    ("camera", "depth_z_m"): _doc("m", _CAM, _HW, "camera z-depth of the nearest hit", _NAN),
    ("camera", "range_m"): _doc("m", "-", _HW, "distance from the camera centre to the hit", _NAN),
    ("camera", "normal_camera"): _doc(
        "1", _CAM, f"{_HW}, xyz", "unit surface normal facing the camera", _NAN
    ),
    ("camera", "instance_id"): _doc("-", "-", _HW, "scene instance index", "-1: nothing hit"),
    ("camera", "semantic_id"): _doc(
        "-", "-", _HW, "index into metadata semantic_labels", "-1: nothing hit"
    ),
    ("camera", "object_id"): _doc(
        "-", "-", _HW, "index into metadata object_ids", "-1: nothing hit"
    ),
    ("camera/display", "preview_srgb"): _doc(
        "-", "-", f"{_HW}, rgb", "sRGB preview for people (display product, not data)"
    ),
    # Ground-truth tracks (leviathan.world.VehicleTrackRecord).
    ("track", "ticks"): _doc("-", "-", "row", "committed tick index"),
    ("track", "times_ns"): _doc("ns", "-", "row", "tick time"),
    ("track", "position_ned_m"): _doc("m", "world NED", "row, xyz", "centre-of-gravity position"),
    ("track", "attitude_q"): _doc(
        "1", "q_world_body", "row, wxyz", "attitude quaternion rotating body FRD into world NED"
    ),
    ("track", "velocity_body"): _doc(
        "m/s, rad/s",
        "body FRD",
        "row, (u v w p q r)",
        "linear and angular velocity relative to the world",
    ),
    # Capture groups: one row per group, one member row per sample.
    ("capture_group", "tick"): _doc("-", "-", "group", "committed tick the samples were taken at"),
    ("capture_group", "time_ns"): _doc("ns", "-", "group", "sample instant"),
    ("capture_group", "content_hash"): _doc("-", "-", "group", "CaptureGroup content hash (hex)"),
    ("capture_group", "member_start"): _doc("-", "-", "group", "first row in members/"),
    ("capture_group", "member_count"): _doc("-", "-", "group", "number of rows in members/"),
    ("capture_group/member", "sensor_id"): _doc("-", "-", "member", "sensor id vehicle/sensor"),
    ("capture_group/member", "sample_index"): _doc("-", "-", "member", "sample index"),
    ("capture_group/member", "content_hash"): _doc("-", "-", "member", "sample content hash (hex)"),
    # Vehicle documents: one per declared sensor.
    ("vehicle_sensor", "T_body_sensor"): _doc(
        "m", "body FRD <- sensor FRD", "4, 4", "homogeneous mount transform (spec.mount)"
    ),
}
"""Units, frame, axes, meaning and sentinel of every array by ``(kind, name)``.

Kinds are the sensor kinds (``imaging_sonar``, ``dvl``, ``imu``, ``camera``),
``<kind>/display`` for display products, ``track`` and ``capture_group`` (and
``capture_group/member``) and ``vehicle_sensor``. The HDF5 writer refuses a
channel with no entry here.
"""
