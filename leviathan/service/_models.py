"""The service's request and response bodies: pydantic models that are its API documentation.

Request documents mirror the arguments of :meth:`leviathan.world.World.create` and
the World's edit methods one for one; :mod:`leviathan.service._documents` turns them
into the library objects a Python user would pass (and back, for the client).
Responses carry plain JSON where a person reads them (states, summaries, tracks)
and the lossless :mod:`leviathan.service._wire` form where a record must come back
bit for bit (``record`` fields).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AutopilotDocument",
    "ControllerDocument",
    "CreateWorldRequest",
    "CurrentRequest",
    "CurrentResponse",
    "DirectThrustDocument",
    "EditRequest",
    "EnvironmentDocument",
    "ErrorBody",
    "GroupSummary",
    "HealthResponse",
    "MaterialDocument",
    "MemberSummary",
    "MeshDocument",
    "PlayRequest",
    "PlayStatus",
    "PoseDocument",
    "SceneMeshGeometry",
    "SceneObjectDocument",
    "SceneObjectGeometry",
    "SceneResponse",
    "SensorGeometry",
    "SnapshotResponse",
    "StateResponse",
    "StepLengthRequest",
    "StepRequest",
    "StepResponse",
    "TrackResponse",
    "VehicleGeometry",
    "VehicleSetupDocument",
    "WaypointFollowerDocument",
    "WorldInfo",
    "WorldList",
]

Vec3 = tuple[float, float, float]


class _Body(BaseModel):
    """Request bodies refuse unknown keys, like the library's specs."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ErrorBody(BaseModel):
    """The one shape of every failure the service reports."""

    code: str = Field(description="Stable machine-readable error code, e.g. 'world_not_found'.")
    message: str = Field(description="What went wrong and how to fix it, in words.")
    field: str | None = Field(None, description="The request field at fault, if one is.")
    value: Any = Field(None, description="The value given for that field (shortened).")
    expected: str | None = Field(None, description="What that field accepts.")


# --------------------------------------------------------------------------- controllers


class DirectThrustDocument(_Body):
    """:class:`leviathan.controllers.DirectThrust`: constant thruster commands."""

    kind: Literal["direct_thrust"]
    commands_n: list[float] = Field(
        max_length=64, description="Force per thruster [N], in the vehicle's thruster order."
    )


class AutopilotDocument(_Body):
    """:class:`leviathan.controllers.Autopilot`: speed, depth and heading autopilot.

    Gain options left out take the library's defaults.
    """

    kind: Literal["autopilot"]
    speed_m_per_s: float = Field(description="Commanded surge speed over ground [m/s].")
    depth_m: float = Field(description="Commanded depth [m].")
    heading_rad: float = Field(description="Commanded heading [rad].")
    speed_bandwidth_rad_s: float | None = None
    depth_bandwidth_rad_s: float | None = None
    max_depth_rate_m_per_s: float | None = None
    heading_natural_frequency_rad_s: float | None = None
    heading_damping_ratio: float | None = None
    level_natural_frequency_rad_s: float | None = None
    level_damping_ratio: float | None = None
    integral_limit_fraction: float | None = None


class WaypointFollowerDocument(_Body):
    """:class:`leviathan.controllers.WaypointFollower`: line-of-sight waypoint guidance."""

    kind: Literal["waypoint_follower"]
    waypoints_ned: list[Vec3] = Field(
        min_length=1, max_length=10_000, description="Waypoints (north, east, depth) [m]."
    )
    speed_m_per_s: float = Field(description="Surge speed over ground while following [m/s].")
    acceptance_radius_m: float = Field(description="Horizontal acceptance radius [m].")
    lookahead_m: float = Field(5.0, description="Line-of-sight lookahead distance [m].")
    autopilot: dict[str, float] = Field(
        default_factory=dict, description="Autopilot gain options (names as in Autopilot)."
    )


ControllerDocument = Annotated[
    DirectThrustDocument | AutopilotDocument | WaypointFollowerDocument,
    Field(discriminator="kind"),
]


