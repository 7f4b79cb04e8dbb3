"""Probe for cross-process identity tests: prints a content hash and a set's order.

Run as ``python tests/identity_probe.py``; prints one JSON object with the
``content_hash`` of :func:`build_probe_object` and the iteration order of a string set
(which depends on ``PYTHONHASHSEED``), so the test can show the order really varied.
"""

from __future__ import annotations

import json

import numpy as np

from leviathan.identity import content_hash

__all__ = ["build_probe_object", "probe_words"]


def probe_words() -> set[str]:
    """Return a set of strings whose iteration order depends on the hash seed."""
    return {f"beam-{i}" for i in range(32)}


def build_probe_object() -> dict[str, object]:
    """Return a value whose construction order depends on ``PYTHONHASHSEED``."""
    words = probe_words()
    # Insertion order follows set iteration order, so it changes with the hash seed.
    gains = {word: len(word) * 0.25 for word in words}
    return {
        "gains": gains,
        "tags": frozenset(words),
        "ranges_m": np.linspace(0.5, 30.0, 7),
        "missing": float("nan"),
    }


if __name__ == "__main__":
    print(json.dumps({"hash": content_hash(build_probe_object()), "order": list(probe_words())}))
