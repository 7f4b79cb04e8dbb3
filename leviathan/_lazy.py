"""Public names a package imports on first use (PEP 562), so that importing it stays light.

A package lists each public name with the module that defines it and takes its
module-level ``__getattr__`` and ``__dir__`` from :func:`lazy_exports`::

    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Args:
        package: The package's ``__name__``, for the error message.
        homes: Public name -> the module that defines it (one import path per name).
        namespace: The package's ``globals()``: a name, once loaded, is stored there,
            so its module is imported once and later lookups never reach ``__getattr__``.

    Returns:
        ``(__getattr__, __dir__)``: the first imports a listed name's module and
        refuses any other name with :class:`AttributeError`; the second lists the
        package's names, loaded or not.
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return __getattr__, __dir__
