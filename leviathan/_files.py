"""File helpers shared by every writer in LEVIATHAN: one atomic writer, PNG, npz, folders.

Every file LEVIATHAN writes (npz, PNG, JSON, TOML, USD) goes through
:func:`atomic_path`, directly or through :func:`write_atomically` /
:func:`write_npz`: the content is written to a temporary sibling file (same
folder, so the final rename stays on one file system), flushed and fsynced,
then renamed over the target with :func:`os.replace`. A reader never sees a
half-written file, an existing file is either kept or replaced whole, and the
temporary file is removed on any failure, ``KeyboardInterrupt`` included.

Folders of products (the survey demo's output) are built the same way with
:func:`atomic_directory`: a temporary sibling folder renamed into place at the
end, the previous folder moved aside first and removed only once the new one
is in place.

Errors about where a file is written are :class:`OSError` subclasses that name
the target path in ``filename`` (never the temporary one) and say why in
``strerror``.
"""

from __future__ import annotations

import errno
import io
import os
import secrets
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = [
    "PNG_COMPRESS_LEVEL",
    "atomic_directory",
    "atomic_path",
    "check_output_path",
    "encode_png",
    "write_atomically",
    "write_npz",
]

PNG_COMPRESS_LEVEL = 9
"""zlib level used for every PNG; fixed so repeated encodings are byte-identical."""


def _sibling_name(path: Path, kind: str, suffix: str = "") -> Path:
    """A hidden, unpredictable name next to ``path``: ``.<name>.<kind>-<pid>-<hex><suffix>``.

    The pid says which process left it, should one ever survive a hard kill.
    """
    return path.with_name(f".{path.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}{suffix}")


def _output_error(path: Path, error: OSError) -> OSError:
    """The ``error`` met while creating a sibling of ``path``, restated for ``path`` itself."""
    parent = path.parent
    if error.errno == errno.ENOENT:
        why = f"cannot be created: its parent folder {parent} does not exist"
    elif error.errno == errno.ENOTDIR:
        why = f"cannot be created: part of its parent path {parent} is a file, not a folder"
    elif error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = f"cannot be written: no permission to write in {parent} ({error.strerror})"
    else:
        why = f"cannot be written: {error.strerror or error}"
    # Same class (FileNotFoundError, PermissionError, ...) so callers can still tell them apart.
    return type(error)(error.errno, why, os.fspath(path))


def check_output_path(path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """Refuses up front an output path that cannot be written, before any work is done.

    Checks only what is knowable without writing: the parent is an existing
    folder, and the target is not in the way (a folder where a file is to be
    written, or a file or symbolic link where a folder is to be written). A
    permission problem surfaces when the temporary sibling is created.

    Args:
        path: The file or folder to be written.
        folder: ``True`` if ``path`` is to be a folder.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        FileNotFoundError: The parent folder does not exist.
        NotADirectoryError: The parent is a file, or ``folder`` and ``path`` is a file.
        IsADirectoryError: Not ``folder`` and ``path`` is an existing folder.
        FileExistsError: ``folder`` and ``path`` is a symbolic link, or ``.``, ``..``
            or a root (no folder name of its own).
    """
    path = Path(path)
    parent = path.parent
    if not parent.exists():
        raise FileNotFoundError(
            errno.ENOENT, f"cannot be created: its parent folder {parent} does not exist", str(path)
        )
    if not parent.is_dir():
        raise NotADirectoryError(
            errno.ENOTDIR,
            f"cannot be created: its parent {parent} is a file, not a folder",
            str(path),
        )
    if folder and path.name in ("", ".", ".."):
        # Path(".").name is "": there is no sibling name to build, and replacing the
        # working folder (or its parent) whole is never what was meant.
        raise FileExistsError(
            errno.EEXIST,
            "names the current, parent or root folder; give the output folder by its own name",
            str(path),
        )
    if folder and path.is_symlink():
        raise FileExistsError(
            errno.EEXIST,
            "is a symbolic link; give the folder it points to, or another path",
            str(path),
        )
    if folder and path.exists() and not path.is_dir():
        raise NotADirectoryError(
            errno.ENOTDIR, "exists and is a file, not a folder; give another path", str(path)
        )
    if not folder and path.is_dir():
        raise IsADirectoryError(
            errno.EISDIR, "is an existing folder; give a file path inside it", str(path)
        )
    return path


def _fsync_folder(folder: Path) -> None:
    # Makes the rename itself durable. Best effort: some file systems (and
    # non-POSIX platforms) cannot open or fsync a folder, and the data file is
    # already complete and synced by then.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_path(path: str | os.PathLike[str], *, overwrite: bool = True) -> Iterator[Path]:
    """Yields a temporary sibling path to write; on success, syncs it and renames it to ``path``.

    The temporary name ends with ``path``'s own extension (``.usdc``, ``.npz``,
    ...) for writers that choose the format from it, such as OpenUSD. The body
    writes the complete file there by any means (``open``, a library's
    ``Export``); on leaving the block normally the file is fsynced and moved
    over ``path``. If the body raises (``KeyboardInterrupt`` included), or the
    sync or rename fails, the temporary file is removed, ``path`` is left as it
    was, and the error propagates.

    Args:
        path: The file to write.
        overwrite: Replace an existing file (default). If ``False``, an
            existing ``path`` is refused, also one that appears while writing:
            the file is linked into place, which fails rather than clobber.

    Yields:
        The temporary path (it already exists, empty).

    Raises:
        FileExistsError: ``overwrite`` is ``False`` and ``path`` exists.
        OSError: ``path`` cannot be written (see :func:`check_output_path`);
            ``filename`` names ``path``.
    """
    path = check_output_path(path)
    if not overwrite and path.exists():
        raise FileExistsError(errno.EEXIST, "already exists", str(path))
    while True:
        tmp = _sibling_name(path, "tmp", path.suffix)
        try:
            # 0o666 before the umask: the file gets the permissions open() would give.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue  # a name clash with 32 random bits: draw again
        except OSError as error:
            raise _output_error(path, error) from error
        os.close(fd)
        break
    try:
        yield tmp
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise FileExistsError(errno.EEXIST, "already exists", str(path)) from None
            os.unlink(tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def write_atomically(path: str | os.PathLike[str], data: bytes, *, overwrite: bool = True) -> Path:
    """Writes ``data`` to ``path`` through a synced temporary sibling and a rename.

    Args:
        path: The file to write.
        data: Its complete content.
        overwrite: Replace an existing file (default); if ``False`` an existing
            file is refused with :class:`FileExistsError` and left untouched.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: ``path`` cannot be written; nothing is left behind and an
            existing file keeps its content.
    """
    with atomic_path(path, overwrite=overwrite) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(data)
    return Path(path)


def write_npz(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray]) -> Path:
    """Writes arrays as a compressed ``.npz`` (``np.savez_compressed``), atomically.

    The archive is built in memory and written with :func:`write_atomically`,
    so an interrupted write never leaves a truncated archive.

    Args:
        path: The ``.npz`` file to write.
        arrays: Array name to array; read back with ``np.load(path, allow_pickle=False)``.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.
    """
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{name: np.asarray(a) for name, a in arrays.items()})
    return write_atomically(path, buffer.getvalue())


