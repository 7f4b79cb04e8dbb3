"""A vehicle's hull as geometry the other vehicles' sensors see: :class:`HullSpec`.

The hull is given in body FRD, metres, with its origin at the centre of gravity
(the body origin), either as a primitive or as a mesh file:

* ``shape = "cylinder"``: along body x, centred on the CG, of overall
  ``length_m`` (ends included) and ``diameter_m``, with ``ends`` either
  ``"hemispherical"`` (a capsule: the straight part is ``length_m - diameter_m``
  long) or ``"flat"``; ``segments`` vertices around the axis;
* ``shape = "box"``: ``size_m = (length, width, height)`` along body x, y, z,
  centred on the CG;
* ``shape = "mesh"``: a triangle mesh file (any format trimesh reads, loaded
  without processing) at ``path``, whose vertices are body FRD metres about the
  CG. ``sha256`` is the file's SHA-256, so a document names its geometry by
  content: a changed file is refused instead of silently changing a vehicle.

``material`` names a built-in acoustic surface
(:func:`leviathan.materials.reference_materials`), or is absent: then the hull
is "acoustic property unknown", like any other content without a declared
material (its geometry ground truth is valid, its return has no value).

Self-visibility. A sensor never sees its own vehicle's hull unless
``visible_to_own_sensors`` is true: sensors are mounted on or inside the hull
(the reference survey sonar sits inside its hemispherical nose), so tracing
against one's own hull would occlude the whole field of view with the inside of
the vehicle. Opt in only for a hull that truly lies outside every mount's view
(e.g. an arm modelled as part of the hull in front of a camera).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from leviathan.specs._base import (
    Flag,
    Integer,
    PositiveVec3,
    Real,
    SpecModel,
    Text,
    _omitted_while_none,
)

_SHA256 = re.compile(r"^[0-9a-f]{64}$")

# Which optional fields each shape takes (the others must be absent).
_SHAPE_FIELDS: dict[str, tuple[str, ...]] = {
    "cylinder": ("length_m", "diameter_m", "ends", "segments"),
    "box": ("size_m",),
    "mesh": ("path", "sha256"),
}
_OPTIONAL = ("length_m", "diameter_m", "ends", "segments", "size_m", "path", "sha256")


class HullSpec(SpecModel):
    """Hull geometry of a vehicle in body FRD (metres, origin at the CG), material and label."""

    __content_type__ = "leviathan.specs.HullSpec"

    shape: Literal["cylinder", "box", "mesh"] = Field(
        description="'cylinder' (along body x), 'box' or 'mesh' (a triangle mesh file)"
    )
    length_m: Real | None = Field(
        default=None, gt=0, description="Cylinder: overall length along body x, ends included [m]"
    )
    diameter_m: Real | None = Field(default=None, gt=0, description="Cylinder: diameter [m]")
    ends: Literal["hemispherical", "flat"] | None = Field(
        default=None, description="Cylinder: 'hemispherical' (a capsule) or 'flat' ends"
    )
    segments: Integer | None = Field(
        default=None,
        ge=8,
        le=256,
        description="Cylinder: vertices around the axis [-], 8 to 256",
    )
    size_m: PositiveVec3 | None = Field(
        default=None, description="Box: (length, width, height) along body x, y, z [m]"
    )
    path: Text | None = Field(
        default=None,
        min_length=1,
        description=(
            "Mesh: triangle mesh file (body FRD, metres, origin at the CG); a relative path "
            "is taken from the current directory when the World is created"
        ),
    )
    sha256: Text | None = Field(
        default=None, description="Mesh: SHA-256 of the file, 64 lowercase hex digits"
    )
    material: Text | None = Field(
        default=None,
        min_length=1,
        description=(
            "Name of a built-in acoustic surface (leviathan.materials.reference_materials); "
            "absent: acoustic property unknown"
        ),
    )
    semantic_label: Text = Field(
        default="vehicle", min_length=1, description="Semantic class reported by ground truth"
    )
    visible_to_own_sensors: Flag = Field(
        default=False,
        description=(
            "Whether this vehicle's own sensors see its hull; false by default because "
            "sensors mounted on or inside the hull would be occluded by it"
        ),
    )

    # The fields of other shapes (always None) and an absent material are left
    # out, so a hull dumps and saves as the few keys its document states.
    _omit_other_shapes = _omitted_while_none(*_OPTIONAL, "material")

    @model_validator(mode="after")
    def _fields_match_shape(self) -> HullSpec:
        wanted = _SHAPE_FIELDS[self.shape]
        missing = [name for name in wanted if getattr(self, name) is None]
        extra = [
            name for name in _OPTIONAL if name not in wanted and getattr(self, name) is not None
        ]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"needs {', '.join(missing)}")
            if extra:
                parts.append(f"does not take {', '.join(extra)}")
            raise ValueError(
                f"a {self.shape!r} hull {' and '.join(parts)} (a {self.shape!r} hull takes "
                f"{', '.join(wanted)})"
            )
        if self.shape == "cylinder" and self.ends == "hemispherical":
            if self.length_m < self.diameter_m:
                raise ValueError(
                    f"a hemispherical-ended cylinder's length_m ({self.length_m!r}) must be at "
                    f"least its diameter_m ({self.diameter_m!r}): the two ends alone are one "
                    "diameter long"
                )
        if self.sha256 is not None and not _SHA256.match(self.sha256):
            raise ValueError(
                f"sha256: expected 64 lowercase hex digits (e.g. from `sha256sum FILE`), "
                f"got {self.sha256!r}"
            )
        if self.material is not None:
            from leviathan.materials import reference_materials

            known = reference_materials()
            if self.material not in known:
                raise ValueError(
                    f"material: no built-in acoustic surface named {self.material!r}; "
                    f"available: {', '.join(sorted(known))}; omit material for "
                    "'acoustic property unknown'"
                )
        return self
