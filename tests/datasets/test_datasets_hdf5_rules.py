"""Format version 4: a product's rule support stored beside its channels, so that the
imaging sonar's truth (ranges, normals, incidence, return terms) is stored as the rules
that rebuild it; and what is stored where the support is missing, off by an ulp, or the
file is written in version 3."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import h5py
import numpy as np
import pytest
from test_datasets_hdf5 import Recorded, _sample_path, _vehicles

from leviathan.datasets.hdf5 import Hdf5Writer, read_hdf5
from leviathan.sonar._rule_support import SUPPORT_NAMES

SUPPORTED = (
    "topk_range_m",
    "primary_normal_world",
    "primary_incidence_rad",
    "topk_geometric_weight",
    "topk_contribution",
)
"""The imaging sonar's rules that need the frame's rule support."""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return Recorded(tmp_path_factory.mktemp("hdf5_rules"))


def _frames(recorded: Recorded) -> list:
    return [g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples]


def _write(recorded: Recorded, path: Path, frames: list, *, version: int = 4) -> None:
    """The recorded groups with their sonar frames replaced by ``frames``, in order."""
    replacement = iter(frames)
    with Hdf5Writer(
        path, vehicles=_vehicles(recorded.world), manifest={}, format_version=version
    ) as w:
        for group in recorded.groups:
            samples = dict(group.samples)
            if "survey/sonar" in samples:
                samples["survey/sonar"] = next(replacement)
            w.write([dataclasses.replace(group, samples=samples)], [])


def _storage(path: Path, frame: object) -> tuple[dict[str, str], set[str] | None]:
    with h5py.File(path, "r") as f:
        group = f[_sample_path("survey/sonar", frame.sample_index)]
        storage = {n: d.attrs.get("storage", "dense") for n, d in group["channels"].items()}
        support = set(group["rule_support"]) if "rule_support" in group else None
    return storage, support


def _read_frames(path: Path) -> list:
    return [
        g.samples["survey/sonar"] for g in read_hdf5(path).groups() if "survey/sonar" in g.samples
    ]


def _assert_same_frames(back: list, frames: list) -> None:
    assert len(back) == len(frames)
    for b, f in zip(back, frames, strict=True):
        assert b.content_hash == f.content_hash
        for name, array in f.channels.items():
            assert b[name].tobytes() == array.tobytes(), name


def test_the_sonar_truth_is_stored_as_rules_with_its_support(recorded: Recorded) -> None:
    frames = _frames(recorded)
    for frame in frames:
        storage, support = _storage(recorded.path, frame)
        assert {storage[name] for name in (*SUPPORTED, "primary_hit_point_world")} == {"rule"}
        assert support == set(SUPPORT_NAMES)
    back = _read_frames(recorded.path)
    _assert_same_frames(back, frames)
    # A frame read back carries its support, so writing it again stores the same.
    for b, f in zip(back, frames, strict=True):
        assert set(b.rule_support) == set(SUPPORT_NAMES)
        for name, a in f.rule_support.items():
            assert b.rule_support[name].tobytes() == a.tobytes(), name


def test_a_read_back_frame_is_written_again_as_compactly(
    recorded: Recorded, tmp_path: Path
) -> None:
    back = _read_frames(recorded.path)
    _write(recorded, tmp_path / "again.h5", back)
    for frame in back:
        assert _storage(tmp_path / "again.h5", frame) == _storage(recorded.path, frame)
    _assert_same_frames(_read_frames(tmp_path / "again.h5"), _frames(recorded))


def test_a_frame_without_support_stores_its_truth_and_keeps_the_hit_point_rule(
    recorded: Recorded, tmp_path: Path
) -> None:
    """As a frame rebuilt from a run folder or the wire: only the rule needing no support
    holds, with primary_range_m (slot 0 of the stored ranges) as its input."""
    bare = [dataclasses.replace(f, rule_support={}) for f in _frames(recorded)]
    _write(recorded, tmp_path / "bare.h5", bare)
    for frame in bare:
        storage, support = _storage(tmp_path / "bare.h5", frame)
        assert storage["primary_hit_point_world"] == "rule"
        assert all(storage[name] != "rule" for name in SUPPORTED)
        assert storage["primary_range_m"] == "slot0"
        assert support is None
    _assert_same_frames(_read_frames(tmp_path / "bare.h5"), _frames(recorded))


def test_a_normal_one_ulp_off_stores_what_depends_on_normals(
    recorded: Recorded, tmp_path: Path
) -> None:
    """The ranges need no normal and stay rules; the normal, incidence and terms are
    stored themselves, and the file reads back exactly."""
    frames = _frames(recorded)
    off = []
    for frame in frames:
        support = {n: np.array(a) for n, a in frame.rule_support.items()}
        normals = support["triangle_normal_world"]
        normals[:, 2] = np.nextafter(normals[:, 2], np.inf)
        off.append(dataclasses.replace(frame, rule_support=support))
    _write(recorded, tmp_path / "off.h5", off)
    for frame in off:
        storage, support = _storage(tmp_path / "off.h5", frame)
        assert storage["topk_range_m"] == "rule" and storage["primary_hit_point_world"] == "rule"
        for name in SUPPORTED[1:]:
            assert storage[name] != "rule", name
        assert support == set(SUPPORT_NAMES)
    _assert_same_frames(_read_frames(tmp_path / "off.h5"), frames)


def test_version_3_stores_no_support_and_reads_back(recorded: Recorded, tmp_path: Path) -> None:
    frames = _frames(recorded)
    _write(recorded, tmp_path / "v3.h5", frames, version=3)
    with h5py.File(tmp_path / "v3.h5", "r") as f:
        assert f.attrs["format_version"] == 3
    for frame in frames:
        storage, support = _storage(tmp_path / "v3.h5", frame)
        assert support is None and storage["primary_hit_point_world"] == "rule"
        assert all(storage[name] != "rule" for name in SUPPORTED)
    back = _read_frames(tmp_path / "v3.h5")
    _assert_same_frames(back, frames)
    assert all(dict(b.rule_support) == {} for b in back)


def test_damaged_support_is_a_dataset_error(recorded: Recorded, tmp_path: Path) -> None:
    import shutil

    from leviathan.datasets import DatasetError

    copy = tmp_path / "copy.h5"
    shutil.copyfile(recorded.path, copy)
    frame = _frames(recorded)[0]
    with h5py.File(copy, "r+") as f:
        support = f[_sample_path("survey/sonar", frame.sample_index)]["rule_support"]
        del support["triangle_rows"]
        support.create_dataset("triangle_rows", data=np.array([b"x"]))
    with pytest.raises(DatasetError, match="rule_support: expected a group of numeric datasets"):
        list(read_hdf5(copy).groups())
