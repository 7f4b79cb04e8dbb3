"""The Multibeam panel in a real Chromium against a real service: the pixels it draws
are where its documented mapping puts the ping the World's own step returned (each
sounding in its quality's colour, each axis truth a white cross beside it, each beam's
vertical error a bar of its sign), its water column is that ping's preview PNG pixel for
pixel, and it follows the World as it steps."""

from __future__ import annotations

import io
import math
import time
from typing import Any

import numpy as np
import pytest
from browser_helpers import open_dashboard, shot
from PIL import Image

from leviathan.catalogue import get_vehicle
from leviathan.client import ServiceClient
from leviathan.controllers import Autopilot
from leviathan.frames import Transform
from leviathan.geometry import box_mesh, plane_mesh
from leviathan.materials import get_material
from leviathan.sensors import MultibeamSensor
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.world import Environment, SceneObject, VehicleSetup

pytestmark = pytest.mark.browser

# The panel's documented drawing (multibeam_panel.js), restated here.
WIDTH, HEIGHT, ERROR_HEIGHT, MARGIN = 512, 200, 80, 12
BACKGROUND = (16, 24, 32)
TRUTH = (255, 255, 255)
COLOURS = {
    "detected": (46, 204, 64),
    "footprint": (255, 176, 0),
    "obstructed": (220, 60, 220),
    "missing": (224, 48, 48),
}
DEEP, SHALLOW = (255, 96, 64), (64, 160, 255)


def _mapper() -> VehicleSpec:
    doc = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["kind"] == "multibeam"]
    doc["sensors"][0].update(beam_count=16, range_bin_count=120, top_k=1)
    return spec_from_dict(doc, VehicleSpec)


def _environment() -> Environment:
    seabed = SceneObject(
        "seabed",
        plane_mesh(120.0, 120.0),
        Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 30.0)),
        "seabed",
        get_material("test_lambert_medium"),
    )
    crate = SceneObject(
        "crate",
        box_mesh((6.0, 4.0, 2.0)),
        Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 8.0, 29.0)),
        "crate",
        get_material("test_lambert_bright"),
    )
    return Environment(objects=(seabed, crate), name="multibeam-panel")


