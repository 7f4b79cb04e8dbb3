"""``leviathan sonar-image``: the demo's survey scene by default, fan/B-scan PNGs and the report."""

from __future__ import annotations

import json

from leviathan.cli import main


def test_sonar_image_writes_the_views_and_the_report(tmp_path, capsys) -> None:
    out = tmp_path / "img"
    argv = ["sonar-image", "--out", str(out), "--fan", "--bscan", "--report"]
    argv += ["--seabed-triangles", "2000", "--speckle", "--seed", "3"]
    assert main(argv) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["sonar_bscan.png", "sonar_fan.png", "sonar_report.json"]
    for name in names[:2]:
        assert (out / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    report = json.loads((out / "sonar_report.json").read_text())
    assert report["tier"] == "analytic"
    assert report["pose"]["position_ned_m"] == [-12.0, -8.0, 20.0]
    assert report["noise"]["generator"]["seed"] == 3
    assert "tier analytic, not canonical" in capsys.readouterr().out


def test_fan_is_the_default_view_and_a_bad_value_exits_2(tmp_path, capsys) -> None:
    out = tmp_path / "img"
    assert main(["sonar-image", "--out", str(out), "--seabed-triangles", "2000"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["sonar_fan.png"]
    assert main(["sonar-image", "--out", str(tmp_path / "x"), "--position", "0", "0"]) == 2
    assert main(["sonar-image", "--out", str(tmp_path / "missing" / "x")]) != 0
    assert not (tmp_path / "missing").exists()
