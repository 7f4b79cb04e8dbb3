"""The canonical sensor product :class:`SensorSample` and its kinematic input.

Every canonical DVL, IMU and camera measurement is a :class:`SensorSample`: a
frozen record of named channels (read-only arrays), a JSON-like metadata
mapping that says what produced them, and display products that are kept out
of the scientific identity. A sample is immutable all the way down and shares
nothing with its inputs: arrays live over immutable memory (they cannot be made
writable again) and mappings are read-only (see :mod:`leviathan._frozen`).

All three sensors are pure functions of the committed vehicle state, given as
:class:`BodyKinematics`, so a sample is bitwise the same whether it is taken
alone, in a batch or after a World reset.

Identity: ``content_hash`` is the SHA-256 of ``{kind, sensor_id,
sample_index, time_ns, metadata, channels}`` (see :meth:`SensorSample.__content__`),
with floats canonicalised (one quiet NaN means "missing", ``-0.0`` is ``0.0``).
A root seed appears in the metadata, and so in the identity, only inside a
noise record whose effect was actually drawn. Display products (e.g. the
camera's sRGB preview) have their own hashes, :meth:`SensorSample.display_hashes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from leviathan._frozen import FrozenMapping, freeze, frozen_array
from leviathan._validation import check_sample_identifiers
from leviathan.frames import Transform
from leviathan.identity import content_hash, display_hash
from leviathan.random import RandomEffectRecord
from leviathan.reference_cpu.prepare import PreparedScene, prepare_scene
from leviathan.scene import Scene

__all__ = ["GRAVITY_NED", "SENSOR_KINDS", "BodyKinematics", "SensorSample"]

SENSOR_KINDS: tuple[str, ...] = ("camera", "dvl", "imu")
"""The ``kind`` values a :class:`SensorSample` may carry."""

GRAVITY_NED: np.ndarray = frozen_array(np.array([0.0, 0.0, 9.81], dtype=np.float64))
"""Default gravitational acceleration in world NED [m/s²], shape (3,), read-only (down is +z)."""


# --------------------------------------------------------------------------- helpers


def _vector3(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as a read-only float64 (3,) array, refusing bad shapes and non-finite."""
    try:
        array = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: expected 3 real numbers, got {value!r}") from error
    if array.shape != (3,):
        raise ValueError(f"{name}: expected shape (3,), got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: every component must be finite, got {array.tolist()!r}")
    return frozen_array(array)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product ``a x b`` of two (3,) vectors, written out in a fixed order."""
    return np.array(
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ],
        dtype=np.float64,
    )


def _canonical_channel(name: str, value: Any) -> np.ndarray:
    """Frozen C-ordered copy; float NaNs become the one quiet NaN and -0.0 becomes 0.0."""
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"channels[{name!r}]: expected a bool, integer or float array, got dtype {array.dtype}"
        )
    if array.dtype.kind == "f":
        # A private copy to canonicalise in place (other dtypes are copied only once,
        # by frozen_array, or not at all when already frozen).
        array = np.array(array, copy=True, order="C")
        # One NaN bit pattern for "missing" whatever arithmetic produced it, and no
        # negative zeros (a flipped normal gives -0.0), so channels compare byte for byte.
        array += 0.0
        array[np.isnan(array)] = np.nan
    return frozen_array(array)


def _noise_record(effect: str, *, drawn: bool, seed: int | None) -> dict[str, Any]:
    """Identity record of one normal-noise effect; the seed is kept only when drawn."""
    record = RandomEffectRecord(
        effect=effect,
        drawn=drawn,
        root_seed=int(seed) if drawn else None,
        distribution="normal",
    )
    return record.__content__()


# --------------------------------------------------------------------------- kinematics


@dataclass(frozen=True, eq=False)
class BodyKinematics:
    """Committed kinematic state of a rigid vehicle at one sample instant.

    Every vector is expressed in the body FRD frame, whose origin is the centre
    of gravity (CG). Inputs are copied into read-only float64 arrays.

    Attributes:
        T_world_body: Body pose in world NED.
        velocity_body_m_s: Inertial (ground-relative) velocity of the CG, expressed
            in body FRD [m/s], shape (3,).
        angular_velocity_body_rad_s: Angular velocity ω of the body relative to the
            world, expressed in body FRD [rad/s], shape (3,).
        linear_acceleration_body_m_s2: Inertial acceleration of the CG (the time
            derivative of its world velocity, *not* the derivative of
            ``velocity_body_m_s``), expressed in body FRD [m/s²], shape (3,).
        angular_acceleration_body_rad_s2: Angular acceleration ω̇, expressed in body
            FRD [rad/s²], shape (3,).
    """

    __content_type__ = "leviathan.sensors.sample.BodyKinematics"

    T_world_body: Transform
    velocity_body_m_s: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity_body_rad_s: np.ndarray = field(default_factory=lambda: np.zeros(3))
    linear_acceleration_body_m_s2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_acceleration_body_rad_s2: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self) -> None:
        if not isinstance(self.T_world_body, Transform):
            raise TypeError(
                f"T_world_body: expected a leviathan.frames.Transform, got "
                f"{type(self.T_world_body).__name__}; build one with Transform.from_euler(...)"
            )
        for name in (
            "velocity_body_m_s",
            "angular_velocity_body_rad_s",
            "linear_acceleration_body_m_s2",
            "angular_acceleration_body_rad_s2",
        ):
            object.__setattr__(self, name, _vector3(name, getattr(self, name)))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-like form: the pose as :meth:`Transform.to_dict`, vectors as lists."""
        return {
            "T_world_body": self.T_world_body.to_dict(),
            "velocity_body_m_s": self.velocity_body_m_s.tolist(),
            "angular_velocity_body_rad_s": self.angular_velocity_body_rad_s.tolist(),
            "linear_acceleration_body_m_s2": self.linear_acceleration_body_m_s2.tolist(),
            "angular_acceleration_body_rad_s2": self.angular_acceleration_body_rad_s2.tolist(),
        }

    def __content__(self) -> dict[str, Any]:
        return self.to_dict()


# --------------------------------------------------------------------------- sample


@dataclass(frozen=True, eq=False)
class SensorSample:
    """One canonical DVL, IMU or camera sample.

    Attributes:
        kind: Sensor type, one of :data:`SENSOR_KINDS`.
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
        if self.kind not in SENSOR_KINDS:
            raise ValueError(f"kind: expected one of {SENSOR_KINDS}, got {self.kind!r}")
        check_sample_identifiers(self.sensor_id, self.sample_index, self.time_ns)
        for name, value in (
            ("channels", self.channels),
            ("metadata", self.metadata),
            ("display", self.display),
        ):
            if not isinstance(value, Mapping):
                raise TypeError(f"{name}: expected a mapping, got {type(value).__name__}")
            bad = [key for key in value if not isinstance(key, str)]
            if bad:
                raise TypeError(f"{name}: keys must be strings, got {bad!r}")
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

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 (hex) of :meth:`__content__`; equals ``leviathan.content_hash(sample)``."""
        return content_hash(self)

    def channel_hashes(self) -> dict[str, str]:
        """SHA-256 (hex) of each channel's canonical encoding, by channel name."""
        return {name: content_hash(a) for name, a in self.channels.items()}

    def display_hashes(self) -> dict[str, str]:
        """Display identity (:func:`leviathan.identity.display_hash`) of each display product."""
        return {name: display_hash(a) for name, a in self.display.items()}


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
