"""The Viewport in a real Chromium against a real service: it opens on "Show in Viewport",
draws the World where the API says it is (read back from the rendered three.js objects,
and from the WebGL drawing buffer's pixels at the API's position), follows it live while
it plays, and its follow camera rides with the vehicle.

Tolerance. three.js keeps object poses in float64 on the page, but the GPU draws them in
float32, and the read-back goes through a matrix product and an Euler extraction; the
rendered pose must equal the API's within float32 display precision: positions within
``4 * 2**-24 * max(1 m, |x|)`` (four float32 half-ulps of the coordinate) and angles
within ``4 * 2**-24`` rad (about 1.4e-5 degrees).
"""

from __future__ import annotations

import math
from typing import Any

import httpx
import numpy as np
import pytest
from browser_helpers import DELETED_WORLD_READ, open_dashboard, shot, show_in_viewport
from service_helpers import wait_until
from world_cases import autopilot_setup

from leviathan.catalogue import get_vehicle
from leviathan.client import ServiceClient
from leviathan.controllers import DirectThrust
from leviathan.frames import Transform
from leviathan.geometry import box_mesh, seabed_mesh
from leviathan.materials import get_material
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.world import Environment, SceneObject, VehicleSetup

pytestmark = pytest.mark.browser

F32 = 2.0**-24
ANGLE_TOL_DEG = math.degrees(4 * F32)
FOLLOW_BEHIND_M = 9.0  # viewport.js FOLLOW_BEHIND_M
FOLLOW_ABOVE_M = 4.0  # viewport.js FOLLOW_ABOVE_M
TICKS_PER_STEP = 20  # the World panel's Step button


def _cheap_survey_spec() -> VehicleSpec:
    """The reference survey vehicle with its sonar's field of view intact but few rays
    (stepping stays cheap), plus its DVL and IMU."""
    doc = get_vehicle("reference_survey_vehicle").model_dump(mode="json")
    for sensor in doc["sensors"]:
        if sensor["kind"] == "imaging_sonar":
            sensor.update(bearing_count=32, elevation_sample_count=4, range_bin_count=64)
    return spec_from_dict(doc, VehicleSpec)


def _hull_less_spec() -> VehicleSpec:
    """A vehicle without a hull, with its IMU and a small forward camera (90 deg HFOV,
    32 x 18 px so its frames stay cheap), tilted 20 deg down."""
    doc = get_vehicle("reference_survey_vehicle").model_dump(mode="json")
    doc.pop("hull")
    doc["sensors"] = [s for s in doc["sensors"] if s["kind"] == "imu"]
    doc["sensors"].append(
        {
            "kind": "camera",
            "name": "camera",
            "width_px": 32,
            "height_px": 18,
            "fx_px": 16.0,
            "fy_px": 16.0,
            "cx_px": 15.5,
            "cy_px": 8.5,
            "near_m": 0.05,
            "far_m": 8.0,
            "schedule": {"period_ns": 100_000_000, "phase_ns": 0},
            "mount": {"translation_m": [0.4, 0.0, 0.0], "rpy_deg": [0.0, -20.0, 0.0]},
            "hardware_note": "test camera, not a device specification",
        }
    )
    return spec_from_dict(doc, VehicleSpec)


def _environment() -> Environment:
    seabed = SceneObject(
        "seabed",
        seabed_mesh(
            triangle_count=4000,
            size_m=(120.0, 120.0),
            mean_depth_m=18.0,
            relief_m=3.0,
            seed=7,
            origin=(-40.0, -60.0),
        ),
        Transform.identity(),
        "seabed",
        get_material("test_lambert_medium"),
    )
    target = SceneObject(
        "target",
        box_mesh((2.0, 1.0, 1.0)),
        Transform.from_euler(0.0, 0.0, 0.4, translation=(25.0, 12.0, 15.0)),
        "target",
        get_material("test_lambert_bright"),
    )
    return Environment(objects=(seabed, target), name="viewport-test")


