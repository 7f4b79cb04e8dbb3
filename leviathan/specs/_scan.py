"""Nesting depth of JSON and TOML text, measured before parsing.

The parsers recurse once per nesting level, so a document nested 100,000 deep
would exhaust the recursion limit; these linear scans measure it first, without
a parse, and skip strings and comments so brackets inside them never count.
"""

from __future__ import annotations

import re

_JSON_OUTSIDE = re.compile(r'["\[\]{}]')
_JSON_IN_STRING = re.compile(r'["\\]')


def _json_depth(text: str) -> int:
    """Deepest nesting of objects and arrays in JSON text, strings skipped [-].

    A linear scan that needs no parse, so it is safe on any input. On invalid
    JSON it may overestimate, never underestimate, the depth the parser reaches.
    """
    depth = deepest = pos = 0
    while (match := _JSON_OUTSIDE.search(text, pos)) is not None:
        char, pos = match.group(), match.end()
        if char == '"':
            while (inner := _JSON_IN_STRING.search(text, pos)) is not None:
                pos = inner.end() + (1 if inner.group() == "\\" else 0)
                if inner.group() == '"':
                    break
            else:
                return deepest  # unterminated string: the parser stops here too
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


_TOML_OUTSIDE = re.compile(r"[\"'#\[\]{}]")
_TOML_IN_BASIC = re.compile(r'["\\\n]')
_TOML_IN_MULTILINE_BASIC = re.compile(r'["\\]')
_TOML_IN_LITERAL = re.compile(r"['\n]")
_TOML_IN_MULTILINE_LITERAL = re.compile("'")


def _quote_run(text: str, pos: int, quote: str) -> int:
    """Length of the run of ``quote`` characters starting at ``pos``."""
    end = pos
    while end < len(text) and text[end] == quote:
        end += 1
    return end - pos


def _toml_depth(text: str) -> int:
    """Deepest nesting of tables and arrays in TOML text, strings and comments skipped [-].

    The root table counts as 1; inline arrays and tables add one level each
    (table headers such as ``[a]`` open and close on their line). A linear scan
    that needs no parse; the parsed document is measured again exactly. A
    multi-line string closes at the last quote of a run of 3 to 5 (TOML lets
    one or two quotes sit just before the closing delimiter).
    """
    depth = deepest = pos = 0
    while (match := _TOML_OUTSIDE.search(text, pos)) is not None:
        char, pos = match.group(), match.end()
        if char == "#":
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end
        elif char in "\"'":
            multiline = _quote_run(text, match.start(), char) >= 3
            if multiline:
                pos = match.start() + 3
                inside = _TOML_IN_MULTILINE_BASIC if char == '"' else _TOML_IN_MULTILINE_LITERAL
            else:
                inside = _TOML_IN_BASIC if char == '"' else _TOML_IN_LITERAL
            while (inner := inside.search(text, pos)) is not None:
                found, pos = inner.group(), inner.end()
                if found == "\\" and char == '"':
                    pos += 1  # the escaped character, whatever it is
                elif found == "\n":
                    return deepest + 1  # unterminated string: the parser stops here
                elif not multiline:
                    break
                else:
                    run = _quote_run(text, inner.start(), char)
                    pos = inner.start() + min(run, 5)
                    if run >= 3:
                        break
            else:
                break  # unterminated string: the parser stops here
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest + 1
