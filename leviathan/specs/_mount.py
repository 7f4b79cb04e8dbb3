"""Where a sensor sits: :class:`MountSpec`, the pose ``T_link_sensor``.

Mount angles are roll, pitch, yaw in degrees applied in ZYX order,
R = Rz(yaw) Ry(pitch) Rx(roll); frames are body FRD and sensor FRD with x along
the boresight.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pydantic import Field

from leviathan.specs._base import SpecModel, Vec3

if TYPE_CHECKING:
    from leviathan.frames import Transform


class MountSpec(SpecModel):
    """Pose of a sensor frame relative to its parent link: ``T_link_sensor``."""

    __content_type__ = "leviathan.specs.MountSpec"

    translation_m: Vec3 = Field(
        description="Sensor origin in the parent link (body) FRD frame, (x, y, z) [m]"
    )
    rpy_deg: Vec3 = Field(
        default=(0.0, 0.0, 0.0),
        description=(
            "Roll, pitch, yaw of the sensor frame relative to the link [deg], applied ZYX: "
            "R_link_sensor = Rz(yaw) Ry(pitch) Rx(roll); in FRD, negative pitch tilts x down"
        ),
    )

    def transform(self) -> Transform:
        """Return ``T_link_sensor``, mapping sensor-frame points into the link frame."""
        from leviathan.frames import Transform

        roll_deg, pitch_deg, yaw_deg = self.rpy_deg
        return Transform.from_euler(
            math.radians(roll_deg),
            math.radians(pitch_deg),
            math.radians(yaw_deg),
            translation=self.translation_m,
        )
