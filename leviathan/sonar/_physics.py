"""Per-sample physics stage of the imaging sonar: which hits are integrated, and their terms.

A ray's nearest hit is an integrated sample when it lies in the range window
(exactly when :func:`leviathan.sonar.range_bin` gives it a bin). For each sample
this stage gathers the geometry (hit point, unit normal, ``|cos θ|``), the
surface (acoustic status, Lambert ``mu``) and the medium (support and
Francois-Garrison absorption at the sensor's depth), then evaluates the return
terms with the reference, :func:`leviathan.reference_cpu.sonar.sample_physics`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from leviathan.acoustics import MediumSupport, absorption_db_per_m, medium_support
from leviathan.materials import AcousticStatus, LambertMaterial
from leviathan.raycast import PreparedScene, TraceResult
from leviathan.reference_cpu import sonar as ref
from leviathan.scene import Scene
from leviathan.sonar._binning import _range_window, range_bin
from leviathan.specs import WaterSpec

__all__ = [
    "Medium",
    "Samples",
    "compiled_samples",
    "integrated_samples",
    "medium_at",
    "reference_samples",
    "sample_geometry",
    "sample_terms",
]


class Samples(NamedTuple):
    """The integrated samples of one ping, in ray order.

    Ray ``r = j * bearing_count + i``; every array has one entry per sample [n].

    Attributes:
        ray: Ray index, int64.
        range_m: Slant range R [m], float64.
        instance: Hit instance (the sea surface is ``scene.sea_surface_instance``), int64.
        triangle: Hit triangle within the instance mesh, int64.
        elevation_index: Elevation sample ``j``, int64.
        bearing_index: Bearing ``i``, int64.
        cell: Flat cell index ``range_bin * bearing_count + i``, int64.
        point: Hit point in world NED [m], float64 [n, 3].
        normal: Unit triangle normal in world NED, float64 [n, 3].
        cos_incidence: ``|cos θ|`` between the normal and the ray, float64.
        status: Acoustic status code (:class:`leviathan.materials.AcousticStatus`), uint8.
        mu: Lambert ``mu`` of the surface, NaN where it has none, float64.
        known: Whether the surface's radiometry is KNOWN, bool.
    """

    ray: np.ndarray
    range_m: np.ndarray
    instance: np.ndarray
    triangle: np.ndarray
    elevation_index: np.ndarray
    bearing_index: np.ndarray
    cell: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    cos_incidence: np.ndarray
    status: np.ndarray
    mu: np.ndarray
    known: np.ndarray


class Medium(NamedTuple):
    """The water at the sensor for this ping.

    Attributes:
        support: Whether the absorption model covers it, and why not.
        absorption_db_per_m: Francois-Garrison absorption [dB/m], ``None`` when unsupported.
    """

    support: MediumSupport
    absorption_db_per_m: float | None

    def record(self) -> dict[str, Any]:
        """Its entries in a ping's metadata: ``medium_supported``, ``medium_reasons`` and
        ``absorption_db_per_m``."""
        return {
            "medium_supported": bool(self.support.supported),
            "medium_reasons": list(self.support.reasons),
            "absorption_db_per_m": self.absorption_db_per_m,
        }


def integrated_samples(
    hits: TraceResult,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    scene: Scene,
    prepared: PreparedScene,
    window: dict[str, float | int],
    bearing_count: int | None = None,
    ray_column: np.ndarray | None = None,
    ray_row: np.ndarray | None = None,
    column_count: int | None = None,
) -> Samples:
    """The rays whose nearest hit lies in the range window, with geometry and surface.

    Args:
        hits: Nearest hit per ray (:func:`leviathan.raycast.trace_rays`).
        origins: Ray origins in world NED [m], float64 [ray_count, 3].
        directions: Unit ray directions in world NED, float64 [ray_count, 3].
        scene: The scene that was traced.
        prepared: Its prepared form (the triangle normals).
        window: ``range_min_m``, ``range_max_m`` and ``range_bin_count`` of the spec.
        bearing_count: The imaging sonar's layout: ray ``r = j * B + i`` is column
            (bearing) ``i = r % B``, row (elevation) ``j = r // B``. Give this, or the
            three general arguments below.
        ray_column: Column of each ray (the acoustic fan's; a bearing, a side, a
            receive beam), int64 [ray_count] in ``[0, column_count)``.
        ray_row: Ordinal of each ray within its column, unique per column (the
            order its samples are summed in), int64 [ray_count].
        column_count: Number of columns C; cell ``range_bin * C + column``.

    The returned ``elevation_index`` is the ray's row and ``bearing_index`` its column.
    """
    index = _sample_index(
        hits,
        window=window,
        bearing_count=bearing_count,
        ray_column=ray_column,
        ray_row=ray_row,
        column_count=column_count,
    )
    ray, R, inst, tri = index["ray"], index["range_m"], index["instance"], index["triangle"]

    normal = _sample_normals(inst, tri, scene=scene, prepared=prepared)
    point, cos_inc = sample_geometry(origins[ray], directions[ray], R, normal)

    status = scene.instance_tables["acoustic_status"][inst]
    return Samples(
        **index,
        point=point,
        normal=normal,
        cos_incidence=cos_inc,
        status=status,
        mu=_instance_mu(scene)[inst],
        known=status == int(AcousticStatus.KNOWN),
    )


def sample_geometry(
    origins: np.ndarray, directions: np.ndarray, range_m: np.ndarray, normal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Hit point ``o + R d`` and ``|cos θ| = |n . d|`` of each sample, float64 [n, 3] and [n].

    Args:
        origins, directions: The samples' rays in world NED, float64 [n, 3].
        range_m: Slant range R [m], float64 [n].
        normal: Unit normal of the hit triangle in world NED, float64 [n, 3].

    Component by component: ``ox + R * dx`` etc., and ``|(nx dx + ny dy) + nz dz|``.
    """
    d = directions
    point = np.array(origins, dtype=np.float64)
    point += range_m[:, None] * d
    cos_inc = np.abs((normal[:, 0] * d[:, 0] + normal[:, 1] * d[:, 1]) + normal[:, 2] * d[:, 2])
    return point, cos_inc