def _create_world(service: Any, token: str | None = None) -> str:
    bare = _hull_less_spec()
    with ServiceClient(service.url, token) as client:
        world = client.create_world(
            vehicles=[
                autopilot_setup(
                    "auv",
                    _cheap_survey_spec(),
                    speed_m_per_s=1.5,
                    depth_m=8.0,
                    heading_rad=0.6,
                    position_ned_m=(0.0, 0.0, 3.0),
                    rpy_rad=(0.0, 0.0, 0.5),
                ),
                VehicleSetup(
                    "bare",
                    bare,
                    DirectThrust([2.0] + [0.0] * (len(bare.thrusters) - 1)),
                    position_ned_m=(-6.0, 5.0, 6.0),
                ),
            ],
            environment=_environment(),
            step_s="0.05",
        )
        return world.id


def _poses(page: Any) -> dict:
    return page.evaluate("window.leviathanTest.viewportPoses()")


def _camera(page: Any) -> dict:
    return page.evaluate("window.leviathanTest.viewportCamera()")


def _api_state(service: Any, world_id: str) -> dict:
    return httpx.get(f"{service.url}/worlds/{world_id}/state", timeout=30).json()["state"]


def _angle_diff_deg(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _assert_rendered_equals_api(rendered: dict, state: dict) -> None:
    assert rendered["tick"] == state["tick"]
    assert set(rendered["vehicles"]) == set(state["vehicles"])
    for name, api in state["vehicles"].items():
        pose = rendered["vehicles"][name]
        for key, value in zip(("north", "east", "down"), api["position_ned_m"], strict=True):
            tol = 4 * F32 * max(1.0, abs(value))
            assert abs(pose[key] - value) <= tol, (name, key, pose[key], value)
        for key, rad in (
            ("roll_deg", "roll_rad"),
            ("pitch_deg", "pitch_rad"),
            ("yaw_deg", "yaw_rad"),
        ):
            diff = _angle_diff_deg(pose[key], math.degrees(api[rad]))
            assert diff <= ANGLE_TOL_DEG, (name, key, pose[key], math.degrees(api[rad]))


def _show(page: Any, service: Any, world_id: str, token: str | None = None) -> None:
    show_in_viewport(page, service.url, world_id, token=token)


def _wait_tick(page: Any, tick: int) -> dict:
    return wait_until(
        lambda: (p := _poses(page))["tick"] == tick and p, f"the Viewport to show tick {tick}"
    )


def _wait_trails(page: Any, points: int) -> None:
    """Waits until both vehicles' trails hold ``points`` points (one per tick)."""
    expected = {"auv": points, "bare": points}
    wait_until(
        lambda: page.evaluate("window.leviathanTest.viewportTrails()") == expected,
        f"each trail to hold {points} points",
    )


def _follow_offset_ok(camera: dict, vehicle: dict) -> bool:
    yaw = math.radians(vehicle["yaw_deg"])
    expected = (
        vehicle["north"] - FOLLOW_BEHIND_M * math.cos(yaw),
        vehicle["east"] - FOLLOW_BEHIND_M * math.sin(yaw),
        vehicle["down"] - FOLLOW_ABOVE_M,
    )
    got = (camera["position"]["north"], camera["position"]["east"], camera["position"]["down"])
    return all(abs(g - e) <= 1e-6 for g, e in zip(got, expected, strict=True))


def test_viewport_shows_the_world_where_the_api_says(page: Any, service: Any) -> None:
    world_id = _create_world(service)
    _show(page, service, world_id)
    assert page.inner_text("#viewport-world") == world_id
    camera = _camera(page)
    assert camera["webgl"], "WebGL is unavailable: the Viewport cannot draw"
    # Tick 0: every vehicle where the API puts it, the hull-less one included.
    _assert_rendered_equals_api(_wait_tick(page, 0), _api_state(service, world_id))

    # Step 20 from the World panel: one commit of 20 ticks, pushed over the stream.
    page.click("#world-panel [data-action=step]")
    rendered = _wait_tick(page, TICKS_PER_STEP)
    _assert_rendered_equals_api(rendered, _api_state(service, world_id))
    # The 20 ticks between pushed states come from /track: the trail holds every tick.
    _wait_trails(page, TICKS_PER_STEP + 1)
    for name in ("auv", "bare"):
        track = httpx.get(
            f"{service.url}/worlds/{world_id}/track", params={"vehicle": name}, timeout=30
        ).json()
        drawn = np.asarray(page.evaluate(f"window.leviathanTest.viewportTrail({name!r})"))
        # The trail's vertices are the track's positions rounded to float32, exactly.
        expected = np.asarray(track["position_ned_m"], dtype=np.float64).astype(np.float32)
        assert drawn.shape == expected.shape == (TICKS_PER_STEP + 1, 3)
        np.testing.assert_array_equal(drawn.astype(np.float32), expected)
    hud = page.inner_text("#viewport-hud")
    state = _api_state(service, world_id)
    north, east, down = state["vehicles"]["auv"]["position_ned_m"]
    assert f"N {north:.3f} m" in hud and f"E {east:.3f} m" in hud and f"D {down:.3f} m" in hud
    assert f"tick {TICKS_PER_STEP}" in hud and "t 1.000000000 s" in hud

    wait_until(lambda: _camera(page)["frames"] > camera["frames"], "a frame to be drawn")
    shot(page, "viewport", selector="#viewport-panel")


def test_viewport_follows_the_world_while_it_plays(page: Any, service: Any) -> None:
    world_id = _create_world(service)
    _show(page, service, world_id)
    page.select_option("#world-panel [data-role=play-mode]", "realtime")
    page.click("#world-panel [data-action=play]")
    seen: set[int] = set()
    positions: set[tuple[float, float]] = set()

    def moving() -> bool:
        p = _poses(page)
        seen.add(p["tick"])
        positions.add((p["vehicles"]["auv"]["north"], p["vehicles"]["auv"]["east"]))
        return len(seen) >= 5 and len(positions) >= 5

    wait_until(moving, "the Viewport to update while the World plays")
    # The click must reach the service as one POST .../pause answered 200 (which
    # returns once Play has stopped): a failure here says which part did not happen.
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith(f"/worlds/{world_id}/pause"),
        timeout=30_000,
    ) as paused:
        page.click("#world-panel [data-action=pause]")
    assert paused.value.status == 200, paused.value.text()
    assert paused.value.json()["playing"] is False, paused.value.json()
    status = wait_until(
        lambda: (
            (s := httpx.get(f"{service.url}/worlds/{world_id}/play").json())["playing"] is False
            and s
        ),
        "Play to stop",
    )
    assert status["stopped_reason"] == "paused"
    state = _api_state(service, world_id)
    _assert_rendered_equals_api(_wait_tick(page, state["tick"]), state)
    _wait_trails(page, state["tick"] + 1)

    # Reset goes back to tick 0: the poses and the trail follow.
    page.click("#world-panel [data-action=reset]")
    _assert_rendered_equals_api(_wait_tick(page, 0), _api_state(service, world_id))
    _wait_trails(page, 1)


