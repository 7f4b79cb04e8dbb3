"""The World panel in a real Chromium against a real service: every button, checked
through the API (never through the page alone) and against what the page draws: the
panel's texts, and the track plot's canvas pixels at the positions the API reports,
placed by the scales uPlot drew with (never the panel's own copy of the track)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import (
    DELETED_WORLD_READ,
    open_dashboard,
    ring_drawn_at,
    shot,
    track_plot_drawn,
)
from service_helpers import wait_until

from leviathan.catalogue import get_vehicle
from leviathan.controllers import Autopilot
from leviathan.service import ServiceSettings
from leviathan.world import VehicleSetup, World

pytestmark = pytest.mark.browser

TICK = "[data-role=clock] [data-value=tick]"
HASH = "[data-role=clock] [data-value=snapshot-hash]"
ERROR = "#world-panel [data-role=error]"
# The body of POST /worlds for a World another client opens: one idle inspection ROV.
IDLE_ROV_WORLD = {
    "vehicles": [
        {
            "name": "rov",
            "spec": "inspection_rov",
            "controller": {"kind": "direct_thrust", "commands_n": [0.0] * 6},
        }
    ],
    "step_s": "0.1",
}


def _api(service: Any, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=service.url, headers=headers, timeout=30)


def _create_in_panel(page: Any, *, step_s: str = "0.01") -> str:
    """Creates a World with the form's defaults (one reference_survey_vehicle 'auv' at
    N 0, E 0, D 2 under an autopilot: 1 m/s, 5 m, heading 0) and returns its id.

    Ticks of 0.01 s keep Step 20 cheap: the sensors sample on their own schedules, so
    0.2 s of simulated time renders few sonar pings and camera frames.
    """
    page.fill("[data-role=create-form] [name=step_s]", step_s)
    page.click("[data-action=create]")
    page.wait_for_function("window.leviathanTest.worldPanelWorld() !== null")
    world_id = page.evaluate("window.leviathanTest.worldPanelWorld()")
    page.wait_for_selector(f"[data-role=clock] [data-value=world]:text-is('{world_id}')")
    return world_id


def _panel_tick(page: Any) -> int:
    return int(page.inner_text(TICK))


def _last_position(service: Any, world_id: str, vehicle: str = "auv") -> tuple[float, float]:
    """The vehicle's last (north, east) by the API [m]."""
    with _api(service) as api:
        track = api.get(f"/worlds/{world_id}/track", params={"vehicle": vehicle}).json()
    north, east, _ = track["position_ned_m"][-1]
    return north, east


def _wait_ring(page: Any, service: Any, world_id: str, vehicle: str = "auv") -> None:
    """Waits until the canvas shows the vehicle's ring where the API puts it."""
    north, east = _last_position(service, world_id, vehicle)
    wait_until(
        lambda: ring_drawn_at(page, vehicle, north, east),
        f"{vehicle}'s ring drawn at north {north:.3f}, east {east:.3f}",
    )


def _in_process_world() -> World:
    """The World the panel's default form describes, built in-process."""
    setup = VehicleSetup(
        "auv",
        get_vehicle("reference_survey_vehicle"),
        Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0),
        position_ned_m=(0.0, 0.0, 2.0),
        rpy_rad=(0.0, 0.0, 0.0),
    )
    return World.create(vehicles=[setup], root_seed=0, step_s="0.01")


def test_create_makes_the_world_the_form_describes(page: Any, service: Any) -> None:
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    with _api(service) as api:
        info = api.get(f"/worlds/{world_id}").json()
        state = api.get(f"/worlds/{world_id}/state").json()["state"]
        snapshot = api.get(f"/worlds/{world_id}/snapshot").json()
    assert info["vehicles"] == ["auv"]
    assert info["step_ns"] == 10_000_000
    assert info["tick"] == 0
    assert state["vehicles"]["auv"]["position_ned_m"] == [0.0, 0.0, 2.0]
    # The same World built in-process has the same identity: the form sent exactly it.
    assert snapshot["content_hash"] == _in_process_world().snapshot().content_hash
    assert page.inner_text(HASH) == snapshot["content_hash"]


