"""glibc's allocator kept from handing large blocks back to the kernel, for batch commands.

A survey demo ping allocates tens of megabytes of fresh arrays (rays, hits, the
samples' physics, the dataset writer's checks) and frees them a moment later. glibc
serves a block over its mmap threshold (at most 32 MiB) with a fresh mapping and
unmaps it on ``free``, so every ping faults its memory in again, page by page, the
kernel zeroing each page: 8.2 s of the demo's system time. With the threshold and
the heap's trim threshold raised, freed blocks stay in the heap and are reused:
system time 8.2 -> 2.5 s, the demo's wall time 40 -> 36 s, its peak memory 0.98 ->
1.15 GB (two runs each, alternating, on the 2-core development machine).

:func:`tune_for_batch` does this for the command line's batch commands only (``demo``,
``scenario run``, ``export-dataset``, ``bench``, ...): never for ``serve`` (a
long-running server, whose memory should go back), never in a program that imports
LEVIATHAN, and not where ``LEVIATHAN_MALLOC=system`` asks for glibc's defaults. It
changes where memory comes from, never a value: every output is the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

__all__ = ["MMAP_THRESHOLD_BYTES", "TRIM_THRESHOLD_BYTES", "tune_for_batch"]

MMAP_THRESHOLD_BYTES = 256 << 20
"""Blocks under this come from the heap (glibc's ``M_MMAP_THRESHOLD``)."""

TRIM_THRESHOLD_BYTES = 512 << 20
"""Free memory at the heap's top kept for reuse up to this (``M_TRIM_THRESHOLD``)."""

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_tuned: list[bool] = []


def tune_for_batch() -> bool:
    """Raises glibc's mmap and trim thresholds once; whether they are raised.

    False (nothing changed) off glibc, where ``mallopt`` refuses, or with
    ``LEVIATHAN_MALLOC=system``.
    """
    if _tuned:
        return _tuned[0]
    _tuned.append(_apply())
    return _tuned[0]


def _apply() -> bool:
    if os.environ.get("LEVIATHAN_MALLOC", "").strip().lower() == "system":
        return False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 - glibc only (musl has mallopt too, unused)
    except (OSError, AttributeError):
        return False
    mallopt.restype = ctypes.c_int
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    # Trim first: setting the mmap threshold also fixes glibc's dynamic threshold.
    return bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)) and bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    )
