"""Keyed randomness: every draw is a pure function of stable identifiers.

A random value in LEVIATHAN does not come from a generator's hidden position. It is a
pure function of ``(root_seed, sensor_id, sample_index, effect, index)``, where
``index`` is the cell or beam the value belongs to. A sample is therefore bitwise the
same whether it is produced alone, in a batch, in any order, or after a World reset.

Algorithm, version ``leviathan.random.v1``
------------------------------------------

Everything below is exact integer arithmetic until the last float conversion, so the
description is enough to reimplement it.

1. **Key.** ``digest = SHA-256(canonical_encode(("leviathan.random.v1", root_seed,
   sensor_id, sample_index, effect)))`` using :func:`leviathan.identity.canonical_encode`
   (version 1, content domain prefix included). The Philox key words are
   ``k0 = uint32_le(digest[0:4])`` and ``k1 = uint32_le(digest[4:8])``.
2. **Counter.** For an element with index ``i`` (``0 <= i < 2**63``) and stream word
   ``s``, the counter is ``(i & 0xFFFFFFFF, i >> 32, s, 0)``. The stream word separates
   the independent variates one index needs: stream 0 gives the first uniform, stream 1
   the second (used by Box–Muller).
3. **Block.** ``(x0, x1, x2, x3) = Philox4x32-10(counter, (k0, k1))`` (Salmon, Moraes,
   Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011). One round
   maps ``(c0, c1, c2, c3)`` with key ``(k0, k1)`` to::

       p0 = 0xD2511F53 * c0          (exact 64-bit product; hi = p >> 32, lo = p & 0xFFFFFFFF)
       p1 = 0xCD9E8D57 * c2
       (hi(p1) ^ c1 ^ k0,  lo(p1),  hi(p0) ^ c3 ^ k1,  lo(p0))

   Ten rounds are applied; after each of the first nine the key is bumped by
   ``k0 += 0x9E3779B9``, ``k1 += 0xBB67AE85`` (mod 2**32). This reproduces the Random123
   known-answer vectors.
4. **Uniform.** ``x = x0 | (x1 << 32)`` (a 64-bit integer, ``x0`` the low word) and
   ``u = ((x >> 12) + 0.5) * 2**-52``. ``u`` is the midpoint of one of ``2**52`` equal
   cells of [0, 1): every value is exact in binary64, the smallest is ``2**-53``, the
   largest ``1 - 2**-53``, so ``u`` is never 0 and never 1, and ``1 - u`` is again a
   possible draw. (A 53-bit midpoint ``((x >> 11) + 0.5) * 2**-53`` would need 54
   significant bits: it rounds and its top value becomes exactly 1.0.)
5. **Distributions.** ``uniform`` is ``u`` from stream 0. ``exponential`` (unit mean)
   is ``-log(u)`` with ``u`` from stream 0. ``normal`` (standard) is the Box–Muller cosine
   branch ``sqrt(-2 log(u0)) * cos(2 pi u1)`` with ``u0`` from stream 0 and ``u1`` from
   stream 1.

The integer steps are bitwise portable. The final ``log``, ``sqrt`` and ``cos`` use
NumPy's elementwise functions, so values are bitwise identical for the same build and
platform (the project's repeatability promise), not necessarily across platforms.

Randomness and identity
-----------------------

The seed enters a product's identity only when a random effect was actually drawn.
:class:`RandomEffectRecord` states that for one effect; its ``__content__`` carries the
seed and the algorithm version only when ``drawn`` is true.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import struct
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from leviathan._validation import SEED_LIMIT, check_non_empty_str, check_root_seed, is_integer
from leviathan.identity import CONTENT_DOMAIN

__all__ = [
    "ALGORITHM",
    "KeyedRandom",
    "RandomEffectRecord",
    "exponential",
    "normal",
    "uniform",
]

ALGORITHM = "leviathan.random.v1"
"""Name and version of the keyed-randomness algorithm; it is part of every key."""

_MASK32 = 0xFFFFFFFF
_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = 0x9E3779B9
_PHILOX_W1 = 0xBB67AE85
_PHILOX_ROUNDS = 10
_INDEX_LIMIT = 2**63
_UNIFORM_SCALE = 2.0**-52
_TWO_PI = 2.0 * np.pi

_STREAM_FIRST_UNIFORM = 0
_STREAM_SECOND_UNIFORM = 1

# Below this many elements a draw runs on Python ints and floats (all lanes in one int,
# see _small_uniforms): numpy's per-call overhead (some 100 calls a Philox pass) dwarfs
# the work for the 3-element draws of an IMU or DVL sample. Both paths do the same exact
# integer arithmetic and the same libm calls, so they give the same values bit for bit.
_SMALL_DRAW = 32
_U64 = struct.Struct("<Q")
_LANE_ONE = _U64.pack(1)


def _libm(fn: Any, values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Applies a ``math`` function element by element, keeping the shape.

    Transcendentals come from Python's ``math`` (the platform libm) rather than
    numpy's vectorised loops, whose SIMD code paths differ between CPU
    instruction sets; keyed draws then do not depend on which ones the machine has.
    """
    flat = [fn(v) for v in values.ravel().tolist()]
    return np.array(flat, dtype=np.float64).reshape(values.shape)


