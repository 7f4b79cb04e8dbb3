"""What a sensor kind declares about itself, besides sampling: the shapes of its declarations.

A sensor kind (:class:`~leviathan.sensors.SensorKind`) declares everything that
is specific to it next to its ``sample`` method, in its own module, with the
records defined here:

* :class:`ChannelDoc` — units, frame, axes, meaning and missing value of each
  channel (``channels``) and display product (``display_channels``); every
  dataset writer copies them onto what it stores and refuses an undocumented one.
* :class:`RosEncoding` — its ROS 2 topics (:class:`RosTopic`), the header frame
  convention, its message encoder and any message definitions the standard set
  lacks; the MCAP writer publishes through it.
* :class:`Footprint` — its field of view as line segments and triangles in
  sensor FRD, which the Viewport (``GET /worlds/{id}/scene``) draws and the USD
  exporter authors.
* :class:`PinholeIntrinsics` — for an optical kind, its pinhole model, which the
  USD exporter authors as a ``UsdGeom.Camera``.
* :class:`AnalyticTier` — how the analytic tier records it: the noise model a
  scenario may declare for it, and the recorder that applies it with the
  sensor's own generator.

None of these import a writer, the service or the analytic tier: those ask the
registry for a kind's declarations and never name a kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

import numpy as np

__all__ = [
    "ROS_FRAMES",
    "AnalyticTier",
    "ChannelDoc",
    "Footprint",
    "FootprintPart",
    "PinholeIntrinsics",
    "RosEncoding",
    "RosTopic",
    "channel_doc",
    "docs_on_axes",
    "true_channel_errors",
]


class ChannelDoc(NamedTuple):
    """What a stored array means: written as attributes on its dataset.

    Attributes:
        units: Physical units (``m``, ``rad/s``, ``Pa``, ...), ``1`` if dimensionless,
            ``-`` if not a quantity (ids, indices, flags, codes).
        frame: Coordinate frame of vector components, ``-`` for scalars.
        axes: Array axes, e.g. ``range_bin, bearing, 3``; ``scalar`` for a 0-d array.
        description: What the values are.
        sentinel: Value that marks "missing" and what it means, ``-`` if none.
    """

    units: str
    frame: str
    axes: str
    description: str
    sentinel: str


def channel_doc(
    units: str, frame: str, axes: str, description: str, sentinel: str = "-"
) -> ChannelDoc:
    """A :class:`ChannelDoc`, with no sentinel unless one is given."""
    return ChannelDoc(units, frame, axes, description, sentinel)


def docs_on_axes(
    docs: Mapping[str, ChannelDoc], axes: Mapping[str, str], *, drop: str | None = None
) -> dict[str, ChannelDoc]:
    """Another fan product's channel docs from ``docs``: each doc's ``axes`` text replaced
    by ``axes[doc.axes]`` (the cell and slot layouts of the other product), and the
    channels whose name holds ``drop`` (an angle the other product does not have) left out.

    The fan products share their channels' meaning (the return, the cell's truth, its
    dominant sample and top-K contributors), so one kind's docs are the others' source.
    """
    return {
        name: doc._replace(axes=axes.get(doc.axes, doc.axes))
        for name, doc in docs.items()
        if drop is None or drop not in name
    }


ROS_FRAMES: tuple[str, ...] = ("sensor", "acoustic", "optical")
"""Header frame conventions a kind's ROS messages may use (see :class:`RosEncoding`)."""


@dataclass(frozen=True)
class RosTopic:
    """One topic a sensor publishes.

    Attributes:
        suffix: ``""`` for the sensor's own topic ``/<vehicle>/<sensor>``, else a
            sub-topic name (``"image"`` -> ``/<vehicle>/<sensor>/image``).
        message_type: ROS 2 type name, ``package/msg/Type``.
    """

    __content_type__ = "leviathan.sensors.RosTopic"

    suffix: str
    message_type: str


@dataclass(frozen=True)
class RosEncoding:
    """How a kind's samples are published in a ROS 2 bag (:class:`~leviathan.datasets.McapWriter`).

    Attributes:
        frame: Header frame convention: ``"sensor"`` (``<v>/<s>``, the sensor in
            FLU), ``"acoustic"`` (``<v>/<s>_acoustic``: z along the boresight, x =
            -z_frd, as ``marine_acoustic_msgs`` documents) or ``"optical"``
            (``<v>/<s>_optical``, OpenCV axes). The writer adds the frame's static
            transform.
        topics: Every topic of one sensor, in publishing order.
        encode: ``encode(product, frame_id) -> [(suffix, message), ...]``: the
            messages of one sample as plain dicts, one per topic suffix; raises
            ``ValueError`` for a sample the messages cannot carry.
        check_spec: Optional ``check_spec(spec)`` raising ``ValueError`` for a spec
            whose samples the messages cannot carry (checked before anything is
            written, e.g. a DVL message with exactly four beams).
        definitions: ``package/Type`` -> ``.msg`` text of any message the standard
            set (:data:`leviathan.ros.MESSAGE_DEFINITIONS`) lacks; registered when
            the kind is.
    """

    __content_type__ = "leviathan.sensors.RosEncoding"

    frame: Literal["sensor", "acoustic", "optical"]
    topics: tuple[RosTopic, ...]
    encode: Callable[[Any, str], list[tuple[str, dict[str, Any]]]]
    check_spec: Callable[[Any], None] | None = None
    definitions: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.frame not in ROS_FRAMES:
            raise ValueError(f"frame: expected one of {ROS_FRAMES}, got {self.frame!r}")
        if not self.topics or not all(isinstance(t, RosTopic) for t in self.topics):
            raise TypeError("topics: expected a non-empty tuple of RosTopic")
        suffixes = [t.suffix for t in self.topics]
        if len(set(suffixes)) != len(suffixes):
            raise ValueError(f"topics: suffixes must be unique, got {suffixes}")
        if not callable(self.encode):
            raise TypeError("encode: expected a callable encode(product, frame_id)")
        object.__setattr__(self, "definitions", MappingProxyType(dict(self.definitions)))


