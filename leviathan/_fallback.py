"""Compiled paths that may not load here: tried until the first failure, said once in the log.

Where a compiled path (Warp's CPU kernels, the compiled BVH build) gives the same
results as a numpy one, a machine on which it cannot be compiled or loaded keeps
working on numpy, and the log says so once: :func:`usable_once`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

__all__ = ["usable_once"]


def usable_once(failure: list[str], load: Callable[[], object], warning: str) -> bool:
    """Whether ``load()`` runs here; after its first failure, never tried again.

    Args:
        failure: The caller's record of the failure, empty until ``load`` fails; then it
            holds ``"<exception type>: <message>"``, and every later call answers ``False``.
        load: Compiles or loads the compiled path (raises when it cannot).
        warning: The message logged once, on the ``leviathan.raycast`` logger, when
            ``load`` fails; ``%s`` stands for the failure.
    """
    if failure:
        return False
    try:
        load()
    except Exception as exc:
        failure.append(f"{type(exc).__name__}: {exc}")
        logging.getLogger("leviathan.raycast").warning(warning, failure[0])
        return False
    return True