# --------------------------------------------------------------------------- environment


class MeshDocument(_Body):
    """An object-local triangle mesh."""

    vertices: list[Vec3] = Field(min_length=1, description="Vertex positions [m], [n, 3].")
    faces: list[tuple[int, int, int]] = Field(
        min_length=1, description="Vertex indices per triangle, [m, 3]."
    )


class ParameterDocument(_Body):
    """:class:`leviathan.materials.MaterialParameter`."""

    name: str
    value: float
    units: str
    meaning: str
    source: str
    evidence_class: str = Field(description="An EvidenceClass value, e.g. 'test_reference'.")


class MaterialDocument(_Body):
    """A Lambert material (``mu`` given), a declared one (``model`` given), or a built-in
    surface by ``name`` alone (e.g. ``test_lambert_medium``)."""

    kind: Literal["lambert", "declared", "builtin"]
    name: str
    description: str | None = None
    mu: ParameterDocument | None = None
    model: str | None = None
    parameters: list[ParameterDocument] = Field(default_factory=list, max_length=64)


class SceneObjectDocument(_Body):
    """:class:`leviathan.world.SceneObject`: a seabed, structure or target."""

    object_id: str
    semantic_label: str
    mesh: MeshDocument
    T_world_object: dict[str, Any] = Field(
        default_factory=lambda: {
            "rotation": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            "translation": [0.0, 0.0, 0.0],
        },
        description="Pose in world NED at t = 0: {rotation: 3x3, translation [m]}.",
    )
    material: MaterialDocument | None = None
    velocity_ned_m_per_s: Vec3 = Field((0.0, 0.0, 0.0), description="Constant velocity [m/s].")


class EnvironmentDocument(_Body):
    """:class:`leviathan.world.Environment`: water, current and scene objects."""

    name: str = ""
    water: dict[str, Any] | None = Field(None, description="A WaterSpec document.")
    objects: list[SceneObjectDocument] = Field(default_factory=list, max_length=256)


# --------------------------------------------------------------------------- worlds


class VehicleSetupDocument(_Body):
    """:class:`leviathan.world.VehicleSetup`: a vehicle placed in the World."""

    name: str = Field(description="Vehicle name in this World (no '/').")
    spec: str | dict[str, Any] = Field(
        description="A catalogue vehicle name, or an inline VehicleSpec document."
    )
    controller: ControllerDocument
    position_ned_m: Vec3 = (0.0, 0.0, 0.0)
    rpy_rad: Vec3 = (0.0, 0.0, 0.0)
    velocity_body: tuple[float, float, float, float, float, float] = (0.0,) * 6


class CreateWorldRequest(_Body):
    """Arguments of :meth:`World.create`; give exactly one of ``step_ns`` and ``step_s``."""

    vehicles: list[VehicleSetupDocument] = Field(min_length=1, max_length=16)
    environment: EnvironmentDocument | None = None
    root_seed: int = Field(0, ge=0, lt=2**64, description="Root seed of keyed randomness.")
    step_ns: int | None = Field(None, description="Tick length [ns].")
    step_s: str | float | None = Field(None, description="Tick length [s], e.g. '0.01'.")
    tracing_backend: Literal["auto", "reference", "warp"] = "auto"


class WorldInfo(BaseModel):
    """One open World."""

    id: str
    tick: int
    time_ns: int
    step_ns: int
    step_limit: int
    vehicles: list[str]
    sensor_ids: list[str]
    playing: bool


class WorldList(BaseModel):
    """The open Worlds."""

    worlds: list[WorldInfo]


class StateResponse(BaseModel):
    """:meth:`World.state`: tick, time, epochs and per-vehicle kinematics."""

    world_id: str
    state: dict[str, Any]


class StepRequest(_Body):
    """Advance ``n`` ticks (at most the service's ``max_ticks_per_request``)."""

    n: int = Field(1, description="Ticks to advance, >= 1.")
    detail: Literal["summary", "records"] = Field(
        "summary",
        description="'records' adds every capture group in lossless wire form (for clients "
        "that rebuild the records, e.g. leviathan.client).",
    )


