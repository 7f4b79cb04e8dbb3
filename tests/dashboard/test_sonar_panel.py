"""The Imaging sonar panel in a real Chromium against a real service.

A person types a pose (or picks a World's vehicle and its sonar), picks B-scan or fan
and clicks Render; the panel must show the service's PNG and every figure of the
service's report. The expected values come from the same endpoints, fetched here with
httpx and the same request body, never from the page itself.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import httpx
import numpy as np
import pytest
from browser_helpers import open_dashboard, shot
from PIL import Image
from service_helpers import small_setup
from world_cases import seabed_scene, small_survey_spec, survey_setup

from leviathan.client import ServiceClient

RENDER_TIMEOUT_MS = 120_000
# A typed pose and options small enough to render in about a second under load.
TYPED = {"north": "-12", "east": "-8", "down": "20", "roll": "0", "pitch": "2", "yaw": "30"}
TYPED_BODY = {
    "position_ned_m": [-12.0, -8.0, 20.0],
    "rpy_deg": [0.0, 2.0, 30.0],
    "scene": {"kind": "survey_demo", "seabed_triangles": 2000},
    "elevation_sample_count": 16,
}


@pytest.fixture(scope="module")
def world(service) -> Any:
    """A World with a sonar-carrying vehicle ("survey") and one without ("auv"), at tick 3."""
    with ServiceClient(service.url) as client:
        remote = client.create_world(
            vehicles=[
                survey_setup(small_survey_spec(bearing_count=24, range_bin_count=64)),
                small_setup("auv"),
            ],
            environment=seabed_scene(),
            step_ns=10_000_000,
        )
        remote.step(3)
        yield remote
        remote.delete()


def _endpoint(service, path: str, body: dict) -> httpx.Response:
    response = httpx.post(service.url + path, json=body, timeout=120)
    assert response.status_code == 200, response.text
    return response


def _render(page, view: str) -> None:
    page.check(f"#sonar-view-{view}")
    page.click("#sonar-render")
    page.wait_for_selector(
        "#sonar-panel[data-state='done'], #sonar-panel[data-state='error']",
        timeout=RENDER_TIMEOUT_MS,
    )
    assert page.get_attribute("#sonar-panel", "data-state") == "done", page.inner_text(
        "#sonar-error"
    )


def _shown_number_equals(shown: str, value: Any) -> bool:
    """Whether the panel's text is the value rounded to 6 significant digits (or as given)."""
    if value is None:
        return shown == "none"
    if isinstance(value, str):
        return shown == value
    if float(value).is_integer():
        return shown == str(int(value))
    return float(shown) == float(f"{value:.6g}")


def _read_report(page) -> dict[str, Any]:
    return page.evaluate(
        """() => {
        const text = (row, sel) => row.querySelector(sel)?.textContent ?? null;
        const figures = {};
        for (const row of document.querySelectorAll("#sonar-report tr[data-figure]")) {
          figures[row.dataset.figure] = {
            number: text(row, ".sonar-number"), unit: text(row, ".sonar-unit-cell"),
            how: row.title,
          };
        }
        const pose = {};
        for (const row of document.querySelectorAll("#sonar-report tr[data-pose]")) {
          pose[row.dataset.pose] = text(row, ".sonar-number");
        }
        const byId = (id) => document.getElementById(id)?.textContent ?? null;
        return {figures, pose, note: byId("sonar-falloff-note"), tier: byId("sonar-report-tier"),
                source: byId("sonar-report-source")};
      }"""
    )


def _assert_report_shown(page, report: dict[str, Any]) -> None:
    shown = _read_report(page)
    assert set(shown["figures"]) == set(report["figures"]), "the whole report must be shown"
    for name, figure in report["figures"].items():
        row = shown["figures"][name]
        assert _shown_number_equals(row["number"], figure["value"]), (name, row, figure)
        assert row["unit"] == ("" if figure["unit"] == "-" else figure["unit"]), (name, row)
        assert row["how"] == figure["how"], name
    assert shown["note"] == report["falloff_note"]
    assert report["report_hash"] in shown["tier"] and "analytic" in shown["tier"]
    for key in ("position_ned_m", "rpy_deg", "sensor_position_ned_m"):
        for i, value in enumerate(report["pose"][key]):
            assert _shown_number_equals(shown["pose"][f"{key}.{i}"], value), (key, i)


def _assert_image_is(page, png: bytes) -> None:
    """The panel shows exactly this PNG: the pixels the browser decoded and draws for the
    <img> (read back through a canvas) are the PNG's own, and the image is on screen."""
    shown = page.evaluate(
        """() => {
        const i = document.getElementById('sonar-image');
        const c = document.createElement('canvas');
        c.width = i.naturalWidth; c.height = i.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(i, 0, 0);
        const data = g.getImageData(0, 0, c.width, c.height).data;
        let text = '';
        for (let k = 0; k < data.length; k += 8192) {
          text += String.fromCharCode.apply(null, data.subarray(k, k + 8192));
        }
        const box = i.getBoundingClientRect();
        return {complete: i.complete, size: [c.width, c.height], rgba: btoa(text),
                onScreen: [box.width, box.height], hidden: i.hidden};
      }"""
    )
    with Image.open(io.BytesIO(png)) as expected:
        rgba = np.asarray(expected.convert("RGBA"))
    assert shown["complete"] and shown["size"] == [rgba.shape[1], rgba.shape[0]]
    assert not shown["hidden"] and min(shown["onScreen"]) > 0
    drawn = np.frombuffer(base64.b64decode(shown["rgba"]), dtype=np.uint8).reshape(rgba.shape)
    np.testing.assert_array_equal(drawn, rgba)


