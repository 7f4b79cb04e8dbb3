"""The ``leviathan`` console script."""

from __future__ import annotations

import json
import subprocess
import sys

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
    assert list((a / "previews").glob("survey_sonar_*_fan.png"))


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
