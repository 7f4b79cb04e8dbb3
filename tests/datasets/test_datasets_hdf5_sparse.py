"""Sparse truth on disk (format versions 2 and 3): exact round trip, old files read, damage
caught."""

from __future__ import annotations

import contextlib
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path

import h5py
import numpy as np
import pytest
from test_datasets_hdf5 import HALF, Recorded, _sample_path, _vehicles

from leviathan.datasets import DatasetError, DatasetIntegrityError
from leviathan.datasets._hdf5_rules import RULE, channel_rules, read_rule_support
from leviathan.datasets._hdf5_sparse import (
    CODE_TABLE_MAX,
    CODED_CELLS,
    CODED_SLOTS,
    QUOTIENT,
    SLOT0,
    SPARSE_CELLS,
    SPARSE_SLOTS,
    _Cells,
    _coded,
    _sparse_channel,
)
from leviathan.datasets._hdf5_sparse_read import _read_channels
from leviathan.datasets._hdf5_sparse_write import _write_channels
from leviathan.datasets.channels import sample_channel_doc
from leviathan.datasets.hdf5 import FORMAT_VERSION, READABLE_FORMAT_VERSIONS, Hdf5Writer, read_hdf5
from leviathan.sonar._rule_support import SUPPORT_NAMES

# A NaN with a payload and the sign bit set: not numpy's canonical NaN.
ODD_NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8_0000_0000_1234))[0]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return Recorded(tmp_path_factory.mktemp("hdf5_sparse"))


