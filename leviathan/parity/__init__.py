"""Parity: the frozen fixtures (imaging sonar, side-scan, multibeam) and the check.

The fixtures are package data (``leviathan.fixtures``: ``fixtures/sonar_v1``,
``fixtures/sidescan_v1`` and ``fixtures/multibeam_v1`` in the source tree):
:func:`default_fixture_dir` finds one in an installed package as in a checkout, and
``$LEVIATHAN_FIXTURES`` (``$LEVIATHAN_SIDESCAN_FIXTURES``, ``$LEVIATHAN_MULTIBEAM_FIXTURES``)
or an explicit directory points elsewhere.
"""

from leviathan.parity._fixture import (
    FIXTURE_ENVIRONMENT_VARIABLE,
    FIXTURE_FORMAT,
    FIXTURE_NAMES,
    FIXTURE_PACKAGE,
    MULTIBEAM_FIXTURE_ENVIRONMENT_VARIABLE,
    MULTIBEAM_FIXTURE_FORMAT,
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
from leviathan.parity._multibeam_scenes import (
    MULTIBEAM_SCENE_NAMES,
    MultibeamCase,
    build_multibeam_scene,
    multibeam_scene_cases,
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
    "MULTIBEAM_FIXTURE_ENVIRONMENT_VARIABLE",
    "MULTIBEAM_FIXTURE_FORMAT",
    "MULTIBEAM_SCENE_NAMES",
    "SCENE_NAMES",
    "SIDE_SCAN_FIXTURE_ENVIRONMENT_VARIABLE",
    "SIDE_SCAN_FIXTURE_FORMAT",
    "SIDE_SCAN_SCENE_NAMES",
    "FixtureError",
    "MultibeamCase",
    "SceneCase",
    "SceneCheck",
    "SideScanCase",
    "build_multibeam_scene",
    "build_scene",
    "build_side_scan_scene",
    "check_fixture",
    "check_scene",
    "default_fixture_dir",
    "freeze_fixture",
    "load_manifest",
    "multibeam_scene_cases",
    "scene_cases",
    "side_scan_scene_cases",
]