def test_step_20_advances_exactly_20_ticks_and_grows_the_track(page: Any, service: Any) -> None:
    open_dashboard(page, service.url)
    # As in Figure 2.2: one second of simulated time (20 ticks of 0.05 s).
    world_id = _create_in_panel(page, step_s="0.05")
    _wait_ring(page, service, world_id)
    page.click("[data-action=step]")
    page.wait_for_function(f"document.querySelector('{TICK}').textContent === '20'")
    with _api(service) as api:
        info = api.get(f"/worlds/{world_id}").json()
        track = api.get(f"/worlds/{world_id}/track", params={"vehicle": "auv"}).json()
        snapshot = api.get(f"/worlds/{world_id}/snapshot").json()
        state = api.get(f"/worlds/{world_id}/state").json()["state"]
    assert info["tick"] == 20
    assert info["time_ns"] == 20 * 50_000_000
    assert len(track["ticks"]) == 21
    _wait_ring(page, service, world_id)
    assert page.inner_text("[data-role=clock] [data-value=simulation-time]") == "1 s"
    page.wait_for_function(
        f"document.querySelector('{HASH}').textContent === '{snapshot['content_hash']}'"
    )
    auv = state["vehicles"]["auv"]
    row = page.locator("[data-role=vehicles] tr[data-vehicle=auv]")
    assert row.locator("[data-value=depth]").inner_text() == f"{auv['depth_m']:.3f}"
    assert row.locator("[data-value=north]").inner_text() == f"{auv['position_ned_m'][0]:.3f}"
    assert row.locator("[data-value=speed]").inner_text() == (f"{auv['speed_over_ground_m_s']:.3f}")
    # North up, east right, the same metres per pixel on both axes, as drawn.
    drawn = track_plot_drawn(page)
    east_per_px = (drawn["x"][1] - drawn["x"][0]) / drawn["bbox"]["width"]
    north_per_px = (drawn["y"][1] - drawn["y"][0]) / drawn["bbox"]["height"]
    assert east_per_px == pytest.approx(north_per_px, rel=1e-9)
    path = shot(page, "world_panel", selector="#world-panel")
    assert path.stat().st_size > 0


def test_the_track_plot_rescales_as_the_track_grows(page: Any, service: Any) -> None:
    # The default World, Step 20 three times: over a metre north of where it started,
    # which the first view (about +-0.25 m) cannot show; every point the API reports must
    # lie inside the scales uPlot drew with, at one scale on both axes.
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page, step_s="0.05")
    for k in range(1, 4):
        page.click("[data-action=step]")
        page.wait_for_function(f"document.querySelector('{TICK}').textContent === '{20 * k}'")
        _wait_ring(page, service, world_id)
    with _api(service) as api:
        track = api.get(f"/worlds/{world_id}/track", params={"vehicle": "auv"}).json()
    north = [p[0] for p in track["position_ned_m"]]
    east = [p[1] for p in track["position_ned_m"]]
    assert north[-1] > 1.0
    drawn = track_plot_drawn(page)
    assert drawn["x"][0] <= min(east) and max(east) <= drawn["x"][1]
    assert drawn["y"][0] <= min(north) and max(north) <= drawn["y"][1]
    east_per_px = (drawn["x"][1] - drawn["x"][0]) / drawn["bbox"]["width"]
    north_per_px = (drawn["y"][1] - drawn["y"][0]) / drawn["bbox"]["height"]
    assert east_per_px == pytest.approx(north_per_px, rel=1e-9)
    shot(page, "world_panel_track_grown", selector="#world-panel")


def test_the_header_counts_the_worlds_the_service_holds(page: Any, service: Any) -> None:
    status = "#service-status"

    def open_count() -> int:
        return len(httpx.get(f"{service.url}/worlds", timeout=30).json()["worlds"])

    def shows(n: int) -> None:
        page.wait_for_function(
            f"document.querySelector('{status}').textContent.endsWith(' {n}/32 Worlds open')"
        )

    open_dashboard(page, service.url)
    start = open_count()
    shows(start)
    _create_in_panel(page)
    shows(start + 1)
    # A World opened by another client shows too (the header polls the service).
    with _api(service) as api:
        other = api.post("/worlds", json=IDLE_ROV_WORLD).json()["id"]
        shows(start + 2)
        assert api.delete(f"/worlds/{other}").status_code == 204
    shows(start + 1)
    assert open_count() == start + 1


def _created_and_stepped(page: Any, service: Any) -> tuple[str, str]:
    """Opens the Dashboard, creates the form's World and presses Step 20 until the tick
    shows 20 (from the live push); returns the World's id and its starting hash."""
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    with _api(service) as api:
        start_hash = api.get(f"/worlds/{world_id}/snapshot").json()["content_hash"]
    page.click("[data-action=step]")
    page.wait_for_function(f"document.querySelector('{TICK}').textContent === '20'")
    return world_id, start_hash