class MemberSummary(BaseModel):
    """One sample of a capture group."""

    sensor_id: str
    kind: str
    sample_id: str = Field(description="Id of the sample for /samples/{sample_id}.")
    sample_index: int | None
    time_ns: int
    content_hash: str
    channels: dict[str, dict[str, Any]] = Field(description="dtype and shape per channel.")
    scalars: dict[str, Any] = Field(description="Values of the small channels (<= 16 values).")


class GroupSummary(BaseModel):
    """One capture group: every sample at one instant."""

    tick: int
    time_ns: int
    content_hash: str
    members: list[MemberSummary]


class StepResponse(BaseModel):
    """The new capture groups after a step."""

    world_id: str
    tick: int
    time_ns: int
    groups: list[GroupSummary]
    records: list[dict[str, Any]] | None = None


class SnapshotResponse(BaseModel):
    """:meth:`World.snapshot`: the hashed record (``record`` in wire form)."""

    world_id: str
    tick: int
    time_ns: int
    content_hash: str
    record: dict[str, Any]


class TrackResponse(BaseModel):
    """:meth:`World.track_states` of one vehicle, as plain lists (for a plot)."""

    world_id: str
    vehicle: str
    ticks: list[int]
    times_ns: list[int]
    position_ned_m: list[list[float]]
    attitude_q: list[list[float]]
    velocity_body: list[list[float]]
    T_world_body: list[list[list[float]]] | None = Field(
        None, description="4x4 matrices per tick, with matrices=true (World.track)."
    )


class CurrentRequest(_Body):
    """:meth:`World.set_current`: a uniform current or a depth profile."""

    current_ned_m_per_s: Vec3 | None = None
    profile: list[dict[str, Any]] | None = Field(
        None, max_length=1024, description="CurrentLayer documents."
    )


class CurrentResponse(BaseModel):
    """The World's current as its environment holds it: uniform, or a depth profile."""

    world_id: str
    current_ned_m_per_s: Vec3 = Field(
        description="Uniform water velocity in world NED [m/s] ((0, 0, 0) with a profile)"
    )
    profile: list[dict[str, Any]] = Field(
        description="CurrentLayer documents in increasing depth; empty for a uniform current"
    )


class StepLengthRequest(_Body):
    """:meth:`World.set_step`: exactly one of ``step_ns`` and ``step_s``."""

    step_ns: int | None = None
    step_s: str | float | None = None


class EditRequest(_Body):
    """:meth:`World.edit`."""

    vehicle: str | None = None
    spec: str | dict[str, Any] | None = Field(
        None, description="A catalogue name or an inline VehicleSpec document."
    )
    sensors: list[dict[str, Any]] | None = Field(None, max_length=64)
    controller: ControllerDocument | None = None
    environment: EnvironmentDocument | None = None


class PlayRequest(_Body):
    """Server-side Play: steps the World until paused, a limit, or ``until_tick``."""

    mode: Literal["realtime", "fast"] = Field(
        "realtime", description="'realtime' paces simulated time to the wall clock."
    )
    ticks_per_step: int = Field(1, ge=1, description="Ticks per committed step.")
    rate: float = Field(1.0, gt=0.0, le=1000.0, description="Simulated s per wall s.")
    until_tick: int | None = Field(None, ge=0, description="Stop at this tick.")


class PlayStatus(BaseModel):
    """Whether a World is playing, and why it stopped."""

    world_id: str
    playing: bool
    mode: str | None = None
    ticks_per_step: int | None = None
    stopped_reason: str | None = None


class HealthResponse(BaseModel):
    """The service's version and limits."""

    status: Literal["ok"]
    version: str
    worlds_open: int
    max_worlds: int
    max_steps: int
    idle_release_s: float
    max_ticks_per_request: int
    max_body_bytes: int
    catalogue: list[str]


# --------------------------------------------------------------------------- scene (Viewport)


