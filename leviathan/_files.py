"""Small file helpers shared by the display products and the demo.

Everything LEVIATHAN writes goes through :func:`write_atomically`: a sibling
temporary file, flushed and fsynced, then renamed over the target, so a reader
never sees a half-written file and a failure leaves nothing behind.
"""

from __future__ import annotations

import io
import os
import tempfile

import numpy as np

__all__ = ["PNG_COMPRESS_LEVEL", "encode_png", "write_atomically"]

PNG_COMPRESS_LEVEL = 9
"""zlib level used for every PNG; fixed so repeated encodings are byte-identical."""


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temporary sibling file and a rename."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1] + ".tmp"
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=suffix, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
