"""``leviathan bench service``: a real server on loopback, the peers measured in rounds."""

from __future__ import annotations

import math

import pytest

from leviathan.service import _bench


@pytest.mark.parametrize(("steps", "expected"), [(1, [1]), (3, [1, 1, 1]), (12, [3, 3, 2, 2, 2])])
def test_steps_are_split_into_rounds_as_evenly_as_they_go(steps: int, expected: list[int]) -> None:
    assert _bench._rounds(steps) == expected
    assert sum(_bench._rounds(steps)) == steps


def test_figures_merge_the_rounds_requests() -> None:
    runs = [
        {"latencies_s": [0.001, 0.003], "wall_s": 0.5, "ticks": 20},
        {"latencies_s": [0.002], "wall_s": 0.25, "ticks": 10},
    ]
    figures = _bench._figures(runs)
    assert figures["requests"] == 3
    assert figures["p50_ms"] == pytest.approx(2.0)
    assert figures["p99_ms"] == pytest.approx(3.0)
    assert figures["ticks_per_s"] == pytest.approx(30 / 0.75)


def test_a_small_bench_runs_every_peer_in_each_round() -> None:
    result = _bench.bench_service(world_counts=(2,), steps=3, ticks=2, clients=2, workers=2)
    (case,) = result["cases"]
    assert case["worlds"] == 2 and case["rounds"] == 3
    for where in ("service", "summary", "in_process"):
        assert case[where]["requests"] == 2 * 3  # every World, every step
        assert case[where]["ticks_per_s"] > 0 and case[where]["p50_ms"] > 0
    for ratio in (case["overhead"], case["overhead_summary"]):
        assert math.isfinite(ratio) and ratio > 0
    text = _bench.format_service_bench(result)
    assert "median of 3 rounds" in text and text.count("\n") == 5
