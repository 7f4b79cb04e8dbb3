"""The reference reproduces the frozen 28-scene fixture bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_scene_matches_fixture

from leviathan.cli import main
from leviathan.cli._parity import FIXTURE_CHOICES
from leviathan.parity import (
    FIXTURE_NAMES,
    SCENE_NAMES,
    build_scene,
    check_fixture,
    default_fixture_dir,
    freeze_fixture,
    load_manifest,
)


def test_fixture_has_exactly_28_named_scenes() -> None:
    manifest = load_manifest()
    assert manifest["scene_count"] == 28 == len(SCENE_NAMES)
    assert [s["name"] for s in manifest["scenes"]] == list(SCENE_NAMES)


@pytest.mark.parametrize("name", SCENE_NAMES)
def test_reference_is_bit_identical_to_frozen_scene(name: str) -> None:
    assert_scene_matches_fixture("sonar_v1", name)


def test_parity_cli_reports_each_fixture_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parity", "--backend", "reference"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "sonar_v1: 28/28 bit-identical" in lines
    counts = {"sonar_v1": 28, "sidescan_v1": 21, "multibeam_v1": 14}
    assert tuple(counts) == FIXTURE_NAMES == FIXTURE_CHOICES
    starts = [lines.index(f"fixture {name}") for name in FIXTURE_NAMES]
    assert starts == sorted(starts)  # checked and reported in FIXTURE_NAMES' order
    for name, n in counts.items():
        assert f"{name}: {n}/{n} bit-identical" in lines
    assert lines[-1] == "multibeam_v1: 14/14 bit-identical"


def test_parity_detects_a_one_ulp_change(monkeypatch: pytest.MonkeyPatch) -> None:
    from leviathan.reference_cpu import sonar as ref

    original = ref.sample_physics

    def nudged(**kwargs):
        terms = original(**kwargs)
        terms["contribution"] = np.nextafter(terms["contribution"], np.inf)
        return terms

    monkeypatch.setattr(ref, "sample_physics", nudged)
    results = check_fixture()
    failed = [r for r in results if not r.ok]
    assert len(failed) >= 20
    assert any("linear_return" in m for r in failed for m in r.mismatches)


def test_freeze_refuses_to_overwrite_the_fixture() -> None:
    root = default_fixture_dir()
    # Guard: never call the writer unless the frozen fixture is really there.
    assert (root / "manifest.json").is_file(), f"frozen fixture missing at {root}"
    before = sorted((p.name, p.stat().st_mtime_ns) for p in root.iterdir())
    with pytest.raises(FileExistsError, match="never"):
        freeze_fixture(root)
    assert sorted((p.name, p.stat().st_mtime_ns) for p in root.iterdir()) == before


def test_fixture_covers_the_required_features() -> None:
    frames = {name: build_scene(name).render() for name in SCENE_NAMES}
    flags = {n: int(np.bitwise_or.reduce(f["validity"].ravel())) for n, f in frames.items()}
    from leviathan.sonar import CELL_FLAGS

    union = 0
    for v in flags.values():
        union |= v
    required = (
        "mixed_status",
        "sea_surface",
        "truncated",
        "unknown_material",
        "unsupported_material",
        "unsupported_medium",
    )
    for name in required:
        assert union & CELL_FLAGS[name], f"no fixture scene exercises flag {name}"
    assert {f.metadata["spec"]["top_k"] for f in frames.values()} >= {1, 2, 4, 16}
    assert {f.metadata["spec"]["elevation_sample_count"] for f in frames.values()} == set(
        range(1, 9)
    )
    assert any(f.metadata["speckle"]["drawn"] for f in frames.values())
    assert any(int(f["primary_moving"].max()) == 1 for f in frames.values())
