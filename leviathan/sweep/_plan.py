"""Planning a sweep: its runs in order, each with its canonical document and content key.

A run's key is the SHA-256 (:func:`leviathan.identity.content_hash`, the
canonical encoding of :mod:`leviathan.identity`) of::

    {"document": <the run's canonical form>,
     "leviathan_version": leviathan.__version__,
     "fixtures": {"sonar_v1": <SHA-256 of the frozen fixture's manifest.json>}}

so a run is computed again exactly when its document, the project version or
the frozen fixture changes, and never because of where or in which order it
runs, how the sweep file is laid out, which axis set a value, or whether a
default was written out. A run whose document is refused keys the document as
it was set (``{"refused": ...}`` in place of ``"document"``).
"""

from __future__ import annotations

import copy
import hashlib
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from leviathan.identity import content_hash
from leviathan.specs import SpecError, load_spec, spec_from_dict
from leviathan.sweep._documents import canonical_run, inline_scenario_file
from leviathan.sweep._schema import SweepDocument, parse_path

__all__ = [
    "PlannedRun",
    "SweepPlan",
    "fixture_hashes",
    "load_sweep",
    "plan_sweep",
    "run_key",
    "sweep_from_dict",
]

_SAMPLE_DOMAIN = b"LEVIATHAN-SWEEP-SAMPLE-v1\0"


@dataclass(frozen=True)
class PlannedRun:
    """One run of a sweep.

    Attributes:
        index: Position in the sweep's order (before ``sample``/``limit``).
        key: Content key (64 hex digits): the name of its folder ``runs/<key>/``.
        params: Axis name -> the value this run takes.
        document: The canonical form (:func:`leviathan.sweep.canonical_run`), or
            ``None`` when the document is refused.
        error: The one-line refusal, or ``None``.
        request: The run table as set (what a refused run's key hashes).
    """

    index: int
    key: str
    params: dict[str, Any]
    document: dict[str, Any] | None
    error: str | None
    request: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class SweepPlan:
    """A sweep's runs, in order, after ``sample`` and ``limit``.

    Attributes:
        sweep: The sweep document.
        runs: The runs to do, in order.
        combination_count: Combinations before ``sample`` and ``limit``.
        key_inputs: What every key hashes besides the document (version, fixtures).
        duplicates: Combinations left out because an earlier one has the same key
            (the same canonical document): each run is done once.
    """

    sweep: SweepDocument
    runs: tuple[PlannedRun, ...]
    combination_count: int
    key_inputs: dict[str, Any]
    duplicates: int = 0


def load_sweep(path: str | os.PathLike[str]) -> SweepDocument:
    """Read a ``.toml`` or ``.json`` sweep document strictly.

    Raises:
        SpecError: It cannot be parsed or is refused (names the file and field).
        FileNotFoundError: The file does not exist.
    """
    path = Path(path)
    doc = load_spec(path, SweepDocument)
    doc._base_dir = path.resolve().parent
    return doc


def sweep_from_dict(data: Any, *, base_dir: str | os.PathLike[str] | None = None) -> SweepDocument:
    """Validate a parsed sweep document; relative paths in it are read from ``base_dir``."""
    doc = spec_from_dict(data, SweepDocument, source="sweep")
    doc._base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
    return doc


@cache
def _fixture_hashes(manifest: Path) -> tuple[tuple[str, str], ...]:
    digest = hashlib.sha256(manifest.read_bytes()).hexdigest()
    return ((manifest.parent.name, digest),)


def fixture_hashes() -> dict[str, str]:
    """SHA-256 of each frozen fixture's ``manifest.json``, by fixture folder name.

    Raises:
        leviathan.parity.FixtureError: The fixture is not installed (says how to point at it).
    """
    from leviathan.parity import default_fixture_dir

    return dict(_fixture_hashes(default_fixture_dir() / "manifest.json"))


def key_inputs() -> dict[str, Any]:
    """Everything a run key hashes besides the run's document."""
    from leviathan import __version__

    return {"leviathan_version": __version__, "fixtures": fixture_hashes()}


def run_key(document: Mapping[str, Any], *, refused: bool = False) -> str:
    """The content key of a run's canonical form (or of a refused run's document)."""
    return content_hash({"refused" if refused else "document": document, **key_inputs()})


def _set(target: Any, path: tuple[str | int, ...], value: Any) -> None:
    for segment in path[:-1]:
        target = target.setdefault(segment, {}) if isinstance(target, dict) else target[segment]
    target[path[-1]] = copy.deepcopy(value)