def test_reset_returns_to_tick_0_with_the_starting_hash(page: Any, service: Any) -> None:
    world_id, start_hash = _created_and_stepped(page, service)
    with _api(service) as api:
        assert api.get(f"/worlds/{world_id}/snapshot").json()["content_hash"] != start_hash
        page.click("[data-action=reset]")
        page.wait_for_function(f"document.querySelector('{TICK}').textContent === '0'")
        snapshot = api.get(f"/worlds/{world_id}/snapshot").json()
    assert snapshot["tick"] == 0
    assert snapshot["content_hash"] == start_hash
    page.wait_for_function(f"document.querySelector('{HASH}').textContent === '{start_hash}'")
    # The plot went back with the World: its start again, in the smallest view.
    _wait_ring(page, service, world_id)
    drawn = track_plot_drawn(page)
    assert drawn["y"][1] - drawn["y"][0] < 1.0


# Holds the page's track requests back (in the page's own fetch) so that the refresh a
# step starts is still between reading the World and asking for its track when Reset
# is clicked: the order CI once met by chance.
_SLOW_TRACK_FETCH = """
(() => {
  const fetchNow = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    if (url.includes("/track")) await new Promise((r) => setTimeout(r, 1500));
    return fetchNow(input, init);
  };
})();
"""


def test_reset_during_a_refresh_asks_for_no_tick_the_reset_removed(page: Any, service: Any) -> None:
    page.add_init_script(_SLOW_TRACK_FETCH)
    events: list[str] = []  # requests and answers, in the order the page saw them
    page.on("request", lambda r: events.append(f"{r.method} {r.url}"))
    page.on("response", lambda r: events.append(f"{r.status} {r.request.method} {r.url}"))
    # Tick 20 shows from the live push, before the step's refresh has its track.
    world_id, start_hash = _created_and_stepped(page, service)
    page.click("[data-action=reset]")

    def track_answered_after_reset() -> bool:
        page.wait_for_timeout(50)  # lets the page's events reach this thread
        posts = (i for i, e in enumerate(events) if e.startswith("POST") and "/reset" in e)
        reset = next(posts, None)
        return reset is not None and any(
            "/track" in e and not e.startswith("GET") for e in events[reset:]
        )

    wait_until(track_answered_after_reset, "a track answer after the Reset")
    wait_until(
        lambda: page.evaluate("window.leviathanTest.trackPointCount('auv')") == 1,
        "the plot back to the World's one tick",
    )
    failed = [e for e in events if e[:1] in "45"]
    assert failed == []
    assert page.locator(ERROR).is_hidden()
    page.wait_for_function(f"document.querySelector('{HASH}').textContent === '{start_hash}'")
    with _api(service) as api:
        assert api.get(f"/worlds/{world_id}/snapshot").json()["tick"] == 0


def test_export_usd_downloads_a_stage_usd_core_opens(
    page: Any, service: Any, tmp_path: Path
) -> None:
    from pxr import Usd

    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    page.click("[data-action=step]")
    page.wait_for_function(f"document.querySelector('{TICK}').textContent === '20'")
    with page.expect_download() as download_info:
        page.click("[data-action=usd]")
    download = download_info.value
    assert download.suggested_filename == f"{world_id}-tick20.usda"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    stage = Usd.Stage.Open(str(path))
    assert stage is not None
    assert stage.GetDefaultPrim().IsValid()
    with _api(service) as api:
        assert path.read_bytes() == api.get(f"/worlds/{world_id}/usd").content


def test_delete_removes_the_world(page: Any, service: Any, watch: Any) -> None:
    watch.allow(DELETED_WORLD_READ)
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    page.click("[data-action=delete]")
    page.wait_for_function("window.leviathanTest.worldPanelWorld() === null")
    with _api(service) as api:
        assert api.get(f"/worlds/{world_id}").status_code == 404
        assert world_id not in [w["id"] for w in api.get("/worlds").json()["worlds"]]
    assert page.locator(f"[data-role=world-select] option[value='{world_id}']").count() == 0
    assert page.locator("[data-action=step]").is_disabled()


def _set_current_in_panel(
    page: Any, service: Any, fields: dict[str, str], shown: str, *, mode: str | None = None
) -> str:
    """Creates a World in the panel and sets its current through the form; returns its id.

    ``mode`` picks the form's mode first when given; the call returns once the panel
    shows text containing ``shown``.
    """
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    if mode is not None:
        page.select_option("[data-role=current-mode]", mode)
    for name, value in fields.items():
        page.fill(f"[name={name}]", value)
    page.click("[data-action=set-current]")
    page.wait_for_selector(f"[data-role=current-shown]:has-text('{shown}')")
    return world_id


