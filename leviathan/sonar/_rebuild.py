"""Channels of an imaging-sonar frame rebuilt exactly from its other channels and metadata.

The sensor kind declares these as its ``channel_rules``, so that a dataset can store
the rule instead of the values (:mod:`leviathan.datasets._hdf5_sparse` keeps it only
where the rebuilt array equals the channel byte for byte, and ``verify`` re-hashes
what it rebuilds on reading). A rule is ``rule(channels, metadata, support)`` and
returns None where it cannot rebuild.

* ``primary_hit_point_world`` is the primary sample's ``o + R d`` (as
  :func:`leviathan.sonar._physics.sample_geometry` computes it): ``o`` the sensor's
  position, ``R`` the cell's ``primary_range_m``, ``d`` the world direction of the ray
  at the cell's bearing and the row of its ``primary_elevation_rad`` in the frame's
  elevation table, rotated by the frame's ``T_world_sensor`` as the ping rotated it.
  It needs no support.
  Where the frame's support is there, ``R`` is the traced range below instead (a
  dataset that stores ``topk_range_m`` as its rule has no ``primary_range_m`` to give).
* ``topk_range_m``, ``primary_normal_world``, ``primary_incidence_rad``,
  ``topk_geometric_weight`` and ``topk_contribution`` need the triangles the truth
  names and the surfaces' Lambert ``mu`` and acoustic status, which are the scene's,
  not the frame's. :func:`~leviathan.sonar._rule_support.rule_support` gathers exactly
  those at render time (the frame's ``rule_support``, not part of its identity): for
  each triangle some top-K slot names, its world vertex and edges and its unit normal,
  as the ping's prepared scene holds them. From them and the slot's elevation row,
  bearing and the frame's pose and beam grid, the rules evaluate the ping's own
  expressions: the range by the reference's ray/triangle test
  (:func:`leviathan.reference_cpu.trace.intersect_ray_triangle`; the sea surface's by
  :func:`leviathan.raycast.intersect_sea_surface`), ``|cos θ|`` by
  :func:`~leviathan.sonar._physics.sample_geometry`, the terms by
  :func:`leviathan.reference_cpu.sonar.sample_physics`, the incidence by
  :func:`~leviathan.reference_cpu.sonar.acos_clipped`.

The per-slot expressions run compiled, as the ping's own host stage does: the rays'
rotation, the range, the terms and the incidence through the Warp ``cpu`` twins in
:mod:`leviathan.kernels.host_stage` (each proved bit for bit against the numpy
function it stands for in ``tests/kernels/test_host_stage.py``); a catalogue frame's
232k slots cost about a tenth of a second in numpy, most of it holding the
interpreter lock that the World's stepping needs.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan.frames import Transform
from leviathan.materials import AcousticStatus
from leviathan.sonar._beam_grid import recorded_grid
from leviathan.sonar._ground_truth import canonical_nan
from leviathan.sonar._physics import sample_geometry
from leviathan.sonar._rule_support import VERTICES, support_index

__all__ = [
    "CHANNEL_RULES",
    "rebuild_primary_hit_point",
    "rebuild_primary_incidence",
    "rebuild_primary_normal",
    "rebuild_topk_contribution",
    "rebuild_topk_geometric_weight",
    "rebuild_topk_range",
]


def _normals(inst: np.ndarray, tri: np.ndarray, support: Mapping[str, Any]) -> np.ndarray | None:
    """The supported normal of each (instance, triangle), or None where one is not there."""
    index = support_index(inst, tri, support)
    return None if index is None else index[1]["triangle_normal_world"][index[0]]


def _ranges(index: Any, inst: np.ndarray, o: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The traced range of each ray ``(o, d)`` to its triangle of the support (``index``
    from :func:`_support_index`; the sea surface's plane for its instance): the
    reference's ``t`` (:func:`leviathan.reference_cpu.trace.intersect_ray_triangle`,
    :func:`leviathan.raycast.intersect_sea_surface`), compiled
    (:func:`leviathan.kernels.host_stage.triangle_ranges`)."""
    from leviathan.kernels.host_stage import triangle_ranges

    at, arrays = index
    return triangle_ranges(
        origins=o,
        directions=d,
        triangle=at,
        instance=inst,
        sea_surface_instance=arrays["sea_surface_instance"],
        **{field: arrays[name] for field, name in zip(("v0", "e1", "e2"), VERTICES, strict=True)},
    )