def uniform(
    root_seed: int, sensor_id: str, sample_index: int, effect: str, index: ArrayLike
) -> NDArray[np.float64]:
    """Draw uniforms strictly inside (0, 1), one per element of ``index``.

    Args:
        root_seed: Root seed of the run, ``0 <= root_seed < 2**64``.
        sensor_id: Stable identifier of the sensor, non-empty.
        sample_index: Index ``n`` of the sensor sample, ``>= 0``.
        effect: Name of the random effect (e.g. ``"speckle"``), non-empty.
        index: Cell or beam indices, any shape, integer dtype, ``0 <= index < 2**63``.

    Returns:
        float64 array with the shape of ``index``.

    Raises:
        TypeError: If an argument has the wrong type (``index`` must be integer).
        ValueError: If an argument is out of range or empty.
    """
    key = _derive_key(root_seed, sensor_id, sample_index, effect)
    idx = _validate_index(index)
    if idx.size < _SMALL_DRAW:
        return _as_array([u for u, _ in _small_uniforms(key, idx, pair=False)], idx.shape)
    return _uniform_stream(key, idx, _STREAM_FIRST_UNIFORM)


def exponential(
    root_seed: int, sensor_id: str, sample_index: int, effect: str, index: ArrayLike
) -> NDArray[np.float64]:
    """Draw unit-mean exponential variates ``-log(u)``, one per element of ``index``.

    Arguments, errors and keying are as for :func:`uniform`; the values are positive
    and finite.

    Returns:
        float64 array with the shape of ``index``.
    """
    key = _derive_key(root_seed, sensor_id, sample_index, effect)
    idx = _validate_index(index)
    if idx.size < _SMALL_DRAW:
        log = math.log
        values = [-log(u) for u, _ in _small_uniforms(key, idx, pair=False)]
        return _as_array(values, idx.shape)
    u = _uniform_stream(key, idx, _STREAM_FIRST_UNIFORM)
    return -_libm(math.log, u)


def normal(
    root_seed: int, sensor_id: str, sample_index: int, effect: str, index: ArrayLike
) -> NDArray[np.float64]:
    """Draw standard normal variates by Box–Muller, one per element of ``index``.

    Uses the cosine branch ``sqrt(-2 log(u0)) * cos(2 pi u1)`` with ``u0`` from stream 0
    and ``u1`` from stream 1. Arguments, errors and keying are as for :func:`uniform`.

    Returns:
        float64 array with the shape of ``index``.
    """
    key = _derive_key(root_seed, sensor_id, sample_index, effect)
    idx = _validate_index(index)
    if idx.size < _SMALL_DRAW:
        # The same operations as below on Python floats: math.sqrt is correctly rounded
        # like np.sqrt, and log and cos are the same libm calls _libm makes.
        log, cos, sqrt, two_pi = math.log, math.cos, math.sqrt, float(_TWO_PI)
        values = [
            sqrt(-2.0 * log(u0)) * cos(two_pi * u1)
            for u0, u1 in _small_uniforms(key, idx, pair=True)
        ]
        return _as_array(values, idx.shape)
    u0, u1 = _uniform_stream_pair(key, idx)
    return np.sqrt(-2.0 * _libm(math.log, u0)) * _libm(math.cos, _TWO_PI * u1)


