"""Declarative specifications: vehicles, sensors, mounts, schedules and water.

Everything a user can declare is a frozen pydantic model that refuses unknown
keys and non-finite floats, so a bad document fails at the boundary with the
field path and what was expected, never deep inside a simulation. Every field
description states its meaning and its unit.

Frames follow the project conventions: world NED, body FRD with its origin at
the centre of gravity, sensor FRD with x along the boresight. Mount angles are
roll, pitch, yaw in degrees applied in ZYX order, R = Rz(yaw) Ry(pitch) Rx(roll).

Documents are read and written as JSON or TOML with :func:`load_spec` and
:func:`save_spec`; :func:`spec_from_dict` validates an already-parsed mapping.
The documents of what goes into a World (controllers, environments, vehicle
placements: :data:`ControllerDocument`, :class:`EnvironmentDocument`,
:class:`VehicleSetupDocument`) are one schema shared by the Python API
(:mod:`leviathan.documents`), the service and the analytic scenarios.

Validation is strict, for documents and for Python construction alike: a
number field takes an ``int`` or a ``float`` (numpy's included) and nothing
else, so ``true`` or ``"45"`` is refused rather than read as 1.0 or 45.0; an
integer field (a period, a count) refuses floats, even ``2.0``; a bool field
takes only ``True``/``False`` and a text field only ``str`` (the field types
:data:`Real`, :data:`Integer`, :data:`Flag` and :data:`Text`, for documents
defined elsewhere, e.g. the service's request bodies). Arrays (JSON/TOML
arrays, Python lists) are accepted wherever a tuple is declared. Documents are
refused before or while parsing when they exceed :data:`MAX_DOCUMENT_BYTES`,
:data:`MAX_DOCUMENT_DEPTH` or :data:`MAX_DOCUMENT_ELEMENTS`, and sensors whose
arrays would exceed a stated bound (e.g. :data:`MAX_SONAR_RAY_COUNT`) are
refused at validation with the size they would need.
"""

from leviathan.specs._base import (
    MAX_CAMERA_PIXEL_COUNT,
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_DEPTH,
    MAX_DOCUMENT_ELEMENTS,
    MAX_DVL_BEAM_COUNT,
    MAX_SONAR_CELL_COUNT,
    MAX_SONAR_RAY_COUNT,
    MAX_SONAR_TOPK_SLOT_COUNT,
    Flag,
    Integer,
    Real,
    SpecModel,
    Text,
)
from leviathan.specs._documents import load_spec, save_spec, spec_from_dict
from leviathan.specs._errors import SpecError, format_validation_error
from leviathan.specs._hull import HullSpec
from leviathan.specs._mount import MountSpec
from leviathan.specs._schedule import ScheduleSpec
from leviathan.specs._sensors import (
    BUILT_IN_SENSOR_SPECS,
    BeamPatternSpec,
    CameraSpec,
    DVLSpec,
    ImagingSonarSpec,
    IMUSpec,
    MultibeamSpec,
    PressureSpec,
    SensorSpec,
    register_sensor_spec,
    unregister_sensor_spec,
)
from leviathan.specs._side_scan import SideScanBeamPatternSpec, SideScanSonarSpec
from leviathan.specs._vehicle import MassPropertiesSpec, ThrusterSpec, VehicleSpec
from leviathan.specs._water import CurrentLayer, WaterSpec
from leviathan.specs._world_documents import (
    AUTOPILOT_GAIN_DEFAULTS,
    AutopilotDocument,
    BuiltinMaterialDocument,
    ControllerDocument,
    DeclaredMaterialDocument,
    DirectThrustDocument,
    EnvironmentDocument,
    LambertMaterialDocument,
    LawnmowerDocument,
    MaterialDocument,
    MaterialParameterDocument,
    MeshDocument,
    PoseDocument,
    SceneObjectDocument,
    VehicleSetupDocument,
    WaypointFollowerDocument,
)

__all__ = [
    "AUTOPILOT_GAIN_DEFAULTS",
    "BUILT_IN_SENSOR_SPECS",
    "MAX_CAMERA_PIXEL_COUNT",
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_DEPTH",
    "MAX_DOCUMENT_ELEMENTS",
    "MAX_DVL_BEAM_COUNT",
    "MAX_SONAR_CELL_COUNT",
    "MAX_SONAR_RAY_COUNT",
    "MAX_SONAR_TOPK_SLOT_COUNT",
    "AutopilotDocument",
    "BeamPatternSpec",
    "BuiltinMaterialDocument",
    "CameraSpec",
    "ControllerDocument",
    "CurrentLayer",
    "DVLSpec",
    "DeclaredMaterialDocument",
    "DirectThrustDocument",
    "EnvironmentDocument",
    "Flag",
    "HullSpec",
    "IMUSpec",
    "ImagingSonarSpec",
    "Integer",
    "LambertMaterialDocument",
    "LawnmowerDocument",
    "MassPropertiesSpec",
    "MaterialDocument",
    "MaterialParameterDocument",
    "MeshDocument",
    "MountSpec",
    "MultibeamSpec",
    "PoseDocument",
    "PressureSpec",
    "Real",
    "SceneObjectDocument",
    "ScheduleSpec",
    "SensorSpec",
    "SideScanBeamPatternSpec",
    "SideScanSonarSpec",
    "SpecError",
    "SpecModel",
    "Text",
    "ThrusterSpec",
    "VehicleSetupDocument",
    "VehicleSpec",
    "WaterSpec",
    "WaypointFollowerDocument",
    "format_validation_error",
    "load_spec",
    "register_sensor_spec",
    "save_spec",
    "spec_from_dict",
    "unregister_sensor_spec",
]