def _world_directions(
    metadata: Mapping[str, Any], elevation: np.ndarray, column: np.ndarray
) -> tuple[Any, Any, np.ndarray, np.ndarray, np.ndarray] | None:
    """``(grid, pose, row, d, o)`` of rays at ``elevation`` (values of the frame's table)
    in bearing ``column``: ``d`` rotated to world NED as the ping rotated it
    (``pose.apply_direction``, compiled: :func:`leviathan.kernels.host_stage.world_rays`)
    and ``o`` the sensor's position, one row per ray; None where an elevation is not in
    the table or the metadata is off its layout."""
    try:
        bearings = np.asarray(metadata["bearing_rad"], dtype=np.float64).reshape(-1)
        elevations = np.asarray(metadata["elevation_rad"], dtype=np.float64).reshape(-1)
        pose = Transform.from_dict(metadata["T_world_sensor"])
        grid, directions = recorded_grid(metadata["spec"])
    except (KeyError, TypeError, ValueError):
        return None
    B = bearings.shape[0]
    if (
        elevations.shape[0] == 0
        or directions.shape[0] != elevations.shape[0] * B
        or grid.bearing_rad.tobytes() != bearings.tobytes()
        or grid.elevation_rad.tobytes() != elevations.tobytes()
    ):
        return None
    row = _table_rows(elevations, np.ascontiguousarray(elevation, dtype=np.float64))
    if row is None:
        return None
    from leviathan.kernels.host_stage import world_rays

    # np.take: the rows' gather without fancy indexing's general machinery (same values).
    rays = np.take(directions, row * B + column, axis=0)
    origins, d = world_rays(rays, pose.rotation, pose.translation)
    return grid, pose, row, d, origins


def _table_rows(table: np.ndarray, wanted: np.ndarray) -> np.ndarray | None:
    """The row of each of ``wanted`` in ``table``: the row holding the same bits (of
    equal patterns, the first); None where one is not in the table.

    An elevation table is an inclusive grid, strictly increasing, so each pattern is in
    one row and the grid's spacing guesses it; every guess is checked bit for bit, and
    a table or value the guess does not find is looked up by a search of the sorted bits.
    """
    table_bits = table.view(np.uint64)
    wanted_bits = wanted.view(np.uint64)
    n = table.shape[0]
    if n >= 2 and np.all(table[1:] > table[:-1]):
        with np.errstate(all="ignore"):
            guess = np.rint((wanted - table[0]) * (float(n - 1) / (table[-1] - table[0])))
        guess = np.where(np.isfinite(guess), guess, 0.0)
        row = np.clip(guess, 0.0, float(n - 1)).astype(np.int64)
        found = table_bits[row] == wanted_bits
        for step in (-1, 1):  # a guess off by a rounding: its neighbours
            if found.all():
                break
            near = np.clip(row + step, 0, n - 1)
            hit = ~found & (table_bits[near] == wanted_bits)
            row = np.where(hit, near, row)
            found |= hit
        if found.all():
            return row
    order = np.argsort(table_bits, kind="stable")
    ordered = table_bits[order]
    at = np.minimum(np.searchsorted(ordered, wanted_bits), n - 1)
    if not np.array_equal(ordered[at], wanted_bits):
        return None
    return order[at]


def _cells(channels: Mapping[str, Any], *names: str) -> tuple[np.ndarray, ...] | None:
    """The named channels as arrays over the frame's cells, or None where one is missing
    or off the layout of ``sample_count``."""
    try:
        counts = np.asarray(channels["sample_count"])
        arrays = tuple(np.asarray(channels[name]) for name in names)
    except KeyError:
        return None
    if counts.ndim != 2 or any(a.shape[:2] != counts.shape for a in arrays):
        return None
    return (counts, *arrays)


def _filled(shape: tuple[int, ...], where: np.ndarray, values: np.ndarray) -> np.ndarray:
    """NaN everywhere but ``where``, which gets ``values``; one NaN bit pattern."""
    out = np.full(shape, np.nan, dtype=np.float64)
    out[where] = canonical_nan(values)
    return out


def _primary_rays(channels: Mapping[str, Any], metadata: Mapping[str, Any]) -> Any:
    """``(counts, occupied, rays)``: the cells with a sample and the world rays
    (:func:`_world_directions`) of their primary samples, once per frame (:func:`_once`);
    None where an input is missing or off its layout."""
    return _once(
        "primary",
        lambda: _computed_primary_rays(channels, metadata),
        channels,
        _PRIMARY_INPUTS,
        metadata,
    )


def _computed_primary_rays(channels: Mapping[str, Any], metadata: Mapping[str, Any]) -> Any:
    cells = _cells(channels, "primary_elevation_rad")
    if cells is None:
        return None
    counts, elevation = cells
    if elevation.shape != counts.shape or elevation.dtype != np.float64:
        return None
    occupied = counts != 0
    rays = _world_directions(metadata, elevation[occupied], np.nonzero(occupied)[1])
    return None if rays is None else (counts, occupied, rays)


