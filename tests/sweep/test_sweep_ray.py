"""The Ray executor on a real local Ray cluster, started once for this module (2 CPUs).

Bounded: every wait has a timeout; the runs last fractions of a second (about a
second where a worker is to be killed mid-run).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from leviathan.sweep import (
    LOCK_NAME,
    RUNS_FOLDER,
    SweepError,
    bench_sweep,
    format_sweep_bench,
    partial_folders,
    read_index,
    run_sweep,
    sweep_from_dict,
    verify_run,
)
from leviathan.sweep._ray import sweep_probe
from tests.sweep.sweep_cases import differing_files, grid, run_hashes, sweep, world_run

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of 2 CPUs in this process (the Ray executor uses it), and its address."""
    previous = os.environ.get("RAY_USAGE_STATS_ENABLED")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e .[cluster])")
    context = ray.init(
        num_cpus=WORKERS, include_dashboard=False, log_to_driver=False, configure_logging=False
    )
    try:
        yield SimpleNamespace(ray=ray, address=context.address_info["gcs_address"])
    finally:
        ray.shutdown()
        if previous is None:
            os.environ.pop("RAY_USAGE_STATS_ENABLED", None)
        else:
            os.environ["RAY_USAGE_STATS_ENABLED"] = previous


def _run(doc: dict, out: Path, **kwargs):
    return run_sweep(sweep_from_dict(doc), out, **kwargs)


