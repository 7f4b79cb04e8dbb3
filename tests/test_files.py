"""The one atomic writer (``leviathan._files``): files, npz archives and output folders."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from leviathan._files import (
    atomic_directory,
    atomic_path,
    check_output_path,
    write_atomically,
    write_npz,
)


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_write_atomically_replaces_the_whole_file_and_leaves_no_temporary(tmp_path) -> None:
    path = tmp_path / "a.json"
    write_atomically(path, b"first, and longer than the second")
    assert write_atomically(path, b"second") == path
    assert path.read_bytes() == b"second"
    assert _names(tmp_path) == ["a.json"]


def test_a_new_file_gets_the_permissions_open_would_give(tmp_path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    path = write_atomically(tmp_path / "a.bin", b"x")
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("where", ["body", "fsync", "replace"])
@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError])
def test_a_failed_write_keeps_the_previous_file_and_no_temporary(
    tmp_path, monkeypatch, where, error
) -> None:
    path = tmp_path / "world.usda"
    path.write_bytes(b"previous")

    def fail(*args, **kwargs):
        raise error("simulated failure")

    if where != "body":
        monkeypatch.setattr(os, where, fail)
    with pytest.raises(error, match="simulated failure"):
        with atomic_path(path) as tmp:
            tmp.write_bytes(b"half a stage")
            if where == "body":
                fail()
    assert path.read_bytes() == b"previous"
    assert _names(tmp_path) == ["world.usda"]


def test_the_temporary_is_a_sibling_with_the_target_extension(tmp_path) -> None:
    # OpenUSD picks .usda text or .usdc crate from the name it is given.
    with atomic_path(tmp_path / "world.usdc") as tmp:
        assert tmp.parent == tmp_path
        assert tmp.suffix == ".usdc"
        assert tmp.name.startswith(".world.usdc.tmp-")
        assert tmp.exists()
        tmp.write_bytes(b"crate")
    assert (tmp_path / "world.usdc").read_bytes() == b"crate"


def test_overwrite_false_refuses_an_existing_file_and_keeps_it(tmp_path) -> None:
    path = tmp_path / "spec.toml"
    path.write_bytes(b"previous")
    with pytest.raises(FileExistsError) as caught:
        write_atomically(path, b"new", overwrite=False)
    assert caught.value.filename == str(path)
    assert path.read_bytes() == b"previous"
    assert _names(tmp_path) == ["spec.toml"]


def test_overwrite_false_writes_a_new_file(tmp_path) -> None:
    path = write_atomically(tmp_path / "spec.toml", b"new", overwrite=False)
    assert path.read_bytes() == b"new"
    assert _names(tmp_path) == ["spec.toml"]


def test_write_npz_round_trips_every_array(tmp_path) -> None:
    rng = np.random.default_rng(3)
    arrays = {"range_m": rng.random((4, 3)), "validity": rng.random(5) > 0.5}
    path = write_npz(tmp_path / "s.npz", arrays)
    with np.load(path, allow_pickle=False) as data:
        assert sorted(data.files) == ["range_m", "validity"]
        for name, array in arrays.items():
            assert data[name].dtype == array.dtype and data[name].shape == array.shape
            assert_array_equal(data[name], array)
    assert _names(tmp_path) == ["s.npz"]


def test_a_missing_parent_folder_is_refused_naming_the_target(tmp_path) -> None:
    path = tmp_path / "missing" / "a.png"
    with pytest.raises(FileNotFoundError) as caught:
        write_atomically(path, b"x")
    assert caught.value.filename == str(path)
    assert str(tmp_path / "missing") in caught.value.strerror
    assert _names(tmp_path) == []


def test_a_parent_that_is_a_file_is_refused(tmp_path) -> None:
    # Works as root too, where a read-only folder would not stop the write.
    (tmp_path / "file").write_bytes(b"keep")
    with pytest.raises(NotADirectoryError) as caught:
        write_atomically(tmp_path / "file" / "a.png", b"x")
    assert caught.value.filename == str(tmp_path / "file" / "a.png")
    assert (tmp_path / "file").read_bytes() == b"keep"
    assert _names(tmp_path) == ["file"]


def test_a_folder_in_the_place_of_a_file_is_refused(tmp_path) -> None:
    (tmp_path / "a.png").mkdir()
    with pytest.raises(IsADirectoryError):
        write_atomically(tmp_path / "a.png", b"x")
    assert (tmp_path / "a.png").is_dir() and _names(tmp_path / "a.png") == []
    assert _names(tmp_path) == ["a.png"]


def test_check_output_path_refuses_a_file_where_a_folder_goes(tmp_path) -> None:
    (tmp_path / "out").write_bytes(b"keep")
    with pytest.raises(NotADirectoryError) as caught:
        check_output_path(tmp_path / "out", folder=True)
    assert caught.value.filename == str(tmp_path / "out")
    assert "is a file" in caught.value.strerror


def test_atomic_directory_appears_only_when_complete(tmp_path) -> None:
    target = tmp_path / "out"
    with atomic_directory(target) as staging:
        assert staging.parent == tmp_path and staging.name.startswith(".out.tmp-")
        (staging / "a.txt").write_bytes(b"a")
        assert not target.exists()
    assert _names(target) == ["a.txt"]
    assert _names(tmp_path) == ["out"]


def test_atomic_directory_replaces_a_previous_folder_whole(tmp_path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    (target / "stray.txt").write_bytes(b"from the previous run")
    with atomic_directory(target) as staging:
        (staging / "a.txt").write_bytes(b"new")
    assert _names(target) == ["a.txt"]
    assert _names(tmp_path) == ["out"]


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError])
def test_a_failed_atomic_directory_leaves_the_previous_folder(tmp_path, error) -> None:
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_bytes(b"old")
    with pytest.raises(error):
        with atomic_directory(target) as staging:
            (staging / "half.txt").write_bytes(b"half")
            raise error("simulated failure")
    assert _names(target) == ["old.txt"]
    assert _names(tmp_path) == ["out"]


def test_a_failed_rename_into_place_puts_the_previous_folder_back(tmp_path, monkeypatch) -> None:
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_bytes(b"old")
    rename = os.rename

    def rename_fails_into_place(src, dst):
        if Path(dst) == target and ".tmp-" in Path(src).name:
            raise OSError("simulated failure")
        rename(src, dst)

    monkeypatch.setattr(os, "rename", rename_fails_into_place)
    with pytest.raises(OSError, match="simulated failure"):
        with atomic_directory(target) as staging:
            (staging / "new.txt").write_bytes(b"new")
    assert _names(target) == ["old.txt"]
    assert _names(tmp_path) == ["out"]


def test_atomic_directory_refuses_a_missing_parent_before_the_body_runs(tmp_path) -> None:
    target = tmp_path / "missing" / "out"
    with pytest.raises(FileNotFoundError) as caught:
        with atomic_directory(target):
            pytest.fail("the body must not run")
    assert caught.value.filename == str(target)
    assert _names(tmp_path) == []


@pytest.mark.parametrize("name", [".", "sub/.."])
def test_a_folder_without_a_name_of_its_own_is_refused(tmp_path, monkeypatch, name) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileExistsError, match="by its own name"):
        check_output_path(name, folder=True)
    assert _names(tmp_path) == ["sub"]


# --------------------------------------------------------------------------- sets of files


def test_atomic_files_adds_the_whole_set_to_a_folder_keeping_its_other_files(tmp_path) -> None:
    from leviathan._files import atomic_files

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "mine.txt").write_bytes(b"keep")
    (folder / "a.png").write_bytes(b"old a")
    with atomic_files(folder) as staging:
        write_atomically(staging / "a.png", b"new a")
        write_atomically(staging / "b.json", b"new b")
        assert sorted(p.name for p in folder.iterdir()) == ["a.png", "mine.txt"]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == {
        "a.png": b"new a", "b.json": b"new b", "mine.txt": b"keep"
    }  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError])
def test_atomic_files_interrupted_changes_nothing(tmp_path, error) -> None:
    from leviathan._files import atomic_files

    with pytest.raises(error):
        with atomic_files(tmp_path / "new") as staging:
            write_atomically(staging / "a.png", b"a")
            raise error
    assert list(tmp_path.iterdir()) == []


def test_an_atomic_file_set_appears_together_across_folders(tmp_path) -> None:
    from leviathan._files import AtomicFileSet

    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    targets = [tmp_path / "one" / "run.h5", tmp_path / "two" / "run.mcap"]
    files = AtomicFileSet(targets)
    for target in targets:
        files.staged(target).write_bytes(target.suffix.encode())
        assert not target.exists()
    assert files.commit() == targets
    assert [t.read_bytes() for t in targets] == [b".h5", b".mcap"]
    for folder in ("one", "two"):
        assert [p.name for p in (tmp_path / folder).iterdir()] == [targets[folder == "two"].name]


def test_an_atomic_file_set_with_a_file_missing_commits_none(tmp_path) -> None:
    from leviathan._files import AtomicFileSet

    targets = [tmp_path / "run.h5", tmp_path / "run.mcap"]
    files = AtomicFileSet(targets)
    files.staged(targets[0]).write_bytes(b"h5")
    with pytest.raises(FileNotFoundError, match="no file of the set"):
        files.commit()
    files.discard()
    assert list(tmp_path.iterdir()) == []