@dataclasses.dataclass(frozen=True)
class KeyedRandom:
    """Draws bound to one ``(root_seed, sensor_id, sample_index)``.

    Attributes:
        root_seed: Root seed of the run, ``0 <= root_seed < 2**64``.
        sensor_id: Stable identifier of the sensor, non-empty.
        sample_index: Index of the sensor sample, ``>= 0``.
    """

    __content_type__ = "leviathan.random.KeyedRandom"

    root_seed: int
    sensor_id: str
    sample_index: int

    def __post_init__(self) -> None:
        _validate_binding(self.root_seed, self.sensor_id, self.sample_index)

    def uniform(self, effect: str, index: ArrayLike) -> NDArray[np.float64]:
        """Return :func:`uniform` for ``effect`` at ``index`` under this binding."""
        return uniform(self.root_seed, self.sensor_id, self.sample_index, effect, index)

    def exponential(self, effect: str, index: ArrayLike) -> NDArray[np.float64]:
        """Return :func:`exponential` for ``effect`` at ``index`` under this binding."""
        return exponential(self.root_seed, self.sensor_id, self.sample_index, effect, index)

    def normal(self, effect: str, index: ArrayLike) -> NDArray[np.float64]:
        """Return :func:`normal` for ``effect`` at ``index`` under this binding."""
        return normal(self.root_seed, self.sensor_id, self.sample_index, effect, index)


@dataclasses.dataclass(frozen=True)
class RandomEffectRecord:
    """Whether one random effect was drawn, and with which seed.

    A measurement carries one record per random effect it could apply. The seed enters
    the measurement's identity only through a drawn record, so turning an effect off
    makes the result independent of the seed.

    Attributes:
        effect: Name of the effect, non-empty (e.g. ``"speckle"``).
        drawn: True when the effect's random values were drawn and applied.
        root_seed: The root seed used when ``drawn``; must be ``None`` otherwise.
        distribution: Name of the distribution drawn from (e.g. ``"normal"``), non-empty.
    """

    __content_type__ = "leviathan.random.RandomEffectRecord"

    effect: str
    drawn: bool
    root_seed: int | None
    distribution: str

    def __post_init__(self) -> None:
        check_non_empty_str("effect", self.effect)
        check_non_empty_str("distribution", self.distribution)
        if not isinstance(self.drawn, bool | np.bool_):
            raise TypeError(
                f"drawn must be a bool, got {self.drawn!r} of type {type(self.drawn).__name__}"
            )
        if self.drawn:
            check_root_seed("root_seed", self.root_seed)
        elif self.root_seed is not None:
            raise ValueError(
                f"root_seed must be None when drawn is False (effect {self.effect!r}), got "
                f"{self.root_seed!r}; an effect that was not drawn must not carry a seed, "
                "so the seed stays out of the identity"
            )

    def __content__(self) -> dict[str, Any]:
        """Return the identity content; seed and algorithm appear only when drawn."""
        return {
            "effect": self.effect,
            "drawn": bool(self.drawn),
            "distribution": self.distribution,
            "root_seed": int(self.root_seed) if self.drawn else None,
            "algorithm": ALGORITHM if self.drawn else None,
        }


def _philox4x32_10(
    counter: tuple[NDArray[np.uint64], ...], key: tuple[int, int]
) -> tuple[NDArray[np.uint64], ...]:
    """Apply Philox4x32-10 to counter words held in uint64 arrays (values < 2**32).

    The 32x32-bit products fit exactly in uint64, so their high and low halves are
    exact. Returns the four output words, each a uint64 array with values < 2**32.
    """
    # Private copies updated in place: no temporaries are allocated per round, which
    # matters for the 10**5-element draws of a sonar ping.
    words = np.broadcast_arrays(*(np.asarray(word, dtype=np.uint64) for word in counter))
    c0, c1, c2, c3 = (np.array(word, dtype=np.uint64) for word in words)
    p0, p1 = np.empty_like(c0), np.empty_like(c2)
    mask = np.uint64(_MASK32)
    shift = np.uint64(32)
    for k0, k1 in _round_keys((int(key[0]), int(key[1]))):
        np.multiply(c0, _PHILOX_M0, out=p0)
        np.multiply(c2, _PHILOX_M1, out=p1)
        # Each new word is written only after the old words it reads have been used.
        np.right_shift(p1, shift, out=c0)
        c0 ^= c1
        c0 ^= np.uint64(k0)
        np.bitwise_and(p1, mask, out=c1)
        np.right_shift(p0, shift, out=c2)
        c2 ^= c3
        c2 ^= np.uint64(k1)
        np.bitwise_and(p0, mask, out=c3)
    return c0, c1, c2, c3


