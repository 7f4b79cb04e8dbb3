"""The sensor protocol: one interface every sensor kind implements, and its registry.

A sensor kind is one class behind :class:`SensorKind`: given its spec and an
immutable :class:`SampleContext` (the committed kinematics of the carrying
vehicle, the scene at the sample instant, the sample's ids, the root seed of
keyed randomness, the water and the tracer), its ``sample`` returns one
immutable, hashed product (a :class:`SensorProduct`, e.g. a
:class:`~leviathan.sensors.SensorSample` or a :class:`~leviathan.sonar.SonarFrame`).
Beside ``sample``, the kind declares everything else that is specific to it
(:mod:`leviathan.sensors._declarations`): its channels' documentation, its ROS 2
encoding, its Viewport footprint, its analytic-tier recorder. The World, the
dataset writers, the service and the analytic tier ask the registry
(:func:`sensor_declarations`) and never branch on sensor types.

Each kind registers itself under its spec's ``kind`` tag with
:func:`register_sensor_kind` when its module is imported (``leviathan.sensors``
imports every built-in one).

Adding a sensor kind is one module under ``leviathan/sensors/`` (the class, its
declarations and one ``register_sensor_kind(...)`` call, imported by
``leviathan/sensors/__init__.py``) plus its spec beside the others in
``leviathan/specs/_sensors.py`` and the one line adding it to the built-in
:data:`~leviathan.specs.SensorSpec` union: pydantic builds the vehicle
documents' validator and JSON schema from a static union when the specs are
defined, before any sensor module is imported, so the union is the one place
outside the module that names a built-in kind. A kind registered at run time
(a plug-in, a test) needs no edit at all: its spec type validates its sensors in
vehicle documents (the JSON schema describes the built-in kinds only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from leviathan._validation import SEED_LIMIT, check_sample_identifiers, is_integer
from leviathan.frames import Transform
from leviathan.ros import register_message_definitions
from leviathan.scene import Scene
from leviathan.sensors._declarations import (
    AnalyticTier,
    ChannelDoc,
    Footprint,
    RosEncoding,
)
from leviathan.sensors._kinematics import BodyKinematics
from leviathan.specs import WaterSpec, register_sensor_spec, unregister_sensor_spec

__all__ = [
    "SampleContext",
    "SensorDeclarations",
    "SensorKind",
    "SensorProduct",
    "kinds_producing",
    "product_types",
    "register_sensor_kind",
    "registered_sensor_kinds",
    "sample_sensor",
    "sensor_declarations",
    "sensor_kind_for",
    "unregister_sensor_kind",
]


@dataclass(frozen=True, eq=False, kw_only=True)
class SampleContext:
    """Everything a sensor may read at one sample instant; immutable.

    Every field is itself immutable (read-only arrays, frozen records, pydantic
    specs), so a sensor cannot change what the next sensor of the same capture
    group reads, and the context shares nothing that a World later changes.

    Attributes:
        sensor_id: Stable sensor id, ``"vehicle/sensor"``; part of every noise key.
        sample_index: Index n of the sample in the sensor's schedule, >= 0.
        time_ns: Sample instant [ns].
        kinematics: Committed kinematics of the carrying vehicle at ``time_ns``:
            pose ``T_world_body``, body velocities and the accelerations under
            its last thruster command.
        scene: The canonical scene at the sample instant.
        root_seed: Root seed of keyed randomness, an int in [0, 2**64). A sensor
            draws noise only through :mod:`leviathan.random` keyed by it, the
            sensor id and the sample index.
        water: Water properties (sound speed, absorption, current).
        backend: Tracing backend the sample is traced with, as chosen by
            ``resolve_backend`` (``"reference"`` or ``"warp"``); every backend
            gives the same product, bit for bit.
        device: Device of that backend (``"cpu"``, ``"cuda:0"``, ...).
        surface_kinematics: Committed kinematics of the moving surfaces of
            ``scene`` at the instant, by ``object_id``: each hull's vehicle's
            kinematics, and each moving environment object's pose with its
            translation velocity in its own frame (ω = 0). A read-only mapping;
            empty (the default) when nothing moves. Only sensors whose physics
            depends on the motion of what they see read it (the DVL's Doppler).
    """

    sensor_id: str
    sample_index: int
    time_ns: int
    kinematics: BodyKinematics
    scene: Scene
    root_seed: int
    water: WaterSpec
    backend: str
    device: str
    surface_kinematics: Mapping[str, BodyKinematics] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def __post_init__(self) -> None:
        check_sample_identifiers(self.sensor_id, self.sample_index, self.time_ns)
        # Unlike a sensor's optional seed, a context always carries one (None is refused).
        if not is_integer(self.root_seed) or not 0 <= self.root_seed < SEED_LIMIT:
            raise ValueError(
                f"root_seed: expected an integer in [0, 2**64), got {self.root_seed!r}"
            )
        for name, value, expected in (
            ("kinematics", self.kinematics, BodyKinematics),
            ("scene", self.scene, Scene),
            ("water", self.water, WaterSpec),
        ):
            if not isinstance(value, expected):
                raise TypeError(
                    f"{name}: expected a {expected.__module__}.{expected.__name__}, got "
                    f"{type(value).__name__}"
                )
        for name in ("backend", "device"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise TypeError(
                    f"{name}: expected the concrete name resolve_backend(...) returns "
                    f"(e.g. 'reference', 'cpu'), got {value!r}"
                )
        object.__setattr__(self, "sample_index", int(self.sample_index))
        object.__setattr__(self, "time_ns", int(self.time_ns))
        surfaces = self.surface_kinematics
        if not isinstance(surfaces, Mapping):
            raise TypeError(
                "surface_kinematics: expected a mapping of object_id -> BodyKinematics, got "
                f"{type(surfaces).__name__}"
            )
        for key, value in surfaces.items():
            if not isinstance(key, str) or not key or not isinstance(value, BodyKinematics):
                raise TypeError(
                    "surface_kinematics: expected non-empty object_id strings mapped to "
                    f"BodyKinematics, got {key!r} -> {type(value).__name__}"
                )
        # A private copy: the caller's mapping may change after the context is built.
        object.__setattr__(self, "surface_kinematics", MappingProxyType(dict(surfaces)))
        object.__setattr__(self, "root_seed", int(self.root_seed))

    @property
    def T_world_body(self) -> Transform:
        """Committed body pose of the carrying vehicle in world NED."""
        return self.kinematics.T_world_body

    def ids(self) -> dict[str, Any]:
        """The ids as the keywords every sensor function takes: sensor_id, sample_index, time_ns."""
        return {
            "sensor_id": self.sensor_id,
            "sample_index": self.sample_index,
            "time_ns": self.time_ns,
        }


@runtime_checkable
class SensorProduct(Protocol):
    """What every sensor returns: an immutable, hashed product of one sample.

    Products are immutable all the way down (read-only mappings, arrays over
    immutable memory) and carry a pinned ``__content_type__``; a capture group
    keys them by ``sensor_id`` and hashes them by ``content_hash``.

    Datasets store a product as its ``channels``, ``metadata`` and ``display``
    mappings plus the scalar ``record_attributes()`` (ids, tracer), and rebuild it
    with the class method ``from_record(channels=, metadata=, display=,
    attributes=)``; the rebuilt product has the same ``content_hash``.
    """

    @property
    def sensor_id(self) -> str: ...

    @property
    def sample_index(self) -> int: ...

    @property
    def time_ns(self) -> int: ...

    @property
    def content_hash(self) -> str: ...


@runtime_checkable
class SensorKind(Protocol):
    """One sensor kind: spec in, immutable sample context in, typed product out.

    Required attributes:
        kind: The spec ``kind`` tag this sensor samples (e.g. ``"dvl"``).
        spec_type: The spec class (a pydantic model whose ``kind`` defaults to ``kind``).
        product_type: The immutable, hashed class every ``sample`` returns.
        channels: Channel name -> :class:`~leviathan.sensors.ChannelDoc` for every
            channel a product of this kind can carry (datasets refuse an
            undocumented channel).

    Optional attributes (a missing one takes the default in brackets):
        display_channels: Display product name -> ``ChannelDoc`` [none].
        reads_scene: ``False`` for a kind that never looks at ``context.scene``; the
            World then skips posing the other vehicles' hulls for it [True].
        reads_surfaces: ``False`` for a kind that never looks at
            ``context.surface_kinematics`` [True].
        ros: A :class:`~leviathan.sensors.RosEncoding` [None: the MCAP writer says
            so with a warning and publishes no messages for the sensor].
        analytic: An :class:`~leviathan.sensors.AnalyticTier` [None: a scenario
            records the canonical channels as they are, and refuses a noise model].
        footprint(spec): The sensor's field of view as a
            :class:`~leviathan.sensors.Footprint` in sensor FRD, or None [None: the
            Viewport draws the sensor's axes only].
        preview(product): A display product for people as PNG bytes (the survey
            demo writes them) [None: no preview].
    """

    kind: str
    spec_type: type
    product_type: type
    channels: Mapping[str, ChannelDoc]

    def sample(self, spec: Any, context: SampleContext) -> SensorProduct:
        """One product of ``spec`` at the instant, state and ids of ``context``."""
        ...


@dataclass(frozen=True)
class SensorDeclarations:
    """Everything a registered kind declares, with the defaults filled in.

    What the World, the writers, the service and the analytic tier read, from
    :func:`sensor_declarations` (see :class:`SensorKind` for each attribute).
    """

    __content_type__ = "leviathan.sensors.SensorDeclarations"

    kind: str
    sensor: SensorKind
    spec_type: type
    product_type: type
    channels: Mapping[str, ChannelDoc]
    display_channels: Mapping[str, ChannelDoc]
    reads_scene: bool
    reads_surfaces: bool
    ros: RosEncoding | None
    analytic: AnalyticTier | None
    footprint: Callable[[Any], Footprint | None]
    preview: Callable[[Any], bytes] | None


def _doc_table(kind: str, name: str, value: Any) -> Mapping[str, ChannelDoc]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and k and isinstance(v, ChannelDoc) for k, v in value.items()
    ):
        raise TypeError(
            f"sensor.{name}: expected a mapping of channel name -> leviathan.sensors.ChannelDoc "
            f"(sensor kind {kind!r})"
        )
    return MappingProxyType(dict(value))


def _no_footprint(spec: Any) -> None:
    return None


def _declarations(sensor: SensorKind) -> SensorDeclarations:
    """The declarations of ``sensor``, checked, defaults filled in (see :class:`SensorKind`)."""
    kind = sensor.kind
    flags = {}
    for name in ("reads_scene", "reads_surfaces"):
        value = getattr(sensor, name, True)
        if not isinstance(value, bool):
            raise TypeError(f"sensor.{name}: expected a bool, got {value!r} (sensor kind {kind!r})")
        flags[name] = value
    ros = getattr(sensor, "ros", None)
    if ros is not None and not isinstance(ros, RosEncoding):
        raise TypeError(
            f"sensor.ros: expected a leviathan.sensors.RosEncoding or None, got "
            f"{type(ros).__name__} (sensor kind {kind!r})"
        )
    analytic = getattr(sensor, "analytic", None)
    if analytic is not None and not isinstance(analytic, AnalyticTier):
        raise TypeError(
            f"sensor.analytic: expected a leviathan.sensors.AnalyticTier or None, got "
            f"{type(analytic).__name__} (sensor kind {kind!r})"
        )
    footprint = getattr(sensor, "footprint", _no_footprint)
    preview = getattr(sensor, "preview", None)
    for name, value in (("footprint", footprint), ("preview", preview)):
        if value is not None and not callable(value):
            raise TypeError(f"sensor.{name}: expected a method or None (sensor kind {kind!r})")
    return SensorDeclarations(
        kind=kind,
        sensor=sensor,
        spec_type=sensor.spec_type,
        product_type=sensor.product_type,
        channels=_doc_table(kind, "channels", getattr(sensor, "channels", None)),
        display_channels=_doc_table(
            kind, "display_channels", getattr(sensor, "display_channels", {})
        ),
        ros=ros,
        analytic=analytic,
        footprint=footprint,
        preview=preview,
        **flags,
    )


# Keyed by spec ``kind``, in registration order (the built-ins' import order).
_KINDS: dict[str, SensorDeclarations] = {}


def register_sensor_kind(sensor: SensorKind, *, replace: bool = False) -> SensorKind:
    """Register ``sensor`` as the sampler of every spec whose ``kind`` is ``sensor.kind``.

    Args:
        sensor: An object implementing :class:`SensorKind`.
        replace: Allow replacing the sensor already registered for that kind
            (e.g. a wrapper that adds faults); without it a second registration
            of a kind is refused.

    Returns:
        ``sensor``, so a module can keep the registered instance.

    Raises:
        TypeError: If ``sensor`` does not implement :class:`SensorKind`, or one of its
            declarations has the wrong type.
        ValueError: If its ``kind`` is empty, disagrees with ``spec_type``'s ``kind``
            default, is taken and ``replace`` is false, or its ROS encoding declares
            a message definition that contradicts a known one.
    """
    if not isinstance(sensor, SensorKind):
        raise TypeError(
            f"sensor: expected an object with kind, spec_type, product_type, channels and "
            f"sample(spec, context), got {type(sensor).__name__}"
        )
    kind = sensor.kind
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"sensor.kind: expected a non-empty spec kind tag, got {kind!r}")
    for name in ("spec_type", "product_type"):
        if not isinstance(getattr(sensor, name), type):
            raise TypeError(
                f"sensor.{name}: expected a class, got {getattr(sensor, name)!r} "
                f"(sensor kind {kind!r})"
            )
    field = getattr(sensor.spec_type, "model_fields", {}).get("kind")
    if field is not None and field.default != kind:
        raise ValueError(
            f"sensor.kind: {kind!r} disagrees with {sensor.spec_type.__name__}.kind "
            f"(default {field.default!r}); register the sensor under its spec's kind"
        )
    current = _KINDS.get(kind)
    if current is not None and current.sensor is not sensor and not replace:
        raise ValueError(
            f"sensor.kind: {kind!r} is already registered to {type(current.sensor).__name__}; "
            "pass replace=True to replace it, or unregister_sensor_kind(kind) first"
        )
    declarations = _declarations(sensor)
    if declarations.ros is not None:
        register_message_definitions(declarations.ros.definitions)
    if field is not None:
        # Vehicle documents may then declare the kind (a built-in kind is in the union).
        register_sensor_spec(sensor.spec_type)
    _KINDS[kind] = declarations
    return sensor


def unregister_sensor_kind(kind: str) -> SensorKind:
    """Remove the sensor registered for ``kind`` and return it.

    Raises:
        KeyError: If no sensor is registered for ``kind``.
    """
    try:
        entry = _KINDS.pop(kind)
    except KeyError:
        raise KeyError(
            f"kind: no sensor kind {kind!r} is registered; registered: {', '.join(_KINDS)}"
        ) from None
    unregister_sensor_spec(kind)
    return entry.sensor


def registered_sensor_kinds() -> Mapping[str, SensorKind]:
    """A read-only copy of the registry: spec kind tag -> sensor, in registration order."""
    return MappingProxyType({kind: entry.sensor for kind, entry in _KINDS.items()})


def sensor_declarations(kind: str) -> SensorDeclarations:
    """What the registered kind ``kind`` declares, defaults filled in (see :class:`SensorKind`).

    Raises:
        LookupError: If no sensor is registered for ``kind``.
    """
    entry = _KINDS.get(kind)
    if entry is None:
        raise LookupError(
            f"kind: no sensor kind {kind!r} is registered (registered: {', '.join(_KINDS)}); "
            "register its sensor with leviathan.sensors.register_sensor_kind(...)"
        )
    return entry


def product_types() -> tuple[type, ...]:
    """The product classes of the registered sensor kinds, without repeats, by class name."""
    unique = {entry.product_type for entry in _KINDS.values()}
    return tuple(sorted(unique, key=lambda cls: (cls.__name__, cls.__module__)))


def kinds_producing(product_type: type) -> tuple[str, ...]:
    """The registered kind tags whose sensors return ``product_type`` (or a subclass).

    In registration order. :class:`~leviathan.sensors.SensorSample` checks its
    ``kind`` against ``kinds_producing(SensorSample)``, so registering a kind is
    all a new sensor needs.
    """
    return tuple(
        kind for kind, entry in _KINDS.items() if issubclass(entry.product_type, product_type)
    )


def sensor_kind_for(spec: Any) -> SensorKind:
    """The registered sensor that samples ``spec``, found by ``spec.kind``.

    Raises:
        TypeError: If ``spec`` has no string ``kind`` tag, or is not an instance of
            the registered sensor's ``spec_type``.
        LookupError: If no sensor is registered for its kind.
    """
    kind = getattr(spec, "kind", None)
    if not isinstance(kind, str):
        raise TypeError(
            f"spec: expected a sensor spec with a 'kind' tag (e.g. a DVLSpec), got "
            f"{type(spec).__name__}"
        )
    entry = _KINDS.get(kind)
    if entry is None:
        raise LookupError(
            f"spec.kind: no sensor kind {kind!r} is registered (registered: "
            f"{', '.join(_KINDS)}); register its sensor with "
            "leviathan.sensors.register_sensor_kind(...)"
        )
    if not isinstance(spec, entry.spec_type):
        raise TypeError(
            f"spec: sensor kind {kind!r} samples a {entry.spec_type.__name__}, got "
            f"{type(spec).__name__}"
        )
    return entry.sensor


def sample_sensor(spec: Any, context: SampleContext) -> SensorProduct:
    """Sample ``spec`` through its registered sensor and check what comes back.

    Args:
        spec: A sensor spec (its ``kind`` selects the sensor).
        context: The sample instant, committed state and ids.

    Returns:
        The sensor's product, an instance of its ``product_type`` carrying the
        context's sensor id, sample index and time.

    Raises:
        TypeError, LookupError: See :func:`sensor_kind_for`; also if the sensor
            returns something other than its ``product_type``.
        ValueError: If the product's ids are not the context's.
    """
    if not isinstance(context, SampleContext):
        raise TypeError(f"context: expected a SampleContext, got {type(context).__name__}")
    sensor = sensor_kind_for(spec)
    product = sensor.sample(spec, context)
    if not isinstance(product, sensor.product_type):
        raise TypeError(
            f"sensor kind {sensor.kind!r} returned a {type(product).__name__}, expected its "
            f"product_type {sensor.product_type.__name__}"
        )
    ids = (product.sensor_id, product.sample_index, product.time_ns)
    if ids != (context.sensor_id, context.sample_index, context.time_ns):
        raise ValueError(
            f"sensor kind {sensor.kind!r} returned a product with (sensor_id, sample_index, "
            f"time_ns) = {ids!r}, expected the context's "
            f"{(context.sensor_id, context.sample_index, context.time_ns)!r}"
        )
    return product
