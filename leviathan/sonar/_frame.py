"""The canonical sonar product: :class:`SonarFrame`.

A frame holds every channel of one ping as arrays over ``[range_bin, bearing]``
(``[range_bin, bearing, 3]`` for points and normals, ``[range_bin, bearing, K]``
for top-K lists) plus the metadata that defines it. Its ``content_hash`` is the
SHA-256 of the scientific content (metadata and channels; the root seed enters
only when speckle was drawn). The backend that computed it is recorded but is
not part of the identity: every backend must produce the same content.

Sentinels: integer ids are -1 where there is no contributor; float channels
are NaN where a value is missing (never 0); ``primary_acoustic_status`` is 0
(``AcousticStatus.NONE``) in empty cells.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from leviathan._fan_product import FanProduct, FrozenChannels
from leviathan.sonar._ground_truth import channel_layout

__all__ = ["CHANNEL_NAMES", "SonarFrame", "fan_channel_names"]


def fan_channel_names(
    angles: tuple[str, ...], *, after_primary: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """Every channel a fan product can carry, in its fixed documented order.

    The fan render's cell channels in their layout order
    (:func:`leviathan.sonar._ground_truth.channel_layout`, ``speckle_return``
    included) for the fan's per-ray ``angles``, with the product's own per-cell
    channels ``after_primary`` between the primary and the top-K ones.
    """
    layout = channel_layout((1, 1), 1, speckle=True, angles=angles)
    names = [name for name, _, _ in layout]
    at = names.index("topk_instance")
    return (*names[:at], *after_primary, *names[at:])


#: Every channel a frame can carry, in a fixed documented order.
CHANNEL_NAMES: tuple[str, ...] = fan_channel_names(("elevation_rad",))


def _bytes_api() -> tuple[Any, Any] | None:
    """CPython's ``PyBytes_FromStringAndSize`` and ``PyBytes_AsString`` through ctypes, if any."""
    try:
        api = ctypes.pythonapi
    except AttributeError:  # not CPython
        return None
    new = api.PyBytes_FromStringAndSize
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
    as_string = api.PyBytes_AsString
    as_string.restype = ctypes.c_void_p
    as_string.argtypes = [ctypes.py_object]
    return new, as_string


_BYTES_API = _bytes_api()
_ALIGN = 64