@pytest.fixture(scope="module")
def version_1(recorded: Recorded, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same capture groups written in the version-1 layout (every channel dense)."""
    path = tmp_path_factory.mktemp("hdf5_v1") / "run.h5"
    world = recorded.world
    with Hdf5Writer(
        path, vehicles=_vehicles(world), manifest=recorded.manifest, format_version=1
    ) as writer:
        for start in range(0, len(recorded.groups), HALF):
            writer.write(recorded.groups[start : start + HALF], [])
    return path


def _sonar_paths(recorded: Recorded) -> list[str]:
    return [
        _sample_path("survey/sonar", g.samples["survey/sonar"].sample_index)
        for g in recorded.groups
        if "survey/sonar" in g.samples
    ]


def _assert_same_bytes(a: np.ndarray, b: np.ndarray, where: str) -> None:
    assert (a.dtype, a.shape) == (b.dtype, b.shape), where
    assert a.tobytes() == b.tobytes(), where


# --------------------------------------------------------------------------- the file


def test_files_are_written_in_version_5(recorded: Recorded) -> None:
    assert FORMAT_VERSION == 5 and READABLE_FORMAT_VERSIONS == (1, 2, 3, 4, 5)
    with h5py.File(recorded.path, "r") as f:
        assert f.attrs["format_version"] == 5


def test_top_k_elevations_are_codes_into_the_frames_own_elevation_table(
    recorded: Recorded,
) -> None:
    frames = [g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples]
    with h5py.File(recorded.path, "r") as f:
        for path, frame in zip(_sonar_paths(recorded), frames, strict=True):
            stored = f[path]["channels"]["topk_elevation_rad"]
            assert stored.attrs["storage"] == CODED_SLOTS
            assert stored.dtype == np.uint8  # the 4 elevations of the test sonar
            table = stored.attrs["table"]
            counts = frame["sample_count"]
            used = np.arange(4)[None, None, :] < np.minimum(counts, 4)[..., None]
            values = frame["topk_elevation_rad"][used]
            assert table.dtype == np.dtype("<f8") and len(table) == len(set(table.tolist()))
            assert set(table.tolist()) == set(values.tolist())
            assert set(table.tolist()) <= set(np.asarray(frame.metadata["elevation_rad"]).tolist())
            assert stored.shape == (int(used.sum()),)


def test_sonar_truth_is_stored_sparse_and_derived(recorded: Recorded) -> None:
    with h5py.File(recorded.path, "r") as f:
        for path in _sonar_paths(recorded):
            channels = f[path]["channels"]
            storage = {n: d.attrs.get("storage", "dense") for n, d in channels.items()}
            assert storage["sample_count"] == "dense"  # it gives the cells
            # The imaging sonar's rule rebuilds it from the range, elevation and pose.
            assert storage["primary_hit_point_world"] == RULE
            assert channels["primary_hit_point_world"].attrs["source_rule"] == (
                "leviathan.sonar._rebuild.rebuild_primary_hit_point"
            )
            # From the normals of the triangles the truth names, kept beside the channels.
            for name in (
                "topk_range_m",
                "primary_normal_world",
                "primary_incidence_rad",
                "topk_geometric_weight",
                "topk_contribution",
            ):
                assert storage[name] == RULE, name
                assert channels[name].shape == (0,)
            assert set(f[path]["rule_support"]) == set(SUPPORT_NAMES)
            assert storage["primary_range_m"] == SLOT0
            assert channels["primary_range_m"].attrs["source_source"] == "topk_range_m"
            assert channels["primary_range_m"].shape == (0,)
            # The energy fraction is a quotient of linear_return unless that one is derived
            # itself (a cell with one sample: its return is slot 0 of topk_contribution).
            assert (storage["topk_energy_fraction"] == QUOTIENT) != (
                storage["linear_return"] == SLOT0
            )
            counts = channels["sample_count"][...]
            used = np.minimum(counts, 4).sum()
            assert channels["topk_elevation_rad"].shape == (used,)
            assert channels["primary_hit_point_world"].shape == (0,)


def test_every_sonar_channel_is_rebuilt_byte_for_byte(recorded: Recorded) -> None:
    frames = [g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples]
    with h5py.File(recorded.path, "r") as f:
        for path, frame in zip(_sonar_paths(recorded), frames, strict=True):
            rules = channel_rules("imaging_sonar", frame.metadata, read_rule_support(f[path]))
            back = _read_channels(f[path]["channels"], rules)
            assert list(back) == list(frame.channels)
            for name, array in frame.channels.items():
                _assert_same_bytes(back[name], array, f"{path} {name}")


def test_version_2_is_smaller_than_version_1(recorded: Recorded, version_1: Path) -> None:
    def stored(path: Path) -> int:
        with h5py.File(path, "r") as f:
            return sum(
                d.id.get_storage_size()
                for p in _sonar_paths(recorded)
                for d in f[p]["channels"].values()
            )

    assert stored(recorded.path) < stored(version_1)


def test_a_version_1_file_is_still_read_with_every_hash(
    recorded: Recorded, version_1: Path
) -> None:
    with h5py.File(version_1, "r") as f:
        assert f.attrs["format_version"] == 1
        for path in _sonar_paths(recorded):
            assert all("storage" not in d.attrs for d in f[path]["channels"].values())
    back = list(read_hdf5(version_1).groups())
    assert [g.content_hash for g in back] == [g.content_hash for g in recorded.groups]
    for original, rebuilt in zip(recorded.groups, back, strict=True):
        for sensor_id, sample in original.samples.items():
            for name, array in sample.channels.items():
                _assert_same_bytes(rebuilt.samples[sensor_id][name], array, name)


def test_an_unknown_format_version_is_refused_by_the_writer(
    recorded: Recorded, tmp_path: Path
) -> None:
    with pytest.raises(
        DatasetError, match=r"format_version: expected one of \(1, 2, 3, 4, 5\), got 6"
    ):
        Hdf5Writer(
            tmp_path / "x.h5", vehicles=_vehicles(recorded.world), manifest={}, format_version=6
        )
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- damage


def _copy(recorded: Recorded, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.h5"
    shutil.copyfile(recorded.path, copy)
    return copy


def _first_occupied(recorded: Recorded) -> tuple[str, tuple[int, int]]:
    frame = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    counts = frame["sample_count"]
    cell = np.unravel_index(int(np.argmax(counts.reshape(-1) != 0)), counts.shape)
    return _sample_path("survey/sonar", frame.sample_index), (int(cell[0]), int(cell[1]))


@contextlib.contextmanager
def _open_first_occupied_copy(
    recorded: Recorded, tmp_path: Path
) -> Iterator[tuple[Path, h5py.Group]]:
    """A copy of the recording, open for damage at its first occupied sonar sample's group."""
    copy = _copy(recorded, tmp_path)
    path, _ = _first_occupied(recorded)
    with h5py.File(copy, "r+") as f:
        yield copy, f[path]


def test_verify_detects_a_tampered_sparse_value(recorded: Recorded, tmp_path: Path) -> None:
    copy = _copy(recorded, tmp_path)
    path, (r, b) = _first_occupied(recorded)
    with h5py.File(copy, "r+") as f:
        channels = f[path]["channels"]
        name = next(
            n
            for n, d in channels.items()
            if d.attrs.get("storage") == SPARSE_CELLS and d.dtype == np.float64
        )
        channels[name][0] = 123.25  # the first occupied cell
    with pytest.raises(DatasetIntegrityError, match="survey/sonar") as caught:
        list(read_hdf5(copy).groups())
    assert caught.value.where == "/" + path
    unverified = list(read_hdf5(copy, verify=False).groups())
    frame = next(g.samples["survey/sonar"] for g in unverified if "survey/sonar" in g.samples)
    assert frame[name][r, b] == 123.25


def test_verify_detects_a_tampered_rule_support(recorded: Recorded, tmp_path: Path) -> None:
    """The support is not hashed itself; the channels the rules rebuild from it are."""
    copy = _copy(recorded, tmp_path)
    path, (r, b) = _first_occupied(recorded)
    with h5py.File(copy, "r+") as f:
        assert f[path]["channels"]["topk_range_m"].attrs["storage"] == RULE
        v0 = f[path]["rule_support"]["triangle_v0_world"]
        v0[...] = v0[...] + np.array([0.0, 0.0, 0.125])  # every named triangle 12.5 cm down
    with pytest.raises(DatasetIntegrityError, match="survey/sonar") as caught:
        list(read_hdf5(copy).groups())
    assert caught.value.where == "/" + path
    unverified = list(read_hdf5(copy, verify=False).groups())
    frame = next(g.samples["survey/sonar"] for g in unverified if "survey/sonar" in g.samples)
    original = next(
        g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples
    )
    assert frame["topk_range_m"][r, b, 0] != original["topk_range_m"][r, b, 0]
    assert frame["primary_range_m"][r, b] == frame["topk_range_m"][r, b, 0]  # its slot 0


def test_verify_detects_a_tampered_fill(recorded: Recorded, tmp_path: Path) -> None:
    with _open_first_occupied_copy(recorded, tmp_path) as (copy, sample):
        sample["channels"]["linear_return"].attrs["fill"] = struct.pack("<d", 1.0).hex()
    with pytest.raises(DatasetIntegrityError, match="survey/sonar"):
        list(read_hdf5(copy).groups())


def test_a_sparse_channel_of_the_wrong_length_is_a_dataset_error(
    recorded: Recorded, tmp_path: Path
) -> None:
    with _open_first_occupied_copy(recorded, tmp_path) as (copy, sample):
        channels = sample["channels"]
        name = next(n for n, d in channels.items() if d.attrs.get("storage") == SPARSE_CELLS)
        attrs = dict(channels[name].attrs)
        dtype = channels[name].dtype
        del channels[name]
        channels.create_dataset(name, data=np.zeros(3, dtype))
        for key, value in attrs.items():
            channels[name].attrs[key] = value
    with pytest.raises(DatasetError, match=rf"{name}: \(3,\) stored values, expected \(\d+,\)"):
        list(read_hdf5(copy).groups())


def test_a_derived_channel_without_its_source_is_a_dataset_error(
    recorded: Recorded, tmp_path: Path
) -> None:
    with _open_first_occupied_copy(recorded, tmp_path) as (copy, sample):
        sample["channels"]["primary_range_m"].attrs["source_source"] = "nowhere"
    with pytest.raises(DatasetError, match="derived from channel 'nowhere'"):
        list(read_hdf5(copy).groups())


# --------------------------------------------------------------------------- the encoding


def _channels(seed: int, *, shape: tuple[int, int] = (64, 40), k: int = 4) -> dict:
    """Random cells (about half empty) and channels with sentinels as a frame has them."""
    rng = np.random.default_rng(seed)
    counts = np.where(rng.random(shape) < 0.5, 0, rng.integers(1, 7, shape)).astype(np.int32)
    used = np.arange(k)[None, None, :] < counts[..., None]
    topk = np.where(used, rng.normal(size=(*shape, k)) * 1e3, np.nan)
    topk[used & (rng.random((*shape, k)) < 0.05)] = -0.0
    topk[used & (rng.random((*shape, k)) < 0.05)] = 5e-324  # subnormal
    topk[used & (rng.random((*shape, k)) < 0.02)] = ODD_NAN
    ret = np.where(counts > 0, np.abs(rng.normal(size=shape)), 0.0)
    ret[(counts > 0) & (rng.random(shape) < 0.1)] = 0.0  # occupied, no energy
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.where(
            used, np.where(ret[..., None] > 0.0, topk / ret[..., None], np.nan), np.nan
        )
    ids = np.where(used, rng.integers(0, 1 << 30, (*shape, k)), -1).astype(np.int32)
    return {
        "linear_return": ret,
        "sample_count": counts,
        "validity": np.where(counts > 0, rng.integers(1, 9, shape), 0).astype(np.uint16),
        "primary_range_m": np.where(counts > 0, topk[..., 0], np.nan),
        "primary_triangle": np.where(counts > 0, ids[..., 0], -1).astype(np.int32),
        "primary_hit_point_world": np.where(
            counts[..., None] > 0, rng.normal(size=(*shape, 3)), np.nan
        ),
        "topk_range_m": topk,
        "topk_triangle": ids,
        "topk_energy_fraction": fraction,
    }


def _round_trip(
    channels: dict, tmp_path: Path, *, sparse: bool = True, coded: bool = False
) -> tuple[dict, dict]:
    docs = {name: sample_channel_doc("imaging_sonar", name) for name in channels}
    with h5py.File(tmp_path / "c.h5", "w", track_order=True) as f:
        group = f.create_group("c", track_order=True)
        version = 3 if coded else 2 if sparse else 1
        _write_channels(group, channels, docs, version=version)
    with h5py.File(tmp_path / "c.h5", "r") as f:
        storage = {n: d.attrs.get("storage", "dense") for n, d in f["c"].items()}
        return _read_channels(f["c"]), storage


@pytest.mark.parametrize("seed", range(6))
def test_random_cells_round_trip_byte_for_byte(seed: int, tmp_path: Path) -> None:
    channels = _channels(seed)
    back, storage = _round_trip(channels, tmp_path)
    assert list(back) == list(channels)
    for name, array in channels.items():
        _assert_same_bytes(back[name], array, name)
    assert storage == {
        "linear_return": SPARSE_CELLS,
        "sample_count": "dense",
        "validity": SPARSE_CELLS,
        "primary_range_m": SLOT0,
        "primary_triangle": SLOT0,
        "primary_hit_point_world": SPARSE_CELLS,
        "topk_range_m": SPARSE_SLOTS,
        "topk_triangle": SPARSE_SLOTS,
        "topk_energy_fraction": QUOTIENT,
    }


def _with_few_valued(channels: dict, seed: int, *, distinct: int = 1695) -> dict:
    """Adds top-K elevations drawn from a table of ``distinct`` angles (one an odd NaN,
    one -0.0) and top-K instances among three ids, as a survey frame holds them."""
    rng = np.random.default_rng(seed)
    counts = channels["sample_count"]
    k = channels["topk_range_m"].shape[2]
    used = np.arange(k)[None, None, :] < counts[..., None]
    table = np.linspace(-0.35, 0.35, distinct)
    table[7], table[8] = ODD_NAN, -0.0
    elevation = np.where(used, table[rng.integers(0, distinct, used.shape)], np.nan)
    instance = np.where(used, rng.integers(0, 3, used.shape), -1).astype(np.int64)
    return {**channels, "topk_elevation_rad": elevation, "topk_instance": instance}


@pytest.mark.parametrize("seed", range(4))
def test_few_valued_channels_round_trip_as_codes_byte_for_byte(seed: int, tmp_path: Path) -> None:
    channels = _with_few_valued(_channels(seed, shape=(96, 64)), seed)
    back, storage = _round_trip(channels, tmp_path, coded=True)
    for name, array in channels.items():
        _assert_same_bytes(back[name], array, name)
    assert storage["topk_elevation_rad"] == CODED_SLOTS
    assert storage["topk_instance"] == CODED_SLOTS
    assert storage["validity"] == CODED_CELLS  # 8 flag values of a uint16
    # Many-valued channels are not coded: codes and table would not be smaller.
    for name in ("topk_range_m", "topk_triangle", "primary_hit_point_world", "linear_return"):
        assert storage[name] in (SPARSE_SLOTS, SPARSE_CELLS), name
    with h5py.File(tmp_path / "c.h5", "r") as f:
        assert f["c"]["topk_elevation_rad"].dtype == np.uint16
        assert f["c"]["topk_instance"].dtype == np.uint8
        assert f["c"]["topk_instance"].attrs["table"].tolist() == [0, 1, 2]
        odd = f["c"]["topk_elevation_rad"].attrs["table"].view(np.uint64)
        assert 0xFFF8_0000_0000_1234 in odd.tolist()


@pytest.mark.parametrize("dtype", ["<f8", ">f8", "<i4", "<u2", "<i8", "<f4"])
@pytest.mark.parametrize("distinct", [1, 2, 200, 257, CODE_TABLE_MAX, CODE_TABLE_MAX + 1])
def test_codes_are_numpys_unique_table_and_inverse(dtype: str, distinct: int) -> None:
    # The table and codes are np.unique's (sorted bit patterns, each value's place);
    # None exactly where that table is too large or coding would not be smaller.
    rng = np.random.default_rng(distinct)
    pool = rng.integers(-(2**15), 2**15, size=distinct).astype(dtype)
    if pool.dtype.kind == "f":
        pool[: min(3, distinct)] = [np.nan, -0.0, 0.0][: min(3, distinct)]
    values = pool[rng.integers(0, distinct, size=(3000, 7))]
    values[0, 0] = pool[-1]  # the head (the probe) does not hold every pattern
    coded = _coded(values)
    bits = np.ascontiguousarray(values).reshape(-1).view(f"<u{values.dtype.itemsize}")
    table, inverse = np.unique(bits, return_inverse=True)
    width = 1 if table.shape[0] <= 256 else 2
    pays = table.shape[0] <= CODE_TABLE_MAX and width * values.size + table.nbytes < values.nbytes
    if not pays:
        assert coded is None
        return
    assert coded is not None
    codes, values_table = coded
    assert codes.dtype == np.dtype(f"u{width}") and codes.shape == values.shape
    assert values_table.dtype == values.dtype
    assert np.ascontiguousarray(values_table).view(table.dtype).tolist() == table.tolist()
    assert codes.reshape(-1).tolist() == inverse.tolist()
    assert values_table[codes].tobytes() == values.tobytes()


@pytest.mark.parametrize("distinct", [CODE_TABLE_MAX, CODE_TABLE_MAX + 1, 2 * CODE_TABLE_MAX])
def test_a_table_holds_at_most_code_table_max_values(distinct: int, tmp_path: Path) -> None:
    channels = _channels(20, shape=(256, 192))
    used = np.arange(4)[None, None, :] < channels["sample_count"][..., None]
    assert used.sum() > 3 * distinct  # every value of the table is used, several times
    elevation = np.full(used.shape, np.nan)
    elevation[used] = np.linspace(-0.35, 0.35, distinct)[np.arange(int(used.sum())) % distinct]
    channels["topk_elevation_rad"] = elevation
    back, storage = _round_trip(channels, tmp_path, coded=True)
    expected = CODED_SLOTS if distinct <= CODE_TABLE_MAX else SPARSE_SLOTS
    assert storage["topk_elevation_rad"] == expected
    _assert_same_bytes(back["topk_elevation_rad"], elevation, "elevation")


def test_version_2_writes_no_codes(tmp_path: Path) -> None:
    channels = _with_few_valued(_channels(21), 21)
    back, storage = _round_trip(channels, tmp_path, coded=False)
    assert not {CODED_CELLS, CODED_SLOTS} & set(storage.values())
    for name, array in channels.items():
        _assert_same_bytes(back[name], array, name)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("no_table", "needs a 1-D numeric 'table' attribute"),
        ("float_codes", "codes are float64, expected unsigned integers"),
        ("short_table", r"codes of uint16 up to \d+ do not index its 10-value table"),
        ("table_dtype", r"a table of float32 values for a channel of float64"),
    ],
)
def test_damaged_codes_are_a_dataset_error(damage: str, message: str, tmp_path: Path) -> None:
    channels = _with_few_valued(_channels(22), 22)
    _round_trip(channels, tmp_path, coded=True)
    with h5py.File(tmp_path / "c.h5", "r+") as f:
        stored = f["c"]["topk_elevation_rad"]
        table = stored.attrs["table"]
        if damage == "no_table":
            del stored.attrs["table"]
        elif damage == "float_codes":
            attrs = dict(stored.attrs)
            codes = stored[...].astype(np.float64)
            del f["c"]["topk_elevation_rad"]
            f["c"].create_dataset("topk_elevation_rad", data=codes)
            f["c"]["topk_elevation_rad"].attrs.update(attrs)
        elif damage == "short_table":
            stored.attrs["table"] = table[:10]
        else:
            stored.attrs["table"] = table.astype("<f4")
    with h5py.File(tmp_path / "c.h5", "r") as f, pytest.raises(DatasetError, match=message):
        _read_channels(f["c"])


