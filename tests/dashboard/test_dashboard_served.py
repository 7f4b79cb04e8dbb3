"""``leviathan serve`` serves the Dashboard at ``/`` from package data, with nothing from
outside the machine, and ``GET /catalogue`` describes what a create form may send."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.service.routers._dashboard import dashboard_dir

DASHBOARD = Path(__file__).resolve().parents[2] / "leviathan" / "service" / "dashboard"
# Any URL a page would load from: an import, a src/href, a CSS url(), fetch, WebSocket.
_LOADS_ELSEWHERE = re.compile(
    r"""(?:\bimport\s*(?:[^'"]*?\bfrom\s*)?\(?\s*|\b(?:src|href)\s*=\s*|url\(\s*|"""
    r"""\bfetch\(\s*|new\s+WebSocket\(\s*|@import\s+)['"]?(?:https?:|wss?:)?//""",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def client(service: Any) -> Any:
    with httpx.Client(base_url=service.url, timeout=30) as c:
        yield c


def _shipped(*suffixes: str) -> list[Path]:
    return sorted(p for p in DASHBOARD.rglob("*") if p.is_file() and p.suffix in suffixes)


def test_root_serves_the_dashboard_page(client: httpx.Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.content == (DASHBOARD / "index.html").read_bytes()
    for section in (
        "world-panel",
        "sonar-panel",
        "side-scan-panel",
        "multibeam-panel",
        "viewport-panel",
    ):
        assert f'<section id="{section}"' in response.text


def test_every_shipped_file_is_served_with_its_type(client: httpx.Client) -> None:
    types = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}
    files = _shipped(".js", ".css", ".html", ".json")
    assert dashboard_dir().resolve() == DASHBOARD.resolve()
    assert {"app.js", "api.js", "world_panel.js", "track_plot.js", "dashboard.css"} <= {
        p.name for p in files
    }
    for path in files:
        relative = path.relative_to(DASHBOARD).as_posix()
        response = client.get(f"/dashboard/{relative}")
        assert response.status_code == 200, relative
        assert response.content == path.read_bytes(), relative
        expected = types.get(path.suffix, "application/json")
        assert response.headers["content-type"].startswith(expected), relative


@pytest.mark.parametrize(
    "path",
    ["/dashboard/../_app.py", "/dashboard/%2e%2e/_app.py", "/dashboard/.hidden",
     "/dashboard/missing.js", "/dashboard/vendor"],
)  # fmt: skip
def test_nothing_outside_the_dashboard_files_is_served(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_no_shipped_page_or_module_loads_anything_from_another_host() -> None:
    files = _shipped(".js", ".css", ".html")
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        match = _LOADS_ELSEWHERE.search(text)
        assert match is None, f"{path}: loads from another host: {match.group(0)!r}"


def test_the_pattern_finds_a_cdn_load() -> None:
    for line in (
        'import uPlot from "https://cdn.example/uplot.js";',
        '<script src="//cdn.example/three.js"></script>',
        "@import 'https://fonts.example/font.css';",
        'const w = new WebSocket("wss://far.example/x");',
    ):
        assert _LOADS_ELSEWHERE.search(line), line
    assert not _LOADS_ELSEWHERE.search('import { api } from "./api.js";')


def test_with_a_token_the_files_are_public_and_the_api_is_not(service_factory: Any) -> None:
    guarded = service_factory(token="s3cret")
    with httpx.Client(base_url=guarded.url, timeout=30) as c:
        assert c.get("/").status_code == 200
        assert c.get("/dashboard/app.js").status_code == 200
        assert c.get("/catalogue").status_code == 401
        assert c.get("/worlds").status_code == 401
        assert c.post("/dashboard/app.js").status_code == 401
        authorised = c.get("/catalogue", headers={"Authorization": "Bearer s3cret"})
        assert authorised.status_code == 200


def test_catalogue_lists_every_vehicle_with_its_sensors_and_thrusters(
    client: httpx.Client,
) -> None:
    body = client.get("/catalogue").json()
    assert [v["name"] for v in body["vehicles"]] == list(vehicle_names())
    for vehicle in body["vehicles"]:
        spec = get_vehicle(vehicle["name"])
        assert vehicle["sensors"] == [{"name": s.name, "kind": s.kind} for s in spec.sensors]
        assert [t["name"] for t in vehicle["thrusters"]] == [t.name for t in spec.thrusters]
        assert vehicle["description"] == spec.description


_VALUES = {"number": 1.0, "integer": 2, "pair": [0.0, 0.0], "points": [[10.0, 0.0, 5.0]]}


def test_a_controller_built_from_the_catalogue_fields_is_accepted(client: httpx.Client) -> None:
    body = client.get("/catalogue").json()
    kinds = {c["kind"] for c in body["controllers"]}
    assert kinds == {"direct_thrust", "autopilot", "waypoint_follower", "lawnmower"}
    thrusters = len(get_vehicle("reference_survey_vehicle").thrusters)
    for controller in body["controllers"]:
        document: dict[str, Any] = {"kind": controller["kind"]}
        for field in controller["fields"]:
            if field["required"]:
                document[field["name"]] = (
                    [0.0] * thrusters if field["type"] == "numbers" else _VALUES[field["type"]]
                )
        setup = {"name": "auv", "spec": "reference_survey_vehicle", "controller": document}
        created = client.post("/worlds", json={"vehicles": [setup], "step_s": "0.1"})
        assert created.status_code == 201, (controller["kind"], created.json())
        assert client.delete(f"/worlds/{created.json()['id']}").status_code == 204
        # Leaving out a required field is refused: the catalogue did not overstate it.
        for field in controller["fields"]:
            if field["required"]:
                partial = {k: v for k, v in document.items() if k != field["name"]}
                setup["controller"] = partial
                refused = client.post("/worlds", json={"vehicles": [setup], "step_s": "0.1"})
                assert refused.status_code == 422, (controller["kind"], field["name"])


@pytest.mark.browser
def test_the_page_watch_stops_foreign_requests_and_never_holds_a_local_one(
    page: Any, service: Any, watch: Any
) -> None:
    import time

    from browser_helpers import open_dashboard

    open_dashboard(page, service.url)
    watch.allow(r"net::ERR_FAILED")  # the aborted foreign fetch, logged by Chromium
    # A loopback fetch started just before this thread sleeps is answered during the
    # sleep: no route handler of the test's sees it.
    page.evaluate(
        "window.localDone = null; const t0 = performance.now();"
        " fetch('/health').then(() => { window.localDone = performance.now() - t0; });"
    )
    time.sleep(1.5)
    done_ms = page.evaluate("window.localDone")
    assert done_ms is not None and done_ms < 1000, done_ms
    outcome = page.evaluate(
        "fetch('http://example.invalid/x').then(() => 'answered', (e) => 'refused: ' + e.name)"
    )
    assert outcome == "refused: TypeError"
    assert watch.foreign_requests == ["http://example.invalid/x"]
    watch.foreign_requests.clear()  # seen and refused, as it should be