def test_follow_camera_moves_with_the_vehicle(page: Any, service: Any) -> None:
    world_id = _create_world(service)
    _show(page, service, world_id)
    page.select_option("#viewport-vehicle", "auv")
    page.select_option("#viewport-camera-mode", "follow")
    before_pose = _wait_tick(page, 0)["vehicles"]["auv"]
    before = _camera(page)
    assert before["mode"] == "follow" and before["vehicle"] == "auv"
    assert _follow_offset_ok(before, before_pose)

    page.click("#world-panel [data-action=step]")
    after_pose = _wait_tick(page, TICKS_PER_STEP)["vehicles"]["auv"]
    after = _camera(page)
    assert _follow_offset_ok(after, after_pose)
    moved = math.dist(
        [before["position"][k] for k in ("north", "east", "down")],
        [after["position"][k] for k in ("north", "east", "down")],
    )
    travelled = math.dist(
        [before_pose[k] for k in ("north", "east", "down")],
        [after_pose[k] for k in ("north", "east", "down")],
    )
    assert travelled > 0.1 and moved > 0.1
    assert after["target"] == pytest.approx(
        {k: after_pose[k] for k in ("north", "east", "down")}, abs=1e-9
    )
    # What WebGL draws where the API puts the vehicle: its hull (the pixel changes when
    # the vehicle alone is hidden), in the middle of the follow camera's view.
    north, east, down = _api_state(service, world_id)["vehicles"]["auv"]["position_ned_m"]
    seen = page.evaluate(f"window.leviathanTest.viewportPixelAt({north}, {east}, {down}, 'auv')")
    assert seen["inView"], seen
    assert seen["pixel"] != seen["without"], seen
    shot(page, "viewport-follow", selector="#viewport-panel")


