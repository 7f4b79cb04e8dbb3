"""The service's response and error bodies: pydantic models that are its API documentation.

Request bodies are in :mod:`leviathan.service._requests` (the World documents
themselves are :mod:`leviathan.specs`' one schema). Responses carry plain JSON
where a person reads them (states, summaries, tracks) and the lossless
:mod:`leviathan.wire` form where a record must come back bit for bit
(``record`` fields: typed JSON, ``{"$record": ...}``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from leviathan.specs import CurrentLayer, PoseDocument

__all__ = [
    "CurrentResponse",
    "ErrorBody",
    "GroupSummary",
    "HealthResponse",
    "MemberSummary",
    "MultibeamBeam",
    "MultibeamSoundings",
    "PlayStatus",
    "PoseDocument",
    "SceneMeshGeometry",
    "SceneObjectGeometry",
    "SceneResponse",
    "SensorGeometry",
    "SnapshotResponse",
    "StateResponse",
    "StepResponse",
    "TrackResponse",
    "VehicleGeometry",
    "WorldInfo",
    "WorldList",
]

Vec3 = tuple[float, float, float]


class ErrorBody(BaseModel):
    """The one shape of every failure the service reports."""

    code: str = Field(description="Stable machine-readable error code, e.g. 'world_not_found'.")
    message: str = Field(description="What went wrong and how to fix it, in words.")
    field: str | None = Field(description="The request field at fault, if one is.")
    value: Any = Field(description="The value given for that field (shortened), or null.")
    expected: str | None = Field(description="What that field accepts, if one is at fault.")


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
    samples_kept: int = Field(description="Recent samples it keeps downloadable now [-]")
    samples_bytes: int = Field(description="Bytes of the samples it keeps now [bytes]")


class WorldList(BaseModel):
    """The open Worlds."""

    worlds: list[WorldInfo]


class StateResponse(BaseModel):
    """:meth:`World.state`: tick, time, epochs and per-vehicle kinematics."""

    world_id: str
    state: dict[str, Any]


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
    records: list[dict[str, Any]] | None = Field(
        None, description="With detail='records': each group as a typed-JSON {'$record'} object"
    )


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


class CurrentResponse(BaseModel):
    """The World's current as its environment holds it: uniform, or a depth profile."""

    world_id: str
    current_ned_m_per_s: Vec3 = Field(
        description="Uniform water velocity in world NED [m/s] ((0, 0, 0) with a profile)"
    )
    profile: list[CurrentLayer] = Field(
        description="Current layers in increasing depth; empty for a uniform current"
    )


class PlayStatus(BaseModel):
    """Whether a World is playing, and why it stopped."""

    world_id: str
    playing: bool
    mode: Literal["realtime", "fast"] | None = None
    ticks_per_step: int | None = None
    stopped_reason: str | None = Field(
        None,
        description="Why Play last stopped: 'paused', 'until_tick', 'step_limit', 'deleted', "
        "'released', 'shutdown', or an error code",
    )


class HealthResponse(BaseModel):
    """The service's version, limits and memory held by kept samples."""

    status: Literal["ok"]
    version: str
    worlds_open: int
    max_worlds: int
    max_steps: int
    idle_release_s: float
    max_ticks_per_request: int
    max_body_bytes: int
    samples_kept: int = Field(description="Most recent samples each World keeps [-]")
    samples_bytes_per_world: int = Field(
        description="Most bytes of kept samples per World (their arrays) [bytes]"
    )
    samples_bytes_total: int = Field(
        description="Most bytes of kept samples over all Worlds [bytes]"
    )
    samples_bytes_held: int = Field(description="Bytes of samples kept now, all Worlds [bytes]")
    catalogue: list[str]


# --------------------------------------------------------------------------- scene (Viewport)


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


class MultibeamBeam(BaseModel):
    """One receive beam of a multibeam ping: its detection, its sounding and its truth.

    Values are the ping's channels (leviathan.sensors.MultibeamSensor.channels), float64;
    null where the channel holds NaN (no detection, no hit of the axis ray)."""

    beam: int = Field(ge=0, description="Beam index, port (0) to starboard.")
    angle_rad: float = Field(description="Across-track beam angle in sensor FRD [rad].")
    quality: int = Field(ge=0, le=255, description="Bit flags (see quality_flags).")
    flags: list[str] = Field(description="Names of the bits set in quality, in bit order.")
    detected_range_m: float | None = Field(description="Detected slant range [m].")
    intensity: float | None = Field(description="The beam's peak return [m^-2].")
    sounding_sensor_m: Vec3 | None = Field(description="The sounding in sensor FRD [m].")
    sounding_ned_m: Vec3 | None = Field(description="The sounding in world NED [m].")
    truth_range_m: float | None = Field(description="Range of the axis ray's nearest hit [m].")
    truth_point_ned_m: Vec3 | None = Field(description="That hit's point in world NED [m].")
    truth_label: str | None = Field(description="That hit's semantic label.")
    error_along_beam_m: float | None = Field(description="Detected minus axis-truth range [m].")
    error_vertical_m: float | None = Field(
        description="Sounding z minus axis-truth z in world NED [m] (positive: too deep)."
    )


class MultibeamSoundings(BaseModel):
    """A multibeam's newest kept ping, beam by beam from port to starboard."""

    sensor_id: str = Field(description="'vehicle/sensor'.")
    sample_hash: str = Field(description="Content hash of the ping (GET .../samples/{id}).")
    sample_index: int = Field(ge=0)
    time_ns: int = Field(ge=0, description="The ping's time on the World's clock [ns].")
    quality_flags: dict[str, int] = Field(
        description="Name to bit of the quality flag (reference_cpu.multibeam.DETECTION_FLAGS)."
    )
    beams: list[MultibeamBeam]
