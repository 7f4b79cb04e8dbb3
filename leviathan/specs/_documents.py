"""Spec documents: strict reading and atomic writing of JSON and TOML files.

A document is refused before or while parsing when it exceeds
:data:`MAX_DOCUMENT_BYTES`, :data:`MAX_DOCUMENT_DEPTH` or
:data:`MAX_DOCUMENT_ELEMENTS`; otherwise it is validated into its spec model,
and every problem is reported as one ``field.path: message (got value)`` line.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import tomli_w
from pydantic import BaseModel, ValidationError

from leviathan._files import write_atomically
from leviathan.specs._base import (
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_DEPTH,
    MAX_DOCUMENT_ELEMENTS,
    SpecModel,
)
from leviathan.specs._errors import SpecError, _format_location, format_validation_error
from leviathan.specs._scan import _json_depth, _toml_depth

M = TypeVar("M", bound=SpecModel)

_SUFFIXES = (".json", ".toml")


def _is_container(node: Any) -> bool:
    # The exact types first: they are what parsers produce, and cheaper to test.
    return isinstance(node, dict | list | tuple) or isinstance(node, Mapping)


def _document_problems(data: Any) -> list[str]:
    """Problems with the size of a parsed document: nesting depth and value count.

    Walks the document without recursion, so any depth is measured safely. The
    walk stops once it has seen more than MAX_DOCUMENT_ELEMENTS values (the
    message then gives the count so far as "at least"), so a cyclic or enormous
    Python structure is refused in bounded time.
    """
    ceiling = MAX_DOCUMENT_ELEMENTS
    values = 1
    deepest = 0
    too_deep_at: Any = None  # (parent link, key) chain of the first too-deep container
    # Containers still to visit: (container, its depth, link to its location).
    pending: list[tuple[Any, int, Any]] = [(data, 1, ())] if _is_container(data) else []
    while pending and values <= ceiling:
        node, depth, link = pending.pop()
        deepest = max(deepest, depth)
        if too_deep_at is None and depth > MAX_DOCUMENT_DEPTH:
            too_deep_at = link
        values += len(node)
        for key, child in node.items() if isinstance(node, Mapping) else enumerate(node):
            if _is_container(child):
                pending.append((child, depth + 1, (link, key)))
    at_least = "at least " if pending else ""
    problems = []
    if too_deep_at is not None:
        keys: list[Any] = []
        while too_deep_at:
            too_deep_at, key = too_deep_at
            keys.append(key)
        path = _format_location(tuple(reversed(keys)))[0]
        path = path if len(path) <= 120 else path[:117] + "..."
        problems.append(
            f"{path}: nesting depth {at_least}{deepest:,} exceeds MAX_DOCUMENT_DEPTH = "
            f"{MAX_DOCUMENT_DEPTH} (objects/tables and arrays inside each other)"
        )
    if values > MAX_DOCUMENT_ELEMENTS:
        problems.append(
            f"<root>: {at_least}{values:,} values, more than MAX_DOCUMENT_ELEMENTS = "
            f"{MAX_DOCUMENT_ELEMENTS:,}"
        )
    return problems


def _refuse(model: type[BaseModel], where: str, lines: tuple[str, ...], source: Any) -> SpecError:
    message = f"invalid {model.__name__}{where}: {len(lines)} problem(s)\n  " + "\n  ".join(lines)
    return SpecError(message, errors=lines, source=None if source is None else os.fspath(source))


def spec_from_dict(data: Any, model: type[M], *, source: str | os.PathLike[str] | None = None) -> M:
    """Validate a parsed document into a spec model.

    Args:
        data: The parsed document, normally a mapping.
        model: The spec class to build, e.g. :class:`VehicleSpec`.
        source: File the document came from, named in the error message.

    Returns:
        The validated, frozen spec.

    Raises:
        SpecError: If validation fails, or the document nests deeper than
            :data:`MAX_DOCUMENT_DEPTH` or holds more than
            :data:`MAX_DOCUMENT_ELEMENTS` values; one line per problem, each
            formatted ``field.path: message (got value)``.
    """
    where = f" in {os.fspath(source)!s}" if source is not None else ""
    problems = _document_problems(data)
    if problems:
        raise _refuse(model, where, tuple(problems), source)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _refuse(model, where, format_validation_error(exc, model), source) from None


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(
            f"unsupported spec file extension {path.suffix!r} for {path}; "
            f"use one of {', '.join(_SUFFIXES)}"
        )
    return suffix


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r} in one object; each key may appear once")
        obj[key] = value
    return obj


def load_spec(path: str | os.PathLike[str], model: type[M]) -> M:
    """Read a JSON or TOML spec document (chosen by extension) and validate it.

    Args:
        path: A ``.json`` or ``.toml`` file of at most :data:`MAX_DOCUMENT_BYTES`.
        model: The spec class to build, e.g. :class:`VehicleSpec`.

    Returns:
        The validated spec.

    Raises:
        ValueError: If the extension is not ``.json`` or ``.toml``.
        SpecError: If the file is larger than :data:`MAX_DOCUMENT_BYTES`, nests
            deeper than :data:`MAX_DOCUMENT_DEPTH`, holds more than
            :data:`MAX_DOCUMENT_ELEMENTS` values, cannot be parsed (a JSON
            object with a repeated key included) or fails validation; the
            message names the file and the limit or field.
        FileNotFoundError: If the file does not exist.
    """
    path = Path(path)
    suffix = _suffix(path)
    where = f" in {path}"
    with path.open("rb") as handle:
        # Read one byte past the cap: enough to know the file is too large
        # without reading all of an arbitrarily large (or endless) file.
        raw = handle.read(MAX_DOCUMENT_BYTES + 1)
        size = os.fstat(handle.fileno()).st_size
    if len(raw) > MAX_DOCUMENT_BYTES:
        measured = f"{size:,} bytes" if size > MAX_DOCUMENT_BYTES else "more than that"
        line = f"<root>: the file holds {measured}, more than MAX_DOCUMENT_BYTES = "
        line += f"{MAX_DOCUMENT_BYTES:,} bytes"
        raise _refuse(model, where, (line,), path)
    kind = suffix[1:].upper()
    try:
        text = raw.decode("utf-8")
        depth = _json_depth(text) if suffix == ".json" else _toml_depth(text)
        if depth > MAX_DOCUMENT_DEPTH:
            line = f"<root>: nesting depth {depth:,} exceeds MAX_DOCUMENT_DEPTH = "
            line += f"{MAX_DOCUMENT_DEPTH} (objects/tables and arrays inside each other)"
            raise _refuse(model, where, (line,), path)
        if suffix == ".json":
            data = json.loads(text, object_pairs_hook=_json_object)
        else:
            data = tomllib.loads(text)
    # JSONDecodeError, TOMLDecodeError and UnicodeDecodeError are ValueErrors, as
    # is an integer literal beyond Python's digit limit; RecursionError is a
    # backstop should the depth scan ever underestimate.
    except SpecError:
        raise
    except (ValueError, RecursionError) as exc:
        raise SpecError(f"cannot parse {path} as {kind}: {exc}", source=os.fspath(path)) from exc
    return spec_from_dict(data, model, source=path)


def _drop_none(value: Any, where: str = "") -> Any:
    """Remove None-valued keys (TOML has no null; field defaults restore them on load)."""
    if isinstance(value, Mapping):
        return {
            k: _drop_none(v, f"{where}.{k}" if where else k)
            for k, v in value.items()
            if v is not None
        }
    if isinstance(value, list | tuple):
        if any(item is None for item in value):
            raise ValueError(f"{where}: TOML cannot hold None inside an array; save as .json")
        return [_drop_none(item, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def _serialise(spec: SpecModel, suffix: str) -> bytes:
    data = spec.model_dump(mode="json")
    if suffix == ".json":
        return (json.dumps(data, sort_keys=True, indent=2, allow_nan=False) + "\n").encode("utf-8")
    return tomli_w.dumps(_drop_none(data)).encode("utf-8")


def save_spec(spec: SpecModel, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write a spec as JSON (sorted keys, indent 2) or TOML, chosen by extension.

    The document is written to a temporary file in the target directory and
    moved into place, so readers never see a half-written file and nothing is
    left behind when writing fails.

    Args:
        spec: The spec to write.
        path: Destination ``.json`` or ``.toml`` file.
        overwrite: Replace an existing file; by default an existing file is refused.

    Returns:
        The path written.

    Raises:
        ValueError: If the extension is not ``.json`` or ``.toml``.
        FileExistsError: If the file exists and ``overwrite`` is False.
    """
    path = Path(path)
    suffix = _suffix(path)
    if not overwrite and path.exists():
        raise FileExistsError(f"{path} already exists; pass overwrite=True to replace it")
    payload = _serialise(spec, suffix)
    try:
        return write_atomically(path, payload, overwrite=overwrite)
    except FileExistsError:
        raise FileExistsError(f"{path} already exists; pass overwrite=True to replace it") from None
