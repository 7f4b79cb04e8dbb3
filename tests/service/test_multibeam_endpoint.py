"""``GET /worlds/{id}/multibeam/{vehicle}/{sensor}/soundings`` and ``.../water-column`` over a
real uvicorn: the newest kept ping, beam by beam, equals the ping the World's own step
returned (every channel value exactly, NaN as null, flags decoded from the ping's own
flag table); its water column is that ping's preview PNG; 204 before the first ping and
after a reset; a wrong vehicle or sensor fails in the one error shape naming the field."""

from __future__ import annotations

import io
import math
from typing import Any

import httpx
import numpy as np
import pytest
from mapping_cases import crate_object, mapper_setup, mapper_spec, seabed_environment
from PIL import Image
from service_helpers import ERROR_KEYS

from leviathan.client import ServiceClient
from leviathan.sensors import MultibeamSensor, SensorSample

# The side-scan is there only to be refused as a multibeam; its sparse rays warn.
pytestmark = pytest.mark.filterwarnings("ignore:mapper/side_scan. altitude")

BEAMS = 16
BINS = 120


def _world(client: ServiceClient) -> Any:
    """The mapper with a coarse multibeam (and its side-scan, to be refused here) over the
    seabed and a crate."""
    spec = mapper_spec(
        multibeam={"beam_count": BEAMS, "range_bin_count": BINS, "top_k": 1},
        side_scan={"across_track_sample_count": 64, "along_track_sample_count": 1},
    )
    return client.create_world(
        vehicles=[mapper_setup(spec)],
        environment=seabed_environment(
            "multibeam-endpoint", crate_object((6.0, 4.0, 2.0), (0.0, 8.0, 29.0))
        ),
        step_s="0.05",
    )


def _value(x: Any) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _point(row: Any) -> list[float] | None:
    values = [float(v) for v in row]
    return values if all(math.isfinite(v) for v in values) else None


def _base(url: str, world_id: str, vehicle: str = "mapper", sensor: str = "multibeam") -> str:
    return f"{url}/worlds/{world_id}/multibeam/{vehicle}/{sensor}"


def test_the_soundings_are_the_newest_ping_beam_by_beam(
    service: Any, client: ServiceClient
) -> None:
    world = _world(client)
    base = _base(service.url, world.id)
    assert httpx.get(f"{base}/soundings").status_code == 204
    assert httpx.get(f"{base}/water-column").status_code == 204

    pings = [
        g.samples["mapper/multibeam"] for g in world.step(4) if "mapper/multibeam" in g.samples
    ]
    assert len(pings) == 2 and all(isinstance(p, SensorSample) for p in pings)
    ping = pings[-1]
    response = httpx.get(f"{base}/soundings")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["sensor_id"] == "mapper/multibeam"
    assert body["sample_hash"] == ping.content_hash != pings[0].content_hash
    assert (body["sample_index"], body["time_ns"]) == (ping.sample_index, ping.time_ns)
    flags = dict(ping.metadata["quality_flags"])
    assert body["quality_flags"] == flags
    labels = list(ping.metadata["semantic_labels"])
    ch = ping.channels
    assert [b["beam"] for b in body["beams"]] == list(range(BEAMS))
    for k, beam in enumerate(body["beams"]):
        quality = int(ch["quality"][k])
        truth_semantic = int(ch["truth_semantic"][k])
        assert beam == {
            "beam": k,
            "angle_rad": float(ch["beam_angle_rad"][k]),
            "quality": quality,
            "flags": [name for name, bit in flags.items() if quality & bit],
            "detected_range_m": _value(ch["detection_range_m"][k]),
            "intensity": _value(ch["intensity"][k]),
            "sounding_sensor_m": _point(ch["sounding_sensor_m"][k]),
            "sounding_ned_m": _point(ch["sounding_ned_m"][k]),
            "truth_range_m": _value(ch["truth_range_m"][k]),
            "truth_point_ned_m": _point(ch["truth_point_ned_m"][k]),
            "truth_label": labels[truth_semantic] if truth_semantic >= 0 else None,
            "error_along_beam_m": _value(ch["error_along_beam_m"][k]),
            "error_vertical_m": _value(ch["error_vertical_m"][k]),
        }, k
    # The scene is seen: soundings on the seabed (30 m) and on the crate's top (28 m).
    labels_seen = {b["truth_label"] for b in body["beams"]}
    assert {"seabed", "crate"} <= labels_seen
    detected = [b for b in body["beams"] if "DETECTED" in b["flags"]]
    assert detected and all(b["sounding_ned_m"] is not None for b in detected)
    for b in detected:
        assert abs(b["sounding_ned_m"][2] - b["truth_point_ned_m"][2]) == pytest.approx(
            abs(b["error_vertical_m"]), abs=1e-9
        )

    column = httpx.get(f"{base}/water-column")
    assert column.status_code == 200 and column.headers["content-type"] == "image/png"
    assert column.headers["x-leviathan-sample-hash"] == ping.content_hash
    assert column.content == MultibeamSensor().preview(ping)
    image = np.asarray(Image.open(io.BytesIO(column.content)).convert("RGB"))
    assert image.shape == (BINS, BEAMS, 3)

    world.reset()
    assert httpx.get(f"{base}/soundings").status_code == 204
    assert httpx.get(f"{base}/water-column").status_code == 204


@pytest.mark.parametrize("endpoint", ["soundings", "water-column"])
def test_a_wrong_vehicle_or_sensor_names_the_field(
    service: Any, client: ServiceClient, endpoint: str
) -> None:
    world = _world(client)
    for vehicle, sensor, field, value in (
        ("nobody", "multibeam", "vehicle", "nobody"),
        ("mapper", "side_scan", "sensor", "side_scan"),  # a side-scan, not a multibeam
        ("mapper", "nothing", "sensor", "nothing"),
    ):
        response = httpx.get(f"{_base(service.url, world.id, vehicle, sensor)}/{endpoint}")
        assert response.status_code == 404, response.text
        error = response.json()
        assert set(error) == ERROR_KEYS
        assert (error["field"], error["value"]) == (field, value)
        assert "multibeam" in error["expected"] or "mapper" in error["expected"]
    world.delete()
    gone = httpx.get(f"{_base(service.url, world.id)}/{endpoint}")
    assert gone.status_code in (404, 410) and set(gone.json()) == ERROR_KEYS
