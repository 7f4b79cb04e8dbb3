"""Running sweeps serially: run folders, the index, reruns, failures, interruption."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from leviathan.sweep import (
    INDEX_NAME,
    LOCK_NAME,
    RUNS_FOLDER,
    SWEEP_JOB,
    SweepError,
    read_index,
    rebuild_index,
    run_sweep,
    sweep_from_dict,
    sweep_status,
    verify_run,
)
from leviathan.sweep import _run as run_module
from tests.sweep.sweep_cases import differing_files, run_hashes, sweep, world_run

INDEX_FIELDS = {"key", "params", "status", "run_hash", "seconds", "worker", "error"}


def _seeds(*seeds: int, run: dict | None = None) -> dict:
    return sweep(
        run=run, axes=[{"name": "seed", "path": "scenario.root_seed", "values": list(seeds)}]
    )


def _run(doc: dict, out: Path, **kwargs):
    return run_sweep(sweep_from_dict(doc), out, **kwargs)


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("three") / "out"
    summary = _run(_seeds(1, 2, 3), out)
    assert (summary.done, summary.failed, summary.executed) == (3, 0, 3)
    return out


def test_each_run_folder_verifies_and_holds_its_products(three: Path) -> None:
    folders = sorted((three / RUNS_FOLDER).iterdir())
    assert len(folders) == 3
    for folder in folders:
        ok, problem, manifest = verify_run(folder, folder.name)
        assert ok, problem
        assert manifest["job"] == SWEEP_JOB and manifest["kind"] == "world"
        assert set(manifest["files"]) == {"run.json", "dataset.h5", "dataset.mcap"}
        assert manifest["capture_groups"] and manifest["figures"]["ticks"] == 20


def test_index_has_one_record_per_run_with_the_promised_fields(three: Path) -> None:
    records = read_index(three)
    assert len(records) == 3 and len({r["key"] for r in records}) == 3
    for record in records:
        assert INDEX_FIELDS <= set(record)
        assert record["status"] == "done" and record["worker"].startswith("serial:")
        assert record["seconds"] > 0 and len(record["run_hash"]) == 64
    assert sorted(r["params"]["seed"] for r in records) == [1, 2, 3]


def test_index_rebuilt_from_the_folders_equals_the_written_one(three: Path) -> None:
    by_key = {r["key"]: r for r in read_index(three)}
    assert {r["key"]: r for r in rebuild_index(three, write=False)} == by_key


def test_same_runs_give_the_same_files_and_hashes(three: Path, tmp_path: Path) -> None:
    _run(_seeds(1, 2, 3), tmp_path / "again")
    assert differing_files(three, tmp_path / "again") == []
    assert run_hashes(three) == run_hashes(tmp_path / "again")


def test_different_seeds_give_different_run_hashes(three: Path) -> None:
    assert len({h for _, h in run_hashes(three).values()}) == 3


def test_rerun_of_a_finished_sweep_runs_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(_seeds(1, 2), out)
    before = {p.name: p.stat().st_mtime_ns for p in (out / RUNS_FOLDER).iterdir()}
    summary = _run(_seeds(1, 2), out)
    assert (summary.executed, summary.skipped, summary.done) == (0, 2, 2)
    assert {p.name: p.stat().st_mtime_ns for p in (out / RUNS_FOLDER).iterdir()} == before


def test_changed_axis_value_runs_only_the_new_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _run(_seeds(1, 2), out)
    old = set(run_hashes(out))
    second = _run(_seeds(1, 5), out)
    assert (first.executed, second.executed, second.skipped) == (2, 1, 1)
    new = set(run_hashes(out)) - old
    assert len(new) == 1
    assert [r["params"] for r in read_index(out) if r["key"] in new] == [{"seed": 5}]


def test_folder_that_no_longer_verifies_is_run_again_and_said_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(_seeds(1), out)
    folder = next((out / RUNS_FOLDER).iterdir())
    (folder / "dataset.mcap").write_bytes(b"damaged")
    summary = _run(_seeds(1), out)
    assert summary.executed == 1
    assert any("dataset.mcap does not match" in note for note in summary.notes)
    assert verify_run(folder, folder.name)[0]


def test_refused_run_is_recorded_with_its_error_and_the_others_finish(tmp_path: Path) -> None:
    doc = sweep(
        axes=[{"name": "step", "path": "scenario.step_ns", "values": [10_000_000, 7, 20_000_000]}]
    )
    summary = _run(doc, tmp_path / "out")
    assert (summary.done, summary.failed) == (2, 1)
    records = {r["params"]["step"]: r for r in read_index(tmp_path / "out")}
    assert records[7]["status"] == "failed" and records[7]["cause"] == "refused"
    assert (
        records[7]["error"] == "scenario.step_ns: Input should be greater than or equal to "
        "1000 (got 7)"
    )
    assert records[10_000_000]["status"] == records[20_000_000]["status"] == "done"
    error = json.loads(
        (tmp_path / "out" / RUNS_FOLDER / records[7]["key"] / "error.json").read_text()
    )
    assert error["error"] == records[7]["error"]


def test_run_the_world_refuses_is_recorded_and_not_run_again(tmp_path: Path) -> None:
    run = world_run()
    run["scenario"]["vehicles"][0]["controller"] = {"kind": "direct_thrust", "commands_n": [1.0]}
    doc = sweep(
        run=run,
        axes=[
            {
                "name": "n",
                "path": "scenario.vehicles[0].controller.commands_n",
                "values": [[1.0], [0.0, 0.0, 0.0, 0.0, 0.0]],
            }
        ],
    )
    out = tmp_path / "out"
    summary = _run(doc, out)
    assert (summary.done, summary.failed) == (1, 1)
    failed = next(r for r in read_index(out) if r["status"] == "failed")
    assert failed["cause"] == "application" and "thruster" in failed["error"]
    assert "\n" not in failed["error"]
    again = _run(doc, out)
    assert (again.executed, again.skipped, again.failed) == (0, 2, 1)
    retried = _run(doc, out, retry_failed=True)
    assert (retried.executed, retried.failed) == (1, 1)


def test_ctrl_c_keeps_finished_runs_and_leaves_no_partial_folder(tmp_path, monkeypatch) -> None:
    calls = []
    real = run_module._world_products

    def interrupted(staging, task):
        calls.append(task.key)
        if len(calls) == 3:
            (staging / "half-written").write_bytes(b"x")
            raise KeyboardInterrupt
        return real(staging, task)

    monkeypatch.setattr(run_module, "_world_products", interrupted)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        _run(_seeds(1, 2, 3, 4), out)
    folders = sorted(p.name for p in (out / RUNS_FOLDER).iterdir())
    assert folders == sorted(calls[:2])
    assert all(verify_run(out / RUNS_FOLDER / k, k)[0] for k in folders)
    assert {r["key"] for r in read_index(out)} == set(calls[:2])
    assert not (out / LOCK_NAME).exists()
    monkeypatch.setattr(run_module, "_world_products", real)
    summary = _run(_seeds(1, 2, 3, 4), out)
    assert (summary.executed, summary.skipped, summary.done) == (2, 2, 4)


def test_stale_temporary_folders_are_removed_at_start_and_said_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(_seeds(1), out)
    stale = out / RUNS_FOLDER / f".{'a' * 64}.tmp-999999-deadbeef"
    stale.mkdir()
    (stale / "dataset.h5").write_bytes(b"partial")
    summary = _run(_seeds(1), out)
    assert not stale.exists()
    assert any("removed 1 temporary run folder" in note for note in summary.notes)


def test_output_in_use_by_a_live_sweep_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(_seeds(1), out)
    holder = {"host": "elsewhere", "pid": os.getpid()}
    (out / LOCK_NAME).write_text(json.dumps(holder))
    with pytest.raises(SweepError, match="in use by a sweep on elsewhere"):
        _run(_seeds(2), out)
    assert len(list((out / RUNS_FOLDER).iterdir())) == 1


def test_folder_that_is_no_sweep_output_is_refused(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep")
    with pytest.raises(FileExistsError, match="holds no sweep"):
        _run(_seeds(1), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_status_counts_failures_and_slowest(tmp_path: Path) -> None:
    doc = sweep(axes=[{"name": "step", "path": "scenario.step_ns", "values": [10_000_000, 7]}])
    _run(doc, tmp_path / "out")
    status = sweep_status(tmp_path / "out")
    assert (status["runs"], status["done"], status["failed"]) == (2, 1, 1)
    assert status["by_cause"] == {"refused": 1}
    assert status["failures"][0]["params"] == {"step": 7}
    assert status["slowest"][0]["params"] == {"step": 10_000_000}
    assert status["index"] == "agrees with the run folders" and status["partial_folders"] == 0


def test_index_file_is_written_whole(tmp_path: Path) -> None:
    _run(_seeds(1, 2), tmp_path / "out")
    lines = (tmp_path / "out" / INDEX_NAME).read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["key"] for line in lines)
    assert [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")] == []


def test_analytic_runs_record_the_analytic_hash_and_repeat_it(tmp_path: Path) -> None:
    scenario = world_run()["scenario"]
    scenario["sensors"] = [
        {
            "id": "auv/imu",
            "seed": 5,
            "noise": {"kind": "imu", "angle_random_walk_deg_per_sqrt_h": 0.15},
        }
    ]
    run = {"kind": "analytic", "scenario": scenario}
    doc = sweep(
        run=run, axes=[{"name": "noise_seed", "path": "scenario.sensors[0].seed", "values": [5, 6]}]
    )
    _run(doc, tmp_path / "a")
    _run(doc, tmp_path / "b")
    assert differing_files(tmp_path / "a", tmp_path / "b") == []
    hashes = run_hashes(tmp_path / "a")
    assert len({h for _, h in hashes.values()}) == 2
    folder = tmp_path / "a" / RUNS_FOLDER / next(iter(hashes))
    manifest = json.loads((folder / "manifest.json").read_text())
    scenario_manifest = json.loads((folder / "scenario" / "manifest.json").read_text())
    assert manifest["tier"] == "analytic"
    assert manifest["run_hash"] == scenario_manifest["analytic_hash"]