def test_the_current_control_sets_the_worlds_current(page: Any, service: Any) -> None:
    components = {"current_north": "0.3", "current_east": "0.4", "current_down": "0"}
    world_id = _set_current_in_panel(page, service, components, "north 0.300")
    with _api(service) as api:
        # The World holds the current the form set, and the panel shows the World's reading.
        current = api.get(f"/worlds/{world_id}/current").json()
        assert current["current_ned_m_per_s"] == [0.3, 0.4, 0.0] and current["profile"] == []
        shown = page.text_content("[data-role=current-shown]")
        assert shown == "The World's current: north 0.300, east 0.400, down 0.000 m/s"
        state = api.get(f"/worlds/{world_id}/state").json()["state"]
        # At rest in a 0.5 m/s current, the vehicle moves at 0.5 m/s through the water.
        assert state["vehicles"]["auv"]["speed_through_water_m_s"] == pytest.approx(0.5, abs=1e-12)
        page.click("[data-action=step]")
        page.wait_for_function(f"document.querySelector('{TICK}').textContent === '20'")
        remote = api.get(f"/worlds/{world_id}/snapshot").json()["content_hash"]
    # Exactly the current set in-process: the same World after 20 ticks has the same hash.
    world = _in_process_world()
    world.set_current((0.3, 0.4, 0.0))
    world.step(20)
    assert remote == world.snapshot().content_hash


def test_the_current_as_speed_and_direction(page: Any, service: Any) -> None:
    polar = {"current_speed": "0.7", "current_direction_deg": "90"}
    world_id = _set_current_in_panel(page, service, polar, "east 0.700", mode="polar")
    with _api(service) as api:
        state = api.get(f"/worlds/{world_id}/state").json()["state"]
        assert state["vehicles"]["auv"]["speed_through_water_m_s"] == pytest.approx(0.7, abs=1e-12)
        page.click("[data-action=step]")
        page.wait_for_function(f"document.querySelector('{TICK}').textContent === '20'")
        east = api.get(f"/worlds/{world_id}/state").json()["state"]["vehicles"]["auv"]
    # Heading north, a current towards the east carries the vehicle east.
    assert east["position_ned_m"][1] > 0.01


def test_play_advances_ticks_and_pause_stops_them(page: Any, service: Any) -> None:
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    with _api(service) as api:
        page.click("[data-action=play]")
        wait_until(lambda: api.get(f"/worlds/{world_id}").json()["tick"] >= 5, "Play to step")
        page.wait_for_selector("[data-role=clock] [data-value=playing]:text-is('yes')")
        assert page.locator("[data-action=pause]").is_enabled()
        page.click("[data-action=pause]")
        wait_until(lambda: not api.get(f"/worlds/{world_id}/play").json()["playing"], "Pause")
        paused_at = api.get(f"/worlds/{world_id}").json()["tick"]
        time.sleep(0.3)  # 30 ticks of real time at 0.01 s a tick, had it kept playing
        assert api.get(f"/worlds/{world_id}").json()["tick"] == paused_at
    page.wait_for_selector("[data-role=clock] [data-value=playing]:text-is('no')")
    assert page.inner_text(TICK) == str(paused_at)
    _wait_ring(page, service, world_id)
    assert page.locator("[data-action=play]").is_enabled()
    assert page.locator("[data-action=pause]").is_disabled()


def test_show_in_viewport_announces_the_world(page: Any, service: Any) -> None:
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    page.evaluate(
        "import('./api.js').then((m) => { window.shownInViewport = [];"
        " m.on('show-in-viewport', (d) => window.shownInViewport.push(d.id)); })"
    )
    page.click("[data-action=viewport]")
    page.wait_for_function("window.shownInViewport.length === 1")
    assert page.evaluate("window.shownInViewport") == [world_id]


def test_two_vehicles_give_two_traces(page: Any, service: Any) -> None:
    open_dashboard(page, service.url)
    page.click("[data-action=add-vehicle]")
    second = page.locator("[data-role=vehicle-row]").nth(1)
    second.locator("[name=spec]").select_option("torpedo_auv")
    second.locator("[name=controller_kind]").select_option("direct_thrust")
    commands = second.locator("[name=commands_n]")
    # One command per thruster of the chosen vehicle, from the catalogue.
    assert commands.input_value() == ", ".join("0" for _ in get_vehicle("torpedo_auv").thrusters)
    commands.fill("10, 0, 0, 0, 0")
    world_id = _create_in_panel(page)
    page.click("[data-action=step]")
    page.wait_for_function(f"document.querySelector('{TICK}').textContent === '20'")
    with _api(service) as api:
        info = api.get(f"/worlds/{world_id}").json()
        spec = api.get(f"/worlds/{world_id}/vehicles/auv2/spec").json()
    assert info["vehicles"] == ["auv", "auv2"]
    assert spec["name"] == "torpedo_auv"
    drawn = track_plot_drawn(page)
    assert drawn["colours"]["auv"] != drawn["colours"]["auv2"]
    for vehicle in ("auv", "auv2"):
        _wait_ring(page, service, world_id, vehicle)
    assert page.locator("[data-role=vehicles] tbody tr").count() == 2


