"""``/analytic`` over a real uvicorn: the posed and World sonar images equal the library's."""

from __future__ import annotations

import io
import json

import httpx
import numpy as np
import pytest
from service_helpers import ERROR_KEYS
from world_cases import seabed_scene, small_survey_spec, survey_setup

from leviathan.analytic import sonar_image
from leviathan.client import ServiceClient
from leviathan.demo import survey_environment

SONAR = small_survey_spec(bearing_count=16, elevation_sample_count=8, range_bin_count=40).sensor(
    "sonar"
)
POSED = {
    "position_ned_m": [-12.0, -8.0, 20.0],
    "rpy_deg": [0.0, 2.0, 30.0],
    "scene": {"kind": "survey_demo", "seabed_triangles": 2000},
    "sonar": SONAR.model_dump(mode="json"),
    "elevation_sample_count": 64,
    "seed": 7,
    "noise": {"speckle": True, "noise_floor_db": -150.0},
}


def _post(service, path: str, body: dict) -> httpx.Response:
    return httpx.post(service.url + path, json=body, timeout=120)


def _in_process():
    from leviathan.sensors import SonarNoiseModel

    env = survey_environment(2000)
    return sonar_image(
        scene=env.scene_at(0),
        spec=SONAR,
        position_ned_m=(-12.0, -8.0, 20.0),
        rpy_deg=(0.0, 2.0, 30.0),
        water=env.water,
        elevation_sample_count=64,
        seed=7,
        noise=SonarNoiseModel(speckle=True, noise_floor_db=-150.0),
    )


def test_posed_report_and_arrays_equal_the_library_call(service) -> None:
    local = _in_process()
    response = _post(service, "/analytic/sonar-image/report.json", POSED)
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["tier"] == "analytic"
    assert report["report_hash"] == local.report.report_hash
    assert report["figures"]["elevation_sample_count"]["value"] == 64
    response = _post(service, "/analytic/sonar-image/arrays.npz", POSED)
    assert response.status_code == 200
    arrays = np.load(io.BytesIO(response.content))
    np.testing.assert_array_equal(arrays["intensity"], local.intensity)
    np.testing.assert_array_equal(arrays["fan_level_db"], local.fan_level_db)


@pytest.mark.parametrize("product", ["fan.png", "bscan.png"])
def test_posed_pngs(service, product: str) -> None:
    response = _post(service, f"/analytic/sonar-image/{product}", POSED)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.content.startswith(b"\x89PNG\r\n\x1a\n")


def test_world_vehicle_image_uses_the_hosted_world_and_changes_nothing(service) -> None:
    with ServiceClient(service.url) as client:
        world = client.create_world(
            vehicles=[survey_setup()], environment=seabed_scene(), step_ns=10_000_000
        )
        try:
            world.step(5)
            before = world.snapshot().content_hash
            path = f"/analytic/worlds/{world.id}/vehicles/survey/sonar-image/report.json"
            response = _post(service, path, {"elevation_sample_count": 16})
            assert response.status_code == 200, response.text
            report = response.json()
            assert report["tier"] == "analytic"
            assert report["pose"]["source"] == "world" and report["pose"]["tick"] == 5
            assert world.snapshot().content_hash == before
            npz = _post(service, path.replace("report.json", "arrays.npz"), {})
            assert npz.status_code == 200
        finally:
            world.delete()


@pytest.mark.parametrize(
    ("path", "body", "status", "field"),
    [
        ("/analytic/sonar-image/picture.gif", POSED, 422, "product"),
        ("/analytic/sonar-image/report.json", {**POSED, "seed": -1}, 422, "seed"),
        ("/analytic/sonar-image/report.json", {**POSED, "extra": 1}, 422, "extra"),
        (
            "/analytic/sonar-image/report.json",
            {**POSED, "sonar": {**POSED["sonar"], "bearing_count": 0}},
            422,
            None,
        ),
        ("/analytic/worlds/nope/vehicles/survey/sonar-image/report.json", {}, 404, None),
    ],
)
def test_errors_have_the_one_shape(service, path, body, status, field) -> None:
    response = _post(service, path, body)
    assert response.status_code == status, response.text
    error = response.json()
    assert set(error) == ERROR_KEYS
    if field is not None:
        assert error["field"] == field


def test_unknown_vehicle_is_404_with_the_one_shape(service) -> None:
    with ServiceClient(service.url) as client:
        world = client.create_world(
            vehicles=[survey_setup()], environment=seabed_scene(), step_ns=10_000_000
        )
        try:
            path = f"/analytic/worlds/{world.id}/vehicles/ghost/sonar-image/report.json"
            response = _post(service, path, {})
            assert response.status_code == 404
            error = response.json()
            assert set(error) == ERROR_KEYS and error["field"] == "vehicle"
            assert json.loads(response.text)["code"] == "not_found"
        finally:
            world.delete()
