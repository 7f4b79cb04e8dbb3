"""Shared by the Dashboard's browser tests: finding Chromium, watching a page, screenshots.

The fixtures themselves (``service``, ``browser``, ``watch``, ``page``) are in
``tests/dashboard/conftest.py``; this module holds the plain functions and the
:class:`PageWatch` record they use, so test modules can import them by name
(``from browser_helpers import open_dashboard, shot``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "dashboard"
"""Screenshots land here (gitignored; created when the first one is taken)."""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
"""Headless Chromium flags: no sandbox (containers), software rendering, and no
traffic of Chromium's own (updates, safe browsing) that would leave the machine."""

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
_LOCAL_SCHEMES = frozenset({"data", "blob", "about"})

NOT_LOCAL = re.compile(
    r"^(?!(?:https?|wss?)://(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?(?:[/?#]|$))"
)
"""The URLs the page's route intercepts: every one that is not loopback. Playwright
matches a route's pattern in the browser, so loopback requests never wait for the
test's thread (a sync-API route handler runs only while the test calls Playwright;
under ``page.route("**/*")`` a request issued while the test sleeps or polls the API
stalls until its next Playwright call)."""


# Deleting a World the panels are reading can make their reads in flight 404 (each panel
# shows it in its own section); Chromium logs each such response as a console error, so
# the tests that delete a World allow exactly this pattern and nothing else.
DELETED_WORLD_READ = r"status of 404 \(Not Found\) \(http://127\.0\.0\.1:\d+/(analytic/)?worlds/"


def browser_missing_reason() -> str | None:
    """Why the browser tests cannot run here, in plain words, or ``None`` if they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return (
            "playwright is not installed: install the test extra "
            "(pip install -e '.[test]') to run the browser tests"
        )
    if not CHROMIUM.exists():
        return (
            f"Chromium not found at {CHROMIUM}: install Debian's chromium package to run the "
            "browser tests"
        )
    return None


def is_local_url(url: str) -> bool:
    """Whether a request to ``url`` stays on this machine (loopback, data:, blob:)."""
    parts = urlsplit(url)
    if parts.scheme in _LOCAL_SCHEMES:
        return True
    return parts.hostname in LOCAL_HOSTS


@dataclass
class PageWatch:
    """What a page did that a test must not allow: console errors, uncaught page errors
    and requests that would leave localhost (those are aborted, and recorded).

    A test that provokes a service error on purpose calls :meth:`allow` with a
    pattern for the console line Chromium writes for the failed request (e.g.
    ``"status of 409"``); every other console error still fails the test.
    """

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def allow(self, pattern: str) -> None:
        """Lets console errors matching the regular expression ``pattern`` pass."""
        self.allowed.append(re.compile(pattern))

    def on_console(self, message: Any) -> None:
        if message.type == "error":
            location = message.location or {}
            self.console_errors.append(f"{message.text} ({location.get('url', '?')})")

    def on_page_error(self, error: Any) -> None:
        self.page_errors.append(str(error))

    def on_route(self, route: Any) -> None:
        url = route.request.url
        if is_local_url(url):
            route.continue_()
        else:
            self.foreign_requests.append(url)
            route.abort()

    def on_websocket(self, websocket: Any) -> None:
        # Page routes do not see WebSockets; their URLs are checked here instead.
        if not is_local_url(websocket.url.replace("ws://", "http://", 1)):
            self.foreign_requests.append(websocket.url)

    def problems(self) -> list[str]:
        """Everything that should fail the test, one line each."""
        console = [e for e in self.console_errors if not any(p.search(e) for p in self.allowed)]
        return (
            [f"console error: {e}" for e in console]
            + [f"page error: {e}" for e in self.page_errors]
            + [f"request leaving localhost: {u}" for u in self.foreign_requests]
        )

    def attach(self, page: Any) -> None:
        """Watches ``page``: listeners for console and page errors, a route for every
        request that would leave loopback (:data:`NOT_LOCAL`)."""
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)
        page.on("websocket", self.on_websocket)
        page.route(NOT_LOCAL, self.on_route)


def open_dashboard(page: Any, base_url: str, *, token: str | None = None) -> None:
    """Loads the Dashboard at ``base_url`` and waits until every panel has mounted.

    ``app.js`` sets ``data-ready="true"`` on ``<body>`` once each panel's ``mount`` ran
    (a panel that failed to load shows its error in its own section instead).
    """
    url = base_url.rstrip("/") + "/"
    if token is not None:
        url += f"?token={token}"
    page.goto(url)
    page.wait_for_selector("body[data-ready='true']", timeout=15_000)


def open_viewport(page: Any, world_id: str) -> None:
    """Selects ``world_id`` in the World panel and opens it in the Viewport."""
    page.select_option("[data-role=world-select]", world_id)
    page.wait_for_function(f"window.leviathanTest.worldPanelWorld() === {world_id!r}")
    page.click("#world-panel [data-action=viewport]")


def show_in_viewport(page: Any, base_url: str, world_id: str, *, token: str | None = None) -> None:
    """Loads the Dashboard, opens ``world_id`` in the Viewport and waits for its first pose."""
    open_dashboard(page, base_url, token=token)
    open_viewport(page, world_id)
    page.wait_for_function(
        f"(() => {{ const p = window.leviathanTest.viewportPoses();"
        f" return p.worldId === {world_id!r} && p.tick !== null; }})()"
    )


def shot(page: Any, name: str, *, selector: str | None = None) -> Path:
    """Saves a PNG screenshot of the page (or of the element ``selector``) as
    ``test-artifacts/dashboard/<name>.png``; returns its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if selector is None:
        page.screenshot(path=str(path), full_page=True)
    else:
        page.locator(selector).screenshot(path=str(path))
    return path


