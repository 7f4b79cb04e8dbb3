"""The ``leviathan`` console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from leviathan.catalogue import vehicle_names
from leviathan.cli import main


def test_help_works() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "leviathan", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("catalogue", "parity", "bench", "demo"):
        assert command in out.stdout


def test_catalogue_lists_every_vehicle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalogue"]) == 0
    out = capsys.readouterr().out
    for name in vehicle_names():
        assert name in out
    assert "5 Hz" in out


def test_bench_sonar_json_reports_every_tracer(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "sonar", "--triangles", "2000", "--pings", "2", "--json"]
    assert main([*args, "--bearings", "64", "--elevations", "16"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["rays_per_ping"] == 64 * 16
    seabed = result["seabeds"][0]
    assert seabed["triangles"] >= 2000 and seabed["bvh_build_s"] >= 0
    bvh = seabed["bvh_build"]  # the compiled build beside numpy's, same arrays
    assert bvh["compiled_available"] is True and bvh["identical"] is True
    assert bvh["numpy_median_s"] > 0 and bvh["compiled_median_s"] > 0
    tracers = {row["tracer"]: row for row in seabed["tracers"]}
    assert {"reference", "warp:cpu"} <= set(tracers)
    for row in tracers.values():
        assert row["rays_per_s"] > 0 and row["pings_per_s"] > 0
        assert row["bit_identical_to_reference"] is True
    assert tracers["warp:cpu"]["first_call_s"] > 0
    assert result["warp_compile_or_load_s"]["cpu"] >= 0


def test_bench_sonar_table_names_each_tracer(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "sonar", "--triangles", "1000", "--pings", "1", "--backend", "warp"]
    assert main([*args, "--device", "cpu", "--bearings", "16", "--elevations", "4"]) == 0
    out = capsys.readouterr().out
    assert "  warp:cpu " in out and "  reference " not in out
    assert "bit-identical" in out
    assert "identical arrays: True" in out and "BVH build of " in out


def test_bench_dataset_reports_every_layout(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "dataset", "--frames", "2", "--triangles", "2000", "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["frames"] == 2
    layouts = ("v5", "v4", "v3", "v2", "v1")
    assert all(result[v]["verified_identical"] is True for v in layouts)
    assert all(result[v]["read_verify_s"] > 0 for v in layouts)
    assert all(result[v]["write_s_in_demo_batches"] > 0 for v in layouts)
    sizes = [result[v]["bytes"] for v in layouts[1:]]
    assert 0 < sizes[0] and sizes == sorted(sizes) and len(set(sizes)) == 4
    assert result["size_ratio_v5_to_v4"] == result["v5"]["bytes"] / result["v4"]["bytes"]
    assert result["batch_write_ratio_v5_to_v4"] == (
        result["v5"]["write_s_in_demo_batches"] / result["v4"]["write_s_in_demo_batches"]
    )
    assert result["size_ratio_v4_to_v1"] == result["v4"]["bytes"] / result["v1"]["bytes"]
    assert result["size_ratio_v4_to_v3"] == result["v4"]["bytes"] / result["v3"]["bytes"]
    assert result["size_ratio_v3_to_v2"] == result["v3"]["bytes"] / result["v2"]["bytes"]
    assert 0.0 < result["occupied_cell_share"] <= 1.0


def test_demo_is_reproducible(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["demo", "--out", str(a), "--seconds", "1", "--quiet"]) == 0
    assert main(["demo", "--out", str(b), "--seconds", "1", "--quiet"]) == 0
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
    manifest = json.loads((a / "manifest.json").read_text())
    sensors = {s for g in manifest["capture_groups"] for s in g["members"]}
    assert {"survey/sonar", "survey/dvl", "survey/imu", "inspector/front_camera"} <= sensors
    assert (a / "track.png").stat().st_size > 0
    assert (a / "world.usda").stat().st_size > 0
    # One preview per sensor and simulated second, each its kind's (the sonar's fan).
    fans = sorted(p.name for p in (a / "previews").glob("survey_sonar_*.png"))
    assert fans == ["survey_sonar_000000.png", "survey_sonar_000005.png"]  # t = 0 s and 1 s
    assert list((a / "previews").glob("inspector_front_camera_*.png"))


def test_bad_arguments_give_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "sonar", "--pings", "0"]) == 2
    assert "pings" in capsys.readouterr().err
    assert main(["bench", "sonar", "--bearings", "1"]) == 2
    assert "bearings" in capsys.readouterr().err
    assert main(["bench", "sonar", "--backend", "reference", "--device", "cuda:0"]) == 2
    assert "device" in capsys.readouterr().err


def test_export_usd_command_writes_a_stage(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "world.usdc"
    assert main(["export-usd", str(out), "--seconds", "0.05"]) == 0
    assert out.stat().st_size > 0
    assert "6 committed ticks" in capsys.readouterr().out
    assert main(["export-usd", str(tmp_path / "world.txt")]) == 2
    assert not (tmp_path / "world.txt").exists()


def test_bench_peer_agrees_with_the_reference_on_nearly_every_ray() -> None:
    pytest.importorskip("embreex")
    from leviathan.bench import bench_sonar

    seabed = bench_sonar(triangle_counts=[5000], pings=1, bearings=128, elevations=32)["seabeds"][0]
    assert seabed["embree"]["rays_per_s"] > 0
    assert all(row["ratio_to_embree"] > 0 for row in seabed["tracers"])
    # Embree is float32; triangle picks may differ only on a handful of edge rays.
    assert seabed["embree"]["same_triangle_share"] >= 0.999


# --------------------------------------------------------------------------- failures


def _error_line(err: str) -> str:
    """The one line a failure prints; fails the test on anything else (a traceback)."""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_export_usd_refuses_a_duration_that_is_not_whole_ticks(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export-usd", str(tmp_path / "w.usda"), "--seconds", "0.005"]) == 2
    line = _error_line(capsys.readouterr().err)
    assert line.startswith("error: --seconds: 0.005 s is not a whole number of ticks of 0.01 s")
    assert "nearest valid values are 0 s and 0.01 s" in line
    assert list(tmp_path.iterdir()) == []


def test_demo_refuses_a_duration_that_is_not_whole_ticks(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--out", str(tmp_path / "out"), "--seconds", "0.015"]) == 2
    line = _error_line(capsys.readouterr().err)
    assert "0.015 s is not a whole number of ticks of 0.01 s" in line
    assert "0.01 s and 0.02 s" in line
    assert list(tmp_path.iterdir()) == []


def test_export_usd_under_a_missing_folder_is_one_line(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "missing" / "w.usda"
    assert main(["export-usd", str(path)]) == 1
    line = _error_line(capsys.readouterr().err)
    assert line == (
        f"error: {path}: cannot be created: its parent folder {path.parent} does not exist"
    )
    assert list(tmp_path.iterdir()) == []


def test_export_usd_under_a_file_is_one_line(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    # Tests run as root, whom a read-only folder does not stop: a path under a file
    # cannot be written by anyone.
    (tmp_path / "file").write_bytes(b"keep")
    path = tmp_path / "file" / "w.usdc"
    assert main(["export-usd", str(path)]) == 1
    line = _error_line(capsys.readouterr().err)
    assert line.startswith(f"error: {path}: ") and "is a file, not a folder" in line
    assert (tmp_path / "file").read_bytes() == b"keep"


def test_demo_refuses_an_existing_file_as_out(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.write_bytes(b"keep")
    assert main(["demo", "--out", str(out), "--quiet"]) == 1
    line = _error_line(capsys.readouterr().err)
    assert line == f"error: {out}: exists and is a file, not a folder; give another path"
    assert out.read_bytes() == b"keep"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_demo_refuses_out_under_a_file(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_bytes(b"keep")
    out = tmp_path / "file" / "out"
    assert main(["demo", "--out", str(out), "--quiet"]) == 1
    assert _error_line(capsys.readouterr().err).startswith(f"error: {out}: cannot be created")
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_demo_refuses_out_under_a_missing_folder(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "out"
    assert main(["demo", "--out", str(out), "--quiet"]) == 1
    line = _error_line(capsys.readouterr().err)
    assert line == f"error: {out}: cannot be created: its parent folder {out.parent} does not exist"
    assert list(tmp_path.iterdir()) == []


def test_demo_refuses_to_replace_a_folder_it_did_not_write(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_bytes(b"mine")
    assert main(["demo", "--out", str(out), "--quiet"]) == 1
    assert "is not an output of this demo" in _error_line(capsys.readouterr().err)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (KeyboardInterrupt(), 130, "error: interrupted"),
        (OSError("disk full"), 1, "error: disk full"),
    ],
)
def test_an_interrupted_or_failed_demo_leaves_nothing(
    tmp_path, monkeypatch, capsys, tiny_demo, error, status, message
) -> None:
    import leviathan.demo as demo

    def fail(*args, **kwargs):
        raise error

    # The track plot comes after every sample and preview is written.
    monkeypatch.setattr(demo, "_track_plot", fail)
    assert main(["demo", "--out", str(tmp_path / "out"), "--seconds", "0.05", "--quiet"]) == status
    assert _error_line(capsys.readouterr().err) == message
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_rerun_keeps_the_previous_output(
    tmp_path, monkeypatch, capsys, tiny_demo
) -> None:
    import leviathan.demo as demo

    out = tmp_path / "out"
    assert main(["demo", "--out", str(out), "--seconds", "0.05", "--quiet"]) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo, "_track_plot", interrupt)
    assert main(["demo", "--out", str(out), "--seconds", "0.1", "--quiet"]) == 130
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_rerun_replaces_the_previous_output_whole(tmp_path, tiny_demo) -> None:
    out = tmp_path / "out"
    assert main(["demo", "--out", str(out), "--seconds", "0.05", "--quiet"]) == 0
    first = (out / "manifest.json").read_bytes()
    (out / "stray.txt").write_bytes(b"left by hand")
    (out / "previews" / "stray.png").write_bytes(b"left by hand")
    assert main(["demo", "--out", str(out), "--seconds", "0.05", "--quiet"]) == 0
    assert not (out / "stray.txt").exists() and not (out / "previews" / "stray.png").exists()
    assert (out / "manifest.json").read_bytes() == first
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def _make_catalogue_raise(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """Make ``leviathan catalogue`` raise ``error`` from inside the library."""
    import leviathan.catalogue

    def fail() -> str:
        raise error

    monkeypatch.setattr(leviathan.catalogue, "format_catalogue", fail)


def test_a_usage_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "sonar", "--pings", "x"]) == 2
    line = _error_line(capsys.readouterr().err)
    assert line == (
        "error: argument --pings: invalid int value: 'x' (see 'leviathan bench sonar --help')"
    )


def test_an_internal_error_is_one_line_without_debug(
    monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _make_catalogue_raise(monkeypatch, ZeroDivisionError("division by zero"))
    monkeypatch.delenv("LEVIATHAN_DEBUG", raising=False)
    assert main(["catalogue"]) == 1
    line = _error_line(capsys.readouterr().err)
    assert line.startswith("error: internal error: ZeroDivisionError: division by zero")
    assert "--debug" in line


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_adds_the_traceback(monkeypatch, capsys: pytest.CaptureFixture[str], how) -> None:
    _make_catalogue_raise(monkeypatch, ZeroDivisionError("division by zero"))
    if how == "env":
        monkeypatch.setenv("LEVIATHAN_DEBUG", "1")
        assert main(["catalogue"]) == 1
    else:
        monkeypatch.delenv("LEVIATHAN_DEBUG", raising=False)
        assert main(["catalogue", "--debug"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert "ZeroDivisionError: division by zero" in lines
    assert lines[-1].startswith("error: internal error: ZeroDivisionError")


def test_a_failure_exits_without_a_traceback_in_a_real_process(tmp_path) -> None:
    path = tmp_path / "missing" / "w.usda"
    env = {k: v for k, v in os.environ.items() if k != "LEVIATHAN_DEBUG"}
    result = subprocess.run(
        [sys.executable, "-m", "leviathan", "export-usd", str(path)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"error: {path}: cannot be created: its parent folder {path.parent} does not exist"
    ]
    assert result.stdout == ""


def test_a_parity_mismatch_ends_with_one_error_line(
    monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import leviathan.parity

    results = [
        SimpleNamespace(name="flat", ok=True, mismatches=[]),
        SimpleNamespace(name="slope", ok=False, mismatches=["range_m differs"]),
    ]
    monkeypatch.setattr(leviathan.parity, "check_fixture", lambda *a, **k: results)
    assert main(["parity"]) == 1
    captured = capsys.readouterr()
    # Each fixture is checked and reported by name (the stub answers for all three).
    assert "FAIL  slope" in captured.out and "sonar_v1: 1/2 bit-identical" in captured.out
    assert "sidescan_v1: 1/2 bit-identical" in captured.out
    assert "multibeam_v1: 1/2 bit-identical" in captured.out
    assert _error_line(captured.err) == (
        "error: 3 of 6 fixture scenes are not bit-identical (see the FAIL lines above)"
    )


def test_a_message_over_several_lines_is_reported_on_one(
    monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = ValueError("2 validation errors\nmass_kg\n  Input should be a number")
    _make_catalogue_raise(monkeypatch, error)
    assert main(["catalogue"]) == 2
    assert _error_line(capsys.readouterr().err) == (
        "error: 2 validation errors; mass_kg; Input should be a number"
    )
