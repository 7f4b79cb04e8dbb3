"""Scenes of an Environment: a static one is built once, a moving one at every instant."""

from __future__ import annotations

from world_cases import seabed_scene

from leviathan.scene import Scene


def _fresh_scene(environment, time_ns: int) -> Scene:
    """The scene as built from each object's instance, without any shared instance."""
    return Scene([o._build_instance(time_ns) for o in environment.objects], name=environment.name)


def test_static_environment_shares_one_scene_equal_to_a_fresh_one() -> None:
    environment = seabed_scene(mover=False)
    first = environment.scene_at(0)
    later = environment.scene_at(7_000_000_000)
    assert later is first
    assert first.content_hash == _fresh_scene(environment, 7_000_000_000).content_hash


def test_moving_environment_scene_changes_with_time_and_matches_a_fresh_one() -> None:
    environment = seabed_scene(mover=True)
    at_zero, at_two = environment.scene_at(0), environment.scene_at(2_000_000_000)
    assert at_zero.content_hash != at_two.content_hash
    assert at_two.content_hash == _fresh_scene(environment, 2_000_000_000).content_hash
    assert at_zero.content_hash == _fresh_scene(environment, 0).content_hash
