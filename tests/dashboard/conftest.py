"""Fixtures of the Dashboard's browser tests: a real service, a real Chromium, a watched page.

* ``service``: a real uvicorn on 127.0.0.1 (``tests/service_helpers.start_service``),
  one per test module; ``service_factory`` starts more (other settings or a token),
  each stopped at the end of the module.
* ``browser``: Debian's Chromium driven by Playwright's sync API, one per module, in a
  persistent context on a fresh ``--user-data-dir`` (``CHROMIUM_ARGS``). Skipped with a
  plain reason when Chromium or Playwright is missing.
* ``watch`` and ``page``: a fresh page per test whose console errors, uncaught errors
  and requests leaving localhost (aborted) fail the test at teardown; see
  :class:`browser_helpers.PageWatch`.

Every test using ``browser`` or ``page`` is marked ``browser`` (``-m "not browser"``
leaves them out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, PageWatch, browser_missing_reason
from service_helpers import RunningService, start_service

_BROWSER_FIXTURES = {"browser", "page", "watch"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks every test that drives the browser ``browser``."""
    for item in items:
        if _BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def service_factory() -> Iterator[Callable[..., RunningService]]:
    """Starts services (``start_service``'s arguments); all stop at the end of the module."""
    started: list[RunningService] = []

    def start(*args: Any, **kwargs: Any) -> RunningService:
        running = start_service(*args, **kwargs)
        started.append(running)
        return running

    yield start
    for running in reversed(started):
        running.stop()


@pytest.fixture(scope="module")
def service(service_factory: Callable[..., RunningService]) -> RunningService:
    """A real service on 127.0.0.1 with the default settings, shared by the module."""
    return service_factory()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium context (Playwright sync API) on a fresh profile."""
    reason = browser_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            user_data_dir=str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
            accept_downloads=True,
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def watch() -> PageWatch:
    """The record of what the test's page did wrong (``watch.allow(pattern)`` for an
    expected console error)."""
    return PageWatch()


@pytest.fixture
def page(browser: Any, watch: PageWatch) -> Iterator[Any]:
    """A fresh, watched page; fails the test at teardown on any problem ``watch`` saw."""
    new_page = browser.new_page()
    watch.attach(new_page)
    try:
        yield new_page
    finally:
        new_page.close()
    problems = watch.problems()
    assert not problems, "the page misbehaved:\n" + "\n".join(problems)
