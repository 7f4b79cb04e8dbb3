"""The Viewport draws a multibeam's swath fan from its declared footprint, and its latest
ping's soundings as points coloured by their vertical error (real Chromium)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from browser_helpers import open_dashboard, open_viewport, show_in_viewport
from mapping_cases import COARSE_MULTIBEAM, mapper_setup, mapper_spec, seabed_environment

from leviathan.client import ServiceClient

pytestmark = pytest.mark.browser


def test_the_viewport_draws_the_multibeam_swath(page: Any, service: Any) -> None:
    with ServiceClient(service.url) as client:
        world = client.create_world(
            vehicles=[mapper_setup(mapper_spec(multibeam=COARSE_MULTIBEAM))],
            environment=seabed_environment("multibeam-viewport"),
            step_s="0.05",
        )
    show_in_viewport(page, service.url, world.id)
    drawn = page.evaluate("window.leviathanTest.viewportDrawn()")
    parts = {s["id"]: s["parts"] for s in drawn["vehicles"]["mapper"]["sensors"]}
    assert parts == {"mapper/multibeam": ["mapper/multibeam axes", "multibeam-swath"]}
    legend = page.inner_text("#viewport-panel")
    assert "orange: multibeam swath" in legend


# The Viewport's documented soundings colour (viewport_soundings.js), restated here.
SATURATION_M = 0.25


def _colour(error: float) -> tuple[int, int, int]:
    t = max(-1.0, min(1.0, error / SATURATION_M))
    fade = math.floor(255 * (1 - abs(t)) + 0.5)
    return (255, fade, fade) if t >= 0 else (fade, fade, 255)


def test_the_viewport_draws_the_latest_soundings_coloured_by_error(page: Any, service: Any) -> None:
    with ServiceClient(service.url) as client:
        world = client.create_world(
            vehicles=[mapper_setup(mapper_spec(multibeam=COARSE_MULTIBEAM))],
            environment=seabed_environment("multibeam-soundings", pitch_rad=0.15),
            step_s="0.05",
        )
        world_id = world.id
        ping = [g.samples["mapper/multibeam"] for g in world.step(4) if g.samples][-1]
        open_dashboard(page, service.url)
        open_viewport(page, world_id)
        page.wait_for_function(
            "(() => { const s = window.leviathanTest.viewportSoundings()['mapper/multibeam'];"
            f" return s && s.sampleHash === {ping.content_hash!r}; }})()"
        )
        drawn = page.evaluate("window.leviathanTest.viewportSoundings()")["mapper/multibeam"]
        ch = ping.channels
        expected = [
            {
                "beam": k,
                "ned": [float(v) for v in ch["sounding_ned_m"][k]],
                "error": float(ch["error_vertical_m"][k]),
                "rgb": list(_colour(float(ch["error_vertical_m"][k]))),
            }
            for k in range(ch["quality"].shape[0])
            if np.isfinite(ch["sounding_ned_m"][k]).all()
            and math.isfinite(ch["error_vertical_m"][k])
        ]
        assert len(expected) >= 12 and drawn["points"] == expected
        # The tilted seabed across the swath makes errors of both signs and sizes.
        assert len({tuple(p["rgb"]) for p in expected}) >= 4

        # What WebGL draws at each sounding's NED point is its colour (points far enough
        # apart on screen that no neighbour covers its centre).
        seen = []
        for point in expected:
            north, east, down = point["ned"]
            at = page.evaluate(f"window.leviathanTest.viewportPixelAt({north}, {east}, {down})")
            if at["inView"]:
                seen.append((point, at))
        alone = [
            (p, a)
            for p, a in seen
            if all(
                max(abs(a["x"] - b["x"]), abs(a["y"] - b["y"])) > 8 for q, b in seen if q is not p
            )
        ]
        assert len(alone) >= 6, (len(seen), len(alone))
        for point, at in alone:
            assert all(
                abs(c - e) <= 3 for c, e in zip(at["pixel"][:3], point["rgb"], strict=True)
            ), (
                point,
                at,
            )
        legend = page.inner_text("#viewport-panel")
        assert "soundings: white on the truth, red too deep, blue too shallow" in legend

        # A reset leaves no ping: the points go.
        world.reset()
        page.wait_for_function(
            "(() => { const s = window.leviathanTest.viewportSoundings()['mapper/multibeam'];"
            " return s && s.sampleHash === null && s.points.length === 0; })()"
        )
