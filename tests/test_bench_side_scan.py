"""``leviathan bench sonar --sensor side_scan``: lines/s beside pings/s, figures only."""

from __future__ import annotations

import json

import pytest

from leviathan.cli import main


def test_side_scan_bench_reports_lines_beside_pings_per_tracer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["bench", "sonar", "--sensor", "side_scan", "--triangles", "1000", "--pings", "1"]
    assert main([*args, "--bearings", "8", "--elevations", "4", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    (seabed,) = result["seabeds"]
    tracers = {r["tracer"]: r for r in seabed["tracers"]}
    assert "reference" in tracers and "warp:cpu" in tracers
    for row in tracers.values():
        assert row["lines_per_s"] > 0 and row["pings_per_s"] > 0
        assert row["real_time_factor"] == pytest.approx(0.2 * row["lines_per_s"])
        assert row["lines_bit_identical_to_reference"] is True
    assert "reference_mapping_auv side-scan" in result["side_scan"]


def test_side_scan_bench_table(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "sonar", "--sensor", "side_scan", "--triangles", "1000", "--pings", "1"]
    assert (
        main(
            [*args, "--backend", "warp", "--device", "cpu", "--bearings", "8", "--elevations", "4"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "lines/s" in out and "pings/s" in out and "x real time" in out
    assert "  warp:cpu " in out