class PoseDocument(BaseModel):
    """A rigid transform ``T_A_B`` (maps B into A): rotation 3x3 row-major, translation [m]."""

    rotation: list[list[float]] = Field(description="R_A_B, 3 rows of 3.")
    translation: list[float] = Field(description="t_A_B [m], 3 values.")


class SceneMeshGeometry(BaseModel):
    """A triangle mesh for display, in its own frame (object-local or body FRD) [m].

    ``encoding = "lists"``: ``vertices`` [vertex_count, 3] float64 and ``indices``
    [triangle_count, 3] as nested lists (exact). ``"base64"``: ``vertices`` is
    little-endian float32 x, y, z per vertex and ``indices`` little-endian uint32,
    three per triangle, each base64-encoded (compact, for display only).
    """

    encoding: Literal["lists", "base64"]
    vertex_count: int
    triangle_count: int
    vertices: list[list[float]] | str
    indices: list[list[int]] | str


class SceneObjectGeometry(BaseModel):
    """One environment object: its mesh and its pose in world NED."""

    object_id: str
    semantic_label: str
    material: str | None = Field(description="Acoustic material name (null: unknown).")
    moving: bool
    velocity_ned_m_per_s: Vec3 = Field(description="Constant velocity in world NED [m/s].")
    T_world_object_t0: PoseDocument = Field(description="Pose in world NED at t = 0.")
    T_world_object: PoseDocument = Field(
        description="Pose in world NED at the committed time (time_ns of the response)."
    )
    mesh: SceneMeshGeometry


class FootprintPartGeometry(BaseModel):
    """One drawable piece of a sensor's field of view (leviathan.sensors.FootprintPart)."""

    name: str = Field(description="Stable name of the piece, e.g. 'sonar-fan'.")
    style: Literal["lines", "surface"] = Field(
        description="'lines': points are segment end pairs; 'surface': triangle corner triples."
    )
    points_sensor_m: list[float] = Field(
        description="x, y, z of each point in sensor FRD [m], flattened (3 floats a point)."
    )
    colour: str = Field(description="'#rrggbb'.")
    opacity: float = Field(gt=0, le=1)


class SensorFootprint(BaseModel):
    """A sensor's field of view as its kind declares it (leviathan.sensors.Footprint)."""

    legend: str = Field(description="One line for the Viewport's legend.")
    parts: list[FootprintPartGeometry]


class SensorGeometry(BaseModel):
    """One sensor's mount and field of view, for drawing (as the sensor's kind declares it)."""

    sensor_id: str = Field(description="'vehicle/sensor'.")
    name: str
    kind: str
    T_body_sensor: PoseDocument = Field(description="Mount: sensor FRD into body FRD.")
    footprint: SensorFootprint | None = Field(
        description="The field of view in sensor FRD, or null for a kind that declares none "
        "(e.g. an IMU)."
    )


class VehicleGeometry(BaseModel):
    """One vehicle: its hull in body FRD (or none) and its sensors' mounts."""

    name: str
    spec_name: str
    spec_hash: str = Field(description="Content hash of the vehicle's current document.")
    hull_shape: str | None = Field(description="'cylinder', 'box', 'mesh' or null (no hull).")
    hull_label: str | None
    hull: SceneMeshGeometry | None = Field(description="Hull mesh in body FRD [m], or null.")
    sensors: list[SensorGeometry]


class SceneResponse(BaseModel):
    """Geometry of a World for the Viewport, in LEVIATHAN's frames.

    World NED (x north, y east, z down, origin at the sea surface, the plane
    z = 0); body and sensor frames FRD; metres. Poses are ``T_A_B`` with
    rotation and translation; vehicles' poses live in the state (``/state``,
    the WebSocket stream), not here.
    """

    world_id: str
    tick: int
    time_ns: int
    environment_name: str
    environment_hash: str
    sea_surface_down_m: float = Field(description="Depth of the sea surface: 0 (z = 0 plane).")
    objects: list[SceneObjectGeometry]
    vehicles: list[VehicleGeometry]
