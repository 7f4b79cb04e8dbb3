"""Path parameters every router shares, with the patterns the schema states.

The patterns describe every id and name the service hands out; a value outside
them names nothing, so it is answered like any other unknown one: 404 (410 for
a World released after idling), in the one error shape, never a validation
message about a regular expression.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

from leviathan.service._requests import VEHICLE_NAME_PATTERN

__all__ = ["WORLD_ID_PATTERN", "SampleId", "ThrusterName", "VehicleName", "WorldId"]

WORLD_ID_PATTERN = r"^world-[1-9][0-9]{0,18}$"
"""World ids the registry hands out: ``world-<n>``, n from 1, never reused."""


def _path(pattern: str, description: str) -> object:
    # Stated in the schema, not checked by FastAPI: an unknown id is a 404.
    return Path(description=description, json_schema_extra={"pattern": pattern})


WorldId = Annotated[str, _path(WORLD_ID_PATTERN, "An open World's id, e.g. 'world-1'")]
VehicleName = Annotated[
    str, _path(VEHICLE_NAME_PATTERN, "A vehicle of the World (see GET /worlds/{world_id})")
]
ThrusterName = Annotated[str, _path(VEHICLE_NAME_PATTERN, "A thruster of the vehicle")]
SampleId = Annotated[
    str,
    _path(r"^[0-9a-f]{64}$", "A recent sample's id: the content hash of a capture-group member"),
]
