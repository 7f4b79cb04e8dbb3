"""What every array in a LEVIATHAN dataset means: units, frame, axes, meaning, sentinel.

A sensor's channels are documented by its kind, next to its ``sample``
(:attr:`leviathan.sensors.SensorKind.channels` and ``display_channels``):
:func:`sample_channel_doc` asks the registry. The arrays a dataset adds itself
(ground-truth tracks, capture-group columns, mount transforms) are documented
in :data:`CHANNEL_DOCS`. The HDF5 writer copies each entry onto its dataset as
attributes (``units``, ``frame``, ``axes``, ``description``, ``sentinel``) and
refuses a channel that has no entry, so a new channel cannot be exported
undocumented.

Units: ``m``, ``rad``, ``ns``, ``m/s``, ``m/s^2``, ``rad/s``, ``m^-2``, ``Pa``; ``1``
for a dimensionless quantity, ``-`` for what is not a quantity (ids, indices,
flags, codes).
"""

from __future__ import annotations

from collections.abc import Mapping

from leviathan.datasets._errors import DatasetError
from leviathan.sensors import ChannelDoc, channel_doc, sensor_declarations

__all__ = ["CHANNEL_DOCS", "sample_channel_doc"]

_doc = channel_doc


def sample_channel_doc(kind: str, name: str, *, display: bool = False) -> ChannelDoc:
    """The documentation of channel (or display product) ``name`` of sensor kind ``kind``.

    Raises:
        DatasetError: If the kind is not registered or does not document the channel.
    """
    try:
        declarations = sensor_declarations(kind)
    except LookupError as error:
        raise DatasetError(str(error)) from None
    table = declarations.display_channels if display else declarations.channels
    doc = table.get(name)
    if doc is None:
        what = "display product" if display else "channel"
        raise DatasetError(
            f"{what} {name!r} of sensor kind {kind!r} is not documented; its kind declares "
            f"{sorted(table)} in {'display_channels' if display else 'channels'} (add its units, "
            "frame, meaning there, next to the kind's sample)"
        )
    return doc


CHANNEL_DOCS: Mapping[tuple[str, str], ChannelDoc] = {
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
"""Units, frame, axes, meaning and sentinel of the dataset's own arrays, by ``(group, name)``.

Groups: ``track``, ``capture_group`` (and ``capture_group/member``) and
``vehicle_sensor``. Sensor channels are documented by their kinds
(:func:`sample_channel_doc`).
"""
