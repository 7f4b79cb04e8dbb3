"""The sweep document: a base run, axes addressed by path, their combination and subsets.

A sweep is a JSON or TOML document read strictly (unknown keys refused, numbers
never taken from strings or booleans, NaN and infinities refused, every refusal
naming the field). Top level::

    name, description         text
    combine                   "product" (default) or "zip": how the axes combine
    limit                     run at most the first N runs of the sweep's order
    [sample]                  count, seed: a keyed random subset of the combinations
    [run]                     the base run (see :class:`RunDocument`)
    [[axes]]                  path, values | range, optional name and group

An axis sets one value of the base run, addressed by a path relative to
``[run]``: keys joined by dots, list items and keys with other characters in
brackets, e.g. ``scenario.vehicles[0].position_ned_m``,
``scene.placements.crate.position_ned_m`` or
``sensor_overrides["survey/sonar"].range_max_m``; list items must exist in the
base run, missing tables are created. Axes in the same ``group`` are
zipped (equal lengths, taken together); groups and ungrouped axes are combined as
a product, the first axis varying slowest (``combine = "zip"`` zips every axis).
The run order is that order; ``sample`` keeps ``count`` of the combinations (the
ones with the lowest SHA-256 of ``(seed, index)``, so the subset depends only on
the seed and the combination count), in sweep order; ``limit`` then keeps the
first ``limit`` of those.
"""

from __future__ import annotations

import datetime
import math
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, model_validator

from leviathan.specs import Flag, Integer, Real, SpecModel, Text

__all__ = [
    "MAX_AXIS_VALUES",
    "MAX_SWEEP_RUNS",
    "AxisDocument",
    "OutputsDocument",
    "PlacementDocument",
    "RangeDocument",
    "RunDocument",
    "SampleDocument",
    "SceneDocument",
    "SweepDocument",
    "parse_path",
]

MAX_SWEEP_RUNS = 1_000_000
"""Most runs one sweep may combine [-] (before ``sample`` and ``limit``)."""
MAX_AXIS_VALUES = 100_000
"""Most values one axis may take [-]."""

_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_BRACKET = re.compile(r"""\[(?:(\d+)|"([^"\]]+)")\]""")
Number = Annotated[Integer | Real, Field(union_mode="left_to_right")]


def parse_path(path: str) -> tuple[str | int, ...]:
    """The segments of an axis path: keys (str) and list indices (int).

    ``scenario.vehicles[0].position_ned_m`` -> ``("scenario", "vehicles", 0,
    "position_ned_m")``; ``sensor_overrides["survey/sonar"].range_max_m`` ->
    ``("sensor_overrides", "survey/sonar", "range_max_m")``.

    Raises:
        ValueError: The path is empty or not of that form (says where it stops parsing).
    """
    segments: list[str | int] = []
    at = 0
    while at < len(path):
        dotted = at > 0 and path.startswith(".", at)
        key = _KEY.match(path, at + 1 if dotted else at) if dotted or at == 0 else None
        bracket = None if key is not None else _BRACKET.match(path, at)
        if key is None and bracket is None:
            raise ValueError(
                f"cannot parse {path!r} at character {at} ({path[at:]!r}); write keys joined "
                'by dots, list items as [0] and other keys as ["a/b"], e.g. '
                "scenario.vehicles[0].position_ned_m"
            )
        if key is not None:
            segments.append(key.group(0))
            at = key.end()
        else:
            index, quoted = bracket.groups()
            segments.append(int(index) if index is not None else quoted)
            at = bracket.end()
    if not segments:
        raise ValueError("expected a path such as scenario.root_seed, got an empty one")
    return tuple(segments)


