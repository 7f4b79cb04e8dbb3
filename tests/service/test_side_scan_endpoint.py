"""POST /side-scan/waterfall: a catalogue side-scan's straight track from a typed pose,
as the waterfall PNG the library draws of render_track's lines, bounded and strict."""

from __future__ import annotations

import io

import httpx
import numpy as np
import pytest
from PIL import Image
from service_helpers import ERROR_KEYS

from leviathan.catalogue import get_vehicle
from leviathan.demo import survey_environment
from leviathan.side_scan import render_track
from leviathan.side_scan.display import ground_range_waterfall, waterfall

# The survey scene is built coarse here; the catalogue side-scan is sparse over it.
pytestmark = pytest.mark.filterwarnings("ignore:reference_mapping_auv/side_scan. altitude")

SENSOR = "reference_mapping_auv/side_scan"
BODY = {
    "position_ned_m": [-20.0, 4.0, 20.0],
    "rpy_deg": [0.0, 0.0, 10.0],
    "speed_m_per_s": 2.0,
    "ping_count": 5,
    "scene": {"kind": "survey_demo", "seabed_triangles": 2000},
}


def _expected_lines(**over) -> tuple:
    body = {**BODY, **over}
    env = survey_environment(body["scene"]["seabed_triangles"])
    return render_track(
        env.scene_at(0),
        get_vehicle("reference_mapping_auv").sensor("side_scan"),
        position_ned_m=body["position_ned_m"],
        rpy_deg=body["rpy_deg"],
        speed_m_per_s=body["speed_m_per_s"],
        ping_count=body["ping_count"],
        water=env.water,
        seed=0,
        sensor_id=SENSOR,
    )


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("view", ["slant_range", "ground_range"])
def test_the_posed_waterfall_is_the_librarys_of_the_same_track(service, view: str) -> None:
    response = httpx.post(f"{service.url}/side-scan/waterfall", json={**BODY, "view": view})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/png"
    lines = _expected_lines()
    expected = (waterfall if view == "slant_range" else ground_range_waterfall)(lines)
    assert response.headers["x-leviathan-display-hash"] == expected.display_hash
    assert response.headers["x-leviathan-lines"] == "5"
    assert response.headers["x-leviathan-newest-line"] == lines[-1].content_hash
    pixels = _pixels(response.content)
    assert pixels.shape == (5, 800, 3)
    np.testing.assert_array_equal(pixels, expected.pixels)


def test_the_default_request_is_a_catalogue_sensor_over_the_survey_scene(service) -> None:
    response = httpx.post(f"{service.url}/side-scan/waterfall", json={"ping_count": 2}, timeout=60)
    assert response.status_code == 200, response.text
    assert response.headers["x-leviathan-lines"] == "2"
    assert _pixels(response.content).max() > 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"ping_count": 129}, "ping_count"),
        ({"ping_count": 0}, "ping_count"),
        ({"ping_count": 4.0}, "ping_count"),
        ({"speed_m_per_s": True}, "speed_m_per_s"),
        ({"speed_m_per_s": 11.0}, "speed_m_per_s"),
        ({"sensor": "reference_survey_vehicle/sonar"}, "sensor"),
        ({"position_ned_m": [0.0, 0.0]}, "position_ned_m"),
        ({"position_ned_m": [0.0, 0.0, 1e6]}, "position_ned_m[2]"),
        ({"rpy_deg": [0.0, 720.0, 0.0]}, "rpy_deg[1]"),
        ({"scene": {"kind": "survey_demo", "seabed_triangles": 2_000_000}}, "scene"),
        ({"view": "fan"}, "view"),
        ({"spec": {}}, "spec"),
    ],
)
def test_bad_requests_are_refused_in_the_one_error_shape(service, change, field) -> None:
    response = httpx.post(f"{service.url}/side-scan/waterfall", json={**BODY, **change})
    assert response.status_code == 422, response.text
    error = response.json()
    assert set(error) == ERROR_KEYS and error["code"] == "invalid"
    assert error["field"].startswith(field)


def test_the_schema_states_the_bounds_and_the_catalogue_sensors(service) -> None:
    schema = httpx.get(f"{service.url}/openapi.json").json()
    operation = schema["paths"]["/side-scan/waterfall"]["post"]
    assert "image/png" in operation["responses"]["200"]["content"]
    assert {"400", "413", "422"} <= set(operation["responses"])
    model = schema["components"]["schemas"]["PosedWaterfallRequest"]
    assert model["additionalProperties"] is False
    fields = model["properties"]
    assert (fields["ping_count"]["minimum"], fields["ping_count"]["maximum"]) == (1, 128)
    assert fields["speed_m_per_s"]["maximum"] == 10.0
    # One catalogue side-scan: pydantic states a one-member Literal as a const.
    assert fields["sensor"].get("enum", [fields["sensor"].get("const")]) == [SENSOR]
    assert fields["position_ned_m"]["items"]["maximum"] == 100_000.0
    scene = schema["components"]["schemas"]["SurveyScene"]["properties"]
    assert scene["seabed_triangles"]["maximum"] == 1_000_000
