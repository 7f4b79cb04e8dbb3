"""``leviathan sweep run/status/collect``: output, exit statuses, tables; serial without Ray."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from leviathan.cli import main
from leviathan.sweep import RUNS_FOLDER, load_sweep, plan_sweep, read_index
from tests.sweep.sweep_cases import sweep

ROOT = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, doc: dict, name: str = "sweep.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _steps(*steps: int) -> dict:
    return sweep(axes=[{"name": "step", "path": "scenario.step_ns", "values": list(steps)}])


def test_run_prints_a_summary_and_exits_0(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, _steps(10_000_000, 20_000_000))
    assert main(["sweep", "run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 runs: 2 run now (serial), 0 skipped" in out and "2 done, 0 failed" in out


def test_run_with_a_failed_run_exits_1_with_one_error_line(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, _steps(10_000_000, 7))
    assert main(["sweep", "run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        f"error: 1 of 2 runs failed (leviathan sweep status {tmp_path / 'out'}; --retry-failed "
        "runs them again)"
    ]
    assert "scenario.step_ns: Input should be greater than or equal to 1000" in captured.out


def test_missing_sweep_document_is_bad_input(tmp_path: Path, capsys) -> None:
    assert main(["sweep", "run", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'nope.toml'}: no such sweep document\n"
    assert not (tmp_path / "o").exists()


def test_refused_sweep_document_is_bad_input_and_writes_nothing(tmp_path: Path, capsys) -> None:
    doc = sweep()
    doc["combine"] = "cross"
    path = _write(tmp_path, doc)
    assert main(["sweep", "run", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "combine" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_worker_options_without_ray_are_bad_input(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, _steps(10_000_000))
    code = main(["sweep", "run", str(path), "--out", str(tmp_path / "o"), "--workers", "2"])
    assert code == 2
    assert "add --executor ray" in capsys.readouterr().err


def test_status_lists_failures_and_slowest(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, _steps(10_000_000, 7))
    main(["sweep", "run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    capsys.readouterr()
    assert main(["sweep", "status", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "2 runs: 1 done, 1 failed (1 refused)" in out
    assert "[refused] step=7" in out and "slowest:" in out


def test_status_of_a_missing_folder_is_bad_input(tmp_path: Path, capsys) -> None:
    assert main(["sweep", "status", str(tmp_path / "none")]) == 2
    assert "no such sweep output folder" in capsys.readouterr().err


def test_collect_writes_one_csv_row_per_run(tmp_path: Path) -> None:
    path = _write(tmp_path, _steps(10_000_000, 20_000_000, 7))
    main(["sweep", "run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert (
        main(["sweep", "collect", str(tmp_path / "out"), "--table", str(tmp_path / "t.csv")]) == 0
    )
    rows = list(csv.DictReader((tmp_path / "t.csv").open()))
    assert sorted(int(r["param.step"]) for r in rows) == [7, 10_000_000, 20_000_000]
    index = {r["key"]: r for r in read_index(tmp_path / "out")}
    for row in rows:
        assert row["status"] == index[row["key"]]["status"]
        assert row["run_hash"] == (index[row["key"]]["run_hash"] or "")
    done = [r for r in rows if r["status"] == "done"]
    assert {r["ticks"] for r in done} == {"20"} and all(r["auv.final_depth_m"] for r in done)


def test_collect_writes_parquet_with_typed_columns(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet tables need pyarrow ([tables])")
    path = _write(tmp_path, _steps(10_000_000, 20_000_000))
    main(["sweep", "run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    table_path = tmp_path / "t.parquet"
    assert main(["sweep", "collect", str(tmp_path / "out"), "--table", str(table_path)]) == 0
    table = pq.read_table(table_path)
    assert table.num_rows == 2
    assert str(table.schema.field("param.step").type) == "int64"
    assert str(table.schema.field("seconds").type) == "double"


def test_collect_to_an_unknown_format_is_bad_input(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, _steps(10_000_000))
    main(["sweep", "run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    capsys.readouterr()
    assert main(["sweep", "collect", str(tmp_path / "out"), "--table", "t.xlsx"]) == 2
    assert "expected a .csv or .parquet file" in capsys.readouterr().err


_NO_RAY = """
import importlib.abc, sys

class NoRay(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("ray is not installed here (test)")
        return None

sys.meta_path.insert(0, NoRay())
from leviathan.cli import main
code = main(sys.argv[1:])
assert "ray" not in sys.modules, "the serial executor imported ray"
raise SystemExit(code)
"""


def _no_ray(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _NO_RAY, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_serial_sweep_works_where_ray_cannot_be_imported(tmp_path: Path) -> None:
    path = _write(tmp_path, _steps(10_000_000, 20_000_000))
    done = _no_ray("sweep", "run", str(path), "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "out" / RUNS_FOLDER).iterdir())) == 2
    status = _no_ray("sweep", "status", str(tmp_path / "out"))
    assert status.returncode == 0 and "2 done" in status.stdout


def test_ray_executor_without_ray_says_how_to_install_it(tmp_path: Path) -> None:
    path = _write(tmp_path, _steps(10_000_000))
    done = _no_ray("sweep", "run", str(path), "--out", str(tmp_path / "out"), "--executor", "ray")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "error: the ray executor needs Ray: pip install -e .[cluster] (or use --executor serial)"
    )


def test_the_shipped_example_plans_27_runs_and_its_first_runs_without_a_warning(
    tmp_path: Path,
) -> None:
    example = ROOT / "examples" / "survey_sweep.toml"
    out = tmp_path / "out"
    command = [sys.executable, "-m", "leviathan", "sweep", "run", str(example)]
    done = subprocess.run(
        [*command, "--out", str(out), "--limit", "1", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stderr
    (record,) = read_index(out)  # --limit 1: the first run only
    assert record["status"] == "done"
    assert len(plan_sweep(load_sweep(example)).runs) == 27
