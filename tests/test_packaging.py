"""Packaging: every source package is listed for installation, the package data is found
from an installed (non-editable) copy, and the reference stays warp-free."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _package_dir(package: str) -> Path:
    """The source folder of ``package`` under pyproject's ``package-dir`` mapping."""
    mapping = SETUPTOOLS["package-dir"]
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in mapping:
            return ROOT / mapping[head] / Path(*parts[cut:])
    raise AssertionError(f"{package}: no package-dir entry maps it or a parent")


def test_every_package_directory_is_installed() -> None:
    mapping = SETUPTOOLS["package-dir"]
    listed = set(SETUPTOOLS["packages"])
    found = set()
    for package, directory in mapping.items():
        base = ROOT / directory
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    # A data-only folder (no Python code) is listed as a package so that its
    # package-data is installed; it needs no __init__.py.
    data_only = {
        package
        for package in SETUPTOOLS.get("package-data", {})
        if not any(_package_dir(package).glob("*.py"))
    }
    assert found | data_only == listed


@pytest.mark.parametrize("package", sorted(SETUPTOOLS.get("package-data", {})))
def test_every_package_data_pattern_matches_files(package: str) -> None:
    assert package in SETUPTOOLS["packages"], f"{package}: package-data of an unlisted package"
    for pattern in SETUPTOOLS["package-data"][package]:
        assert list(_package_dir(package).glob(pattern)), f"{package}: {pattern!r} matches nothing"


