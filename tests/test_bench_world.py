"""``leviathan bench world``: the figures it reports, the arguments it refuses (no times)."""

from __future__ import annotations

import json

import pytest

from leviathan.cli import main

SMALL = ["--ticks", "3", "--runs", "1", "--triangles", "200", "--snapshot-ticks", "10"]


def test_bench_world_json_reports_the_peer_and_each_configuration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(["bench", "world", *SMALL, "--configurations", "+imu", "--hash-mib", "1", "--json"])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    rows = {row["configuration"]: row for row in result["configurations"]}
    assert list(rows) == ["dynamics", "+imu"]  # the dynamics peer is always timed
    assert rows["dynamics"]["ratio_to_dynamics"] == 1.0
    assert rows["+imu"]["sensors"] == ["imu"]
    for row in rows.values():
        assert row["real_time_factor"] == pytest.approx(result["tick_ms"] / row["ms_per_tick"])
        assert row["long_run_s"] == pytest.approx(row["ms_per_tick"] * 2_000_000 / 1e3)
        assert row["ratio_to_dynamics"] == pytest.approx(
            row["ms_per_tick"] / rows["dynamics"]["ms_per_tick"]
        )
    assert result["snapshot"]["ticks"] == 10 and len(result["snapshot"]["content_hash"]) == 64
    assert result["hashing"]["mib"] == 1 and result["hashing"]["content_hash_gb_s"] > 0


def test_bench_world_table_names_each_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "world", *SMALL, "--configurations", "+dvl", "--hash-mib", "0"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "peer: dynamics" in out and "+dvl" in out and "snapshot of a 10-tick World" in out
    assert "content hash of" not in out


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--ticks", "0"], "ticks"),
        (["--configurations", "+radar"], "configurations"),
        (["--snapshot-ticks", "-1"], "snapshot_ticks"),
    ],
)
def test_bench_world_refuses_bad_arguments(
    args: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "world", *args]) == 2
    assert named in capsys.readouterr().err