def _check_path(base: Any, text: str, where: str) -> tuple[str | int, ...]:
    """The parsed path, if it addresses the base run: list items must exist, tables may be new."""
    try:
        path = parse_path(text)
    except ValueError as error:
        raise SpecError(f"{where}: {error}") from None
    node, walked = base, []
    for depth, segment in enumerate(path):
        last = depth == len(path) - 1
        shown = "run" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in walked)
        if isinstance(segment, int):
            if not isinstance(node, list) or segment >= len(node):
                size = f"a list of {len(node)}" if isinstance(node, list) else "not a list"
                raise SpecError(f"{where}: {text!r}: {shown} is {size}; no item [{segment}]")
        elif not isinstance(node, dict):
            raise SpecError(f"{where}: {text!r}: {shown} is not a table; no key {segment!r}")
        elif segment not in node:
            # A missing table is created when the value is set; a key the document does not
            # take is then refused by its validation, naming the field.
            rest = path[depth + 1 :]
            if any(isinstance(s, int) for s in rest):
                raise SpecError(
                    f"{where}: {text!r}: {shown} has no key {segment!r}, so it has no list to index"
                )
            return path
        if not last:
            node = node[segment]
        walked.append(segment)
    return path


def _combinations(sweep: SweepDocument) -> tuple[list[list[int]], list[list[Any]], int]:
    groups = sweep.groups()
    values = [axis.value_list() for axis in sweep.axes]
    return groups, values, sweep.combination_count


def _choose(sweep: SweepDocument, total: int) -> list[int]:
    """Combination indices kept by ``sample``, in sweep order."""
    if sweep.sample is None or sweep.sample.count >= total:
        return list(range(total))
    seed = struct.pack("<Q", sweep.sample.seed)

    def rank(i: int) -> bytes:
        return hashlib.sha256(_SAMPLE_DOMAIN + seed + struct.pack("<Q", i)).digest()

    return sorted(sorted(range(total), key=rank)[: sweep.sample.count])


def _excused(line: str, paths: list[str]) -> bool:
    """Whether a refusal line is about a field an axis sets (so the base may lack it)."""
    where = line.split(":", 1)[0].strip()
    return any(where.startswith(p) or p.startswith(where) for p in paths)


def plan_sweep(sweep: SweepDocument, *, limit: int | None = None) -> SweepPlan:
    """The runs of a sweep, in order, each validated and keyed.

    Args:
        sweep: The sweep document.
        limit: Keep at most the first ``limit`` runs of the sweep's order (after the
            document's own ``sample`` and ``limit``).

    Returns:
        The :class:`SweepPlan`. A run whose document is refused is in it with its
        error (it is recorded, never run).

    Raises:
        SpecError: An axis path addresses nothing in the base run, or the base run
            is refused in a field no axis sets (so every run would be).
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit: expected a positive whole number of runs, got {limit!r}")
    base, base_dir = inline_scenario_file(
        sweep.run.model_dump(mode="json"), base_dir=sweep.base_dir
    )
    base = {k: v for k, v in base.items() if v is not None or k == "tracing_device"}
    paths = [_check_path(base, a.path, f"axes[{i}].path") for i, a in enumerate(sweep.axes)]
    try:
        canonical_run(base, base_dir=base_dir)
    except (SpecError, ValueError, TypeError) as error:
        lines = getattr(error, "errors", ()) or (str(error),)
        kept = [line for line in lines if not _excused(line, [a.path for a in sweep.axes])]
        if kept:
            raise SpecError(
                "run: the base run is refused in a field no axis sets: " + "; ".join(kept)
            ) from None
    groups, values, total = _combinations(sweep)
    chosen = _choose(sweep, total)
    for cap in (sweep.limit, limit):
        if cap is not None:
            chosen = chosen[:cap]
    inputs = key_inputs()
    runs: list[PlannedRun] = []
    seen: set[str] = set()
    for index in chosen:
        request, params = copy.deepcopy(base), {}
        rest = index
        for members in reversed(groups):
            size = len(values[members[0]])
            rest, position = divmod(rest, size)
            for i in members:
                _set(request, paths[i], values[i][position])
        for i, axis in enumerate(sweep.axes):
            params[axis.label] = _get(request, paths[i])
        try:
            document, error = canonical_run(request, base_dir=base_dir), None
            key = content_hash({"document": document, **inputs})
        except (SpecError, ValueError, TypeError) as refusal:
            document, error = None, " ".join(str(refusal).split())
            key = content_hash({"refused": request, **inputs})
        if not runs and error is not None:
            _refuse_unknown_fields(sweep, error)
        if key not in seen:
            seen.add(key)
            runs.append(PlannedRun(index, key, params, document, error, request))
    duplicates = len(chosen) - len(runs)
    return SweepPlan(sweep, tuple(runs), total, inputs, duplicates)


def _refuse_unknown_fields(sweep: SweepDocument, error: str) -> None:
    """Refuse the sweep when its first run is refused for a key an axis path made up."""
    for i, axis in enumerate(sweep.axes):
        for line in error.split("; "):
            # The field the line names, as its last key (union tags may sit in its path).
            unknown = line.split(":", 1)[0].strip().rsplit(".", 1)[-1]
            if "Extra inputs are not permitted" in line and unknown in parse_path(axis.path):
                raise SpecError(f"axes[{i}].path: {axis.path!r} names no field of the run: {line}")


def _get(target: Any, path: tuple[str | int, ...]) -> Any:
    for segment in path:
        target = target[segment]
    return copy.deepcopy(target)
