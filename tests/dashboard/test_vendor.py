"""The vendored front-end libraries: pinned, checksummed, licensed, refreshable offline."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "refresh_vendor.py"
VENDOR = ROOT / "leviathan" / "service" / "dashboard" / "vendor"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("refresh_vendor", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _manifest() -> list[dict[str, str]]:
    return json.loads((VENDOR / "VENDOR.json").read_text())["files"]


def test_check_passes_on_the_shipped_files() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"vendor: {len(_manifest())} files match")


def test_recorded_sha256_equals_the_shipped_files() -> None:
    entries = _manifest()
    assert entries
    for entry in entries:
        data = (VENDOR / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
    shipped = {p.relative_to(VENDOR).as_posix() for p in VENDOR.rglob("*") if p.is_file()}
    assert shipped == {e["file"] for e in entries} | {"VENDOR.json"}


def test_the_pinned_versions_are_the_shipped_ones() -> None:
    versions = {e["package"]: e["version"] for e in _manifest()}
    assert versions == {"three": "0.187.0", "uplot": "1.6.32"}
    # The files themselves say which release they are.
    core = (VENDOR / "three" / "three.core.js").read_text(encoding="utf-8")
    assert re.search(r"const REVISION = '187'", core)


def test_each_library_ships_its_licence() -> None:
    for package in ("three", "uplot"):
        licence = (VENDOR / package / "LICENSE").read_text(encoding="utf-8")
        assert "The MIT License" in licence
        assert "Permission is hereby granted" in licence
        entries = [e for e in _manifest() if e["package"] == package]
        assert {e["licence"] for e in entries} == {"MIT"}
        assert f"{package}/LICENSE" in {e["file"] for e in entries}


def test_check_names_a_changed_and_an_unrecorded_file(tmp_path: Path) -> None:
    copy = tmp_path / "vendor"
    shutil.copytree(VENDOR, copy)
    target = copy / "uplot" / "uPlot.esm.js"
    target.write_bytes(target.read_bytes() + b"\n")
    (copy / "uplot" / "extra.js").write_text("export {};\n")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--vendor", str(copy)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    errors = result.stderr.splitlines()
    assert any(e.startswith("error: uplot/uPlot.esm.js: SHA-256") for e in errors), errors
    assert any(e.startswith("error: uplot/extra.js: shipped") for e in errors), errors
    assert len(errors) == 2


def _fake_tarball(folder: Path, name: str, version: str, files: dict[str, str]) -> None:
    with tarfile.open(folder / f"{name}-{version}.tgz", "w:gz") as archive:
        for source in files:
            data = f"// {name}@{version} {source}\n".encode()
            info = tarfile.TarInfo(f"package/{source}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_refresh_from_tarballs_writes_files_and_a_manifest_that_check_accepts(
    tmp_path: Path,
) -> None:
    script = _script()
    tarballs = tmp_path / "tarballs"
    tarballs.mkdir()
    for name, info in script.PACKAGES.items():
        _fake_tarball(tarballs, name, info["version"], info["files"])
    vendor = tmp_path / "vendor"
    entries = script.refresh(tarballs=tarballs, vendor=vendor)
    assert script.check(vendor) == []
    for entry in entries:
        package, rest = entry["source"].split("@", 1)
        version, source = rest.split(":", 1)
        expected = f"// {package}@{version} {source}\n".encode()
        assert (vendor / entry["file"]).read_bytes() == expected
        assert entry["sha256"] == hashlib.sha256(expected).hexdigest()


def test_refresh_with_a_missing_tarball_writes_nothing(tmp_path: Path) -> None:
    script = _script()
    tarballs = tmp_path / "tarballs"
    tarballs.mkdir()
    name, info = next(iter(script.PACKAGES.items()))
    _fake_tarball(tarballs, name, info["version"], info["files"])  # only the first package
    vendor = tmp_path / "vendor"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--tarballs", str(tarballs), "--vendor", str(vendor)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "not found" in result.stderr
    assert not vendor.exists()