def _uniform_from_words(low: ArrayLike, high: ArrayLike) -> NDArray[np.float64]:
    """Map 32-bit words to ``((x >> 12) + 0.5) * 2**-52`` with ``x = low | high << 32``."""
    x = np.asarray(low, dtype=np.uint64) | (np.asarray(high, dtype=np.uint64) << np.uint64(32))
    # x >> 12 < 2**52, so the float conversion, + 0.5 and the power-of-two scale are exact.
    u = ((x >> np.uint64(12)).astype(np.float64) + 0.5) * _UNIFORM_SCALE
    # Operations on 0-d arrays yield NumPy scalars; callers are promised arrays.
    return np.asarray(u, dtype=np.float64)


def _uniform_stream(
    key: tuple[int, int], index: NDArray[np.uint64], stream: int
) -> NDArray[np.float64]:
    """Uniforms of one stream word for every element of a validated index array."""
    counter = (
        index & np.uint64(_MASK32),
        index >> np.uint64(32),
        np.full(index.shape, stream, dtype=np.uint64),
        np.zeros(index.shape, dtype=np.uint64),
    )
    x0, x1, _, _ = _philox4x32_10(counter, key)
    return _uniform_from_words(x0, x1)


def _derive_key(root_seed: int, sensor_id: str, sample_index: int, effect: str) -> tuple[int, int]:
    """Return the two Philox key words for a validated key tuple (step 1)."""
    _validate_key_parts(root_seed, sensor_id, sample_index, effect)
    return _key_words(int(root_seed), sensor_id, int(sample_index), effect)


# Not cached: the sample index is new on nearly every call; the constant prefix is.
def _key_words(root_seed: int, sensor_id: str, sample_index: int, effect: str) -> tuple[int, int]:
    """Key words of validated parts: the SHA-256 of the key tuple's canonical encoding.

    The bytes are those :func:`canonical_encode` writes for the 5-tuple (tag 0x07,
    count 5, then str, int, str, int, str items); SHA-256 resumes from a cached state
    over the constant ``(ALGORITHM, root_seed, sensor_id)`` prefix.
    """
    digest = _key_prefix(root_seed, sensor_id).copy()
    digest.update(_int_encoding(sample_index) + _str_encoding(effect))
    words = digest.digest()
    return int.from_bytes(words[0:4], "little"), int.from_bytes(words[4:8], "little")


@functools.lru_cache(maxsize=256)
def _key_prefix(root_seed: int, sensor_id: str) -> Any:
    """SHA-256 state after the key tuple's first three items (see :func:`_key_words`)."""
    return hashlib.sha256(
        CONTENT_DOMAIN
        + b"\x07"
        + _U64.pack(5)
        + _str_encoding(ALGORITHM)
        + _int_encoding(root_seed)
        + _str_encoding(sensor_id)
    )


