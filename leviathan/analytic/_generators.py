"""Per-sensor noise generators of the analytic tier (not canonical).

Every noisy sensor of a scenario run owns one numpy :class:`~numpy.random.Generator`
over a named bit generator, so one sensor's draws never shift another's: adding,
removing or reseeding a sensor changes no other sensor's noise.

* **Seeded**: ``Generator(BitGenerator(seed))`` (numpy feeds the int through its
  ``SeedSequence``), so the same seed gives the same sequence in every process.
* **Unseeded**: fresh OS entropy is drawn once (``SeedSequence().entropy``, a
  128-bit int) and the generator is built from it exactly as from a seed. The
  record says ``"unseeded"`` and keeps the entropy, so a run can be replayed by
  giving that entropy as the sensor's seed.

The canonical tier never uses these generators: its randomness is keyed
(:mod:`leviathan.random`), a pure function of stable identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["BIT_GENERATORS", "SEED_LIMIT", "GeneratorRecord", "sensor_generator"]

BIT_GENERATORS: dict[str, type[np.random.BitGenerator]] = {
    "PCG64": np.random.PCG64,
    "PCG64DXSM": np.random.PCG64DXSM,
    "Philox": np.random.Philox,
    "SFC64": np.random.SFC64,
    "MT19937": np.random.MT19937,
}
"""The bit generators a sensor may name, by numpy class name."""

SEED_LIMIT = 1 << 128
"""Seeds are ints in ``[0, 2**128)``: large enough to replay any recorded entropy."""


@dataclass(frozen=True)
class GeneratorRecord:
    """How one sensor's generator was made; enough to replay it.

    Attributes:
        sensor_id: ``"vehicle/sensor"``.
        bit_generator: numpy bit generator class name, e.g. ``"PCG64"``.
        seeded: Whether the scenario gave a seed.
        seed: The seed given, or ``None`` when unseeded.
        entropy: The int the generator was built from: the seed, or the fresh
            entropy drawn for an unseeded sensor (give it as the seed to replay).
    """

    __content_type__ = "leviathan.analytic.GeneratorRecord"

    sensor_id: str
    bit_generator: str
    seeded: bool
    seed: int | None
    entropy: int

    def to_json(self) -> dict[str, Any]:
        """The manifest form: ``seed`` is the int or the string ``"unseeded"``.

        The entropy is written as a decimal string as well as recorded here,
        since 128-bit ints do not survive every JSON reader.
        """
        return {
            "sensor_id": self.sensor_id,
            "bit_generator": self.bit_generator,
            "seed": self.seed if self.seeded else "unseeded",
            "entropy": str(self.entropy),
            "replay": f"give seed = {self.entropy} to reproduce this sensor's noise",
        }


def sensor_generator(
    sensor_id: str, seed: int | None, *, bit_generator: str = "PCG64"
) -> tuple[np.random.Generator, GeneratorRecord]:
    """A sensor's own generator and the record of how it was made.

    Args:
        sensor_id: ``"vehicle/sensor"`` (recorded; it does not enter the stream,
            so a seed means the same sequence whatever the sensor is called).
        seed: An int in ``[0, 2**128)``, or ``None`` for fresh entropy.
        bit_generator: A name in :data:`BIT_GENERATORS`.

    Returns:
        ``(generator, record)``.

    Raises:
        TypeError: If ``seed`` is not an int or ``None`` (bools refused).
        ValueError: If ``seed`` is outside ``[0, 2**128)`` or the bit generator is unknown.
    """
    if bit_generator not in BIT_GENERATORS:
        raise ValueError(
            f"bit_generator: expected one of {', '.join(BIT_GENERATORS)}, got {bit_generator!r}"
        )
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
            raise TypeError(
                f"seed ({sensor_id}): expected an int or None (unseeded), got "
                f"{type(seed).__name__} {seed!r}"
            )
        seed = int(seed)
        if not 0 <= seed < SEED_LIMIT:
            raise ValueError(f"seed ({sensor_id}): expected an int in [0, 2**128), got {seed}")
        entropy = seed
    else:
        entropy = int(np.random.SeedSequence().entropy)
    generator = np.random.Generator(BIT_GENERATORS[bit_generator](entropy))
    record = GeneratorRecord(
        sensor_id=sensor_id,
        bit_generator=bit_generator,
        seeded=seed is not None,
        seed=seed,
        entropy=entropy,
    )
    return generator, record
