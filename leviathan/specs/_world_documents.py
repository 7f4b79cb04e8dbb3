"""Documents of what goes into a World: controllers, environments and vehicle placements.

One schema, read by every face: the Python API (:mod:`leviathan.documents`
builds the objects and loads these documents from JSON/TOML files), the
service's request bodies (``POST /worlds``, ``PUT .../controller``, ``POST
.../edit``) and the analytic scenario documents (``[[vehicles]]``,
``[vehicles.controller]``, ``[environment]``). Field names carry their units
and match the Python keywords of the objects they describe
(``WaypointFollower(waypoints_ned_m=...)``, ``lawnmower(origin_ne_m=...)``,
``VehicleSetup(position_ned_m=...)``).

Type tags: the documents that moved here from the analytic scenarios keep the tags
they had there (``leviathan.analytic.AutopilotDocument``, ...; the vehicle placement
``leviathan.analytic.VehicleDocument``): a tag never changes when code moves.

Strict like every spec (:class:`~leviathan.specs.SpecModel`): unknown keys,
bools for numbers, strings for numbers, floats for integers, NaN and
infinities are refused, and every bound a builder would enforce is a field
bound here, so the JSON Schema of these models (the service's OpenAPI) states
it. What a JSON Schema cannot state is said in the descriptions and checked
when the objects are built: a direct-thrust command per thruster of the chosen
vehicle, face indices below the vertex count, a proper rotation matrix.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Field, Tag

from leviathan.specs._base import (
    _NAME_PATTERN,
    Integer,
    NonNegativeFloat,
    PositiveFloat,
    Real,
    SpecModel,
    Text,
    Vec3,
)
from leviathan.specs._vehicle import VehicleSpec
from leviathan.specs._water import WaterSpec

__all__ = [
    "AUTOPILOT_GAIN_DEFAULTS",
    "AutopilotDocument",
    "BuiltinMaterialDocument",
    "ControllerDocument",
    "DeclaredMaterialDocument",
    "DirectThrustDocument",
    "EnvironmentDocument",
    "LambertMaterialDocument",
    "LawnmowerDocument",
    "MaterialDocument",
    "MaterialParameterDocument",
    "MeshDocument",
    "PoseDocument",
    "SceneObjectDocument",
    "VehicleSetupDocument",
    "WaypointFollowerDocument",
]

NamePattern = Annotated[Text, Field(min_length=1, pattern=_NAME_PATTERN)]
# A non-blank text: what the library's materials and scene objects require.
_NON_BLANK = r"\S"


# --------------------------------------------------------------------------- controllers


class DirectThrustDocument(SpecModel):
    """:class:`~leviathan.controllers.DirectThrust`: constant thruster commands.

    ``commands_n`` has one force per thruster of the vehicle, in its declared order.
    """

    __content_type__ = "leviathan.analytic.DirectThrustDocument"

    kind: Literal["direct_thrust"]
    commands_n: tuple[Real, ...] = Field(
        min_length=1,
        max_length=64,
        description="Force per thruster [N], one per thruster of the vehicle, in its order",
    )


class _AutopilotGains(SpecModel):
    """The gain options every autopilot-driven controller takes (defaults: the Autopilot's)."""

    speed_bandwidth_rad_s: PositiveFloat = Field(
        0.5, description="Surge loop bandwidth [rad/s], > 0"
    )
    depth_bandwidth_rad_s: PositiveFloat = Field(
        0.5, description="Depth loop bandwidth [rad/s], > 0"
    )
    max_depth_rate_m_per_s: PositiveFloat = Field(
        0.25, description="Largest commanded depth rate [m/s], > 0"
    )
    heading_natural_frequency_rad_s: PositiveFloat = Field(
        1.0, description="Heading loop natural frequency [rad/s], > 0"
    )
    heading_damping_ratio: PositiveFloat = Field(
        1.0, description="Heading loop damping ratio [-], > 0"
    )
    level_natural_frequency_rad_s: NonNegativeFloat = Field(
        1.5, description="Roll and pitch hold natural frequency [rad/s], >= 0 (0: off)"
    )
    level_damping_ratio: PositiveFloat = Field(
        1.0, description="Roll and pitch hold damping ratio [-], > 0"
    )
    integral_limit_fraction: NonNegativeFloat = Field(
        0.5, description="Surge anti-windup limit, fraction of the surge force authority [-], >= 0"
    )

    def gains(self) -> dict[str, float]:
        """The gain options by keyword (what ``Autopilot(**gains)`` takes)."""
        return {name: getattr(self, name) for name in AUTOPILOT_GAIN_DEFAULTS}


AUTOPILOT_GAIN_DEFAULTS: dict[str, float] = {
    name: field.default for name, field in _AutopilotGains.model_fields.items()
}
"""The gain options of :class:`~leviathan.controllers.Autopilot` and their defaults
(a test keeps them equal to its signature's)."""


class AutopilotDocument(_AutopilotGains):
    """:class:`~leviathan.controllers.Autopilot`: surge speed, depth and heading."""

    __content_type__ = "leviathan.analytic.AutopilotDocument"

    kind: Literal["autopilot"]
    speed_m_per_s: Real = Field(description="Commanded surge speed over ground [m/s]")
    depth_m: Real = Field(description="Commanded depth [m]")
    heading_rad: Real = Field(description="Commanded heading [rad], any value (wrapped)")


class WaypointFollowerDocument(_AutopilotGains):
    """:class:`~leviathan.controllers.WaypointFollower`: line-of-sight guidance over waypoints."""

    __content_type__ = "leviathan.analytic.WaypointFollowerDocument"

    kind: Literal["waypoint_follower"]
    waypoints_ned_m: tuple[Vec3, ...] = Field(
        min_length=1, max_length=10_000, description="Waypoints (north, east, depth) [m]"
    )
    speed_m_per_s: Real = Field(description="Surge speed over ground while following [m/s]")
    acceptance_radius_m: PositiveFloat = Field(description="Horizontal acceptance radius [m], > 0")
    lookahead_m: PositiveFloat = Field(5.0, description="Line-of-sight lookahead [m], > 0")


class LawnmowerDocument(_AutopilotGains):
    """A :class:`~leviathan.controllers.WaypointFollower` over
    :func:`~leviathan.controllers.lawnmower` waypoints (a boustrophedon survey)."""

    __content_type__ = "leviathan.analytic.LawnmowerDocument"

    kind: Literal["lawnmower"]
    origin_ne_m: tuple[Real, Real] = Field(description="Start of the first leg (north, east) [m]")
    heading_rad: Real = Field(description="Heading of the first leg [rad], clockwise from north")
    leg_length_m: PositiveFloat = Field(
        le=1e7, description="Leg length [m], in (0, 1e7] (10,000 km: no survey is longer)"
    )
    leg_spacing_m: PositiveFloat = Field(
        le=1e7, description="Spacing between legs [m], in (0, 1e7]"
    )
    legs: Integer = Field(ge=1, le=1000, description="Number of legs [-], 1..1000")
    depth_m: Real = Field(description="Survey depth [m]")
    speed_m_per_s: Real = Field(description="Surge speed over ground [m/s]")
    acceptance_radius_m: PositiveFloat = Field(description="Horizontal acceptance radius [m], > 0")
    lookahead_m: PositiveFloat = Field(5.0, description="Line-of-sight lookahead [m], > 0")


ControllerDocument = Annotated[
    DirectThrustDocument | AutopilotDocument | WaypointFollowerDocument | LawnmowerDocument,
    Field(discriminator="kind"),
]
"""A controller document, by its ``kind``."""


# --------------------------------------------------------------------------- environment


class PoseDocument(SpecModel):
    """A rigid transform ``T_A_B`` (maps B into A).

    ``rotation`` must be a proper rotation (orthonormal to 1e-9, determinant +1).
    """

    __content_type__ = "leviathan.specs.PoseDocument"

    rotation: tuple[Vec3, Vec3, Vec3] = Field(
        ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
        description="R_A_B, 3 rows of 3 [-]; a proper rotation",
    )
    translation: Vec3 = Field((0.0, 0.0, 0.0), description="t_A_B [m]")


class MeshDocument(SpecModel):
    """An object-local triangle mesh; face indices must lie below the vertex count."""

    __content_type__ = "leviathan.specs.MeshDocument"

    vertices: tuple[Vec3, ...] = Field(
        min_length=1, max_length=1_000_000, description="Vertex positions [m], [n, 3]"
    )
    faces: tuple[
        tuple[
            Annotated[Integer, Field(ge=0)],
            Annotated[Integer, Field(ge=0)],
            Annotated[Integer, Field(ge=0)],
        ],
        ...,
    ] = Field(
        min_length=1,
        max_length=2_000_000,
        description="Vertex indices per triangle, [m, 3], each below the vertex count",
    )


class MaterialParameterDocument(SpecModel):
    """:class:`~leviathan.materials.MaterialParameter`: a value with its provenance."""

    __content_type__ = "leviathan.specs.MaterialParameterDocument"

    name: Text = Field(pattern=_NON_BLANK, description="Parameter name, e.g. 'mu'")
    value: Real = Field(description="Value, in units")
    units: Text = Field(pattern=_NON_BLANK, description="Units of the value")
    meaning: Text = Field(pattern=_NON_BLANK, description="What the parameter is")
    source: Text = Field(pattern=_NON_BLANK, description="Where the value comes from")
    evidence_class: Literal[
        "test_reference", "published_primary", "published_secondary", "assumed"
    ] = Field(description="How the value is known (an EvidenceClass value)")


class _LambertMu(MaterialParameterDocument):
    value: PositiveFloat = Field(description="Lambert mu, linear [1], > 0")


class BuiltinMaterialDocument(SpecModel):
    """A built-in test/reference surface by name (:func:`~leviathan.materials.get_material`)."""

    __content_type__ = "leviathan.specs.BuiltinMaterialDocument"

    kind: Literal["builtin"]
    name: Literal["test_lambert_bright", "test_lambert_medium", "test_lambert_dark"]


class LambertMaterialDocument(SpecModel):
    """:class:`~leviathan.materials.LambertMaterial`: sigma_b = mu cos^2(theta)."""

    __content_type__ = "leviathan.specs.LambertMaterialDocument"

    kind: Literal["lambert"]
    name: Text = Field(pattern=_NON_BLANK, description="Material name")
    description: Text = Field(pattern=_NON_BLANK, description="What the material stands for")
    mu: _LambertMu


class DeclaredMaterialDocument(SpecModel):
    """:class:`~leviathan.materials.DeclaredMaterial`: a model LEVIATHAN does not implement."""

    __content_type__ = "leviathan.specs.DeclaredMaterialDocument"

    kind: Literal["declared"]
    name: Text = Field(pattern=_NON_BLANK, description="Material name")
    model: Text = Field(pattern=_NON_BLANK, description="Name of the declared model")
    description: Text = Field(
        "declared material (model not implemented)",
        pattern=_NON_BLANK,
        description="What the material stands for",
    )
    parameters: tuple[MaterialParameterDocument, ...] = Field((), max_length=64)


MaterialDocument = Annotated[
    BuiltinMaterialDocument | LambertMaterialDocument | DeclaredMaterialDocument,
    Field(discriminator="kind"),
]
"""An acoustic material document, by its ``kind``."""


class SceneObjectDocument(SpecModel):
    """:class:`~leviathan.world.SceneObject`: a seabed, structure or target."""

    __content_type__ = "leviathan.specs.SceneObjectDocument"

    object_id: NamePattern = Field(
        description="Identifier reported by ground truth (not 'sea_surface')"
    )
    semantic_label: Text = Field(pattern=_NON_BLANK, description="Semantic class, e.g. 'target'")
    mesh: MeshDocument
    T_world_object: PoseDocument = Field(
        default_factory=PoseDocument, description="Pose in world NED at t = 0"
    )
    material: MaterialDocument | None = Field(
        None, description="Acoustic material; null: acoustic property unknown"
    )
    velocity_ned_m_per_s: Vec3 = Field(
        (0.0, 0.0, 0.0), description="Constant velocity in world NED [m/s]"
    )


class EnvironmentDocument(SpecModel):
    """:class:`~leviathan.world.Environment`: a built-in scene, objects and the water.

    ``scene``: ``"none"`` (open water), ``"flat_seabed"`` (a level Lambert seabed
    ``seabed_size_m`` square at ``seabed_depth_m``) or ``"survey"`` (the survey
    demo's generated seabed with targets, ``seabed_triangles`` triangles, and its
    water). ``objects`` are added after the scene's own, in their order (their
    instance indices). ``water`` replaces the scene's water (current included).
    """

    __content_type__ = "leviathan.analytic.EnvironmentDocument"

    name: Text = Field("", description="Environment name ('': the scenario's, or none)")
    scene: Literal["none", "flat_seabed", "survey"] = "none"
    seabed_depth_m: PositiveFloat = Field(
        30.0, le=11_000.0, description="Flat seabed depth [m], in (0, 11000]"
    )
    seabed_size_m: PositiveFloat = Field(
        400.0, le=100_000.0, description="Flat seabed side [m], in (0, 100000]"
    )
    seabed_triangles: Integer = Field(
        20_000, ge=2, le=1_000_000, description="Triangles of the survey seabed [-]"
    )
    objects: tuple[SceneObjectDocument, ...] = Field((), max_length=256)
    water: WaterSpec | None = Field(None, description="Replaces the scene's water; null: keep it")


# --------------------------------------------------------------------------- vehicles


def _spec_branch(value: object) -> str:
    return "catalogue_name" if isinstance(value, str) else "vehicle_document"


VehicleSpecRef = Annotated[
    Annotated[Text, Tag("catalogue_name")] | Annotated[VehicleSpec, Tag("vehicle_document")],
    Discriminator(_spec_branch),
]
"""A vehicle document: a catalogue name (or, in a file, the path of a ``.json``/``.toml``
vehicle document relative to it), or the document inline."""


class VehicleSetupDocument(SpecModel):
    """:class:`~leviathan.world.VehicleSetup`: a vehicle placed in the World."""

    __content_type__ = "leviathan.analytic.VehicleDocument"

    name: NamePattern = Field(
        description="Vehicle name in this World (no '/'); sensor ids are '<name>/<sensor>'"
    )
    spec: VehicleSpecRef = Field(
        description="A catalogue vehicle name, a .json/.toml vehicle document path (in a "
        "file, relative to it), or an inline vehicle document"
    )
    controller: ControllerDocument
    position_ned_m: Vec3 = Field((0.0, 0.0, 0.0), description="Initial CG position, NED [m]")
    rpy_rad: Vec3 = Field((0.0, 0.0, 0.0), description="Initial roll, pitch, yaw, ZYX [rad]")
    velocity_body: tuple[Real, Real, Real, Real, Real, Real] = Field(
        (0.0,) * 6, description="Initial body velocities (u, v, w, p, q, r) [m/s, rad/s]"
    )
