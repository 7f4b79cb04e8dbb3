"""`leviathan bench learning`: figures beside the canonical peer, never asserted as times."""

from __future__ import annotations

import pytest

from leviathan.bench import bench_learning, format_learning_bench
from leviathan.cli import main


def test_bench_learning_reports_rates_and_ratios_for_each_count() -> None:
    result = bench_learning(env_counts=[1, 3], steps=2, devices=["cpu"], repeats=1)
    rows = result["rows"]
    assert [(r["envs"], r["device"]) for r in rows] == [(1, "cpu"), (3, "cpu")]
    for row in rows:
        for key in ("env_steps_per_s", "env_steps_per_s_sonar", "canonical_env_steps_per_s"):
            assert row[key] > 0.0
        assert row["ratio"] == row["env_steps_per_s"] / row["canonical_env_steps_per_s"]
    table = format_learning_bench(result)
    assert "canonical" in table and len(table.splitlines()) == 4 + len(rows)


def test_bench_learning_cli(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "learning", "--envs", "2", "--steps", "1", "--no-canonical"]
    assert main([*args, "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "env-steps/s" in out and "      2  cpu" in out


def test_bench_learning_refuses_bad_counts() -> None:
    with pytest.raises(ValueError, match="envs: expected counts >= 1, got 0"):
        bench_learning(env_counts=[0], devices=["cpu"])


def test_the_learning_example_runs() -> None:
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "learning_depth_hold.py"
    done = subprocess.run(
        [sys.executable, str(script), "--iterations", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "baseline" in done.stdout and "searched PD: mean return" in done.stdout