@pytest.fixture(scope="module")
def serial_grid(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("serial") / "out"
    summary = _run(grid(), out)
    assert (summary.done, summary.failed) == (24, 0)
    return out


@pytest.fixture(scope="module")
def ray_grid(cluster, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ray") / "out"
    summary = _run(grid(), out, executor="ray")
    assert (summary.done, summary.failed, summary.executed) == (24, 0, 24)
    return out


def test_ray_sweep_equals_the_serial_one_file_by_file(serial_grid: Path, ray_grid: Path) -> None:
    assert differing_files(serial_grid, ray_grid) == []


def test_ray_sweep_equals_the_serial_one_hash_by_hash(serial_grid: Path, ray_grid: Path) -> None:
    serial, on_ray = run_hashes(serial_grid), run_hashes(ray_grid)
    assert len(serial) == 24 and serial == on_ray
    for key in serial:
        manifests = [
            json.loads((o / RUNS_FOLDER / key / "manifest.json").read_text())
            for o in (serial_grid, ray_grid)
        ]
        assert manifests[0]["snapshot_hash"] == manifests[1]["snapshot_hash"]


def test_ray_runs_ran_in_ray_workers(ray_grid: Path) -> None:
    workers = {r["worker"] for r in read_index(ray_grid)}
    assert all(w.startswith("ray:") and not w.endswith(f":{os.getpid()}") for w in workers)


def test_rerun_on_ray_runs_nothing_and_a_changed_value_only_the_new(ray_grid, tmp_path) -> None:
    out = tmp_path / "out"
    shutil.copytree(ray_grid, out)
    again = _run(grid(), out, executor="ray")
    assert (again.executed, again.skipped, again.done) == (0, 24, 24)
    changed = _run(grid(depths=(15.0, 25.0)), out, executor="ray")
    assert (changed.executed, changed.skipped, changed.done) == (12, 12, 24)
    new = [r for r in read_index(out) if r["params"]["depth"] == 25.0]
    assert len(new) == 12 and all(r["status"] == "done" for r in new)


def test_failing_run_is_recorded_with_its_error_while_the_others_finish(cluster, tmp_path) -> None:
    run = world_run()
    run["scenario"]["vehicles"][0]["controller"] = {"kind": "direct_thrust", "commands_n": [0.0]}
    axes = [
        {
            "name": "n",
            "path": "scenario.vehicles[0].controller.commands_n",
            "values": [[0.0] * 5, [1.0], [2.0] * 5],
        },
        {"name": "step", "path": "scenario.step_ns", "values": [10_000_000, 3]},
    ]
    summary = _run(sweep(run=run, axes=axes), tmp_path / "out", executor="ray")
    assert (summary.done, summary.failed) == (2, 4)
    records = read_index(tmp_path / "out")
    causes = sorted(r.get("cause") or "done" for r in records)
    assert causes == ["application", "done", "done", "refused", "refused", "refused"]
    failed = next(r for r in records if r.get("cause") == "application")
    assert failed["worker"].startswith("ray:") and "thruster" in failed["error"]


def _sweep_run_pids() -> list[int]:
    """Processes running a sweep task now (Ray titles a busy worker ``ray::sweep_run``)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                command = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if command.startswith(b"ray::sweep_run"):
                pids.append(int(entry))
    return pids


def _longer(seeds: int) -> dict:
    return sweep(
        run=world_run(ticks=300),
        axes=[{"name": "seed", "path": "scenario.root_seed", "values": list(range(seeds))}],
    )


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux /proc")
def test_killed_worker_is_retried_and_every_run_is_there_once(cluster, tmp_path) -> None:
    serial = tmp_path / "serial"
    _run(_longer(6), serial)
    out = tmp_path / "ray"
    result: list = []
    thread = threading.Thread(target=lambda: result.append(_run(_longer(6), out, executor="ray")))
    thread.start()
    victim, left = None, None
    deadline = time.monotonic() + 120
    while victim is None and thread.is_alive() and time.monotonic() < deadline:
        for pid in _sweep_run_pids():
            # Mid-run: the worker's temporary run folder (named with its pid) is there.
            temporary = sorted((out / RUNS_FOLDER).glob(f".*.tmp-{pid}-*"))
            if temporary:
                os.kill(pid, signal.SIGKILL)
                time.sleep(0.05)
                if temporary[0].exists():  # killed before its rename: the run was cut short
                    victim, left = pid, temporary[0]
                    break
        time.sleep(0.05)
    thread.join(timeout=240)
    assert not thread.is_alive(), "the sweep did not finish within 240 s"
    assert victim is not None, "no sweep task was seen running"
    assert not left.exists()  # the killed run's temporary folder is removed
    summary = result[0]
    assert (summary.done, summary.failed, summary.executed) == (6, 0, 6)
    records = read_index(out)
    assert len(records) == 6 and len({r["key"] for r in records}) == 6
    assert all(r["status"] == "done" for r in records)
    assert victim not in {int(r["worker"].rsplit(":", 1)[1]) for r in records}
    assert partial_folders(out) == []
    assert run_hashes(out) == run_hashes(serial)
    assert differing_files(serial, out) == []


def _ray_sweep_command(path: Path, out: Path, *where: str) -> list[str]:
    """``leviathan sweep run PATH --out OUT --executor ray WHERE... --quiet`` in a subprocess."""
    command = [sys.executable, "-m", "leviathan", "sweep", "run", str(path), "--out", str(out)]
    return [*command, "--executor", "ray", *where, "--quiet"]


def test_ctrl_c_cancels_the_ray_sweep_and_keeps_finished_runs(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e .[cluster])")
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(_longer(10)))
    out = tmp_path / "out"
    command = _ray_sweep_command(path, out, "--workers", "2")
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        start_new_session=True,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
        # As a terminal starts a command, whatever the test process inherited: a SIGINT
        # the parent ignores stays ignored in the child (by design, as in a shell's
        # background job), and the sweep then finishes and exits 0.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 180
        runs = out / RUNS_FOLDER
        while time.monotonic() < deadline and proc.poll() is None:
            if runs.is_dir() and any(not p.name.startswith(".") for p in runs.iterdir()):
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()[1]
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    assert proc.returncode == 130, err
    assert "error: interrupted" in err.strip().splitlines()[-3:], err
    finished = [p for p in runs.iterdir() if not p.name.startswith(".")]
    assert 1 <= len(finished) < 10
    assert all(verify_run(p, p.name)[0] for p in finished)
    assert partial_folders(out) == []
    assert not (out / LOCK_NAME).exists()
    assert {r["key"] for r in read_index(out)} == {p.name for p in finished}


def test_probe_sees_the_token_only_in_the_folder_it_was_written_to(tmp_path: Path) -> None:
    (tmp_path / ".sweep-probe-abc").write_text("abc")
    here = sweep_probe(str(tmp_path), "abc")
    elsewhere = sweep_probe(str(tmp_path / "other"), "abc")
    assert (here["sees"], here["writes"]) == (True, True)
    assert (elsewhere["sees"], elsewhere["writes"]) == (False, False)


def test_bench_runs_both_executors_and_reports_identical_hashes(cluster, tmp_path) -> None:
    result = bench_sweep(runs=4, run_seconds=0.05, workers=WORKERS, cores=(8,), scratch=tmp_path)
    assert result["identical_run_hashes"] is True
    assert result["serial"]["wall_s"] > 0 and result["ray"]["wall_s"] > 0
    assert result["plain_processes"]["wall_s"] > 0
    assert result["ray_vs_plain"] == result["plain_processes"]["wall_s"] / result["ray"]["wall_s"]
    assert [p["cores"] for p in result["projection"]] == [8, 8]
    text = format_sweep_bench(result)
    assert "run hashes identical (serial, plain, ray)" in text and "speedup" in text
    assert f"{WORKERS} plain processes:" in text
    assert list(tmp_path.iterdir()) == []


def test_cli_runs_on_a_running_cluster_given_by_address_and_leaves_it_up(cluster, tmp_path):
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(grid(seeds=2, speeds=(1.0,), depths=(20.0,))))
    out = tmp_path / "out"
    command = _ray_sweep_command(path, out, "--address", cluster.address)
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    assert done.returncode == 0, done.stderr
    records = read_index(out)
    assert len(records) == 2 and all(r["worker"].startswith("ray:") for r in records)
    assert cluster.ray.get(cluster.ray.put("still up")) == "still up"


def test_cuda_runs_on_a_cluster_without_gpus_are_refused_before_running(cluster, tmp_path):
    run = world_run()
    run["tracing_device"] = "cuda"
    with pytest.raises(SweepError, match="has no GPU"):
        _run(sweep(run=run), tmp_path / "out", executor="ray")
    assert list((tmp_path / "out" / RUNS_FOLDER).iterdir()) == []
