"""The Warp backend reproduces the frozen 28-scene fixture bit for bit, on every device here.

Warp's ``cpu`` device always runs (so CI checks it); each CUDA device runs
when present. Every channel is compared byte for byte and the content hash
as a string, exactly as for the reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_scene_matches_fixture

from leviathan.cli import main
from leviathan.parity import (
    SCENE_NAMES,
    build_scene,
)


@pytest.mark.parametrize("name", SCENE_NAMES)
def test_warp_is_bit_identical_to_frozen_scene(name: str, device: str) -> None:
    # The fixture checker: bytes of every channel, channel hashes, content hash.
    root, entry = assert_scene_matches_fixture("sonar_v1", name, backend="warp", device=device)
    # And channel by channel with numpy, dtype and shape first.
    frame = build_scene(name).render(backend="warp", device=device)
    with np.load(root / entry["file"], allow_pickle=False) as stored:
        frozen = {k: stored[k] for k in stored.files}
    assert sorted(frame.channels) == sorted(frozen)
    for channel, want in frozen.items():
        got = frame[channel]
        assert (got.dtype, got.shape) == (want.dtype, want.shape), channel
        np.testing.assert_array_equal(got, want, err_msg=channel)
    assert frame.content_hash == entry["content_hash"]


def test_warp_frame_equals_reference_frame_channel_by_channel(device: str) -> None:
    case = build_scene("occlusion_target_over_seabed")
    ours = case.render(backend="warp", device=device)
    reference = case.render(backend="reference")
    assert (ours.backend, ours.device) == ("warp", device)
    assert (reference.backend, reference.device) == ("reference", "cpu")
    assert set(ours.channels) == set(reference.channels)
    for name, value in reference.channels.items():
        assert ours[name].dtype == value.dtype and ours[name].shape == value.shape
        np.testing.assert_array_equal(ours[name], value)
    assert ours.content_hash == reference.content_hash


def test_parity_cli_reports_28_of_28_for_warp(
    device: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["parity", "--backend", "warp", "--device", device]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    for line in ("sonar_v1: 28/28", "sidescan_v1: 21/21", "multibeam_v1: 14/14"):
        assert f"{line} bit-identical" in lines
    assert sum(line.startswith("ok ") for line in lines) == 28 + 21 + 14
