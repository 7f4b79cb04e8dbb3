"""The multibeam fixture multibeam_v1: reference and Warp bit for bit, and random pings."""

from __future__ import annotations

import numpy as np
import pytest
from multibeam_cases import multibeam_spec, stepped_seabed, tilted_seabed
from parity_helpers import assert_scene_matches_fixture
from sonar_cases import random_sensor_pose

from leviathan.identity import content_hash
from leviathan.multibeam import multibeam_ping
from leviathan.parity import MULTIBEAM_SCENE_NAMES, build_multibeam_scene
from leviathan.reference_cpu.multibeam import DETECTION_FLAGS as F


def test_the_fixture_covers_the_issue_list() -> None:
    for name in (
        "flat_seabed",
        "tilted_seabed",
        "stepped_seabed",
        "relief_seabed",
        "pipeline_across_swath",
        "target_in_water_column",
        "material_unknown",
        "water_unsupported",
        "sea_surface",
        "beams_off_window_end",
    ):
        assert name in MULTIBEAM_SCENE_NAMES


def test_frozen_scenes_show_what_they_are_named_for() -> None:
    def quality(name: str) -> np.ndarray:
        return build_multibeam_scene(name).render().channels["quality"]

    assert np.all(quality("flat_seabed") == F["DETECTED"])
    assert np.any(quality("stepped_seabed") & F["NONPLANAR_FOOTPRINT"])
    assert np.all(quality("material_unknown") & F["MISSING_RETURN"])
    assert np.all(quality("water_unsupported") & F["MISSING_RETURN"])
    assert np.any(quality("sea_surface") & F["SEA_SURFACE"])
    assert np.any(quality("beams_off_window_end") & F["NO_BOTTOM"])
    assert np.all(quality("below_threshold") & F["BELOW_THRESHOLD"])
    pipe = build_multibeam_scene("pipeline_across_swath").render()
    labels = pipe.metadata["semantic_labels"]
    assert np.any(pipe.channels["truth_semantic"] == labels.index("pipeline"))


@pytest.mark.parametrize("name", MULTIBEAM_SCENE_NAMES)
def test_reference_is_bit_identical_to_frozen_multibeam_scene(name: str) -> None:
    assert_scene_matches_fixture("multibeam_v1", name)


@pytest.mark.parametrize("name", MULTIBEAM_SCENE_NAMES)
def test_warp_is_bit_identical_to_frozen_multibeam_scene(name: str, device: str) -> None:
    assert_scene_matches_fixture("multibeam_v1", name, backend="warp", device=device)


@pytest.mark.parametrize("seed", range(6))
def test_random_pings_are_bit_identical_reference_vs_warp(seed: int, device: str) -> None:
    rng = np.random.default_rng(100 + seed)
    if seed % 2:
        scene = tilted_seabed(25.0, float(rng.uniform(-0.2, 0.2)))
    else:
        scene = stepped_seabed(20.0, 20.0 + float(rng.uniform(1, 4)), float(rng.uniform(-3, 3)))
    spec = multibeam_spec(
        beam_count=int(rng.integers(8, 80)),
        beam_spacing=("equiangular", "equidistant")[int(rng.integers(0, 2))],
        along_track_sample_count=int(rng.integers(1, 5)),
        across_track_sample_count=int(rng.integers(1, 9)),
        range_bin_count=int(rng.integers(200, 2000)),
        top_k=int(rng.integers(1, 6)),
        speckle=bool(rng.integers(0, 2)),
    )
    pose = random_sensor_pose(rng, roll_rad=0.3, pitch_rad=0.1, depth_m=3.0)
    kw = dict(sensor_id="auv/multibeam", sample_index=seed, time_ns=seed * 200_000_000)
    kw["seed"] = 77 if spec.speckle else None
    ours = multibeam_ping(scene, spec, pose, backend="warp", device=device, **kw)
    reference = multibeam_ping(scene, spec, pose, backend="reference", **kw)
    assert np.any(reference.channels["quality"] & F["DETECTED"])
    assert set(ours.channels) == set(reference.channels)
    for name, value in reference.channels.items():
        assert ours.channels[name].tobytes() == value.tobytes(), name
    assert content_hash(ours.metadata) == content_hash(reference.metadata)
