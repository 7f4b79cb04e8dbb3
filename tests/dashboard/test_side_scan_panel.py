"""The Side-scan panel and the side-scan's Viewport fans in a real Chromium against a real
service: the panel's waterfall equals, pixel for pixel, the waterfall of the lines the
API returned from the same steps (computed here with leviathan.side_scan.display), and
follows the World as it steps; a typed straight track's waterfall equals the one of
render_track's lines for the same track; the Viewport draws both fans of the side-scan."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest
from browser_helpers import open_dashboard, show_in_viewport
from mapping_cases import crate_object, mapper_setup, mapper_spec, seabed_environment
from service_helpers import wait_until

from leviathan.catalogue import get_vehicle
from leviathan.client import ServiceClient
from leviathan.demo import survey_environment
from leviathan.side_scan import SideScanLine, render_track
from leviathan.side_scan.display import ground_range_waterfall, waterfall

pytestmark = [
    pytest.mark.browser,
    # The typed track's survey scene is built coarse; the catalogue side-scan is sparse there.
    pytest.mark.filterwarnings("ignore:reference_mapping_auv/side_scan. altitude"),
]

TRACK = {"north": "-20", "east": "4", "down": "20", "yaw": "10", "speed": "2", "pings": "4"}
TRACK_TRIANGLES = 2000


# A side-scan of few rays and bins, pinging at 20 Hz (2 x 25 m / ~1490 m/s = 34 ms).
CHEAP_SIDE_SCAN = {
    "across_track_sample_count": 801,
    "range_max_m": 25.0,
    "range_bin_count": 100,
    "along_track_sample_count": 1,
    "schedule": {"period_ns": 50_000_000, "phase_ns": 0},
}


def _world(client: ServiceClient, north_m: float) -> Any:
    """The mapper with only the cheap side-scan, over the seabed and a crate to starboard."""
    return client.create_world(
        vehicles=[mapper_setup(mapper_spec(side_scan=CHEAP_SIDE_SCAN), (north_m, 0.0, 20.0))],
        environment=seabed_environment(
            "side-scan-test", crate_object((4.0, 2.0, 1.5), (0.5, 6.0, 29.25))
        ),
        step_s="0.05",
    )


def _lines(groups: list) -> list[SideScanLine]:
    return [g.samples["mapper/side_scan"] for g in groups if "mapper/side_scan" in g.samples]


def test_the_panel_draws_the_waterfall_of_the_lines_the_api_gave(page: Any, service: Any) -> None:
    with ServiceClient(service.url) as client:
        world = _world(client, -1.0)
        lines = _lines(world.step(4))  # ticks 0 to 4: five pings at 20 Hz
        assert len(lines) == 5 and all(isinstance(line, SideScanLine) for line in lines)
        open_dashboard(page, service.url)
        page.select_option("[data-role=world-select]", world.id)
        drawn = wait_until(
            lambda: (
                (d := page.evaluate("window.leviathanTest.sideScanDrawn()"))["lines"] == 5 and d
            ),
            "the panel to draw 5 lines",
        )
        expected = waterfall(lines)
        assert drawn["sensor"] == "mapper/side_scan" and drawn["view"] == "slant_range"
        assert drawn["displayHash"] == expected.display_hash
        assert (drawn["width"], drawn["height"]) == (200, 5)
        pixels = np.array(page.evaluate("window.leviathanTest.sideScanPixels()"), dtype=np.uint8)
        np.testing.assert_array_equal(pixels, expected.pixels)
        # The nadir gap at 10 m altitude is dark in the centre columns.
        assert (pixels[:, 95:105] == 0).all() and pixels.max() > 0

        # Stepping the World through the API (not the page) reaches the panel live.
        lines += _lines(world.step(2))
        assert len(lines) == 7
        drawn = wait_until(
            lambda: (
                (d := page.evaluate("window.leviathanTest.sideScanDrawn()"))["lines"] == 7 and d
            ),
            "the panel to follow the World",
        )
        assert drawn["displayHash"] == waterfall(lines).display_hash
        assert drawn["newestLine"] == lines[-1].content_hash

        # The ground-range view is the flat-bottom-corrected waterfall of the same lines.
        page.select_option("[data-role=side-scan-view]", "ground_range")
        drawn = wait_until(
            lambda: (
                (d := page.evaluate("window.leviathanTest.sideScanDrawn()"))["view"]
                == "ground_range"
                and d
            ),
            "the ground-range view",
        )
        assert drawn["displayHash"] == ground_range_waterfall(lines).display_hash
        pixels = np.array(page.evaluate("window.leviathanTest.sideScanPixels()"), dtype=np.uint8)
        np.testing.assert_array_equal(pixels, ground_range_waterfall(lines).pixels)


def test_the_viewport_draws_both_side_scan_fans(page: Any, service: Any) -> None:
    with ServiceClient(service.url) as client:
        world = _world(client, 0.0)
        show_in_viewport(page, service.url, world.id)
        drawn = page.evaluate("window.leviathanTest.viewportDrawn()")
        parts = {s["id"]: s["parts"] for s in drawn["vehicles"]["mapper"]["sensors"]}
        assert parts["mapper/side_scan"] == [
            "mapper/side_scan axes",
            "side-scan-port",
            "side-scan-port-axis",
            "side-scan-starboard",
            "side-scan-starboard-axis",
        ]


def _fill_track(page: Any, values: dict[str, str]) -> None:
    page.check("[data-role=side-scan-source-track]")
    page.wait_for_selector("[data-role=side-scan-track-sensor] option", state="attached")
    for name, value in {**values, "triangles": str(TRACK_TRIANGLES)}.items():
        page.fill(f"[data-role=side-scan-track] [data-field={name}]", value)


def test_a_typed_track_draws_the_waterfall_of_render_tracks_lines(page: Any, service: Any) -> None:
    open_dashboard(page, service.url)
    _fill_track(page, TRACK)
    page.select_option("[data-role=side-scan-view]", "ground_range")
    page.click("[data-action=side-scan-render]")
    drawn = wait_until(
        lambda: (
            (d := page.evaluate("window.leviathanTest.sideScanDrawn()"))["source"] == "track" and d
        ),
        "the typed track's waterfall",
    )
    env = survey_environment(TRACK_TRIANGLES)
    lines = render_track(
        env.scene_at(0),
        get_vehicle("reference_mapping_auv").sensor("side_scan"),
        position_ned_m=(-20.0, 4.0, 20.0),
        rpy_deg=(0.0, 0.0, 10.0),
        speed_m_per_s=2.0,
        ping_count=4,
        water=env.water,
        seed=0,
        sensor_id="reference_mapping_auv/side_scan",
    )
    expected = ground_range_waterfall(lines)
    assert drawn["sensor"] == "reference_mapping_auv/side_scan"
    assert (drawn["view"], drawn["lines"], drawn["worldId"]) == ("ground_range", 4, None)
    assert drawn["displayHash"] == expected.display_hash
    assert drawn["newestLine"] == lines[-1].content_hash
    pixels = np.array(page.evaluate("window.leviathanTest.sideScanPixels()"), dtype=np.uint8)
    np.testing.assert_array_equal(pixels, expected.pixels)
    status = page.inner_text("[data-role=side-scan-status]")
    assert "4 lines (ground range)" in status and expected.display_hash[:12] in status


def test_a_track_the_service_refuses_is_named_in_the_forms_words(
    page: Any, service: Any, watch: Any
) -> None:
    watch.allow("status of 422")
    open_dashboard(page, service.url)
    _fill_track(page, {**TRACK, "pings": "500"})
    page.click("[data-action=side-scan-render]")
    page.wait_for_selector("#side-scan-panel [data-role=error]:not([hidden])")
    message = page.inner_text("#side-scan-panel [data-role=error]")
    refused = httpx.post(service.url + "/side-scan/waterfall", json={"ping_count": 500})
    assert refused.status_code == 422 and refused.json()["field"] == "ping_count"
    assert message.startswith("Pings: the service refused 500"), message
    assert refused.json()["expected"] in message
    assert page.evaluate("window.leviathanTest.sideScanDrawn()")["source"] is None
    # A field that is not a number is named before anything is sent.
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/side-scan/" in r.url else None)
    page.fill("[data-role=side-scan-track] [data-field=speed]", "fast")
    page.click("[data-action=side-scan-render]")
    page.wait_for_function(
        "document.querySelector('#side-scan-panel [data-role=error]').textContent"
        ".startsWith('Speed:')"
    )
    assert page.inner_text("#side-scan-panel [data-role=error]").startswith(
        'Speed: "fast" is not a number.'
    )
    assert sent == []