def _sample_index(
    hits: TraceResult,
    *,
    window: dict[str, float | int],
    bearing_count: int | None,
    ray_column: np.ndarray | None,
    ray_row: np.ndarray | None,
    column_count: int | None,
) -> dict[str, np.ndarray]:
    """The integrated samples' rays, ranges, hits and cells (integer bookkeeping)."""
    # An integrated sample is exactly a hit that range_bin gives a bin; binning here
    # and in every re-binning (display, users) goes through that one function.
    t = hits.t
    ray_bin = range_bin(t, **window)
    inside = (hits.instance >= 0) & (ray_bin >= 0)
    ray = np.nonzero(inside)[0]
    if bearing_count is not None:
        B = bearing_count
        j = ray // B
        i = ray % B
    else:
        if ray_column is None or ray_row is None or column_count is None:
            raise TypeError(
                "integrated_samples: give bearing_count, or ray_column, ray_row and column_count"
            )
        B = column_count
        j = ray_row[ray]
        i = ray_column[ray]
    return {
        "ray": ray,
        "range_m": t[ray],
        "instance": hits.instance[ray].astype(np.int64),
        "triangle": hits.triangle[ray].astype(np.int64),
        "elevation_index": j,
        "bearing_index": i,
        "cell": ray_bin[ray] * B + i,
    }


def _instance_mu(scene: Scene) -> np.ndarray:
    """Lambert ``mu`` per instance, NaN where none (the sea surface's last), float64 [I + 1]."""
    return np.array(
        [
            inst_.material.mu.value if isinstance(inst_.material, LambertMaterial) else np.nan
            for inst_ in scene.instances
        ]
        + [np.nan],
        dtype=np.float64,
    )


def _normal_table(scene: Scene, prepared: PreparedScene) -> tuple[np.ndarray, np.ndarray]:
    """Every instance's normals stacked, the sea surface's last; and each instance's first row.

    Returns ``(rows, start)``: float64 [M, 3] and int64 [I + 1], where the sea
    surface's entry ``start[I]`` is its one row.
    """
    tables = [prep.normal for prep in prepared.instances]
    starts = [0]
    for table in tables:
        starts.append(starts[-1] + int(table.shape[0]))
    offset = np.array(starts, dtype=np.int64)  # first row of each instance; the sea surface last
    stacked = np.concatenate(
        [*tables, np.asarray(scene.sea_surface.normal_world, dtype=np.float64).reshape(1, 3)]
    )
    return stacked, offset


def _sample_normals(
    inst: np.ndarray, tri: np.ndarray, *, scene: Scene, prepared: PreparedScene
) -> np.ndarray:
    """Unit normal of each sample's triangle in world NED (the sea surface's own), float64 [n, 3].

    The instances' normal tables are stacked, with the sea surface's normal as the
    last row, so one gather serves every instance.
    """
    stacked, offset = _normal_table(scene, prepared)
    surface = inst == scene.sea_surface_instance
    row = np.where(surface, offset[-1], offset[np.where(surface, 0, inst)] + tri)
    return stacked[row]


def reference_samples(
    hits: TraceResult,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    medium: Medium,
    ray_two_way_gain: np.ndarray,
    ray_solid_angle_sr: np.ndarray,
    **inputs: Any,
) -> tuple[Samples, dict[str, np.ndarray]]:
    """:func:`integrated_samples` then :func:`sample_terms`: the numpy authority that
    :func:`compiled_samples` is held to, with its arguments and its ``(samples, terms)``.

    ``inputs`` are :func:`integrated_samples`'s keyword arguments (scene, prepared,
    window, ray_column, ray_row, column_count).
    """
    samples = integrated_samples(hits, origins, directions, **inputs)
    terms = sample_terms(
        samples,
        None,
        medium,
        ray_two_way_gain=ray_two_way_gain,
        ray_solid_angle_sr=ray_solid_angle_sr,
    )
    return samples, terms


