"""Packaging: every source package is listed for installation, and the reference stays warp-free."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_directory_is_installed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = config["package-dir"]
    listed = set(config["packages"])
    found = set()
    for package, directory in mapping.items():
        base = ROOT / directory
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    assert found == listed


def test_reference_cpu_never_imports_warp() -> None:
    code = (
        "import sys, leviathan.reference_cpu.trace, leviathan.reference_cpu.sonar, "
        "leviathan.sonar, leviathan.parity; print('warp' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    for path in (ROOT / "reference_cpu").rglob("*.py"):
        assert "import warp" not in path.read_text(), path