def _wait(predicate: Any, what: str, timeout_s: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _pings(groups: list) -> list:
    return [g.samples["mapper/multibeam"] for g in groups if "mapper/multibeam" in g.samples]


def _round(x: float) -> int:
    return math.floor(x + 0.5)  # JavaScript's Math.round


def _kind(ping: Any, k: int, flags: dict[str, int]) -> str:
    quality = int(ping.channels["quality"][k])
    if not np.isfinite(ping.channels["sounding_ned_m"][k]).all():
        return "missing"
    if quality & (flags["SEA_SURFACE"] | flags["MOVING_BODY"]):
        return "obstructed"
    if quality & (flags["NONPLANAR_FOOTPRINT"] | flags["MIXED_FOOTPRINT"]):
        return "footprint"
    return "detected"


def _drawn_hash(page: Any, sample_hash: str) -> Any:
    return _wait(
        lambda: (
            (d := page.evaluate("window.leviathanTest.multibeamDrawn()"))["sampleHash"]
            == sample_hash
            and d["waterColumnHash"] == sample_hash
            and d
        ),
        f"the panel to draw ping {sample_hash[:12]}",
    )


def test_the_panel_draws_the_ping_the_world_returned(page: Any, service: Any) -> None:
    with ServiceClient(service.url) as client:
        world = client.create_world(
            vehicles=[
                VehicleSetup(
                    "mapper",
                    _mapper(),
                    Autopilot(speed_m_per_s=1.0, depth_m=20.0, heading_rad=0.0),
                    position_ned_m=(0.0, 0.0, 20.0),
                )
            ],
            environment=_environment(),
            step_s="0.05",
        )
        ping = _pings(world.step(4))[-1]
        open_dashboard(page, service.url)
        page.select_option("[data-role=world-select]", world.id)
        drawn = _drawn_hash(page, ping.content_hash)
        assert drawn["sensor"] == "mapper/multibeam" and drawn["beams"] == 16

        ch = ping.channels
        flags = dict(ping.metadata["quality_flags"])
        angles = [float(a) for a in ch["beam_angle_rad"]]
        depths = [
            float(p[2])
            for name in ("sounding_ned_m", "truth_point_ned_m")
            for p in ch[name]
            if np.isfinite(p).all()
        ]
        a0, a1, z0, z1 = angles[0], angles[-1], min(depths), max(depths)
        assert z1 - z0 >= 1.0  # the crate's top stands 2 m above the seabed
        assert drawn["mapping"] == {
            "a0": a0, "a1": a1, "z0": z0, "z1": z1,
            "margin": MARGIN, "width": WIDTH, "height": HEIGHT,
        }  # fmt: skip

        def x_of(angle: float) -> int:
            return MARGIN + _round((angle - a0) / (a1 - a0) * (WIDTH - 2 * MARGIN))

        def y_of(z: float) -> int:
            return MARGIN + _round((z - z0) / (z1 - z0) * (HEIGHT - 2 * MARGIN))

        profile = np.array(page.evaluate("window.leviathanTest.multibeamPixels('profile')"))
        assert profile.shape == (HEIGHT, WIDTH, 3)
        assert tuple(profile[0, 0]) == BACKGROUND
        kinds = []
        for k, angle in enumerate(angles):
            kind = _kind(ping, k, flags)
            kinds.append(kind)
            x = x_of(angle)
            if kind == "missing":
                assert tuple(profile[HEIGHT - 6, x]) == COLOURS["missing"], k
            else:
                y = y_of(float(ch["sounding_ned_m"][k][2]))
                corners = {tuple(profile[y + dy, x + dx]) for dy in (-1, 1) for dx in (-1, 1)}
                assert COLOURS[kind] in corners, (k, kind, corners)
            truth = ch["truth_point_ned_m"][k]
            if np.isfinite(truth).all():
                ty = y_of(float(truth[2]))
                for px, py in ((x - 3, ty), (x + 3, ty), (x, ty - 3), (x, ty + 3)):
                    assert tuple(profile[py, px]) == TRUTH, (k, px, py)
        assert "detected" in kinds and "footprint" in kinds  # the crate's edges

        errors = [float(e) for e in ch["error_vertical_m"]]
        finite = [abs(e) for e in errors if math.isfinite(e)]
        assert drawn["errorScale"] == max(finite) > 0
        bars = np.array(page.evaluate("window.leviathanTest.multibeamPixels('error')"))
        assert bars.shape == (ERROR_HEIGHT, WIDTH, 3)
        mid = ERROR_HEIGHT // 2
        for angle, e in zip(angles, errors, strict=True):
            if not math.isfinite(e) or _round(abs(e) / max(finite) * (mid - 2)) == 0:
                continue
            x = x_of(angle)
            if e > 0:
                assert tuple(bars[mid + 1, x]) == DEEP
            else:
                assert tuple(bars[mid - 1, x]) == SHALLOW

        water = np.array(page.evaluate("window.leviathanTest.multibeamPixels('water')"))
        expected = np.asarray(
            Image.open(io.BytesIO(MultibeamSensor().preview(ping))).convert("RGB")
        )
        assert water.shape == (120, 16, 3)
        np.testing.assert_array_equal(water, expected)
        shot(page, "multibeam_panel", selector="#multibeam-panel")

        # Stepping the World through the API (not the page) reaches the panel live.
        later = _pings(world.step(4))
        assert later and later[-1].content_hash != ping.content_hash
        _drawn_hash(page, later[-1].content_hash)
        detected = int(np.isfinite(later[-1].channels["sounding_ned_m"]).all(axis=1).sum())
        status = page.inner_text("[data-role=multibeam-status]")
        assert f"{detected} of 16 beams detected" in status, status
