"""The side-scan fixture sidescan_v1: reference and Warp bit for bit, and random pings."""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_scene_matches_fixture
from side_scan_cases import box_on_seabed, scene, seabed, side_scan_spec
from sonar_cases import random_sensor_pose

from leviathan.parity import (
    SIDE_SCAN_SCENE_NAMES,
    build_side_scan_scene,
)
from leviathan.side_scan import render


def test_the_fixture_covers_the_issue_list() -> None:
    assert len(SIDE_SCAN_SCENE_NAMES) >= 16
    for name in (
        "flat_altitude_6",
        "tilted_seabed_port_up",
        "box_shadow",
        "cylinder_shadow",
        "target_in_water_column",
        "material_unknown",
        "water_unsupported",
        "moving_target",
        "sea_surface_in_aperture",
        "top_k_1",
        "top_k_4",
        "speckle",
        "coarse_bins",
        "fine_bins",
        "shared_edge",
    ):
        assert name in SIDE_SCAN_SCENE_NAMES


@pytest.mark.parametrize("name", SIDE_SCAN_SCENE_NAMES)
def test_reference_is_bit_identical_to_frozen_side_scan_scene(name: str) -> None:
    assert_scene_matches_fixture("sidescan_v1", name)


@pytest.mark.parametrize("name", SIDE_SCAN_SCENE_NAMES)
def test_warp_is_bit_identical_to_frozen_side_scan_scene(name: str, device: str) -> None:
    root, entry = assert_scene_matches_fixture("sidescan_v1", name, backend="warp", device=device)
    line = build_side_scan_scene(name).render(backend="warp", device=device)
    with np.load(root / entry["file"], allow_pickle=False) as stored:
        for channel in stored.files:
            assert line[channel].tobytes() == stored[channel].tobytes(), channel


@pytest.mark.parametrize("seed", range(6))
def test_random_pings_are_bit_identical_reference_vs_warp(seed: int, device: str) -> None:
    rng = np.random.default_rng(seed)
    h = float(rng.uniform(6.0, 20.0))
    sc = scene(
        seabed(5.0 + h, tilt_rad=float(rng.uniform(-0.15, 0.15))),
        box_on_seabed(5.0 + h, y_near=float(rng.uniform(-12.0, 10.0)), width=1.5, height=1.0),
    )
    spec = side_scan_spec(
        across_track_sample_count=int(rng.integers(200, 900)),
        range_bin_count=int(rng.integers(40, 300)),
        top_k=int(rng.integers(1, 6)),
        speckle=bool(rng.integers(0, 2)),
    )
    pose = random_sensor_pose(rng, roll_rad=0.1, pitch_rad=0.05, depth_m=5.0)
    kw = dict(
        sensor_id="auv/side_scan",
        sample_index=seed,
        time_ns=seed * 100_000_000,
        seed=77 if spec.speckle else None,
        sampling_warnings=False,
    )
    ours = render(sc, spec, pose, backend="warp", device=device, **kw)
    reference = render(sc, spec, pose, backend="reference", **kw)
    assert int(reference["sample_count"].sum()) > 0
    assert set(ours.channels) == set(reference.channels)
    for name, value in reference.channels.items():
        assert ours[name].tobytes() == value.tobytes(), name
    assert ours.content_hash == reference.content_hash
