"""The Multibeam panel in a real Chromium against a real service: the pixels it draws
are where its documented mapping puts the ping the World's own step returned (each
sounding in its quality's colour, each axis truth a white cross beside it, each beam's
vertical error a bar of its sign), its water column is that ping's preview PNG pixel for
pixel, and it follows the World as it steps."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import pytest
from browser_helpers import open_dashboard, shot
from mapping_cases import (
    COARSE_MULTIBEAM,
    crate_object,
    mapper_setup,
    mapper_spec,
    seabed_environment,
)
from PIL import Image
from service_helpers import wait_until

from leviathan.client import ServiceClient
from leviathan.sensors import MultibeamSensor

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
    return wait_until(
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
            vehicles=[mapper_setup(mapper_spec(multibeam=COARSE_MULTIBEAM))],
            environment=seabed_environment(
                "multibeam-panel", crate_object((6.0, 4.0, 2.0), (0.0, 8.0, 29.0))
            ),
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