def _int_encoding(value: int) -> bytes:
    """Canonical encoding (tag 0x02) of a non-negative int."""
    payload = value.to_bytes((value.bit_length() + 7) // 8, "little")
    return b"\x02\x00" + _U64.pack(len(payload)) + payload


def _str_encoding(text: str) -> bytes:
    """Canonical encoding (tag 0x05) of a str."""
    encoded = text.encode("utf-8")
    return b"\x05" + _U64.pack(len(encoded)) + encoded


# Not cached: a Philox key is new on nearly every draw.
def _round_keys(key: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """The ten ``(k0, k1)`` round keys of a Philox key (bumped after each round)."""
    k0, k1 = key
    rounds = []
    for round_index in range(_PHILOX_ROUNDS):
        if round_index:
            k0 = (k0 + _PHILOX_W0) & _MASK32
            k1 = (k1 + _PHILOX_W1) & _MASK32
        rounds.append((k0, k1))
    return tuple(rounds)


def _small_uniforms(
    key: tuple[int, int], index: NDArray[np.uint64], *, pair: bool
) -> list[tuple[float, float]]:
    """Stream-0 (and, with ``pair``, stream-1) uniforms of each index, on Python ints.

    Philox4x32-10 and the uniform map of steps 3 and 4 for every element in C order;
    without ``pair`` the second value of each tuple is 0.0. The counters run side by
    side in one Python int, 64 bits a lane (SIMD within a register): a 32-bit word
    times a 32-bit multiplier fits its lane, so no carry crosses lanes, and masking
    with ``0xFFFFFFFF`` in every lane gives each product's high and low halves exact.
    """
    indices = index.ravel().tolist()
    count = len(indices)
    streams = [_STREAM_FIRST_UNIFORM] * count
    if pair:
        indices = indices + indices
        streams = streams + [_STREAM_SECOND_UNIFORM] * count
    lanes = len(indices)
    if not lanes:
        return []
    pack = struct.Struct(f"<{lanes}Q")
    ones = int.from_bytes(_LANE_ONE * lanes, "little")
    low = _MASK32 * ones
    c0 = int.from_bytes(pack.pack(*[i & _MASK32 for i in indices]), "little")
    c1 = int.from_bytes(pack.pack(*[i >> 32 for i in indices]), "little")
    c2 = int.from_bytes(pack.pack(*streams), "little")
    c3 = 0
    m0, m1 = int(_PHILOX_M0), int(_PHILOX_M1)
    for k0, k1 in _round_keys(key):
        p0 = c0 * m0
        p1 = c2 * m1
        c0 = ((p1 >> 32) & low) ^ c1 ^ (k0 * ones)
        c1 = p1 & low
        c2 = ((p0 >> 32) & low) ^ c3 ^ (k1 * ones)
        c3 = p0 & low
    words = pack.unpack((c0 | (c1 << 32)).to_bytes(8 * lanes, "little"))
    # (x >> 12) < 2**52: the float conversion, + 0.5 and the scale are exact.
    u = [(float(x >> 12) + 0.5) * _UNIFORM_SCALE for x in words]
    return list(zip(u[:count], u[count:], strict=True)) if pair else [(v, 0.0) for v in u]


def _as_array(values: list[float], shape: tuple[int, ...]) -> NDArray[np.float64]:
    return np.array(values, dtype=np.float64).reshape(shape)


def _uniform_stream_pair(
    key: tuple[int, int], index: NDArray[np.uint64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Stream-0 and stream-1 uniforms of every index from one Philox pass over both."""
    flat = index.ravel()
    both = np.concatenate((flat, flat))
    stream = np.empty(both.shape, dtype=np.uint64)
    stream[: flat.size] = _STREAM_FIRST_UNIFORM
    stream[flat.size :] = _STREAM_SECOND_UNIFORM
    counter = (
        both & np.uint64(_MASK32),
        both >> np.uint64(32),
        stream,
        np.zeros(both.shape, dtype=np.uint64),
    )
    x0, x1, _, _ = _philox4x32_10(counter, key)
    u = _uniform_from_words(x0, x1)
    return u[: flat.size].reshape(index.shape), u[flat.size :].reshape(index.shape)


def _validate_key_parts(root_seed: Any, sensor_id: Any, sample_index: Any, effect: Any) -> None:
    _validate_binding(root_seed, sensor_id, sample_index)
    check_non_empty_str("effect", effect)


def _validate_binding(root_seed: Any, sensor_id: Any, sample_index: Any) -> None:
    if (
        type(root_seed) is int
        and 0 <= root_seed < SEED_LIMIT
        and type(sensor_id) is str
        and sensor_id
        and type(sample_index) is int
        and sample_index >= 0
    ):
        return  # the usual case, decided without the abstract-base-class checks below
    check_root_seed("root_seed", root_seed)
    check_non_empty_str("sensor_id", sensor_id)
    if not is_integer(sample_index):
        raise TypeError(
            f"sample_index must be an int, got {sample_index!r} of type "
            f"{type(sample_index).__name__}"
        )
    if sample_index < 0:
        raise ValueError(f"sample_index must be >= 0, got {sample_index}")


def _validate_index(index: ArrayLike) -> NDArray[np.uint64]:
    """Return ``index`` as a uint64 array after checking dtype and range."""
    array = np.asarray(index)
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"index must have an integer dtype, got dtype {array.dtype.str!r}; pass cell or "
            "beam indices as e.g. numpy.arange(n, dtype=numpy.int64)"
        )
    if array.size:
        if array.size < _SMALL_DRAW:
            # Python's min and max beat two numpy reductions on a few elements.
            values = array.ravel().tolist()
            low, high = min(values), max(values)
        else:
            low, high = int(array.min()), int(array.max())
        if low < 0 or high >= _INDEX_LIMIT:
            bad = low if low < 0 else high
            raise ValueError(f"index values must satisfy 0 <= index < 2**63, got {bad}")
    return array.astype(np.uint64)
