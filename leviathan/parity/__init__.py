"""Parity: the 28 frozen sonar scenes and the bit-for-bit check against them.

The fixture is package data (``leviathan.fixtures``, ``fixtures/sonar_v1`` in
the source tree): :func:`default_fixture_dir` finds it in an installed package
as in a checkout, and ``$LEVIATHAN_FIXTURES`` or an explicit directory
(``leviathan parity --fixtures DIR``) points elsewhere.
"""

from leviathan.parity._fixture import (
    FIXTURE_ENVIRONMENT_VARIABLE,
    FIXTURE_FORMAT,
    FIXTURE_PACKAGE,
    FixtureError,
    SceneCheck,
    check_fixture,
    check_scene,
    default_fixture_dir,
    freeze_fixture,
    load_manifest,
)
from leviathan.parity._scene_parts import SceneCase
from leviathan.parity._scenes import SCENE_NAMES, build_scene, scene_cases

__all__ = [
    "FIXTURE_ENVIRONMENT_VARIABLE",
    "FIXTURE_FORMAT",
    "FIXTURE_PACKAGE",
    "SCENE_NAMES",
    "FixtureError",
    "SceneCase",
    "SceneCheck",
    "build_scene",
    "check_fixture",
    "check_scene",
    "default_fixture_dir",
    "freeze_fixture",
    "load_manifest",
    "scene_cases",
]
