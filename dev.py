#!/usr/bin/env python3
"""Developer entry point: ``python3 dev.py demo`` or ``python3 dev.py test``.

Creates (or reuses) a local virtual environment in ``.venv``, installs the
project into it in editable mode with its test extras, then runs the survey
demo or the whole test suite. Needs only a Python 3.11+ interpreter.

The install is redone only when ``pyproject.toml`` changes (a stamp file in
``.venv`` records its SHA-256), so repeated runs start quickly.

Before the tests, ``test`` says whether the Dashboard's browser tests (marked
``browser``) will run: they need Debian's Chromium at ``/usr/bin/chromium`` and the
``playwright`` package in ``.venv`` (one of the test extras), and skip without them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".leviathan-install-stamp"
CHROMIUM = Path("/usr/bin/chromium")


def _venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def _ensure_environment() -> Path:
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py may be run by an older python3)
        sys.exit(f"LEVIATHAN needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    python = _venv_python()
    if not python.exists():
        print(f"[dev] creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    have = STAMP.read_text().strip() if STAMP.exists() else ""
    if have != want:
        print("[dev] installing LEVIATHAN and its test dependencies into .venv", flush=True)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, "-e", f"{ROOT}[test]"], check=True)
        STAMP.write_text(want + "\n")
    return python


def _browser_test_notice(python: Path) -> str:
    """A plain line: whether the browser tests run, and if not, why and how to enable them."""
    missing = []
    if not CHROMIUM.exists():
        missing.append(
            f"Chromium is not at {CHROMIUM} (install Debian's chromium package: "
            "apt-get install chromium, as root)"
        )
    # Asked of the venv's interpreter, which is the one that runs the tests.
    probe = subprocess.run(
        [str(python), "-c", "import playwright.sync_api"], capture_output=True, cwd=ROOT
    )
    if probe.returncode != 0:
        missing.append(
            "the playwright package is missing from .venv "
            f"(install it: {python} -m pip install playwright)"
        )
    if not missing:
        return f"[dev] browser tests will run (Chromium at {CHROMIUM}, playwright in .venv)"
    return "[dev] browser tests will be SKIPPED: " + "; and ".join(missing)


def main(argv: list[str]) -> int:
    usage = "usage: python3 dev.py {demo|test} [extra arguments]"
    if not argv or argv[0] not in {"demo", "test"}:
        print(usage, file=sys.stderr)
        return 2
    python = _ensure_environment()
    command, extra = argv[0], argv[1:]
    if command == "demo":
        args = [str(python), "-m", "leviathan", "demo", *extra]
    else:
        print(_browser_test_notice(python), flush=True)
        args = [str(python), "-m", "pytest", "-n", "auto", *extra]
    return subprocess.run(args, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
