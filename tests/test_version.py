"""The version is declared once (leviathan/_version.py) and every reader agrees with it."""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import leviathan
from leviathan import _version

ROOT = Path(__file__).resolve().parents[1]


def test_installed_metadata_version_is_the_package_version() -> None:
    assert importlib.metadata.version("leviathan") == leviathan.__version__


def test_package_version_comes_from_the_version_module() -> None:
    assert leviathan.__version__ is _version.__version__


def test_pyproject_reads_the_version_from_the_version_module() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"]
    assert "version" in config["project"]["dynamic"]
    dynamic = config["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "leviathan._version.__version__"}