def test_a_bad_value_is_shown_in_plain_words(page: Any, service: Any, watch: Any) -> None:
    watch.allow(r"status of 422")
    open_dashboard(page, service.url)
    with _api(service) as api:
        before = len(api.get("/worlds").json()["worlds"])
        page.fill("[data-role=create-form] [name=step_s]", "soon")
        page.click("[data-action=create]")
        page.wait_for_selector(f"{ERROR}:not([hidden])")
        assert len(api.get("/worlds").json()["worlds"]) == before
    text = page.inner_text(ERROR)
    assert text.startswith("The service refused a value.")
    assert "soon" in text


def test_a_world_deleted_elsewhere_is_shown_in_plain_words(
    page: Any, service: Any, watch: Any
) -> None:
    watch.allow(DELETED_WORLD_READ)
    open_dashboard(page, service.url)
    world_id = _create_in_panel(page)
    with _api(service) as api:
        assert api.delete(f"/worlds/{world_id}").status_code == 204
    # The World's stream says it closed; the panel says so and lets it go.
    page.wait_for_selector(f"{ERROR}:not([hidden])")
    assert page.inner_text(ERROR).startswith("That World is no longer open")
    page.wait_for_function("window.leviathanTest.worldPanelWorld() === null")
    assert page.locator("[data-action=step]").is_disabled()


def test_choosing_a_deleted_world_is_shown_in_plain_words(
    page: Any, service: Any, watch: Any
) -> None:
    watch.allow(r"status of 404")
    with _api(service) as api:
        world_id = api.post("/worlds", json=IDLE_ROV_WORLD).json()["id"]
        open_dashboard(page, service.url)  # the list still shows it
        assert api.delete(f"/worlds/{world_id}").status_code == 204
    page.select_option("[data-role=world-select]", world_id)
    page.wait_for_selector(f"{ERROR}:not([hidden])")
    assert page.inner_text(ERROR).startswith("That World is no longer open")
    assert world_id in page.inner_text(ERROR)
    page.wait_for_function(
        f"!document.querySelector(\"[data-role=world-select] option[value='{world_id}']\")"
    )


def test_the_33rd_world_is_refused_in_plain_words(
    page: Any, service_factory: Any, watch: Any
) -> None:
    watch.allow(r"status of 409")
    small = service_factory(ServiceSettings(max_worlds=1))
    open_dashboard(page, small.url)
    _create_in_panel(page)
    page.click("[data-action=create]")
    page.wait_for_selector(f"{ERROR}:not([hidden])")
    text = page.inner_text(ERROR)
    assert text.startswith("The service's limit is reached.")
    assert "the limit is 1" in text
    with _api(small) as api:
        assert len(api.get("/worlds").json()["worlds"]) == 1


def test_with_a_token_the_page_sends_it(page: Any, service_factory: Any) -> None:
    guarded = service_factory(token="s3cret")
    open_dashboard(page, guarded.url, token="s3cret")
    world_id = _create_in_panel(page)
    page.click("[data-action=step]")
    page.wait_for_function(f"document.querySelector('{TICK}').textContent === '20'")
    with _api(guarded, token="s3cret") as api:
        assert api.get(f"/worlds/{world_id}").json()["tick"] == 20
    with _api(guarded) as api:
        assert api.get("/worlds").status_code == 401


def test_a_request_leaving_localhost_is_aborted_and_reported(
    page: Any, service: Any, watch: Any
) -> None:
    # The guard every test here relies on: it must be able to fail.
    watch.allow(r"net::ERR_FAILED")
    open_dashboard(page, service.url)
    outcome = page.evaluate(
        "fetch('https://cdn.example.com/lib.js').then(() => 'loaded', () => 'blocked')"
    )
    assert outcome == "blocked"
    assert watch.foreign_requests == ["https://cdn.example.com/lib.js"]
    assert watch.problems() == ["request leaving localhost: https://cdn.example.com/lib.js"]
    watch.foreign_requests.clear()
