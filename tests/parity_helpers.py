"""Support for the fixture tests: a frozen scene's manifest entry and its check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leviathan.parity import check_scene, default_fixture_dir, load_manifest


def fixture_entry(fixture: str, name: str) -> tuple[Path, dict[str, Any]]:
    """The folder of ``fixture`` and the manifest entry of its scene ``name``."""
    root = default_fixture_dir(fixture)
    scenes = load_manifest(root, fixture=fixture)["scenes"]
    return root, next(s for s in scenes if s["name"] == name)


def assert_scene_matches_fixture(
    fixture: str, name: str, *, backend: str = "reference", device: str | None = None
) -> tuple[Path, dict[str, Any]]:
    """Asserts the fixture checker finds scene ``name`` bit-identical (bytes of every
    channel, channel hashes, content hash) on ``backend``; returns :func:`fixture_entry`."""
    root, entry = fixture_entry(fixture, name)
    result = check_scene(name, entry, root, backend=backend, device=device, fixture=fixture)
    assert result.ok, "\n".join(result.mismatches)
    return root, entry
