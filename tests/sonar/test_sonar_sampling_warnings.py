"""``render`` says when a ping cannot show what was asked: elevation sampling below the fill
rule over the surface it sees, or a pose inside geometry (SonarSamplingWarning)."""

from __future__ import annotations

import math
import warnings

import pytest

from leviathan import Transform
from leviathan.analytic import elevation_samples_for_fill
from leviathan.catalogue import get_vehicle
from leviathan.demo import survey_environment
from leviathan.frames import sensor_pose
from leviathan.geometry import box_mesh
from leviathan.scene import Instance, Scene
from leviathan.sonar import SonarSamplingWarning, render


@pytest.fixture(scope="module")
def scene() -> Scene:
    return survey_environment(2000).scene_at(0)


def _sonar(elevations: int):
    # The catalogue survey sonar, smaller in bearings and range bins (a quick ping).
    return (
        get_vehicle("reference_survey_vehicle")
        .sensor("sonar")
        .replace(bearing_count=32, range_bin_count=128, elevation_sample_count=elevations)
    )


def _ping(scene: Scene, spec, depth_m: float, **kw):
    body = Transform.from_euler(0.0, 0.0, 0.0, translation=(-12.0, -8.0, depth_m))
    pose = sensor_pose(body, spec.mount.transform())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = render(
            scene, spec, pose, sensor_id="auv/sonar", sample_index=0, time_ns=0,
            backend="reference", **kw,
        )  # fmt: skip
    return frame, [w for w in caught if issubclass(w.category, SonarSamplingWarning)]


def test_too_few_elevations_for_the_window_are_named_with_the_count_the_rule_asks(
    scene,
) -> None:
    _, caught = _ping(scene, _sonar(16), 20.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("auv/sonar: elevation_sample_count 16 cannot fill the range window")
    # The count it names is the analytic tier's rule (f = 1) at the distance it names.
    h = float(message.split("(about ")[1].split(" m away")[0])
    wanted = elevation_samples_for_fill(_sonar(16), plane_distance_m=h, bin_fraction=1.0)
    assert f"asks for about {wanted} elevation samples" in message
    assert wanted > 16


def test_enough_elevations_give_no_warning(scene) -> None:
    # At 20 m depth the seabed is about 8.3 m below the tilted sonar: the rule's count
    # there (f = 1) is well under 512.
    needed = elevation_samples_for_fill(_sonar(2), plane_distance_m=8.0, bin_fraction=1.0)
    assert needed < 512
    _, caught = _ping(scene, _sonar(512), 20.0)
    assert caught == []


def test_a_sonar_under_the_seabed_is_said_to_be_inside_geometry(scene) -> None:
    _, caught = _ping(scene, _sonar(512), 35.0)  # the seabed is about 30 m deep
    messages = [str(w.message) for w in caught]
    assert any("inside geometry" in m and "crosses 1 surface of seabed" in m for m in messages), (
        messages
    )


def _box_at(depth_m: float) -> Scene:
    """A closed 20 m box centred on (-12, -8, depth) in world NED."""
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(-12.0, -8.0, depth_m))
    return Scene([Instance("hangar", box_mesh((20.0, 20.0, 20.0)), pose, "structure")])


def test_a_sonar_inside_a_closed_object_is_said_to_be_inside_it() -> None:
    _, caught = _ping(_box_at(20.0), _sonar(64), 20.0)
    assert any("crosses 1 surface of hangar" in str(w.message) for w in caught)
    # Below the same box, outside it: two crossings up, an even count, no such warning.
    _, caught = _ping(_box_at(15.0), _sonar(64), 40.0)
    assert not any("inside geometry" in str(w.message) for w in caught)


def test_warnings_change_nothing_in_the_frame_and_can_be_turned_off(scene) -> None:
    spec = _sonar(16)
    warned, caught = _ping(scene, spec, 20.0)
    quiet, none = _ping(scene, spec, 20.0, sampling_warnings=False)
    assert caught and none == []
    assert warned.content_hash == quiet.content_hash


def test_the_fill_rule_is_one_function_shared_with_the_analytic_tier() -> None:
    import leviathan._sonar_fill as fill
    import leviathan.analytic as analytic

    assert analytic.elevation_samples_for_fill is fill.elevation_samples_for_fill
    assert analytic.FILL_BIN_FRACTION == fill.FILL_BIN_FRACTION == 0.5
    # The catalogue spec's own comment: f = 0.5 at h = 9.94 m gives 2177 elevations.
    sonar = get_vehicle("reference_survey_vehicle").sensor("sonar")
    assert elevation_samples_for_fill(sonar, plane_distance_m=9.94) == 2177
    assert math.isclose(fill.elevation_step_for_fill_rad(sonar, plane_distance_m=9.94), 1.604e-4,
                        rel_tol=1e-3)  # fmt: skip
