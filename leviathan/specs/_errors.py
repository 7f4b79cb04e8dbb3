"""Error reporting of spec validation: :class:`SpecError` and one line per problem.

A pydantic location such as ``("sensors", 0, "imaging_sonar", "schedule")`` is
turned into the document path ``sensors[0].schedule``: the union tag names no
key of the document, so it is left out when the validated model is known.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from difflib import get_close_matches
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Tag, ValidationError
from pydantic.fields import FieldInfo


class SpecError(ValueError):
    """A specification document failed validation.

    Attributes:
        errors: One line per problem, each ``field.path: message (got value)``
            (see :func:`format_validation_error`); ``<root>`` for the document as
            a whole, e.g. when it exceeds a size limit. Empty when the document
            could not be parsed (the message says why).
        source: The file the document came from, or ``None``.
    """

    def __init__(self, message: str, *, errors: tuple[str, ...] = (), source: str | None = None):
        super().__init__(message)
        self.errors = errors
        self.source = source


def _strip_annotated(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _discriminator_tags(member: Any) -> tuple[Any, ...]:
    """The ``kind`` values (or the ``Tag``) that select ``member`` in a discriminated union."""
    if get_origin(member) is Annotated:
        tags = tuple(m.tag for m in get_args(member)[1:] if isinstance(m, Tag))
        if tags:
            return tags
    member = _strip_annotated(member)
    if isinstance(member, type) and issubclass(member, BaseModel):
        kind = member.model_fields.get("kind")
        if kind is not None and get_origin(kind.annotation) is Literal:
            return get_args(kind.annotation)
    return ()


def _step(tp: Any, item: int | str) -> tuple[Any, FieldInfo | None, bool]:
    """Follow one location item from type ``tp``: (next type, its field, item is a union tag)."""
    tp = _strip_annotated(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        field = tp.model_fields.get(item) if isinstance(item, str) else None
        return (None if field is None else field.annotation), field, False
    origin = get_origin(tp)
    if origin is tuple and isinstance(item, int):
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0], None, False
        return (args[item] if 0 <= item < len(args) else None), None, False
    if origin in (Union, UnionType) and isinstance(item, str):
        for member in get_args(tp):
            if item in _discriminator_tags(member):
                return member, None, True
    return None, None, False


def _format_location(
    loc: tuple[int | str, ...], model: type[BaseModel] | None = None
) -> tuple[str, FieldInfo | None]:
    """Format a pydantic error location as a document path, e.g. ``sensors[0].schedule.period_ns``.

    A discriminated union puts the tag it chose (e.g. ``imaging_sonar``) into the
    location; it names no key of the document, so when ``model`` is known it is
    left out. Also returns the field the path ends at, when known.
    """
    parts: list[str] = []
    tp: Any = model
    field: FieldInfo | None = None
    for item in loc:
        tp, field, is_tag = _step(tp, item)
        if is_tag:
            continue
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(f".{item}" if parts else str(item))
    return "".join(parts) or "<root>", field


# Bounded in depth, length and width, so quoting a huge or deeply nested input
# in an error message costs little and never recurses far.
_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = 6
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40


def _short_repr(value: Any, limit: int = 80) -> str:
    try:
        text = _REPR.repr(value)
    except (ValueError, RecursionError):
        # An int beyond Python's str-conversion digit limit cannot be shown at all.
        text = f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _problem(err: Mapping[str, Any], model: type[BaseModel] | None) -> str:
    path, field = _format_location(tuple(err["loc"]), model)
    message = str(err["msg"])
    kind = err.get("type")
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
        if isinstance(err.get("input"), Mapping):
            # A check across fields (e.g. bounded arrays): the message quotes the
            # values that matter; the whole object would only bury them.
            return f"{path}: {message}"
    if kind == "missing":
        expected = f": {field.description}" if field is not None and field.description else ""
        return f"{path}: Field required{expected} (not given)"
    if kind == "extra_forbidden" and model is not None:
        parent = model
        for item in err["loc"][:-1]:
            parent = _step(parent, item)[0]
        parent = _strip_annotated(parent)
        if isinstance(parent, type) and issubclass(parent, BaseModel):
            known = get_close_matches(str(err["loc"][-1]), list(parent.model_fields), n=1)
            if known:
                message += f"; did you mean {known[0]!r}?"
    return f"{path}: {message} (got {_short_repr(err.get('input'))})"


def format_validation_error(
    exc: ValidationError, model: type[BaseModel] | None = None
) -> tuple[str, ...]:
    """Format each problem of a pydantic ``ValidationError`` as one line.

    Args:
        exc: The error raised by validating ``model``.
        model: The model that was validated; with it, paths leave out the tags of
            discriminated unions and a missing field is described.

    Returns:
        One line per problem, ``field.path: what was expected (got value)``, e.g.
        ``mass.mass_kg: expected a number (int or float), not str; write the number
        without quotes (got '45')``; values are shortened to at most 80 characters.
    """
    return tuple(_problem(err, model) for err in exc.errors(include_url=False))
