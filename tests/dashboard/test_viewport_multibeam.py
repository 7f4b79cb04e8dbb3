"""The Viewport draws a multibeam's swath fan from its declared footprint (real Chromium)."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import open_dashboard

from leviathan.catalogue import get_vehicle
from leviathan.client import ServiceClient
from leviathan.controllers import Autopilot
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.materials import get_material
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.world import Environment, SceneObject, VehicleSetup

pytestmark = pytest.mark.browser


def _mapper() -> VehicleSpec:
    """The mapping AUV with only its multibeam, coarse enough to step cheaply."""
    doc = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["kind"] == "multibeam"]
    doc["sensors"][0].update(beam_count=16, range_bin_count=120, top_k=1)
    return spec_from_dict(doc, VehicleSpec)


def test_the_viewport_draws_the_multibeam_swath(page: Any, service: Any) -> None:
    seabed = SceneObject(
        "seabed",
        plane_mesh(120.0, 120.0),
        Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 30.0)),
        "seabed",
        get_material("test_lambert_medium"),
    )
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
            environment=Environment(objects=(seabed,), name="multibeam-viewport"),
            step_s="0.05",
        )
        world_id = world.id
    open_dashboard(page, service.url)
    page.select_option("[data-role=world-select]", world_id)
    page.wait_for_function(f"window.leviathanTest.worldPanelWorld() === {world_id!r}")
    page.click("#world-panel [data-action=viewport]")
    page.wait_for_function(
        f"(() => {{ const p = window.leviathanTest.viewportPoses();"
        f" return p.worldId === {world_id!r} && p.tick !== null; }})()"
    )
    drawn = page.evaluate("window.leviathanTest.viewportDrawn()")
    parts = {s["id"]: s["parts"] for s in drawn["vehicles"]["mapper"]["sensors"]}
    assert parts == {"mapper/multibeam": ["mapper/multibeam axes", "multibeam-swath"]}
    legend = page.inner_text("#viewport-panel")
    assert "orange: multibeam swath" in legend
