"""The HDF5 writer's own chunk filtering: HDF5's shuffle + deflate bytes, chunk for chunk.

:func:`leviathan.datasets._hdf5_layout._write_array` filters the chunks of a large
array on a thread pool and writes them with ``write_direct_chunk``; here each stored
chunk is compared byte for byte with the chunk HDF5's own filter pipeline stores for
the same array, chunking and options, and the array is read back exactly.
"""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from leviathan.datasets._hdf5_layout import (
    _GZIP,
    COMPRESS_MIN_BYTES,
    _chunks,
    _stored_form,
    _write_array,
)


def _arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(21)
    return {
        "float64_cells": rng.normal(size=(512, 256)),
        "int32_slots": rng.integers(-5, 9, (300, 7, 3)).astype(np.int32),
        "float64_flat": rng.normal(size=100_000),
        "uint8_mask": (rng.random((700, 256)) < 0.5).astype(np.uint8),
        "edge_chunk": rng.normal(size=(13, 4096, 3)),  # 10-row chunks: the last one partial
        "uint16_flags": rng.integers(0, 512, (1000, 64)).astype(np.uint16),
        "bool": rng.random((9000,)) < 0.1,
        "text": np.array([f"vehicle/sensor{k}" for k in range(400)]),
        "nan_and_inf": np.where(rng.random(20_000) < 0.1, np.nan, np.inf) * rng.normal(size=20_000),
    }


@pytest.mark.parametrize("name", sorted(_arrays()))
def test_chunks_are_the_bytes_hdf5s_filters_store(name: str, tmp_path) -> None:
    a = _arrays()[name]
    stored = _stored_form(a)
    assert stored.nbytes >= COMPRESS_MIN_BYTES
    with h5py.File(tmp_path / "t.h5", "w") as f:
        ours = _write_array(f, "ours", a)
        theirs = f.create_dataset(
            "theirs",
            data=stored,
            chunks=_chunks(stored.shape, stored.dtype.itemsize),
            track_times=False,
            **_GZIP,
        )
        assert ours.chunks == theirs.chunks and ours.compression == "gzip" and ours.shuffle
        zeros = (0,) * (stored.ndim - 1)
        starts = range(0, stored.shape[0], ours.chunks[0])
        assert len(starts) >= 1
        for start in starts:
            mask_ours, ours_bytes = ours.id.read_direct_chunk((start, *zeros))
            mask_theirs, theirs_bytes = theirs.id.read_direct_chunk((start, *zeros))
            assert (mask_ours, ours_bytes) == (mask_theirs, theirs_bytes), start
        np.testing.assert_array_equal(ours[...], stored)
        assert ours[...].tobytes() == stored.tobytes()


def test_small_arrays_are_stored_plain(tmp_path) -> None:
    with h5py.File(tmp_path / "t.h5", "w") as f:
        d = _write_array(f, "small", np.arange(10, dtype=np.int64))
        assert d.chunks is None and d.compression is None
        np.testing.assert_array_equal(d[...], np.arange(10))