def _no_datetimes(value: Any, where: str) -> None:
    """Refuse TOML dates and times (no run field takes one) and non-finite numbers."""
    if isinstance(value, datetime.date | datetime.time):
        raise ValueError(f"{where}: a TOML date or time is not a value any run field takes")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where}: expected a finite number, got {value!r}")
    if isinstance(value, dict):
        for key, item in value.items():
            _no_datetimes(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _no_datetimes(item, f"{where}[{i}]")


class RangeDocument(SpecModel):
    """Evenly spaced axis values: ``start``..``stop`` by ``step``, or ``count`` values.

    With ``step`` the values are ``start + k * step`` while they do not pass
    ``stop`` (``stop`` is included when it is reached exactly); the arithmetic is
    exact in decimal (``0.1`` steps give 0.1, 0.2, 0.3, never 0.30000000000000004).
    With ``count`` the values run from ``start`` to ``stop`` inclusive, each the
    exact rational value rounded once. Integers stay integers when ``start``,
    ``stop`` and ``step`` are integers (or every ``count`` value is whole).
    """

    start: Number = Field(description="First value [the field's unit]")
    stop: Number = Field(description="Last value, inclusive when reached [the field's unit]")
    step: Number | None = Field(None, description="Spacing; sign sets the direction")
    count: Integer | None = Field(None, ge=1, le=MAX_AXIS_VALUES, description="Value count")

    @model_validator(mode="after")
    def _one_spacing(self) -> RangeDocument:
        if (self.step is None) == (self.count is None):
            raise ValueError("give exactly one of step and count (e.g. step = 0.5 or count = 5)")
        if self.step is not None:
            if self.step == 0:
                raise ValueError("step: expected a non-zero spacing, got 0")
            n = math.floor((_exact(self.stop) - _exact(self.start)) / _exact(self.step))
            if n < 0:
                raise ValueError(
                    f"step: {self.step!r} leads away from stop ({self.start!r} -> {self.stop!r}); "
                    "flip its sign"
                )
            if n + 1 > MAX_AXIS_VALUES:
                raise ValueError(f"step: {n + 1:,} values, more than {MAX_AXIS_VALUES:,}")
        return self

    def values(self) -> list[int | float]:
        """The values, in order."""
        start, stop = _exact(self.start), _exact(self.stop)
        ints = all(isinstance(v, int) for v in (self.start, self.stop, self.step) if v is not None)
        if self.step is not None:
            step = _exact(self.step)
            n = math.floor((stop - start) / step)
            exact = [start + k * step for k in range(n + 1)]
        elif self.count == 1:
            exact = [start]
        else:
            span = Fraction(stop - start)
            exact = [Fraction(start) + span * k / (self.count - 1) for k in range(self.count)]
            ints = ints and all(Fraction(v).denominator == 1 for v in exact)
        return [int(v) if ints else float(v) for v in exact]


def _exact(value: int | float) -> Decimal:
    """A number as the decimal it was written as (``0.1`` -> ``Decimal('0.1')``)."""
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


class AxisDocument(SpecModel):
    """One swept parameter: where it goes and the values it takes."""

    path: Text = Field(description="Where the value goes, relative to [run]")
    name: Text | None = Field(None, pattern=_NAME, description="Parameter name (default: path)")
    values: list[Any] | None = Field(
        None, min_length=1, max_length=MAX_AXIS_VALUES, description="Explicit values"
    )
    range: RangeDocument | None = Field(None, description="Evenly spaced values")
    group: Text | None = Field(None, pattern=_NAME, description="Axes of one group are zipped")

    @model_validator(mode="after")
    def _one_source(self) -> AxisDocument:
        if (self.values is None) == (self.range is None):
            raise ValueError("give exactly one of values and range")
        parse_path(self.path)
        if self.values is not None:
            _no_datetimes(self.values, "values")
        return self

    @property
    def label(self) -> str:
        """The parameter's name in the index and tables."""
        return self.name if self.name is not None else self.path

    def value_list(self) -> list[Any]:
        """The axis values, in order."""
        return list(self.values) if self.values is not None else self.range.values()


class SampleDocument(SpecModel):
    """A keyed random subset of the combinations."""

    count: Integer = Field(ge=1, le=MAX_SWEEP_RUNS, description="Combinations kept")
    seed: Integer = Field(ge=0, lt=1 << 64, description="Seed of the subset")


class PlacementDocument(SpecModel):
    """Where a scene object of the base scene is put instead (world runs)."""

    position_ned_m: tuple[Real, Real, Real] | None = Field(
        None, description="Object origin in world NED [m]; None keeps the scene's"
    )
    rpy_deg: tuple[Real, Real, Real] | None = Field(
        None, description="Roll, pitch, yaw (ZYX) [deg]; None keeps the scene's attitude"
    )


class SceneDocument(SpecModel):
    """Changes to the scenario's scene that its environment document cannot state (world runs)."""

    seabed_seed: Integer | None = Field(
        None, ge=0, lt=1 << 64, description="Seed of the 'survey' scene's generated seabed"
    )
    placements: dict[str, PlacementDocument] = Field(
        default_factory=dict, description="Scene objects moved, by object id"
    )


class OutputsDocument(SpecModel):
    """What a world run writes beside its manifest."""

    mcap: Flag = Field(True, description="dataset.mcap: the run as a ROS 2 bag")
    hdf5: Flag = Field(True, description="dataset.h5: every channel and the ground truth")
    previews: Flag = Field(True, description="previews/: sonar fans and camera images (PNG)")
    preview_every: Integer = Field(1, ge=1, description="Every n-th sonar/camera sample")


class RunDocument(SpecModel):
    """The base run.

    ``kind = "world"``: a canonical World run (no faults, no analytic noise) of the
    scenario's vehicles, controllers, environment and duration, recording the
    sensors its ``sensors`` list names (the vehicles' other sensors are left out
    of the World) into ``outputs``. ``kind = "analytic"``: the scenario run by
    :func:`leviathan.analytic.run_scenario` (faults, per-sensor noise; not
    canonical). ``scenario`` is a :class:`leviathan.analytic.ScenarioDocument`,
    inline or read from ``scenario_file`` (relative to the sweep document).
    ``sensor_overrides`` changes recorded sensors' fields by id (e.g. a smaller
    sonar); ``scene`` and ``outputs`` apply to world runs only.
    """

    kind: Literal["world", "analytic"]
    scenario: dict[str, Any] | None = Field(None, description="Inline scenario document")
    scenario_file: Text | None = Field(None, description="Scenario document file (.toml/.json)")
    scene: SceneDocument = Field(default_factory=SceneDocument)
    sensor_overrides: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="'vehicle/sensor' -> field values (nested tables merge)"
    )
    outputs: OutputsDocument = Field(default_factory=OutputsDocument)
    tracing_device: Text | None = Field(
        None, pattern=r"^(cpu|cuda(:\d+)?)$", description="'cpu', 'cuda' or 'cuda:N'"
    )

    @model_validator(mode="after")
    def _one_scenario(self) -> RunDocument:
        if (self.scenario is None) == (self.scenario_file is None):
            raise ValueError("give exactly one of scenario (a table) and scenario_file (a path)")
        if self.scenario is not None:
            _no_datetimes(self.scenario, "scenario")
        _no_datetimes(self.sensor_overrides, "sensor_overrides")
        if self.kind == "analytic":
            if self.scene != SceneDocument():
                raise ValueError(
                    "scene: seabed seeds and placements apply to world runs; an analytic "
                    "scenario's scene is its environment table"
                )
            if self.tracing_device is not None:
                raise ValueError("tracing_device: applies to world runs only")
        return self