def compiled_samples(
    hits: TraceResult,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    scene: Scene,
    prepared: PreparedScene,
    window: dict[str, float | int],
    ray_column: np.ndarray,
    ray_row: np.ndarray,
    column_count: int,
    medium: Medium,
    ray_two_way_gain: np.ndarray,
    ray_solid_angle_sr: np.ndarray,
) -> tuple[Samples, dict[str, np.ndarray]]:
    """:func:`integrated_samples` and :func:`sample_terms` in one compiled pass, bit for bit.

    Which rays are samples and their cells come from
    :func:`leviathan.kernels.host_stage.sample_index`, the per-sample float64 work
    from :func:`leviathan.kernels.host_stage.sample_physics` (Warp ``cpu`` kernels
    calling the C library's ``pow``, as the reference does).
    Arguments as for the two functions it replaces; returns ``(samples, terms)``.
    """
    from leviathan.kernels.host_stage import sample_index, sample_physics

    r_min, r_max, bin_count, width = _range_window(**window)
    index = sample_index(
        hit_t=hits.t,
        hit_instance=hits.instance,
        hit_triangle=hits.triangle,
        ray_column=ray_column,
        ray_row=ray_row,
        column_count=column_count,
        range_min_m=r_min,
        range_max_m=r_max,
        range_bin_width_m=width,
        range_bin_count=bin_count,
    )
    rows, start = _normal_table(scene, prepared)
    if start.shape[0] != scene.sea_surface_instance + 1:
        raise AssertionError("compiled_samples: the sea surface is not the last instance")
    out = sample_physics(
        sample_ray=index["ray"],
        hit_t=hits.t,
        hit_instance=hits.instance,
        hit_triangle=hits.triangle,
        origins=origins,
        directions=directions,
        normal_rows=rows,
        normal_start=start,
        sea_surface_instance=scene.sea_surface_instance,
        instance_status=scene.instance_tables["acoustic_status"],
        instance_mu=_instance_mu(scene),
        known_status=int(AcousticStatus.KNOWN),
        two_way_gain=ray_two_way_gain,
        solid_angle_sr=ray_solid_angle_sr,
        alpha_db_per_m=medium.absorption_db_per_m,
    )
    samples = Samples(
        **index,
        point=out["point"],
        normal=out["normal"],
        cos_incidence=out["cos_incidence"],
        status=out["status"],
        mu=out["mu"],
        known=out["status"] == int(AcousticStatus.KNOWN),
    )
    terms = {
        name: out[name]
        for name in ("geometric_weight_no_absorption", "geometric_weight", "contribution")
    }
    return samples, terms


def medium_at(frequency_hz: float, water: WaterSpec, *, depth_m: float) -> Medium:
    """Support and absorption of the water at the sensor's depth for this frequency.

    Args:
        frequency_hz: Sonar frequency [Hz].
        water: Water properties.
        depth_m: Sensor depth [m] (world NED ``z``).
    """
    properties = {
        "temperature_c": water.temperature_c,
        "salinity_psu": water.salinity_psu,
        "depth_m": depth_m,
        "ph": water.ph,
    }
    support = medium_support(frequency_hz, **properties)
    alpha = absorption_db_per_m(frequency_hz, **properties) if support.supported else None
    return Medium(support=support, absorption_db_per_m=alpha)


def sample_terms(
    samples: Samples,
    grid: ref.BeamGrid | None,
    medium: Medium,
    *,
    ray_two_way_gain: np.ndarray | None = None,
    ray_solid_angle_sr: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Per-sample return terms from the reference (see :mod:`leviathan.reference_cpu.sonar`).

    Args:
        samples: The integrated samples.
        grid: The imaging sonar's beam grid (gain and solid angle at ``[j, i]``), or
            ``None`` with the two per-ray arrays below (indexed by ``samples.ray``).
        medium: The water at the sensor.
        ray_two_way_gain: G² of each ray, float64 [ray_count].
        ray_solid_angle_sr: dΩ of each ray [sr], float64 [ray_count].

    Returns:
        ``geometric_weight_no_absorption``, ``geometric_weight`` and ``contribution``,
        float64 [n] each.
    """
    if grid is not None:
        j, i = samples.elevation_index, samples.bearing_index
        gain, domega = grid.two_way_gain[j, i], grid.solid_angle_sr[j, i]
    else:
        if ray_two_way_gain is None or ray_solid_angle_sr is None:
            raise TypeError("sample_terms: give grid, or ray_two_way_gain and ray_solid_angle_sr")
        gain, domega = ray_two_way_gain[samples.ray], ray_solid_angle_sr[samples.ray]
    return ref.sample_physics(
        range_m=samples.range_m,
        cos_incidence=samples.cos_incidence,
        two_way_gain=gain,
        solid_angle_sr=domega,
        mu=samples.mu,
        known=samples.known,
        alpha_db_per_m=medium.absorption_db_per_m,
    )