def test_verify_detects_a_tampered_code_table(recorded: Recorded, tmp_path: Path) -> None:
    with _open_first_occupied_copy(recorded, tmp_path) as (copy, sample):
        stored = sample["channels"]["topk_elevation_rad"]
        table = stored.attrs["table"].copy()
        table[0] = np.nextafter(table[0], np.inf)
        stored.attrs["table"] = table
    # An elevation off the frame's table: the hit point's rule refuses to rebuild it, or
    # (where no occupied cell's primary uses that entry) verify finds the changed hash.
    with pytest.raises(DatasetError, match="survey/sonar"):
        list(read_hdf5(copy).groups())


def test_an_odd_nan_in_one_slot_keeps_its_bits(tmp_path: Path) -> None:
    channels = _channels(7)
    counts = channels["sample_count"]
    r, b = np.argwhere(counts >= 2)[0]
    channels["topk_range_m"][r, b, 1] = ODD_NAN
    back, _ = _round_trip(channels, tmp_path)
    assert back["topk_range_m"][r, b, 1:2].view(np.uint64)[0] == 0xFFF8_0000_0000_1234


def test_an_empty_cell_off_the_fill_keeps_the_channel_dense(tmp_path: Path) -> None:
    channels = _channels(8)
    r, b = np.argwhere(channels["sample_count"] == 0)[3]
    channels["linear_return"][r, b] = -0.0  # 0.0 elsewhere: a different bit pattern
    back, storage = _round_trip(channels, tmp_path)
    assert storage["linear_return"] == "dense"
    _assert_same_bytes(back["linear_return"], channels["linear_return"], "linear_return")