@dataclass(frozen=True)
class FootprintPart:
    """One drawable piece of a field of view, in the sensor FRD frame [m].

    Attributes:
        name: Stable name of the piece (e.g. ``"sonar-fan"``), what the Viewport
            names its object.
        style: ``"lines"`` (``points`` are segment end pairs) or ``"surface"``
            (``points`` are triangle corner triples).
        points: Points in sensor FRD [m], shape [n, 3] (n even for lines, a
            multiple of 3 for surfaces).
        colour: ``#rrggbb``.
        opacity: In (0, 1].
    """

    __content_type__ = "leviathan.sensors.FootprintPart"

    name: str
    style: Literal["lines", "surface"]
    points: np.ndarray
    colour: str
    opacity: float = 1.0

    def __post_init__(self) -> None:
        points = np.array(self.points, dtype=np.float64).reshape(-1, 3)
        group = 2 if self.style == "lines" else 3
        if self.style not in ("lines", "surface"):
            raise ValueError(f"style: expected 'lines' or 'surface', got {self.style!r}")
        if points.shape[0] % group:
            raise ValueError(
                f"points: a {self.style} part needs a multiple of {group} points, got "
                f"{points.shape[0]}"
            )
        if not (0.0 < float(self.opacity) <= 1.0):
            raise ValueError(f"opacity: expected a value in (0, 1], got {self.opacity!r}")
        points.setflags(write=False)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True)
class Footprint:
    """A sensor's field of view as the Viewport draws it (and the USD export authors it).

    Attributes:
        legend: One line for the Viewport's legend, e.g. ``"cyan: sonar fan and volume"``.
        parts: The pieces, in drawing order.
    """

    __content_type__ = "leviathan.sensors.Footprint"

    legend: str
    parts: tuple[FootprintPart, ...]


@dataclass(frozen=True)
class PinholeIntrinsics:
    """A pinhole camera model (OpenCV conventions: pixel centres, ``cx`` from the left edge).

    Attributes:
        width_px, height_px: Image size [px].
        fx_px, fy_px: Focal lengths [px].
        cx_px, cy_px: Principal point [px].
        near_m, far_m: Clipping distances along the optical axis [m].
    """

    __content_type__ = "leviathan.sensors.PinholeIntrinsics"

    width_px: int
    height_px: int
    fx_px: float
    fy_px: float
    cx_px: float
    cy_px: float
    near_m: float
    far_m: float


def true_channel_errors(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Measured minus true for every ``X`` with a ``true_X`` beside it (the default errors)."""
    return {
        name: np.asarray(arrays[name]) - np.asarray(arrays[f"true_{name}"])
        for name in arrays
        if f"true_{name}" in arrays and not name.startswith("true_")
    }


@dataclass(frozen=True)
class AnalyticTier:
    """How the analytic tier (:mod:`leviathan.analytic`, not canonical) records a kind.

    Attributes:
        noise_model: The pydantic model of the ``noise`` table a scenario may give
            this kind's sensors (``None``: the kind has no analytic noise model, and
            a scenario that gives one is refused). A ``kind`` key in the table must
            name this kind; it is kept when the model has a ``kind`` field.
        start: ``start(noise, generator, period_ns) -> record``: a recorder for one
            sensor of one run, given its validated noise model (or ``None``), its
            own numpy generator and its schedule period [ns]; ``record(product)``
            returns one row (a mapping of arrays) for one canonical sample.
        errors: ``errors(arrays) -> {name: measured - true}`` over the stacked rows,
            for the run's error plots.
        plot_units: Optional ``name -> (axis label, scale)`` of an error series in
            the plots (e.g. ``("gyro error [deg/h]", 180 / pi * 3600)``); a series
            without one is labelled ``"<name> error"`` in the channel's own units.
    """

    __content_type__ = "leviathan.sensors.AnalyticTier"

    noise_model: type | None
    start: Callable[[Any, np.random.Generator, int], Callable[[Any], Mapping[str, Any]]]
    errors: Callable[[Mapping[str, np.ndarray]], dict[str, np.ndarray]] = true_channel_errors
    plot_units: Mapping[str, tuple[str, float]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def __post_init__(self) -> None:
        if not callable(self.start) or not callable(self.errors):
            raise TypeError("start and errors: expected callables")
        object.__setattr__(self, "plot_units", MappingProxyType(dict(self.plot_units)))
