"""``dev.py test`` says before the run whether the Dashboard's browser tests run, and why not."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _dev():
    spec = importlib.util.spec_from_file_location("leviathan_dev_script", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notice_names_what_is_missing_and_how_to_install_it(tmp_path: Path) -> None:
    dev = _dev()
    dev.CHROMIUM = tmp_path / "no-chromium"
    # An interpreter that cannot import playwright: python -I with an empty path.
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} -I -S "$@"\n')
    python.chmod(0o755)
    notice = dev._browser_test_notice(python)
    assert notice.startswith("[dev] browser tests will be SKIPPED: ")
    assert f"Chromium is not at {dev.CHROMIUM}" in notice
    assert "apt-get install chromium" in notice
    assert "playwright package is missing" in notice


def test_notice_says_they_run_when_both_are_there(tmp_path: Path) -> None:
    dev = _dev()
    dev.CHROMIUM = tmp_path / "chromium"
    dev.CHROMIUM.write_text("")
    package = tmp_path / "site" / "playwright"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sync_api.py").write_text("")
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={tmp_path / "site"} exec {sys.executable} -S "$@"\n')
    python.chmod(0o755)
    assert dev._browser_test_notice(python).startswith("[dev] browser tests will run")