def test_the_display_conversion_is_a_rotation_with_up_for_up(page: Any, service: Any) -> None:
    open_dashboard(page, service.url)
    frames = page.evaluate(
        """async () => {
          const f = await import("./viewport_frames.js");
          const v = (x) => [x.x, x.y, x.z];
          return {
            det: f.nedRootMatrix().determinant(),
            north: v(f.nedToDisplay(1, 0, 0)),
            east: v(f.nedToDisplay(0, 1, 0)),
            up: v(f.nedToDisplay(0, 0, -1)),
            back: f.displayToNed(f.nedToDisplay(3.5, -2.25, 7.125)),
          };
        }"""
    )
    # A proper rotation (no mirror image), and NED's up is three.js's up (+y).
    assert frames["det"] == 1
    assert frames["up"] == [0, 1, 0]
    # North x east = down in NED, so in display axes north x east must be -up.
    n, e = frames["north"], frames["east"]
    cross = [n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]]
    assert cross == [0, -1, 0]
    assert frames["back"] == {"north": 3.5, "east": -2.25, "down": 7.125}


def test_a_deleted_world_leaves_the_viewport_with_a_plain_message(
    page: Any, service: Any, watch: Any
) -> None:
    watch.allow(DELETED_WORLD_READ)
    world_id = _create_world(service)
    _show(page, service, world_id)
    assert httpx.delete(f"{service.url}/worlds/{world_id}", timeout=30).status_code == 204
    page.wait_for_selector(f"#viewport-status:has-text('World {world_id} is no longer open')")
    assert _poses(page) == {"worldId": None, "tick": None, "vehicles": {}}


def test_the_scene_graph_holds_the_worlds_geometry_and_follows_an_edit(
    page: Any, service: Any
) -> None:
    world_id = _create_world(service)
    _show(page, service, world_id)
    drawn = page.evaluate("window.leviathanTest.viewportDrawn()")
    assert drawn["objects"] == ["seabed", "target"]
    auv, bare = drawn["vehicles"]["auv"], drawn["vehicles"]["bare"]
    assert auv["hull"] and not auv["marker"]
    assert bare["marker"] and not bare["hull"]
    parts = {s["id"]: s["parts"] for s in auv["sensors"]}
    assert set(parts) == {"auv/sonar", "auv/dvl", "auv/imu", "auv/pressure"}
    assert parts["auv/sonar"] == ["auv/sonar axes", "sonar-fan", "sonar-volume"]
    assert parts["auv/dvl"] == ["auv/dvl axes", "dvl-beams"]
    assert parts["auv/imu"] == ["auv/imu axes"]
    assert parts["auv/pressure"] == ["auv/pressure axes"]
    bare_parts = {s["id"]: s["parts"] for s in bare["sensors"]}
    assert bare_parts == {
        "bare/imu": ["bare/imu axes"],
        "bare/camera": ["bare/camera axes", "camera-frustum"],
    }

    # An edit through the API (not the page) reaches the Viewport over the stream.
    edited = Environment(objects=_environment().objects[:1], name="edited")
    with ServiceClient(service.url) as client:
        client.world(world_id).edit(environment=edited)
    wait_until(
        lambda: page.evaluate("window.leviathanTest.viewportDrawn()")["objects"] == ["seabed"],
        "the Viewport to drop the removed target",
    )


def test_with_a_token_the_viewport_streams_with_it(page: Any, service_factory: Any) -> None:
    token = "viewport-test-token"
    service = service_factory(token=token)
    world_id = _create_world(service, token)
    _show(page, service, world_id, token=token)
    headers = {"Authorization": f"Bearer {token}"}
    state = httpx.get(f"{service.url}/worlds/{world_id}/state", headers=headers).json()["state"]
    _assert_rendered_equals_api(_wait_tick(page, 0), state)
    page.click("#world-panel [data-action=step]")
    state = wait_until(
        lambda: (
            (s := httpx.get(f"{service.url}/worlds/{world_id}/state", headers=headers).json())[
                "state"
            ]["tick"]
            == TICKS_PER_STEP
            and s["state"]
        ),
        "the step to commit",
    )
    _assert_rendered_equals_api(_wait_tick(page, TICKS_PER_STEP), state)
