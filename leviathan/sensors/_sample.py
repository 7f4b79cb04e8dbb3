"""The canonical sensor product :class:`SensorSample` and its kinematic input.

Every canonical DVL, IMU and camera measurement is a :class:`SensorSample`: a
frozen record of named channels (read-only arrays), a JSON-like metadata
mapping that says what produced them, and display products that are kept out
of the scientific identity. A sample is immutable all the way down and shares
nothing with its inputs: arrays live over immutable memory (they cannot be made
writable again) and mappings are read-only (see :mod:`leviathan._frozen`).

All three sensors are pure functions of the committed vehicle state, given as
a :class:`~leviathan.sensors.BodyKinematics`, so a sample is bitwise the same
whether it is taken alone, in a batch or after a World reset.

The ``kind`` a sample may carry is any registered sensor kind whose
``product_type`` is :class:`SensorSample` (:func:`~leviathan.sensors.kinds_producing`),
so a new kind registers itself and needs no list here.

Identity: ``content_hash`` is the SHA-256 of ``{kind, sensor_id,
sample_index, time_ns, metadata, channels}`` (see :meth:`SensorSample.__content__`),
with floats canonicalised (one quiet NaN means "missing", ``-0.0`` is ``0.0``).
A root seed appears in the metadata, and so in the identity, only inside a
noise record whose effect was actually drawn. Display products (e.g. the
camera's sRGB preview) have their own hashes, :meth:`SensorSample.display_hashes`.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from leviathan._frozen import FrozenMapping, freeze, frozen_array
from leviathan._validation import check_mapping, check_sample_identifiers
from leviathan.frames import Transform
from leviathan.identity import content_hash, content_hash_property, display_hash
from leviathan.random import RandomEffectRecord
from leviathan.raycast import PreparedScene, prepare_scene
from leviathan.scene import Scene
from leviathan.sensors._kinematics import BodyKinematics
from leviathan.sensors._protocol import kinds_producing

__all__ = ["SensorSample"]


# --------------------------------------------------------------------------- helpers

_FLOAT64 = np.dtype("<f8")
_NAN = float(np.nan)
_SMALL_CHANNEL = 64


def _canonical_channel(name: str, value: Any) -> np.ndarray:
    """Frozen C-ordered copy; float NaNs become the one quiet NaN and -0.0 becomes 0.0."""
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"channels[{name!r}]: expected a bool, integer or float array, got dtype {array.dtype}"
        )
    if array.dtype == _FLOAT64 and array.size <= _SMALL_CHANNEL:
        # The same canonical values on Python floats (a sample's channels are mostly a
        # few elements): x + 0.0 turns -0.0 into 0.0, and each NaN becomes numpy.nan.
        values = [v + 0.0 if v == v else _NAN for v in array.ravel().tolist()]
        packed = struct.pack(f"<{len(values)}d", *values)
        return np.ndarray(array.shape, dtype=_FLOAT64, buffer=packed)
    if array.dtype.kind == "f":
        # A private copy to canonicalise in place (other dtypes are copied only once,
        # by frozen_array, or not at all when already frozen).
        array = np.array(array, copy=True, order="C")
        # One NaN bit pattern for "missing" whatever arithmetic produced it, and no
        # negative zeros (a flipped normal gives -0.0), so channels compare byte for byte.
        array += 0.0
        array[np.isnan(array)] = np.nan
    return frozen_array(array)


def _noise_record(effect: str, *, drawn: bool, seed: int | None) -> FrozenMapping:
    """Identity record of one normal-noise effect; the seed is kept only when drawn.

    Returned frozen and shared between samples (a sample freezes its metadata, and
    freezing reuses frozen parts), so a World does not rebuild it per sample.
    """
    return _frozen_noise_record(effect, bool(drawn), int(seed) if drawn else None)


@functools.lru_cache(maxsize=256)
def _frozen_noise_record(effect: str, drawn: bool, seed: int | None) -> FrozenMapping:
    record = RandomEffectRecord(effect=effect, drawn=drawn, root_seed=seed, distribution="normal")
    return freeze(record.__content__())


# Values derived from a spec alone (its mount transform, its physics fields), kept per
# spec object: specs are frozen pydantic models, and a World samples the same spec
# objects every tick. The entry holds the spec itself, so its id cannot be reused.
_SPEC_DERIVED: dict[tuple[int, Any], tuple[Any, Any]] = {}
_SPEC_DERIVED_LIMIT = 1024


def _spec_derived(spec: Any, build: Callable[[Any], Any]) -> Any:
    """``build(spec)``, computed once per spec object (and per ``build``)."""
    key = (id(spec), build)
    entry = _SPEC_DERIVED.get(key)
    if entry is not None and entry[0] is spec:
        return entry[1]
    value = build(spec)
    if len(_SPEC_DERIVED) >= _SPEC_DERIVED_LIMIT:
        _SPEC_DERIVED.clear()
    _SPEC_DERIVED[key] = (spec, value)
    return value


# The vehicle state a sensor function reads, by its argument name: the type and its name
# in the error.
_STATE_ARGUMENTS: dict[str, tuple[type, str]] = {
    "kin": (BodyKinematics, "a BodyKinematics"),
    "T_world_body": (Transform, "a leviathan.frames.Transform"),
}


def _check_sample_inputs(
    spec: Any, spec_type: type, identifiers: tuple[Any, Any, Any], **state: Any
) -> dict[str, Any]:
    """The argument checks a body-mounted sensor's function opens with: ``spec`` a
    ``spec_type``, the vehicle ``state`` (``kin`` a :class:`BodyKinematics`, or the pose
    ``T_world_body`` a :class:`~leviathan.frames.Transform`) and ``identifiers``
    ``(sensor_id, sample_index, time_ns)`` well formed.

    Returns:
        The identifiers as the keywords :class:`SensorSample` takes (``sensor_id``,
        ``sample_index``, ``time_ns``), like :meth:`SampleContext.ids`.

    Raises:
        TypeError, ValueError: Naming the argument, what was given and what was expected.
    """
    name = spec_type.__name__
    if not isinstance(spec, spec_type):
        article = "an" if name[0] in "AEIOU" else "a"
        raise TypeError(f"spec: expected {article} {name}, got {type(spec).__name__}")
    for argument, value in state.items():
        expected, described = _STATE_ARGUMENTS[argument]
        if not isinstance(value, expected):
            raise TypeError(f"{argument}: expected {described}, got {type(value).__name__}")
    check_sample_identifiers(*identifiers)
    return dict(zip(("sensor_id", "sample_index", "time_ns"), identifiers, strict=True))


def _mount_constants(spec: Any, physics_fields: tuple[str, ...]) -> tuple[Any, ...]:
    """A body-mounted sensor's per-spec constants (build them through :func:`_spec_derived`):
    ``T_body_sensor``, the ``R_sensor_body`` rows and the lever arm [m] as floats, and the
    frozen mount and spec metadata records; the spec record holds the fields
    ``physics_fields`` that define the output (plain ints and floats: a validated spec's
    numbers are), the mount entering through the pose."""
    T_body_sensor = spec.mount.transform()
    return (
        T_body_sensor,
        T_body_sensor.inverse().rotation.tolist(),
        T_body_sensor.translation.tolist(),
        freeze(T_body_sensor.to_dict()),
        freeze({name: getattr(spec, name) for name in physics_fields}),
    )


# --------------------------------------------------------------------------- sample


@dataclass(frozen=True, eq=False)
class SensorSample:
    """One canonical DVL, IMU or camera sample.

    Attributes:
        kind: Sensor kind tag: a registered kind whose ``product_type`` is
            :class:`SensorSample` (``kinds_producing(SensorSample)``, e.g. ``"dvl"``).
        sensor_id: Stable sensor id, ``"vehicle/sensor"``.
        sample_index: Index n of the sample in the sensor's schedule, >= 0.
        time_ns: Sample time [ns].
        channels: Read-only mapping of read-only arrays by name (each access returns
            a fresh view of immutable memory). Float channels hold a single quiet NaN
            where a value is missing and never ``-0.0``; integer ids use -1.
        metadata: Deep read-only, JSON-like description of the sample: model
            version, the spec fields used, the sensor pose, the noise records
            (``{effect, drawn, distribution, root_seed, algorithm}``).
        display: Display products by name (e.g. ``preview_srgb``, uint8); not part
            of ``content_hash``, see :meth:`display_hashes`.
    """

    __content_type__ = "leviathan.sensors.sample.SensorSample"

    kind: str
    sensor_id: str
    sample_index: int
    time_ns: int
    channels: Mapping[str, np.ndarray]
    metadata: Mapping[str, Any]
    display: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        kinds = kinds_producing(SensorSample)
        if self.kind not in kinds:
            raise ValueError(
                f"kind: expected a registered sensor kind whose product is a SensorSample, "
                f"one of {kinds}, got {self.kind!r}; register its sensor with "
                "leviathan.sensors.register_sensor_kind(...)"
            )
        check_sample_identifiers(self.sensor_id, self.sample_index, self.time_ns)
        for name in ("channels", "metadata", "display"):
            check_mapping(name, getattr(self, name), string_keys=True)
        # Everything is copied into memory nobody else holds (arrays over immutable
        # bytes, read-only mappings), so the cached content_hash can never go stale.
        channels = {name: _canonical_channel(name, a) for name, a in self.channels.items()}
        display = {}
        for name, value in self.display.items():
            array = np.asarray(value)
            if array.dtype.hasobject:
                raise TypeError(
                    f"display[{name!r}]: expected a numeric array, got dtype {array.dtype}"
                )
            display[name] = frozen_array(array)
        metadata = freeze(self.metadata)
        object.__setattr__(self, "sample_index", int(self.sample_index))
        object.__setattr__(self, "time_ns", int(self.time_ns))
        object.__setattr__(self, "channels", FrozenMapping._adopt(channels))
        object.__setattr__(self, "metadata", metadata)
        object.__setattr__(self, "display", FrozenMapping._adopt(display))

    def __getitem__(self, name: str) -> np.ndarray:
        """Return the channel called ``name``."""
        try:
            return self.channels[name]
        except KeyError:
            raise KeyError(
                f"{self.kind} sample has no channel {name!r}; available: {sorted(self.channels)}"
            ) from None

    @property
    def time_s(self) -> float:
        """Sample time [s], derived from ``time_ns`` (the integer is authoritative)."""
        return self.time_ns / 1e9

    def __content__(self) -> dict[str, Any]:
        """The scientific content: identifiers, metadata and channels (no display products)."""
        return {
            "kind": self.kind,
            "sensor_id": self.sensor_id,
            "sample_index": self.sample_index,
            "time_ns": self.time_ns,
            "metadata": self.metadata,
            "channels": dict(self.channels),
        }

    content_hash = content_hash_property(
        "SHA-256 (hex) of :meth:`__content__`; equals ``leviathan.content_hash(sample)``."
    )

    def channel_hashes(self) -> dict[str, str]:
        """SHA-256 (hex) of each channel's canonical encoding, by channel name."""
        return {name: content_hash(a) for name, a in self.channels.items()}

    def display_hashes(self) -> dict[str, str]:
        """Display identity (:func:`leviathan.identity.display_hash`) of each display product."""
        return {name: display_hash(a) for name, a in self.display.items()}

    def record_attributes(self) -> dict[str, str | int]:
        """The scalars a dataset stores beside the channels, metadata and display products."""
        return {
            "kind": self.kind,
            "sensor_id": self.sensor_id,
            "sample_index": self.sample_index,
            "time_ns": self.time_ns,
        }

    @classmethod
    def from_record(
        cls,
        *,
        channels: Mapping[str, np.ndarray],
        metadata: Mapping[str, Any],
        display: Mapping[str, np.ndarray],
        attributes: Mapping[str, Any],
    ) -> SensorSample:
        """The sample a dataset stored (see :meth:`record_attributes`); same ``content_hash``."""
        return cls(
            kind=attributes["kind"],
            sensor_id=attributes["sensor_id"],
            sample_index=attributes["sample_index"],
            time_ns=attributes["time_ns"],
            channels=channels,
            metadata=metadata,
            display=display,
        )


def _prepared_for(scene: Any, prepared: Any) -> PreparedScene:
    """Return ``prepared`` after checking it belongs to ``scene``, or prepare the scene."""
    if not isinstance(scene, Scene):
        raise TypeError(f"scene: expected a leviathan.scene.Scene, got {type(scene).__name__}")
    if prepared is None:
        return prepare_scene(scene)
    if not isinstance(prepared, PreparedScene):
        raise TypeError(
            f"prepared: expected a PreparedScene from prepare_scene(scene) or None, got "
            f"{type(prepared).__name__}"
        )
    if prepared.scene_hash != scene.content_hash:
        raise ValueError(
            f"prepared: it was prepared from scene {prepared.scene_hash[:12]}, not from the "
            f"given scene {scene.content_hash[:12]}; pass prepare_scene(scene) or None"
        )
    return prepared