def _fill_typed(page, values: dict[str, str]) -> None:
    page.check("#sonar-source-typed")
    for name, value in values.items():
        page.fill(f"#sonar-{name}", value)
    page.fill("#sonar-seabed-triangles", "2000")
    page.fill("#sonar-elevation-samples", "16")


def test_typed_pose_renders_bscan_and_fan_with_the_whole_report(service, page) -> None:
    open_dashboard(page, service.url)
    _fill_typed(page, TYPED)
    report = _endpoint(service, "/analytic/sonar-image/report.json", TYPED_BODY).json()
    for view in ("bscan", "fan"):
        _render(page, view)
        png = _endpoint(service, f"/analytic/sonar-image/{view}.png", TYPED_BODY).content
        _assert_image_is(page, png)
        _assert_report_shown(page, report)
        assert "typed pose" in page.inner_text("#sonar-report-source")
    page.check("#sonar-show-how")
    assert page.is_visible("#sonar-report tr[data-figure='sound_speed_m_per_s'] .sonar-how")
    page.uncheck("#sonar-show-how")
    path = shot(page, "sonar_panel", selector="#sonar-panel")
    assert path.stat().st_size > 0


def test_world_vehicle_renders_fan_and_bscan_at_its_committed_pose(service, world, page) -> None:
    open_dashboard(page, service.url)
    page.check("#sonar-source-world")
    page.click("#sonar-refresh-worlds")
    page.wait_for_selector(f"#sonar-world option[value='{world.id}']", state="attached")
    page.select_option("#sonar-world", world.id)
    page.wait_for_selector("#sonar-vehicle option[value='auv']", state="attached")
    page.select_option("#sonar-vehicle", "auv")
    page.wait_for_selector("#sonar-sensor option[value='']", state="attached")
    assert "carries no imaging sonar" in page.inner_text("#sonar-world-note")
    assert page.is_disabled("#sonar-render")
    page.select_option("#sonar-vehicle", "survey")
    page.wait_for_selector("#sonar-sensor option[value='sonar']", state="attached")
    page.fill("#sonar-elevation-samples", "16")
    body = {"sensor": "sonar", "elevation_sample_count": 16}
    base = f"/analytic/worlds/{world.id}/vehicles/survey/sonar-image"
    report = _endpoint(service, f"{base}/report.json", body).json()
    assert report["pose"]["source"] == "world" and report["pose"]["tick"] == 3
    for view in ("fan", "bscan"):
        _render(page, view)
        _assert_image_is(page, _endpoint(service, f"{base}/{view}.png", body).content)
        _assert_report_shown(page, report)
        source = page.inner_text("#sonar-report-source")
        assert f"World {world.id}" in source and "tick 3" in source and "t = 0.03 s" in source
    shot(page, "sonar_panel_world", selector="#sonar-panel")


def test_an_invalid_pose_field_is_named_in_plain_words_and_sends_nothing(service, page) -> None:
    open_dashboard(page, service.url)
    analytic: list[str] = []
    page.on("request", lambda r: analytic.append(r.url) if "/analytic/" in r.url else None)
    _fill_typed(page, {**TYPED, "north": "twelve"})
    page.click("#sonar-render")
    page.wait_for_selector("#sonar-error:not([hidden])")
    message = page.inner_text("#sonar-error")
    assert message.startswith('North: "twelve" is not a number.'), message
    assert "metres" in message
    assert analytic == []
    assert page.get_attribute("#sonar-panel", "data-state") == "error"
    assert not page.is_visible("#sonar-image")


def test_a_value_the_service_refuses_is_shown_against_the_panel_field(service, page, watch) -> None:
    watch.allow("status of 422")
    open_dashboard(page, service.url)
    _fill_typed(page, TYPED)
    page.fill("#sonar-seabed-triangles", "1")
    page.click("#sonar-render")
    page.wait_for_selector("#sonar-panel[data-state='error']", timeout=RENDER_TIMEOUT_MS)
    message = page.inner_text("#sonar-error")
    body = {**TYPED_BODY, "scene": {"kind": "survey_demo", "seabed_triangles": 1}}
    refused = httpx.post(service.url + "/analytic/sonar-image/report.json", json=body)
    assert refused.status_code == 422 and refused.json()["field"] == "scene.seabed_triangles"
    expected = refused.json()["expected"]
    assert message.startswith("Seabed triangles: the service refused 1"), message
    assert expected[0].lower() + expected[1:] in message