def test_a_used_slot_beyond_the_count_falls_back_to_whole_cells(tmp_path: Path) -> None:
    channels = _channels(9)
    r, b = np.argwhere((channels["sample_count"] > 0) & (channels["sample_count"] < 4))[0]
    channels["topk_range_m"][r, b, 3] = 2.5  # a slot beyond the cell's count holds a value
    back, storage = _round_trip(channels, tmp_path)
    assert storage["topk_range_m"] == SPARSE_CELLS
    _assert_same_bytes(back["topk_range_m"], channels["topk_range_m"], "topk_range_m")


def test_a_primary_off_slot_0_in_one_cell_is_stored_itself(tmp_path: Path) -> None:
    channels = _channels(10)
    occupied = np.argwhere(channels["sample_count"] > 0)
    r, b = occupied[len(occupied) // 2]  # not the first occupied cell, which is probed
    channels["primary_range_m"][r, b] = np.nextafter(channels["primary_range_m"][r, b], np.inf)
    back, storage = _round_trip(channels, tmp_path)
    assert storage["primary_range_m"] == SPARSE_CELLS
    _assert_same_bytes(back["primary_range_m"], channels["primary_range_m"], "primary_range_m")


def test_a_fraction_off_the_quotient_in_one_slot_is_stored_itself(tmp_path: Path) -> None:
    channels = _channels(11)
    used = np.argwhere(
        (np.arange(4)[None, None, :] < channels["sample_count"][..., None])
        & (channels["linear_return"][..., None] > 0.0)
    )
    r, b, j = used[len(used) // 2]
    fraction = channels["topk_energy_fraction"]
    fraction[r, b, j] = np.nextafter(fraction[r, b, j], -np.inf)
    back, storage = _round_trip(channels, tmp_path)
    assert storage["topk_energy_fraction"] == SPARSE_SLOTS
    _assert_same_bytes(back["topk_energy_fraction"], fraction, "topk_energy_fraction")


def test_version_1_writes_every_channel_dense(tmp_path: Path) -> None:
    channels = _channels(12)
    back, storage = _round_trip(channels, tmp_path, sparse=False)
    assert set(storage.values()) == {"dense"}
    for name, array in channels.items():
        _assert_same_bytes(back[name], array, name)


def test_a_frame_with_no_empty_cell_is_stored_dense(tmp_path: Path) -> None:
    channels = _channels(13)
    channels["sample_count"][...] = np.maximum(channels["sample_count"], 1)
    cells = _Cells(channels["sample_count"])
    assert _sparse_channel("linear_return", channels["linear_return"], channels, cells) is None


def test_a_frame_with_every_cell_empty_round_trips(recorded: Recorded, tmp_path: Path) -> None:
    """No occupied cell: the channels are their fills alone and come back exactly."""
    frame = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    blank = {name: np.asarray(a).copy() for name, a in frame.channels.items()}
    for a in blank.values():
        a[...] = a.reshape(-1)[0]
    blank["sample_count"][...] = 0
    back, storage = _round_trip(blank, tmp_path)
    assert storage["topk_range_m"] == SPARSE_SLOTS  # no derived form without a cell
    for name, array in blank.items():
        _assert_same_bytes(back[name], array, name)


# --------------------------------------------------------------------------- rules


def _frame_channels(recorded: Recorded) -> tuple[dict, object]:
    frame = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    return {name: np.asarray(a).copy() for name, a in frame.channels.items()}, frame.metadata


def _write_ruled(channels: dict, metadata: object, path: Path) -> dict[str, str]:
    docs = {name: sample_channel_doc("imaging_sonar", name) for name in channels}
    rules = channel_rules("imaging_sonar", metadata)
    with h5py.File(path, "w", track_order=True) as f:
        _write_channels(
            f.create_group("c", track_order=True), channels, docs, version=3, rules=rules
        )
        return {n: d.attrs.get("storage", "dense") for n, d in f["c"].items()}


def test_a_hit_point_off_its_rule_in_one_cell_is_stored_itself(
    recorded: Recorded, tmp_path: Path
) -> None:
    channels, metadata = _frame_channels(recorded)
    occupied = np.argwhere(channels["sample_count"] > 0)
    r, b = occupied[len(occupied) // 2]
    point = channels["primary_hit_point_world"]
    point[r, b, 2] = np.nextafter(point[r, b, 2], np.inf)
    storage = _write_ruled(channels, metadata, tmp_path / "c.h5")
    assert storage["primary_hit_point_world"] in (SPARSE_CELLS, CODED_CELLS)
    with h5py.File(tmp_path / "c.h5", "r") as f:
        back = _read_channels(f["c"], channel_rules("imaging_sonar", metadata))
    for name, array in channels.items():
        _assert_same_bytes(back[name], array, name)


def test_version_2_stores_no_rule(recorded: Recorded, tmp_path: Path) -> None:
    channels, metadata = _frame_channels(recorded)
    docs = {name: sample_channel_doc("imaging_sonar", name) for name in channels}
    rules = channel_rules("imaging_sonar", metadata)
    with h5py.File(tmp_path / "c.h5", "w", track_order=True) as f:
        _write_channels(f.create_group("c"), channels, docs, version=2, rules=rules)
        assert f["c"]["primary_hit_point_world"].attrs["storage"] == SPARSE_CELLS


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({}, "this LEVIATHAN has no rule for it"),
        (
            {"primary_hit_point_world": ("elsewhere.rule", lambda channels: None)},
            "this LEVIATHAN has the rule 'elsewhere.rule'",
        ),
        (
            {
                "primary_hit_point_world": (
                    "leviathan.sonar._rebuild.rebuild_primary_hit_point",
                    lambda channels: None,
                )
            },
            "cannot rebuild its float64",
        ),
    ],
)
def test_a_ruled_channel_without_its_rule_is_a_dataset_error(
    rules: dict, message: str, recorded: Recorded, tmp_path: Path
) -> None:
    channels, metadata = _frame_channels(recorded)
    assert _write_ruled(channels, metadata, tmp_path / "c.h5")["primary_hit_point_world"] == RULE
    with h5py.File(tmp_path / "c.h5", "r") as f, pytest.raises(DatasetError, match=message):
        _read_channels(f["c"], rules)