def test_reference_cpu_never_imports_warp() -> None:
    code = (
        "import sys, leviathan.reference_cpu.trace, leviathan.reference_cpu.sonar, "
        "leviathan.sonar, leviathan.parity; print('warp' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    for path in (ROOT / "reference_cpu").rglob("*.py"):
        assert "import warp" not in path.read_text(), path


_THREADED_IMPORTS = """
import importlib, sys, threading, time
import leviathan
names = sys.argv[1:]
assert not any(name in sys.modules for name in names), "already imported"
errors = []
def first_import(name, delay):
    time.sleep(delay)
    try:
        importlib.import_module(name)
    except Exception as error:
        errors.append(f"{name}: {type(error).__name__}: {error}")
threads = [
    threading.Thread(target=first_import, args=(name, 0.002 * i)) for i, name in enumerate(names)
]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors)
"""


def test_after_import_leviathan_its_other_modules_import_from_threads_at_once() -> None:
    """What the README promises: once ``import leviathan`` has returned, first imports
    of the modules it does not load, made by several threads at once, all succeed."""
    names = [
        "leviathan.analytic._scenario_run",
        "leviathan.datasets.hdf5",
        "leviathan.datasets.mcap",
        "leviathan.service",
        "leviathan.client",
        "leviathan.learning",
        "leviathan.usd",
        "leviathan.sweep",
        "leviathan.parity",
        "leviathan.demo",
        "leviathan.bench",
        "leviathan.catalogue",
    ]
    for order in (names, names[::-1]):
        out = subprocess.run(
            [sys.executable, "-c", _THREADED_IMPORTS, *order],
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout.strip() == "[]", out.stdout


def test_editable_install_finds_the_fixture_in_the_checkout() -> None:
    # The suite runs from the editable install dev.py makes: the fixture is the checkout's.
    code = "from leviathan.parity import default_fixture_dir; print(default_fixture_dir())"
    env = {k: v for k, v in os.environ.items() if k != "LEVIATHAN_FIXTURES"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert Path(out.stdout.strip()).resolve() == (ROOT / "fixtures" / "sonar_v1").resolve()


# --------------------------------------------------------------------------- installed copy

# Left out of the copy that is installed: build products, caches, the venv, VCS data.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
    ".ruff_cache", "survey_out", "out",
)  # fmt: skip


def _project_dependencies(deps: Path) -> None:
    """Links every installed distribution of this venv into ``deps``, except LEVIATHAN itself.

    A ``.pth`` line pointing at ``deps`` then makes numpy, warp, setuptools, ...
    importable in the temporary venv without downloading anything, while the
    only ``leviathan`` it can import is the one installed into it.
    """
    deps.mkdir()
    for key in ("purelib", "platlib"):
        for entry in Path(sysconfig.get_paths()[key]).iterdir():
            name = entry.name.lower()
            if name.startswith(("leviathan", "__editable__")) or (deps / entry.name).exists():
                continue
            (deps / entry.name).symlink_to(entry)


_INSTALL_OUTPUT: list[str] = []


@pytest.fixture(scope="module")
def installed_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary venv holding a non-editable install of this checkout; its python.

    pip runs as a user runs it (no ``-q``): :func:`test_installing_prints_no_warning`
    reads what it printed, the build backend's warnings included.
    """
    base = tmp_path_factory.mktemp("installed")
    source = base / "source"
    # A copy, so that building leaves no build/ or egg-info in the checkout.
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE, symlinks=True)
    venv.EnvBuilder(with_pip=False).create(base / "venv")
    python = base / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    _project_dependencies(base / "deps")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(purelib) / "_leviathan_test_deps.pth").write_text(f"{base / 'deps'}\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-build-isolation", "--no-index", "--disable-pip-version-check", str(source)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout + install.stderr
    _INSTALL_OUTPUT[:] = [install.stdout + install.stderr]
    shutil.rmtree(source)  # nothing may be read from the source tree from here on
    return python


def _run_installed(python: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LEVIATHAN_FIXTURES", "PYTHONPATH")}
    return subprocess.run(
        [python, "-m", "leviathan", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


def test_installed_package_finds_its_fixture_in_site_packages(
    installed_python: Path, tmp_path: Path
) -> None:
    code = (
        "import leviathan, sysconfig; from leviathan.parity import default_fixture_dir; "
        "print(leviathan.__file__); print(default_fixture_dir()); "
        "print(sysconfig.get_paths()['purelib'])"
    )
    out = subprocess.run(
        [installed_python, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    module, fixture, purelib = (Path(line) for line in out.stdout.splitlines())
    assert module.is_relative_to(purelib)
    assert fixture == Path(purelib) / "leviathan" / "fixtures" / "sonar_v1"
    assert (fixture / "manifest.json").read_bytes() == (
        ROOT / "fixtures" / "sonar_v1" / "manifest.json"
    ).read_bytes()


def test_installed_parity_passes_outside_the_checkout(
    installed_python: Path, tmp_path: Path
) -> None:
    result = _run_installed(installed_python, tmp_path, "parity")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert "sonar_v1: 28/28 bit-identical" in lines
    assert "sidescan_v1: 21/21 bit-identical" in lines
    assert lines[-1] == "multibeam_v1: 14/14 bit-identical"


def test_installed_parity_refuses_a_missing_fixture_directory(
    installed_python: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nonexistent"
    result = _run_installed(installed_python, tmp_path, "parity", "--fixtures", str(missing))
    assert result.returncode == 2  # a missing input is bad input (README: exit codes)
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"error: fixture: the fixture directory {missing} does not exist; pass --fixtures DIR "
        "(or set LEVIATHAN_FIXTURES) to a folder holding manifest.json and the scene .npz files"
    ]


def test_installed_package_ships_every_dashboard_file(
    installed_python: Path, tmp_path: Path
) -> None:
    # `leviathan serve` serves the Dashboard from package data: every file in the
    # checkout's dashboard folder (modules, styles, vendored libraries, licences,
    # VENDOR.json) must be installed, byte for byte.
    code = "from leviathan.service.routers._dashboard import dashboard_dir; print(dashboard_dir())"
    out = subprocess.run(
        [installed_python, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    installed = Path(out.stdout.strip())
    assert "site-packages" in installed.parts
    source = ROOT / "leviathan" / "service" / "dashboard"
    files = sorted(p.relative_to(source) for p in source.rglob("*") if p.is_file())
    assert {"index.html", "vendor/VENDOR.json", "vendor/three/LICENSE"} <= {
        p.as_posix() for p in files
    }
    for relative in files:
        assert (installed / relative).read_bytes() == (source / relative).read_bytes(), relative


def test_installing_prints_no_warning(installed_python: Path) -> None:
    # setuptools used to report each dashboard vendor folder (and catalogue/vehicles) as
    # "a package absent from the packages configuration"; the package data is declared
    # without making data folders look like packages (include-package-data = false).
    output = _INSTALL_OUTPUT[0]
    assert "Successfully installed leviathan" in output
    flagged = [
        line
        for line in output.splitlines()
        if "warning" in line.lower() or "deprecat" in line.lower() or "!!" in line
    ]
    assert flagged == [], "\n".join(flagged)