class SweepDocument(SpecModel):
    """A sweep (see the module docstring)."""

    name: Text = Field(pattern=_NAME, description="Sweep name")
    description: Text = ""
    run: RunDocument
    axes: list[AxisDocument] = Field(default_factory=list, max_length=64)
    combine: Literal["product", "zip"] = "product"
    sample: SampleDocument | None = None
    limit: Integer | None = Field(None, ge=1, description="Run at most the first N runs")
    _base_dir: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _consistent(self) -> SweepDocument:
        paths = [parse_path(a.path) for a in self.axes]
        for i, a in enumerate(paths):
            for j in range(i):
                b = paths[j]
                if a[: len(b)] == b or b[: len(a)] == a:
                    raise ValueError(
                        f"axes[{i}].path: {self.axes[i].path!r} overlaps axes[{j}].path "
                        f"{self.axes[j].path!r}; each value may be set by one axis only"
                    )
        labels = [a.label for a in self.axes]
        for i, label in enumerate(labels):
            if label in labels[:i]:
                raise ValueError(f"axes[{i}].name: {label!r} names two axes; give unique names")
        for group, lengths in self.group_lengths().items():
            if len(set(lengths.values())) > 1:
                sizes = ", ".join(f"axes[{i}]: {n}" for i, n in lengths.items())
                raise ValueError(
                    f"axes: the zipped axes of {group} must have equal lengths ({sizes})"
                )
        if self.combination_count > MAX_SWEEP_RUNS:
            raise ValueError(
                f"axes: {self.combination_count:,} combinations, more than MAX_SWEEP_RUNS = "
                f"{MAX_SWEEP_RUNS:,}; use sample or fewer values"
            )
        return self

    def groups(self) -> list[list[int]]:
        """Axis indices per combined group, in document order (zipped within a group)."""
        if self.combine == "zip":
            return [list(range(len(self.axes)))] if self.axes else []
        order: dict[str, list[int]] = {}
        for i, axis in enumerate(self.axes):
            order.setdefault(axis.group if axis.group is not None else f"\0{i}", []).append(i)
        return list(order.values())

    def group_lengths(self) -> dict[str, dict[int, int]]:
        """Per zipped group (a readable name), its axes' value counts."""
        out = {}
        for members in self.groups():
            if len(members) > 1:
                first = self.axes[members[0]]
                name = "combine = 'zip'" if self.combine == "zip" else f"group {first.group!r}"
                out[name] = {i: len(self.axes[i].value_list()) for i in members}
        return out

    @property
    def base_dir(self) -> Path:
        """Folder relative paths (``scenario_file``, vehicle documents) are read from."""
        return self._base_dir if self._base_dir is not None else Path.cwd()

    @property
    def combination_count(self) -> int:
        """Runs of the full combination, before ``sample`` and ``limit``."""
        return math.prod(len(self.axes[g[0]].value_list()) for g in self.groups())
