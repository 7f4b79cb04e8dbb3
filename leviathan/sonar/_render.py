"""``leviathan.sonar.render``: one imaging-sonar ping over a canonical scene.

:func:`render` is the list of stages, each in the module named for it:

1. Rays (:mod:`leviathan.reference_cpu.sonar`): inclusive bearing/elevation
   quadrature in the sensor FRD frame, rotated to world NED by the sensor pose
   ``T_world_body @ T_body_sensor``.

Stages 2-6 and the speckle of 7 are the acoustic fan render's
(:func:`leviathan.sonar._fan.render_fan`, shared with the side-scan and the
multibeam), with column = bearing and row = elevation sample:

2. Scene preparation (:func:`leviathan.raycast.prepare_scene`, shared): world
   triangles, padded bounds and BVHs, cached per instance.
3. Tracing (:func:`leviathan.raycast.trace_rays`): nearest mesh hit per ray on
   the numpy reference or the Warp float64 kernels, the only backend-specific
   stage, then the analytic sea surface.
4. Per-sample physics (:mod:`leviathan.sonar._physics`, terms from
   :func:`leviathan.reference_cpu.sonar.sample_physics`; on the Warp backends
   from its compiled twin on the host, :mod:`leviathan.kernels.host_stage`
   (and stages 5-6 from :mod:`leviathan.kernels.host_cells`),
   bit for bit).
5. Binning (:mod:`leviathan.sonar._binning`): range bins and cell sums.
6. Ground truth (:mod:`leviathan.sonar._ground_truth`): dominance, validity,
   primary and top-K contributors.
7. Frame: speckle (in the fan render), metadata and the :class:`SonarFrame`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from leviathan.frames import Transform
from leviathan.raycast import resolve_backend
from leviathan.scene import Scene
from leviathan.sonar._beam_grid import _grid, beam_grid_for, grid_key
from leviathan.sonar._binning import range_bin_edges
from leviathan.sonar._fan import SPECKLE_EFFECT, FanRays, check_ping_inputs, fan_rays, render_fan
from leviathan.sonar._frame import SonarFrame
from leviathan.sonar._ping import StageClock, ping_header, scene_record, spec_range_window
from leviathan.sonar._rule_support import rule_support
from leviathan.sonar._sampling_warnings import check_ping
from leviathan.specs import ImagingSonarSpec, WaterSpec

__all__ = ["RENDER_STAGES", "SONAR_MODEL_VERSION", "SPECKLE_EFFECT", "beam_grid_for", "render"]

SONAR_MODEL_VERSION = "leviathan.imaging_sonar.v1"


@lru_cache(maxsize=32)
def _fan_rays_cached(key: tuple[Any, ...]) -> FanRays:
    grid, dirs = _grid(*key)
    ray = np.arange(dirs.shape[0], dtype=np.int64)
    B = grid.bearing_rad.shape[0]
    return fan_rays(
        directions=dirs,
        two_way_gain=grid.two_way_gain.reshape(-1),
        solid_angle_sr=grid.solid_angle_sr.reshape(-1),
        column=ray % B,
        row=ray // B,
        column_count=B,
        angles={"elevation_rad": np.repeat(grid.elevation_rad, B)},
    )


def _fan_rays_for(spec: ImagingSonarSpec) -> FanRays:
    """The imaging sonar's rays as a fan: ray ``r = j * B + i`` in column ``i``, row ``j``."""
    return _fan_rays_cached(grid_key(spec))


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
    stage_times_s: dict[str, float] | None = None,
    sampling_warnings: bool = True,
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
        backend: Tracing backend, one of :data:`leviathan.raycast.BACKENDS`: ``"auto"``
            (Warp on CUDA when present, else Warp on the CPU), ``"reference"`` (numpy)
            or ``"warp"``. Every backend gives the same frame, bit for bit.
        device: Device for the backend: ``None`` (its default), ``"cpu"`` or ``"cuda:N"``.
        stage_times_s: If given, a dict that receives the wall time of each stage [s]
            under :data:`RENDER_STAGES` names (``leviathan bench sonar`` reports them).
            Timing changes nothing in the frame.
        sampling_warnings: Warn (:class:`~leviathan.sonar.SonarSamplingWarning`) when the
            elevation sampling cannot fill the range window over the surface the ping
            sees (the fill rule), or the pose is inside geometry (see
            :mod:`leviathan.sonar._sampling_warnings`). ``False`` for a ping made coarse
            on purpose (the analytic tier's first look). Warnings change nothing in
            the frame.

    Returns:
        The frame; identical content (and hash) for identical inputs.
    """
    clock = StageClock(stage_times_s)
    water = check_ping_inputs(
        scene, spec, ImagingSonarSpec, sensor_pose, sensor_id, sample_index, time_ns, seed, water
    )
    backend, device = resolve_backend(backend, device)
    window = spec_range_window(spec)

    # 1. Rays; 2-6 (scene preparation, tracing, physics, binning, ground truth,
    # channels, speckle) are the acoustic fan render's, with column = bearing and
    # row = elevation sample.
    grid, _ = beam_grid_for(spec)
    rays = _fan_rays_for(spec)
    clock.lap("rays")
    fan = render_fan(
        scene,
        rays,
        sensor_pose,
        **window,
        top_k=spec.top_k,
        frequency_hz=spec.frequency_hz,
        water=water,
        backend=backend,
        device=device,
        speckle_key=(seed, sensor_id, sample_index) if spec.speckle else None,
        lap=clock.lap,
    )
    prepared = fan.prepared

    # 7. Frame: everything besides the channels that defines the ping.
    metadata = {
        **ping_header(
            scene,
            sensor_pose,
            water,
            (sensor_id, sample_index, time_ns),
            SONAR_MODEL_VERSION,
            _physics_spec(spec),
        ),
        **fan.medium.record(),
        "bearing_rad": grid.bearing_rad,
        "elevation_rad": grid.elevation_rad,
        "elevation_weight_rad": grid.elevation_weight_rad,
        # Nominal edges, frozen content; see range_bin_edges for how they relate
        # to the bins (re-bin with range_bin, not with these).
        "range_bin_edges_m": range_bin_edges(**window),
        **scene_record(scene),
        "speckle": fan.speckle,
    }
    frame = SonarFrame(
        channels=fan.channels,
        metadata=metadata,
        backend=backend,
        device=device,
        display={"dynamic_range_db": float(spec.dynamic_range_db)},
        rule_support=rule_support(fan.channels, scene=scene, prepared=prepared),
    )
    clock.lap("frame")
    if sampling_warnings:
        check_ping(
            frame.channels,
            spec,
            sensor_pose,
            scene=scene,
            prepared=prepared,
            sensor_id=sensor_id,
            backend=backend,
            device=device,
        )
    return frame


#: The stages :func:`render` times into ``stage_times_s``, in order: validation and
#: rays, scene preparation (BVH, cached), tracing with the sea surface, per-sample
#: physics, binning, ground truth, channel arrays, speckle + metadata + frame.
RENDER_STAGES: tuple[str, ...] = (
    "rays",
    "prepare",
    "trace",
    "physics",
    "binning",
    "ground_truth",
    "channels",
    "frame",
)
