"""Parity: the 28 frozen sonar scenes and the bit-for-bit check against them."""

from leviathan.parity.fixture import (
    FixtureError,
    SceneCheck,
    check_fixture,
    default_fixture_dir,
    freeze_fixture,
    load_manifest,
)
from leviathan.parity.scenes import SCENE_NAMES, SceneCase, build_scene, scene_cases

__all__ = [
    "SCENE_NAMES",
    "FixtureError",
    "SceneCase",
    "SceneCheck",
    "build_scene",
    "check_fixture",
    "default_fixture_dir",
    "freeze_fixture",
    "load_manifest",
    "scene_cases",
]