def track_plot_drawn(page: Any) -> dict[str, Any]:
    """What the World panel's track plot last drew, from uPlot itself: the x (east) and
    y (north) scale ranges it drew with [m], its plot area in canvas pixels, the device
    pixel ratio and each vehicle's trace colour."""
    return page.evaluate("window.leviathanTest.trackPlotDrawn()")


def track_pixel(drawn: dict[str, Any], north: float, east: float) -> tuple[float, float]:
    """Where uPlot draws (north, east) on its canvas [px], by its linear scales as drawn."""
    (x0, x1), (y0, y1), box = drawn["x"], drawn["y"], drawn["bbox"]
    x = box["left"] + (east - x0) / (x1 - x0) * box["width"]
    y = box["top"] + box["height"] - (north - y0) / (y1 - y0) * box["height"]
    return x, y


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def ring_drawn_at(page: Any, vehicle: str, north: float, east: float) -> bool:
    """Whether the canvas shows ``vehicle``'s end-of-track ring around (north, east),
    inside the plot area: a pixel of the trace's colour on the ring's right edge (the
    ring has a radius of 4 CSS px; antialiasing blends its edge, so the nearest pixel of
    a 7 x 7 window must be within 60 of the colour in each channel)."""
    drawn = track_plot_drawn(page)
    x, y = track_pixel(drawn, north, east)
    box = drawn["bbox"]
    if not (box["left"] <= x <= box["left"] + box["width"]):
        return False
    if not (box["top"] <= y <= box["top"] + box["height"]):
        return False
    r = 4 * drawn["dpr"]
    left, top = round(x + r) - 3, round(y) - 3
    rgba = page.evaluate(f"window.leviathanTest.trackPlotPixels({left}, {top}, 7, 7)")
    want = _rgb(drawn["colours"][vehicle])
    pixels = [rgba[i : i + 3] for i in range(0, len(rgba), 4)]
    return any(all(abs(p - w) <= 60 for p, w in zip(px, want, strict=True)) for px in pixels)
