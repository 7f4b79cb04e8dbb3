"""The CPU cores this process may run on: the one count every host thread pool sizes by
(the CPU trace and the compiled host stage, HDF5 compression, the learning tier's
batched sonar)."""

from __future__ import annotations

import os

__all__ = ["usable_cores"]


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one), >= 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
