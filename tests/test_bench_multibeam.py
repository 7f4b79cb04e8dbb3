"""``leviathan bench sonar --sensor multibeam``: both sensors in one run, no times asserted."""

from __future__ import annotations

import json

from leviathan.cli import main


def test_bench_reports_multibeam_and_imaging_pings_side_by_side(capsys) -> None:
    argv = ["bench", "sonar", "--sensor", "multibeam", "--backend", "reference"]
    argv += ["--triangles", "2000", "--pings", "1", "--bearings", "8", "--elevations", "4"]
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "256 beams" in result["multibeam"]
    (seabed,) = result["seabeds"]
    (row,) = seabed["tracers"]
    assert row["tracer"] == "reference"
    assert row["multibeam_pings_per_s"] > 0 and row["sonar_pings_per_s"] > 0
    assert (
        abs(row["real_time_factor"] - 0.2 * row["multibeam_pings_per_s"])
        < 1e-9 * row["real_time_factor"]
    )
    assert row["multibeam_bit_identical_to_reference"] is True
    assert main(argv) == 0
    assert "x real time" in capsys.readouterr().out