@contextmanager
def atomic_directory(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields a temporary sibling folder to fill; on success, renames it to ``path``.

    The temporary folder (``.<name>.tmp-<pid>-<hex>`` next to ``path``) is
    created on entry, so an unwritable location is refused before any work.
    On leaving the block normally, an existing folder at ``path`` is first
    renamed aside (``.<name>.old-<pid>-<hex>``), the new folder renamed into
    place, and only then the old one removed: at every moment the old or the
    new output exists whole (between the two renames, under the aside name).
    If the body raises (``KeyboardInterrupt`` included), the temporary folder
    is removed and ``path`` is left as it was.

    Args:
        path: The folder to produce. Whatever folder is there is replaced
            whole: callers decide beforehand whether it may be.

    Yields:
        The temporary folder (exists, empty).

    Raises:
        OSError: ``path`` cannot be written (see :func:`check_output_path`
            with ``folder=True``); ``filename`` names ``path``.
    """
    path = check_output_path(path, folder=True)
    while True:
        tmp = _sibling_name(path, "tmp")
        try:
            os.mkdir(tmp)
        except FileExistsError:
            continue
        except OSError as error:
            raise _output_error(path, error) from error
        break
    try:
        yield tmp
        aside = None
        if path.is_dir():
            aside = _sibling_name(path, "old")
            os.rename(path, aside)
        try:
            os.rename(tmp, path)
        except BaseException:
            if aside is not None:
                os.rename(aside, path)
            raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync_folder(path.parent)
    if aside is not None:
        try:
            shutil.rmtree(aside)
        except OSError as error:
            raise OSError(
                error.errno,
                f"the new output is in place at {path}, but the previous one, moved aside, "
                f"could not be removed ({error.strerror or error}); remove it by hand",
                str(aside),
            ) from error


def encode_png(pixels: np.ndarray, path: str | os.PathLike[str] | None = None) -> bytes:
    """Encodes uint8 RGB pixels [H, W, 3] as PNG bytes, written atomically to ``path`` if given.

    No pnginfo, dpi or optimize pass: the stream holds only IHDR, IDAT and IEND,
    so nothing time- or host-dependent can enter it.
    """
    from PIL import Image  # Pillow is needed only for encoding.

    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels)).save(
        buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL, optimize=False
    )
    data = buffer.getvalue()
    if path is not None:
        write_atomically(path, data)
    return data
