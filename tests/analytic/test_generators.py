"""Per-sensor generators: seeded ones replay exactly, unseeded ones record their entropy."""

from __future__ import annotations

import numpy as np
import pytest

from leviathan.analytic import BIT_GENERATORS, sensor_generator


@pytest.mark.parametrize("name", sorted(BIT_GENERATORS))
def test_seeded_generator_is_the_named_bit_generator_with_that_seed(name: str) -> None:
    generator, record = sensor_generator("auv/imu", 42, bit_generator=name)
    expected = np.random.Generator(getattr(np.random, name)(42)).standard_normal(8)
    assert type(generator.bit_generator).__name__ == name
    np.testing.assert_array_equal(generator.standard_normal(8), expected)
    assert (record.seeded, record.seed, record.entropy, record.bit_generator) == (
        True,
        42,
        42,
        name,
    )
    assert record.to_json()["seed"] == 42


def test_unseeded_generators_differ_and_record_replayable_entropy() -> None:
    a, record_a = sensor_generator("auv/imu", None)
    b, record_b = sensor_generator("auv/imu", None)
    draws_a = a.standard_normal(16)
    assert not np.array_equal(draws_a, b.standard_normal(16))
    assert record_a.entropy != record_b.entropy
    assert record_a.to_json()["seed"] == "unseeded"
    assert record_a.to_json()["entropy"] == str(record_a.entropy)
    replay, _ = sensor_generator("auv/imu", record_a.entropy)
    np.testing.assert_array_equal(replay.standard_normal(16), draws_a)


@pytest.mark.parametrize(
    ("seed", "error"),
    [(-1, ValueError), (1 << 128, ValueError), (True, TypeError), (1.0, TypeError)],
)
def test_bad_seeds_are_refused_naming_the_sensor(seed: object, error: type) -> None:
    with pytest.raises(error, match="auv/dvl"):
        sensor_generator("auv/dvl", seed)  # type: ignore[arg-type]


def test_unknown_bit_generator_is_refused() -> None:
    with pytest.raises(ValueError, match="bit_generator: expected one of"):
        sensor_generator("auv/imu", 1, bit_generator="Xorshift")