def rebuild_primary_hit_point(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> np.ndarray | None:
    """``primary_hit_point_world`` from ``sample_count``, ``primary_elevation_rad``, the
    cell's range and the metadata's pose and beam tables; NaN in empty cells. The range
    is ``primary_range_m`` where the channels have it, else the traced range to the
    primary triangle of the support. None where an input is missing or off its layout,
    or an elevation is not in the table."""
    primary = _primary_rays(channels, metadata)
    if primary is None:
        return None
    counts, occupied, (_, _, _, d, o) = primary
    if "primary_range_m" in channels:
        range_m = np.asarray(channels["primary_range_m"])
        if range_m.shape != counts.shape or range_m.dtype != np.float64:
            return None
        R = range_m[occupied]
    else:
        named = _cells(channels, "primary_instance", "primary_triangle")
        if named is None:
            return None
        _, inst, tri = named
        if not np.array_equal(inst >= 0, occupied):
            return None
        i = inst[occupied].astype(np.int64)
        index = support_index(i, tri[occupied].astype(np.int64), support)
        if index is None:
            return None
        R = _ranges(index, i, o, d)
    hit = np.array(o, dtype=np.float64)
    hit += R[:, None] * d
    return _filled((*counts.shape, 3), occupied, hit)


def rebuild_primary_normal(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> np.ndarray | None:
    """``primary_normal_world``: the supported normal of each cell's primary triangle."""
    cells = _cells(channels, "primary_instance", "primary_triangle")
    if cells is None:
        return None
    counts, inst, tri = cells
    occupied = inst >= 0
    normals = _normals(inst[occupied].astype(np.int64), tri[occupied].astype(np.int64), support)
    if normals is None or not np.array_equal(occupied, counts != 0):
        return None
    return _filled((*counts.shape, 3), occupied, normals)


def rebuild_primary_incidence(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> np.ndarray | None:
    """``primary_incidence_rad``: ``acos(min(|n . d|, 1))`` of each cell's primary sample."""
    cells = _cells(channels, "primary_instance", "primary_triangle")
    primary = _primary_rays(channels, metadata)
    if cells is None or primary is None:
        return None
    _, inst, tri = cells
    counts, occupied, (_, _, _, d, _) = primary
    if not np.array_equal(inst >= 0, occupied):
        return None
    normals = _normals(inst[occupied].astype(np.int64), tri[occupied].astype(np.int64), support)
    if normals is None:
        return None
    from leviathan.kernels.host_stage import acos_clipped

    _, cos_inc = sample_geometry(np.zeros_like(d), d, np.zeros(d.shape[0]), normals)
    return _filled(counts.shape, occupied, acos_clipped(cos_inc))


_SLOT_INPUTS = ("topk_instance", "topk_triangle", "topk_elevation_rad")
_PRIMARY_INPUTS = ("sample_count", "primary_elevation_rad")
_last: dict[str, tuple[tuple[Any, ...], tuple[Any, ...], Any]] = {}


def _once(
    what: str, compute: Any, channels: Mapping[str, Any], names: tuple[str, ...], *objects: Any
) -> Any:
    """``compute()``, or what it gave for the same inputs the last time.

    The rules of one frame share its slots' geometry and terms and its primary rays, so
    a writer or reader calling them in turn computes each once. The inputs are
    recognised by identity: the channels ``names`` (only where each is a read-only
    array, so it cannot have changed; held weakly, so the frame's memory is not kept)
    and ``objects`` (the frame's metadata and support).
    """
    arrays = tuple(channels.get(name) for name in names)
    if not all(isinstance(a, np.ndarray) and not a.flags.writeable for a in arrays):
        return compute()
    last = _last.get(what)
    if (
        last is not None
        and all(ref() is a for ref, a in zip(last[0], arrays, strict=True))
        and len(last[1]) == len(objects)
        and all(a is b for a, b in zip(last[1], objects, strict=True))
    ):
        return last[2]
    value = compute()
    _last[what] = (tuple(weakref.ref(a) for a in arrays), objects, value)
    return value


def _slot_geometry(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any, np.ndarray, np.ndarray] | None:
    """:func:`_computed_slot_geometry`, once per frame (:func:`_once`)."""
    return _once(
        "geometry",
        lambda: _computed_slot_geometry(channels, metadata, support),
        channels,
        _SLOT_INPUTS,
        metadata,
        support,
    )


def _computed_slot_geometry(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any, np.ndarray, np.ndarray] | None:
    """``(named, inst, normal, rays, R, column)`` of the top-K slots that name a sample:
    their instances, supported normals, world rays (:func:`_world_directions`), traced
    ranges and bearing columns; None where an input is missing or off its layout."""
    cells = _cells(channels, "topk_instance", "topk_triangle", "topk_elevation_rad")
    if cells is None:
        return None
    _, inst, tri, elevation = cells
    if not (inst.shape == tri.shape == elevation.shape) or inst.ndim != 3:
        return None
    named = inst >= 0
    i, t = inst[named].astype(np.int64), tri[named].astype(np.int64)
    index = support_index(i, t, support)
    column = np.nonzero(named)[1]
    rays = _world_directions(metadata, elevation[named], column)
    if index is None or rays is None:
        return None
    d, o = rays[3], rays[4]
    normals = index[1]["triangle_normal_world"][index[0]]
    return named, i, normals, rays, _ranges(index, i, o, d), column


def _slot_terms(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """:func:`_computed_slot_terms`, once per frame (:func:`_once`)."""
    return _once(
        "terms",
        lambda: _computed_slot_terms(channels, metadata, support),
        channels,
        _SLOT_INPUTS,
        metadata,
        support,
    )


def _computed_slot_terms(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """``(named, terms)``: the top-K slots that name a sample and the sample's terms
    (:func:`leviathan.reference_cpu.sonar.sample_physics` of the ``|cos θ|`` that
    :func:`~leviathan.sonar._physics.sample_geometry` gives, compiled: the host stage's
    :func:`leviathan.kernels.host_stage.sample_physics`, bit for bit), or None."""
    geometry = _slot_geometry(channels, metadata, support)
    try:
        mu = np.asarray(support["instance_mu"])
        status = np.asarray(support["instance_status"])
        alpha = metadata["absorption_db_per_m"]
    except KeyError:
        return None
    if geometry is None or mu.dtype != np.float64 or status.dtype != np.uint8:
        return None
    named, i, normals, (grid, _, row, d, o), R, column = geometry
    if mu.shape != status.shape or mu.ndim != 1 or (i.size and int(i.max()) >= mu.shape[0]):
        return None
    from leviathan.kernels.host_stage import sample_physics

    n = R.shape[0]
    # Each slot is its own "ray" and "sample", and its normal its own row: every
    # instance starts at row 0 and no instance is the sea surface (-1), so the kernel's
    # row is the slot's own (the support has gathered the sea surface's normal too).
    terms = sample_physics(
        sample_ray=np.arange(n, dtype=np.int64),
        hit_t=R,
        hit_instance=i.astype(np.int32),
        hit_triangle=np.arange(n, dtype=np.int32),
        origins=o,
        directions=d,
        normal_rows=normals,
        normal_start=np.zeros(mu.shape[0], dtype=np.int64),
        sea_surface_instance=-1,
        instance_status=status,
        instance_mu=mu,
        known_status=int(AcousticStatus.KNOWN),
        two_way_gain=np.ascontiguousarray(grid.two_way_gain[row, column]),
        solid_angle_sr=np.ascontiguousarray(grid.solid_angle_sr[row, column]),
        alpha_db_per_m=None if alpha is None else float(alpha),
    )
    return named, {**terms, "range_m": R}


def _slot_channel(
    name: str,
    channels: Mapping[str, Any],
    metadata: Mapping[str, Any],
    support: Mapping[str, Any],
) -> np.ndarray | None:
    slots = _slot_terms(channels, metadata, support)
    if slots is None:
        return None
    named, terms = slots
    return _filled(named.shape, named, terms[name])


def rebuild_topk_geometric_weight(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> np.ndarray | None:
    """``topk_geometric_weight`` of every slot from its range, elevation row, bearing and
    supported triangle normal; NaN in unused slots."""
    return _slot_channel("geometric_weight", channels, metadata, support)


def rebuild_topk_contribution(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> np.ndarray | None:
    """``topk_contribution`` of every slot, as :func:`rebuild_topk_geometric_weight`,
    with the surface's ``mu`` and status; NaN in unused slots."""
    return _slot_channel("contribution", channels, metadata, support)


def rebuild_topk_range(
    channels: Mapping[str, Any], metadata: Mapping[str, Any], support: Mapping[str, Any]
) -> np.ndarray | None:
    """``topk_range_m``: each slot's ray traced to its supported triangle (the reference's
    ray/triangle test; the sea surface's plane); NaN in unused slots."""
    geometry = _slot_geometry(channels, metadata, support)
    if geometry is None:
        return None
    named, R = geometry[0], geometry[4]
    return _filled(named.shape, named, R)


CHANNEL_RULES: Mapping[str, Any] = MappingProxyType(
    {
        "primary_hit_point_world": rebuild_primary_hit_point,
        "primary_normal_world": rebuild_primary_normal,
        "primary_incidence_rad": rebuild_primary_incidence,
        "topk_geometric_weight": rebuild_topk_geometric_weight,
        "topk_contribution": rebuild_topk_contribution,
        "topk_range_m": rebuild_topk_range,
    }
)
"""The imaging sonar's channel rules (its kind's ``channel_rules``): channel -> rule."""