class _ChannelBuffer:
    """Every channel of one frame in one immutable ``bytes`` object, written once in place.

    Freezing a finished array (:func:`leviathan._frozen.frozen_array`) copies it into
    a new ``bytes`` object: at 512 x 512 cells that is 80 MB of fresh memory per ping,
    written twice (sentinel fill, then the copy) and faulted in twice. Here the
    ``bytes`` object is made first, uninitialised, with
    ``PyBytes_FromStringAndSize(NULL, n)``; CPython's C API allows writing such an
    object's contents until it is shared (``PyBytes_AsString``: "the data must not be
    modified ... unless the object was just created using
    PyBytes_FromStringAndSize(NULL, size)"). The writable views of :meth:`array`
    live only inside ``render``; :meth:`finish` drops them and hands out read-only
    arrays whose base is that ``bytes`` object, exactly what ``frozen_array`` gives.
    Where ctypes cannot reach CPython's API, a ``bytearray`` is filled and copied to
    ``bytes`` once instead (same content).

    Args:
        layout: ``(name, shape, dtype)`` of every channel, in frame order.
    """

    def __init__(self, layout: list[tuple[str, tuple[int, ...], Any]]) -> None:
        offsets = {}
        total = 0
        for name, shape, dtype in layout:
            dtype = np.dtype(dtype)
            offsets[name] = (total, tuple(shape), dtype)
            size = math.prod(shape) * dtype.itemsize
            total += -(-size // _ALIGN) * _ALIGN
        self._offsets = offsets
        # A 0- or 1-byte bytes object may be a shared singleton: never write one.
        if _BYTES_API is not None and total > 1:
            new, as_string = _BYTES_API
            self._bytes: bytes | None = new(None, total)
            # No MADV_HUGEPAGE: where the kernel compacts memory on a madvised fault
            # (THP defrag "madvise"), writing a fresh 80 MB buffer took 200 ms once free
            # huge pages ran out, against 33 ms in 4 KiB pages; the channel stage of a
            # catalogue ping in the survey demo's World went 66 -> 22 ms without it.
            memory = (ctypes.c_uint8 * total).from_address(as_string(self._bytes))
            self._memory: Any = memory
        else:
            self._bytes = None
            self._memory = bytearray(max(total, 1))
        self._writable = np.frombuffer(self._memory, dtype=np.uint8, count=total)
        # Alignment padding is never part of a channel; zero it so no byte is undefined.
        end = 0
        for name, (offset, _, _) in offsets.items():
            self._writable[end:offset] = 0
            end = offset + self._view(self._writable, name).nbytes
        self._writable[end:] = 0

    def _view(self, memory: Any, name: str) -> np.ndarray:
        offset, shape, dtype = self._offsets[name]
        count = math.prod(shape)
        return np.frombuffer(memory, dtype=dtype, count=count, offset=offset).reshape(shape)

    def array(self, name: str, fill: Any) -> np.ndarray:
        """The writable array of channel ``name``, every element set to ``fill``."""
        a = self._view(self._writable, name)
        a.fill(fill)
        return a

    def unfilled(self, name: str) -> np.ndarray:
        """The writable array of channel ``name`` as it is: for a writer of every element."""
        return self._view(self._writable, name)

    def finish(self) -> FrozenChannels:
        """Read-only channels over the immutable bytes; the writable views end here."""
        memory = self._bytes if self._bytes is not None else bytes(self._memory)
        self._writable = None
        self._memory = None
        return FrozenChannels({name: self._view(memory, name) for name in self._offsets})


@dataclass(frozen=True, eq=False)
class SonarFrame(FanProduct):
    """One imaging-sonar ping with per-cell ground truth.

    Attributes:
        channels: Read-only mapping of read-only arrays by name (see
            :data:`CHANNEL_NAMES`; ``speckle_return`` only when speckle was drawn).
            Each access returns a fresh view of immutable memory.
        metadata: Deep read-only, JSON-like description of the ping: sensor id, sample
            index, time [ns], sensor pose, spec, scene hash, water, medium support,
            absorption [dB/m], grids (arrays over immutable memory), lookup tables, the
            speckle record.
        backend: Name of the tracing backend that produced the frame (not hashed).
        device: Device it traced on, e.g. ``"cpu"`` or ``"cuda:0"`` (not hashed).
        display: Display settings such as ``dynamic_range_db`` (not hashed: display
            products have their own identities).
    """

    __content_type__ = "leviathan.sonar.frame.SonarFrame"

    CHANNEL_ORDER: ClassVar[tuple[str, ...]] = CHANNEL_NAMES

    # Display products (separate identities; never part of content_hash).
    def db_image(self, *, dynamic_range_db: float | None = None) -> np.ndarray:
        """Return in dB relative to the frame's brightest cell, clipped to ``[-DR, 0]``."""
        from leviathan.sonar.display import db_image

        return db_image(self, dynamic_range_db=dynamic_range_db)

    def preview_png(
        self, path: str | None = None, *, dynamic_range_db: float | None = None
    ) -> bytes:
        """sRGB range × bearing preview as PNG bytes (written to ``path`` if given)."""
        from leviathan.sonar.display import preview_png

        return preview_png(self, path, dynamic_range_db=dynamic_range_db)

    def fan_png(
        self, path: str | None = None, *, width_px: int = 512, dynamic_range_db: float | None = None
    ) -> bytes:
        """Polar-to-Cartesian fan image as PNG bytes (written to ``path`` if given)."""
        from leviathan.sonar.display import fan_png

        return fan_png(self, path, width_px=width_px, dynamic_range_db=dynamic_range_db)
