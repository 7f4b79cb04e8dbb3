"""Shared pytest configuration: the Warp devices every per-device test runs on.

A test that takes a ``device`` argument runs once per Warp device present: ``"cpu"``
always, then each CUDA device (the list is asked of Warp once per process, and only
when such a test is collected, so sessions without one never initialise Warp). A test
that parametrizes ``device`` itself keeps its own list. The ``devices`` fixture gives
the whole list to tests that need more than one device at a time; every test run on
a CUDA device is marked ``cuda`` (``pytest -m cuda`` runs only those, ``-m "not cuda"``
only the CPU ones); ``tiny_demo``
shrinks the survey demo's seabed for tests of the demo's files and errors.

Shared builders (small vehicles, scenes, Worlds) are plain functions in
``tests/world_cases.py``, seeded tracing geometry in ``tests/trace_cases.py``, a real
service on loopback in ``tests/service_helpers.py`` (for the service and the
Dashboard tests), a test's own sensor kind registered only while it is used in
``tests/sensor_helpers.py``, and the reference implementations the fast paths are checked
against in ``tests/reference_impls.py``: test modules import them by name (pytest
puts ``tests/``, the folder of this conftest, on ``sys.path``; no test edits it), and
so do test modules that run themselves as a subprocess worker. A conftest cannot be
imported like that, so it holds only hooks and fixtures.
"""

from __future__ import annotations

import functools
import importlib

import pytest

WARNING_MODULES = ("leviathan.analytic._scenario_run", "leviathan.sonar._sampling_warnings")
"""The modules that define the package's warning classes (``tests/test_suite_layout.py``
checks the list). pytest-xdist's controller imports a warning's module when a worker
reports one, on the thread that serves that worker; two workers reporting at once had
two threads import the package's mutually importing subpackages together, an import
deadlock that ended a fresh clone's run. :func:`pytest_configure` imports them first,
on the controller's main thread, before any worker starts."""


def pytest_configure(config: pytest.Config) -> None:
    for name in WARNING_MODULES:
        importlib.import_module(name)


@functools.cache
def _warp_devices() -> tuple[str, ...]:
    from leviathan.kernels import available_devices

    return tuple(available_devices())


def _parametrized_names(metafunc: pytest.Metafunc) -> set[str]:
    names: set[str] = set()
    for mark in metafunc.definition.iter_markers("parametrize"):
        argnames = mark.args[0] if mark.args else mark.kwargs["argnames"]
        if isinstance(argnames, str):
            argnames = argnames.split(",")
        names.update(name.strip() for name in argnames)
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test taking ``device`` once per Warp device, unless it lists its own."""
    if "device" in metafunc.fixturenames and "device" not in _parametrized_names(metafunc):
        metafunc.parametrize("device", _warp_devices())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test run on a CUDA device ``cuda``: ``-m cuda`` runs only those."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        device = params.get("device")
        if isinstance(device, str) and device.startswith("cuda"):
            item.add_marker(pytest.mark.cuda)


@pytest.fixture(scope="session")
def devices() -> tuple[str, ...]:
    """Every Warp device present: ``"cpu"``, then ``"cuda:0"``, ``"cuda:1"``, ..."""
    return _warp_devices()


@pytest.fixture
def tiny_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo World on a 2,000-triangle seabed: the same products in about a second."""
    import leviathan.demo as demo

    monkeypatch.setattr(
        demo, "build_demo_world", functools.partial(demo.build_demo_world, seabed_triangles=2000)
    )
