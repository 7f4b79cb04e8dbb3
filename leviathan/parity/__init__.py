"""Parity: the frozen fixtures (28 imaging-sonar scenes, the side-scan's scenes) and the check.

The fixtures are package data (``leviathan.fixtures``, ``fixtures/sonar_v1`` and
``fixtures/sidescan_v1`` in the source tree): :func:`default_fixture_dir` finds
one in an installed package as in a checkout, and ``$LEVIATHAN_FIXTURES`` (or
``$LEVIATHAN_SIDESCAN_FIXTURES``) or an explicit directory points elsewhere.
"""

from leviathan.parity._fixture import (
    FIXTURE_ENVIRONMENT_VARIABLE,
    FIXTURE_FORMAT,
    FIXTURE_NAMES,
    FIXTURE_PACKAGE,
    SIDE_SCAN_FIXTURE_ENVIRONMENT_VARIABLE,
    SIDE_SCAN_FIXTURE_FORMAT,
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
from leviathan.parity._side_scan_scenes import (
    SIDE_SCAN_SCENE_NAMES,
    SideScanCase,
    build_side_scan_scene,
    side_scan_scene_cases,
)

__all__ = [
    "FIXTURE_ENVIRONMENT_VARIABLE",
    "FIXTURE_FORMAT",
    "FIXTURE_NAMES",
    "FIXTURE_PACKAGE",
    "SCENE_NAMES",
    "SIDE_SCAN_FIXTURE_ENVIRONMENT_VARIABLE",
    "SIDE_SCAN_FIXTURE_FORMAT",
    "SIDE_SCAN_SCENE_NAMES",
    "FixtureError",
    "SceneCase",
    "SceneCheck",
    "SideScanCase",
    "build_scene",
    "build_side_scan_scene",
    "check_fixture",
    "check_scene",
    "default_fixture_dir",
    "freeze_fixture",
    "load_manifest",
    "scene_cases",
    "side_scan_scene_cases",
]
