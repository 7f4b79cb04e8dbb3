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
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from leviathan.frames import Transform
from leviathan.ros import register_message_definitions
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import (
    AnalyticTier,
    ChannelDoc,
    Footprint,
    PinholeIntrinsics,
    RosEncoding,
)
from leviathan.sonar.beams import check_ping_period_in_water
from leviathan.specs import WaterSpec, register_sensor_spec, unregister_sensor_spec

__all__ = [
    "SensorDeclarations",
    "SensorKind",
    "SensorProduct",
    "fan_sonar_check_water",
    "kinds_producing",
    "product_types",
    "register_sensor_kind",
    "registered_sensor_kinds",
    "sample_sensor",
    "sensor_declarations",
    "sensor_kind_for",
    "unregister_sensor_kind",
]


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
        summary(spec): One line of the spec's key hardware values, for the catalogue
            table (``leviathan catalogue``) [None: none shown].
        intrinsics(spec): For an optical kind, its
            :class:`~leviathan.sensors.PinholeIntrinsics` (the USD export authors a
            camera from it) [None].
        check_water(spec, water, T_world_body, sensor_id): Refuses (``ValueError``
            naming ``sensor_id`` and the field) a spec that cannot work in ``water``
            with its vehicle at ``T_world_body``; a World calls it when it is created
            and on every edit of a vehicle document or of the environment, so such a
            document is refused before anything is built [None: every spec works in
            every water].
        channel_rules: Channel name -> ``rule(channels, metadata, support)``, which
            rebuilds that channel of a product from its other channels (none of them
            ruled), its metadata and its ``rule_support`` (exact inputs the renderer
            kept beside the product, not part of its identity; an empty mapping for a
            product without them), or returns None where it cannot; a dataset may store
            the rule instead of the values, only where the rebuilt array equals the
            channel byte for byte [none].
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
    intrinsics: Callable[[Any], PinholeIntrinsics] | None
    summary: Callable[[Any], str] | None
    check_water: Callable[[Any, Any, Any, str], None] | None
    channel_rules: Mapping[
        str, Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], Any]
    ]


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


def fan_sonar_check_water(
    spec: Any, water: WaterSpec, T_world_body: Transform, sensor_id: str
) -> None:
    """A fan sonar kind's ``check_water`` (the multibeam's, the side-scan's): refuses a ping
    period below ``2 R_max / c`` in ``water`` at this pose
    (:func:`~leviathan.sonar.beams.check_ping_period_in_water`)."""
    check_ping_period_in_water(spec, water, T_world_body, sensor_id=sensor_id)


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
    intrinsics = getattr(sensor, "intrinsics", None)
    summary = getattr(sensor, "summary", None)
    check_water = getattr(sensor, "check_water", None)
    rules = getattr(sensor, "channel_rules", {})
    if not isinstance(rules, Mapping) or not all(
        isinstance(name, str) and callable(rule) for name, rule in rules.items()
    ):
        raise TypeError(
            f"sensor.channel_rules: expected a mapping of channel name -> function "
            f"(sensor kind {kind!r})"
        )
    methods = {"footprint": footprint, "preview": preview, "intrinsics": intrinsics}
    for name, value in {**methods, "summary": summary, "check_water": check_water}.items():
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
        intrinsics=intrinsics,
        summary=summary,
        check_water=check_water,
        channel_rules=MappingProxyType(dict(rules)),
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
