"""``leviathan.sonar.render``: one imaging-sonar ping over a canonical scene.

Stages (see ``leviathan.reference_cpu`` for the arithmetic):

1. Preparation (shared): world triangles, padded bounds and BVHs, cached per instance.
2. Rays (host): inclusive bearing/elevation grid in the sensor FRD frame,
   rotated to world NED by the sensor pose ``T_world_body @ T_body_sensor``.
3. Tracing (the only backend-specific stage, picked by
   :func:`leviathan.tracing.resolve_backend`): nearest mesh hit per ray on the
   numpy reference or the Warp float64 kernels, then the analytic sea surface.
4. Physics and output (host, shared): per-sample return terms, cell sums,
   contributor ranking, validity, speckle, and the :class:`SonarFrame`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from leviathan._validation import check_sample_identifiers, check_seed
from leviathan.acoustics import absorption_db_per_m, medium_support
from leviathan.frames import Transform
from leviathan.materials import AcousticStatus, LambertMaterial
from leviathan.random import exponential
from leviathan.reference_cpu import sonar as ref
from leviathan.reference_cpu.prepare import prepare_scene
from leviathan.reference_cpu.trace import combine_with_sea_surface
from leviathan.scene import Scene
from leviathan.sonar.frame import SonarFrame, _OwnedChannels
from leviathan.specs import ImagingSonarSpec, WaterSpec
from leviathan.tracing import resolve_backend, trace_scene_meshes

__all__ = ["SONAR_MODEL_VERSION", "SPECKLE_EFFECT", "render"]

SPECKLE_EFFECT = "speckle"
SONAR_MODEL_VERSION = "leviathan.imaging_sonar.v1"


@lru_cache(maxsize=32)
def _grid(
    fov: float,
    aperture: float,
    bearings: int,
    elevations: int,
    w_az: float | None,
    w_el: float | None,
) -> tuple[ref.BeamGrid, np.ndarray]:
    grid = ref.beam_grid(
        azimuth_fov_rad=fov,
        elevation_aperture_rad=aperture,
        bearing_count=bearings,
        elevation_count=elevations,
        azimuth_width_rad=w_az,
        elevation_width_rad=w_el,
    )
    dirs = ref.sensor_ray_directions(grid)
    dirs.setflags(write=False)
    return grid, dirs


def beam_grid_for(spec: ImagingSonarSpec) -> tuple[ref.BeamGrid, np.ndarray]:
    """Quadrature grid and sensor-frame ray directions of a sonar spec (cached)."""
    bp = spec.beam_pattern
    gaussian = bp.kind == "gaussian"
    return _grid(
        math.radians(spec.azimuth_fov_deg),
        math.radians(spec.elevation_aperture_deg),
        spec.bearing_count,
        spec.elevation_sample_count,
        math.radians(bp.azimuth_3db_full_width_deg) if gaussian else None,
        math.radians(bp.elevation_3db_full_width_deg) if gaussian else None,
    )


def _physics_spec(spec: ImagingSonarSpec) -> dict[str, Any]:
    """The spec fields that define the sonar's scientific output.

    Display-only and bookkeeping fields (dynamic range, mount, schedule,
    hardware note, name) are left out of the frame's identity: the mount enters
    through the pose and the schedule through ``sample_index`` and ``time_ns``.
    Listing the fields explicitly keeps frame hashes stable when the spec model
    later grows unrelated fields.
    """
    bp = spec.beam_pattern
    return {
        "frequency_hz": float(spec.frequency_hz),
        "azimuth_fov_deg": float(spec.azimuth_fov_deg),
        "elevation_aperture_deg": float(spec.elevation_aperture_deg),
        "bearing_count": int(spec.bearing_count),
        "elevation_sample_count": int(spec.elevation_sample_count),
        "range_min_m": float(spec.range_min_m),
        "range_max_m": float(spec.range_max_m),
        "range_bin_count": int(spec.range_bin_count),
        "beam_pattern": {
            "kind": bp.kind,
            "azimuth_3db_full_width_deg": bp.azimuth_3db_full_width_deg,
            "elevation_3db_full_width_deg": bp.elevation_3db_full_width_deg,
        },
        "top_k": int(spec.top_k),
        "speckle": bool(spec.speckle),
    }


def _validate(
    scene: Any,
    spec: Any,
    sensor_pose: Any,
    sensor_id: Any,
    sample_index: Any,
    time_ns: Any,
    seed: Any,
) -> None:
    if not isinstance(scene, Scene):
        raise TypeError(f"scene: expected a leviathan.scene.Scene, got {type(scene).__name__}")
    if not isinstance(spec, ImagingSonarSpec):
        raise TypeError(f"spec: expected an ImagingSonarSpec, got {type(spec).__name__}")
    if not isinstance(sensor_pose, Transform):
        raise TypeError(
            f"sensor_pose: expected a Transform T_world_sensor (T_world_body @ T_body_sensor), "
            f"got {type(sensor_pose).__name__}"
        )
    check_sample_identifiers(sensor_id, sample_index, time_ns)
    check_seed(seed, needed_by="speckle (the spec enables it)" if spec.speckle else None)


def render(
    scene: Scene,
    spec: ImagingSonarSpec,
    sensor_pose: Transform,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
    seed: int | None = None,
    water: WaterSpec | None = None,
    backend: str = "auto",
    device: str | None = None,
) -> SonarFrame:
    """Renders one imaging-sonar ping with per-cell ground truth.

    Args:
        scene: The canonical scene at the sample instant.
        spec: Imaging sonar spec.
        sensor_pose: ``T_world_sensor`` (form it as ``T_world_body @ T_body_sensor``).
        sensor_id: Stable sensor id, ``"vehicle/sensor"``.
        sample_index: Index n of this sample in the sensor's schedule.
        time_ns: Sample time [ns].
        seed: Root seed for keyed randomness (required when ``spec.speckle``).
        water: Water properties (default :class:`WaterSpec` defaults).
        backend: Tracing backend, one of :data:`leviathan.tracing.BACKENDS`: ``"auto"``
            (Warp on CUDA when present, else Warp on the CPU), ``"reference"`` (numpy)
            or ``"warp"``. Every backend gives the same frame, bit for bit.
        device: Device for the backend: ``None`` (its default), ``"cpu"`` or ``"cuda:N"``.

    Returns:
        The frame; identical content (and hash) for identical inputs.
    """
    _validate(scene, spec, sensor_pose, sensor_id, sample_index, time_ns, seed)
    backend, device = resolve_backend(backend, device)
    water = WaterSpec() if water is None else water
    if not isinstance(water, WaterSpec):
        raise TypeError(f"water: expected a WaterSpec, got {type(water).__name__}")

    grid, dirs_sensor = beam_grid_for(spec)
    B, M, N, K = spec.bearing_count, spec.elevation_sample_count, spec.range_bin_count, spec.top_k
    r_min, r_max = float(spec.range_min_m), float(spec.range_max_m)

    d = sensor_pose.apply_direction(dirs_sensor)
    o = np.ascontiguousarray(np.broadcast_to(sensor_pose.translation, d.shape))
    prepared = prepare_scene(scene)
    meshes = trace_scene_meshes(prepared, o, d, t_max=r_max, backend=backend, device=device)
    hits = combine_with_sea_surface(
        meshes, o, d, t_max=r_max, sea_surface_instance=scene.sea_surface_instance
    )

    # Integrated samples: a nearest hit inside [r_min, r_max), which is exactly a
    # hit that ref.range_bin gives a bin; binning here and in every re-binning
    # (display, users) goes through that one function so they cannot disagree.
    window = {"range_min_m": r_min, "range_max_m": r_max, "range_bin_count": N}
    t = hits.t
    ray_bin = ref.range_bin(t, **window)
    inside = (hits.instance >= 0) & (ray_bin >= 0)
    ray = np.nonzero(inside)[0]
    R = t[ray]
    inst = hits.instance[ray].astype(np.int64)
    tri = hits.triangle[ray].astype(np.int64)
    j = ray // B
    i = ray % B
    cell = ray_bin[ray] * B + i

    # Geometry of each sample.
    dx, dy, dz = d[ray, 0], d[ray, 1], d[ray, 2]
    ox, oy, oz = o[ray, 0], o[ray, 1], o[ray, 2]
    point = np.stack([ox + R * dx, oy + R * dy, oz + R * dz], axis=1)
    normal = np.zeros((ray.shape[0], 3), dtype=np.float64)
    surface = inst == scene.sea_surface_instance
    normal[surface] = scene.sea_surface.normal_world
    for k, prep in enumerate(prepared.instances):
        sel = inst == k
        if np.any(sel):
            normal[sel] = prep.normal[tri[sel]]
    cos_inc = np.abs((normal[:, 0] * dx + normal[:, 1] * dy) + normal[:, 2] * dz)

    tables = scene.instance_tables
    status = tables["acoustic_status"][inst]
    mu_by_instance = np.array(
        [
            inst_.material.mu.value if isinstance(inst_.material, LambertMaterial) else np.nan
            for inst_ in scene.instances
        ]
        + [np.nan],
        dtype=np.float64,
    )
    mu = mu_by_instance[inst]
    known = status == int(AcousticStatus.KNOWN)

    depth_m = float(sensor_pose.translation[2])
    support = medium_support(
        spec.frequency_hz,
        temperature_c=water.temperature_c,
        salinity_psu=water.salinity_psu,
        depth_m=depth_m,
        ph=water.ph,
    )
    alpha = (
        absorption_db_per_m(
            spec.frequency_hz,
            temperature_c=water.temperature_c,
            salinity_psu=water.salinity_psu,
            depth_m=depth_m,
            ph=water.ph,
        )
        if support.supported
        else None
    )
    terms = ref.sample_physics(
        range_m=R,
        cos_incidence=cos_inc,
        two_way_gain=grid.two_way_gain[j, i],
        solid_angle_sr=grid.solid_angle_sr[j, i],
        mu=mu,
        known=known,
        alpha_db_per_m=alpha,
    )
    cells = ref.accumulate_cells(
        range_bin_count=N,
        bearing_count=B,
        elevation_count=M,
        top_k=K,
        medium_supported=support.supported,
        sample_cell=cell,
        sample_elevation=j,
        sample_instance=inst,
        sample_triangle=tri,
        sample_range=R,
        sample_status=status,
        contribution=terms["contribution"],
        geometric_weight=terms["geometric_weight"],
        geometric_weight_no_absorption=terms["geometric_weight_no_absorption"],
    )

    channels = _cell_channels(
        shape=(N, B),
        top_k=K,
        cells=cells,
        sample_cell=cell,
        inst=inst,
        tri=tri,
        R=R,
        elevation=grid.elevation_rad[j],
        cos_incidence=cos_inc,
        point=point,
        normal=normal,
        status=status,
        tables=tables,
        terms=terms,
    )

    speckle_record: dict[str, Any] = {"effect": SPECKLE_EFFECT, "drawn": False, "root_seed": None}
    if spec.speckle:
        draw = exponential(
            seed, sensor_id, sample_index, SPECKLE_EFFECT, np.arange(N * B, dtype=np.int64)
        )
        channels["speckle_return"] = channels["linear_return"] * draw.reshape(N, B)
        speckle_record = {"effect": SPECKLE_EFFECT, "drawn": True, "root_seed": int(seed)}

    metadata = {
        "sensor_id": sensor_id,
        "sample_index": int(sample_index),
        "time_ns": int(time_ns),
        "T_world_sensor": sensor_pose.to_dict(),
        "model": SONAR_MODEL_VERSION,
        "spec": _physics_spec(spec),
        "scene_hash": scene.content_hash,
        "water": {
            "temperature_c": float(water.temperature_c),
            "salinity_psu": float(water.salinity_psu),
            "ph": float(water.ph),
        },
        "medium_supported": bool(support.supported),
        "medium_reasons": list(support.reasons),
        "absorption_db_per_m": alpha,
        "bearing_rad": grid.bearing_rad,
        "elevation_rad": grid.elevation_rad,
        "elevation_weight_rad": grid.elevation_weight_rad,
        # Nominal edges, frozen content; see ref.range_bin_edges for how they relate
        # to the bins (re-bin with range_bin, not with these).
        "range_bin_edges_m": ref.range_bin_edges(**window),
        "object_ids": list(scene.object_ids),
        "semantic_labels": list(scene.semantic_labels),
        "sea_surface_instance": scene.sea_surface_instance,
        "cell_flags": dict(ref.CELL_FLAGS),
        "speckle": speckle_record,
    }
    display = {"dynamic_range_db": float(spec.dynamic_range_db)}
    return SonarFrame(
        channels=_OwnedChannels(channels),
        metadata=metadata,
        backend=backend,
        device=device,
        display=display,
    )


def _cell_channels(
    *,
    shape: tuple[int, int],
    top_k: int,
    cells: dict[str, np.ndarray],
    sample_cell: np.ndarray,
    inst: np.ndarray,
    tri: np.ndarray,
    R: np.ndarray,
    elevation: np.ndarray,
    cos_incidence: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    status: np.ndarray,
    tables: dict[str, np.ndarray],
    terms: dict[str, np.ndarray],
) -> dict[str, np.ndarray]:
    n_cells = shape[0] * shape[1]
    rank = cells["sample_rank"]
    ret = cells["linear_return"]

    def full(fill: Any, dtype: Any, extra: tuple[int, ...] = ()) -> np.ndarray:
        return np.full((n_cells, *extra), fill, dtype=dtype)

    out: dict[str, np.ndarray] = {
        "linear_return": ret.reshape(shape),
        "sample_count": cells["sample_count"].reshape(shape),
        "validity": cells["validity"].reshape(shape),
        "primary_basis": cells["primary_basis"].reshape(shape),
        "truncation": cells["truncation"].reshape(shape),
    }

    p = rank == 0
    pc = sample_cell[p]
    primary = {
        "primary_instance": (full(-1, np.int32), inst[p]),
        "primary_object": (full(-1, np.int32), tables["object_index"][inst[p]]),
        "primary_triangle": (full(-1, np.int32), tri[p]),
        "primary_range_m": (full(np.nan, np.float64), R[p]),
        "primary_elevation_rad": (full(np.nan, np.float64), elevation[p]),
        # The angle is needed for primary samples only.
        "primary_incidence_rad": (full(np.nan, np.float64), ref.acos_clipped(cos_incidence[p])),
        "primary_hit_point_world": (full(np.nan, np.float64, (3,)), point[p]),
        "primary_normal_world": (full(np.nan, np.float64, (3,)), normal[p]),
        "primary_semantic": (full(-1, np.int32), tables["semantic_index"][inst[p]]),
        "primary_acoustic_status": (full(0, np.uint8), status[p]),
        "primary_moving": (full(0, np.uint8), tables["moving"][inst[p]]),
    }
    for name, (arr, values) in primary.items():
        arr[pc] = values
        out[name] = arr.reshape(*shape, *arr.shape[1:])

    kk = rank < top_k
    kc, kr = sample_cell[kk], rank[kk]
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = terms["contribution"] / ret[sample_cell]
    fraction = np.where(ret[sample_cell] > 0.0, fraction, np.nan)
    topk = {
        "topk_instance": (full(-1, np.int32, (top_k,)), inst),
        "topk_triangle": (full(-1, np.int32, (top_k,)), tri),
        "topk_range_m": (full(np.nan, np.float64, (top_k,)), R),
        "topk_elevation_rad": (full(np.nan, np.float64, (top_k,)), elevation),
        "topk_contribution": (full(np.nan, np.float64, (top_k,)), terms["contribution"]),
        "topk_geometric_weight": (full(np.nan, np.float64, (top_k,)), terms["geometric_weight"]),
        "topk_energy_fraction": (full(np.nan, np.float64, (top_k,)), fraction),
    }
    for name, (arr, values) in topk.items():
        arr[kc, kr] = values[kk]
        out[name] = arr.reshape(*shape, top_k)
    return out
