"""The compiled host stage: the acoustic fan's per-sample physics as Warp ``cpu`` kernels.

:func:`sample_physics` gives, for the integrated samples of one ping, what
:func:`leviathan.sonar._physics.integrated_samples` (hit point, normal,
``|cos θ|``, acoustic status, Lambert ``mu``) and
:func:`leviathan.reference_cpu.sonar.sample_physics` (the three return terms)
give, bit for bit, from one pass of :func:`leviathan.kernels.physics.sample_physics`
over the samples. It runs on the host for every tracing device (the C library's
``pow`` is the reference's; see :mod:`leviathan.kernels.physics`), in batches of
consecutive samples launched from the tracing stage's thread pool; each batch
owns its samples' output slots, so the result does not depend on the number of
threads.
"""

from __future__ import annotations

import numpy as np

from leviathan._interrupt import checkpoint
from leviathan._warp_output import init_warp
from leviathan.kernels.backend import (
    cpu_array,
    exclusive_offsets,
    load_kernels,
    run_cpu_batches,
)

__all__ = [
    "HOST_BATCH_SAMPLES",
    "HOST_SAMPLES_PER_THREAD",
    "acos_clipped",
    "sample_index",
    "sample_physics",
    "triangle_ranges",
    "world_rays",
]

#: Samples per batch handed to one pool thread.
HOST_BATCH_SAMPLES = 32768
#: Samples per Warp thread within a launch (the CPU pays a fixed cost per thread).
HOST_SAMPLES_PER_THREAD = 256

# What sample_index gives per sample, in compact_samples' output order: range_m float64,
# the rest int64.
_INDEX_OUTPUTS = (
    "ray",
    "range_m",
    "instance",
    "triangle",
    "elevation_index",
    "bearing_index",
    "cell",
)
_FLOAT_OUTPUTS = (
    "cos_incidence",
    "mu",
    "geometric_weight_no_absorption",
    "geometric_weight",
    "contribution",
)


def sample_index(
    *,
    hit_t: np.ndarray,
    hit_instance: np.ndarray,
    hit_triangle: np.ndarray,
    ray_column: np.ndarray,
    ray_row: np.ndarray,
    column_count: int,
    range_min_m: float,
    range_max_m: float,
    range_bin_width_m: float,
    range_bin_count: int,
) -> dict[str, np.ndarray]:
    """Which rays are integrated samples, in ray order, with their bookkeeping (Warp ``cpu``).

    The twin of :func:`leviathan.sonar._physics._sample_index`: a ray is a sample when
    it hit (instance >= 0) and :func:`leviathan.sonar.range_bin` gives its range a bin
    (:func:`leviathan.kernels.physics.range_bin`, the same operations, with the host's
    ``range_bin_width_m = (r_max - r_min) / N``). One pass counts each run's samples,
    a prefix over the runs places them, a second pass writes them.

    Returns:
        ``ray``, ``range_m``, ``instance``, ``triangle``, ``elevation_index`` (the
        row), ``bearing_index`` (the column) and ``cell`` (``bin * C + column``),
        one entry per sample [n]: int64, float64 for ``range_m``.
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels import physics as kp

    rays = int(hit_t.shape[0])
    if rays >= 2**31:
        raise ValueError(f"sample_index: {rays} rays exceed int32 slots")
    per_thread = HOST_SAMPLES_PER_THREAD
    threads = max(1, -(-rays // per_thread))

    ray_bin = np.empty(rays, dtype=np.int64)
    found = np.zeros(threads, dtype=np.int32)
    t_dev = cpu_array(hit_t, wp.float64)
    inst_dev = cpu_array(hit_instance, wp.int32)
    bin_dev = cpu_array(ray_bin, wp.int64)
    if rays:
        window = kp.struct_of(
            kp.RangeWindow,
            range_min_m=wp.float64(range_min_m),
            range_max_m=wp.float64(range_max_m),
            width=wp.float64(range_bin_width_m),
            bin_count=wp.int64(range_bin_count),
        )
        wp.launch(
            kp.count_samples,
            dim=threads,
            inputs=[
                t_dev,
                inst_dev,
                window,
                wp.int32(rays),
                wp.int32(per_thread),
            ],
            outputs=[bin_dev, cpu_array(found, wp.int32)],
            device="cpu",
        )
        wp.synchronize_device("cpu")
    first = exclusive_offsets(found)
    n = int(first[-1]) + int(found[-1])
    out = {
        name: np.empty(n, dtype=np.float64 if name == "range_m" else np.int64)
        for name in _INDEX_OUTPUTS
    }
    if n:
        wp.launch(
            kp.compact_samples,
            dim=threads,
            inputs=[
                bin_dev,
                cpu_array(first, wp.int32),
                t_dev,
                inst_dev,
                cpu_array(hit_triangle, wp.int32),
                cpu_array(np.ascontiguousarray(ray_column, dtype=np.int64), wp.int64),
                cpu_array(np.ascontiguousarray(ray_row, dtype=np.int64), wp.int64),
                wp.int64(column_count),
                wp.int32(rays),
                wp.int32(per_thread),
            ],
            outputs=[cpu_array(a, wp.dtype_from_numpy(a.dtype)) for a in out.values()],
            device="cpu",
        )
        wp.synchronize_device("cpu")
    checkpoint()
    return out


def sample_physics(
    *,
    sample_ray: np.ndarray,
    hit_t: np.ndarray,
    hit_instance: np.ndarray,
    hit_triangle: np.ndarray,
    origins: np.ndarray,
    directions: np.ndarray,
    normal_rows: np.ndarray,
    normal_start: np.ndarray,
    sea_surface_instance: int,
    instance_status: np.ndarray,
    instance_mu: np.ndarray,
    known_status: int,
    two_way_gain: np.ndarray,
    solid_angle_sr: np.ndarray,
    alpha_db_per_m: float | None,
    threads: int | None = None,
) -> dict[str, np.ndarray]:
    """Geometry, surface and return terms of every integrated sample (Warp ``cpu``).

    Args:
        sample_ray: Ray of each sample, int64 [n] (ascending).
        hit_t, hit_instance, hit_triangle: The nearest hit of every ray: float64,
            int32, int32 [R].
        origins, directions: The rays in world NED, float64 [R, 3].
        normal_rows: Every instance's unit triangle normals stacked, the sea surface's
            one normal last, float64 [M, 3].
        normal_start: First row of each instance in ``normal_rows``, int64 [I + 1]
            (the sea surface's entry is its row).
        sea_surface_instance: The sea surface's instance index (the last).
        instance_status: Acoustic status code per instance, uint8 [I + 1].
        instance_mu: Lambert ``mu`` per instance, NaN where none, float64 [I + 1].
        known_status: The KNOWN status code.
        two_way_gain, solid_angle_sr: ``G²`` and ``dΩ`` [sr] per ray, float64 [R].
        alpha_db_per_m: Absorption [dB/m], ``None`` when the medium is unsupported.
        threads: Pool threads (default: the tracing stage's, one per allowed core).

    Returns:
        ``point``, ``normal`` float64 [n, 3]; ``cos_incidence``, ``mu`` and the three
        terms float64 [n]; ``status`` uint8 [n].
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels.physics import launch_sample_physics

    n = int(sample_ray.shape[0])
    out = {
        "point": np.empty((n, 3), dtype=np.float64),
        "normal": np.empty((n, 3), dtype=np.float64),
        "status": np.empty(n, dtype=np.uint8),
        **{name: np.empty(n, dtype=np.float64) for name in _FLOAT_OUTPUTS},
    }

    shared = {
        "hit_t": cpu_array(hit_t, wp.float64),
        "hit_instance": cpu_array(hit_instance, wp.int32),
        "hit_triangle": cpu_array(hit_triangle, wp.int32),
        "origins": cpu_array(origins, wp.vec3d),
        "directions": cpu_array(directions, wp.vec3d),
        "normal_rows": cpu_array(normal_rows, wp.vec3d),
        "normal_start": cpu_array(normal_start, wp.int64),
        "instance_status": cpu_array(instance_status, wp.uint8),
        "instance_mu": cpu_array(instance_mu, wp.float64),
        "two_way_gain": cpu_array(two_way_gain, wp.float64),
        "solid_angle_sr": cpu_array(solid_angle_sr, wp.float64),
    }
    out_dtypes = {"point": wp.vec3d, "normal": wp.vec3d, "status": wp.uint8}

    def launch(a: int, b: int) -> None:
        launch_sample_physics(
            sample_ray=cpu_array(sample_ray[a:b], wp.int64),
            **shared,
            sea_surface_instance=sea_surface_instance,
            known_status=known_status,
            alpha_db_per_m=alpha_db_per_m,
            outputs={
                name: cpu_array(array[a:b], out_dtypes.get(name, wp.float64))
                for name, array in out.items()
            },
            samples_per_thread=HOST_SAMPLES_PER_THREAD,
        )

    run_cpu_batches(launch, n, HOST_BATCH_SAMPLES, threads=threads)
    return out


def acos_clipped(x: np.ndarray) -> np.ndarray:
    """:func:`leviathan.reference_cpu.sonar.acos_clipped` compiled: the C library's ``acos``.

    Args:
        x: ``|cos θ|`` values, float64 [n] (NaN allowed: it stays NaN).

    Returns:
        ``acos(min(x, 1))`` [rad], float64 [n], bit for bit the reference's.
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels.physics import launch_acos_clipped

    x = np.ascontiguousarray(x, dtype=np.float64)
    angle = np.empty_like(x)
    launch_acos_clipped(
        x=wp.array(x, dtype=wp.float64, device="cpu", copy=False),
        angle=wp.array(angle, dtype=wp.float64, device="cpu", copy=False),
        per_thread=HOST_SAMPLES_PER_THREAD,
    )
    wp.synchronize_device("cpu")
    return angle


def world_rays(
    directions_sensor: np.ndarray, rotation: np.ndarray, translation: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A fan's rays in world NED: origins (the sensor position) and rotated directions.

    The twin of ``(broadcast(T.translation), T.apply_direction(d))`` for
    ``T = T_world_sensor``, bit for bit (:func:`leviathan.kernels.physics.world_rays`).

    Args:
        directions_sensor: Unit directions in the sensor frame, float64 [R, 3].
        rotation: ``T.rotation``, float64 [3, 3].
        translation: ``T.translation`` [m], float64 [3].

    Returns:
        ``(origins, directions)``, float64 [R, 3] each.
    """
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels import physics as kp

    d_sensor = np.ascontiguousarray(directions_sensor, dtype=np.float64)
    rays = int(d_sensor.shape[0])
    origins = np.empty((rays, 3), dtype=np.float64)
    directions = np.empty((rays, 3), dtype=np.float64)
    if rays:
        R = [float(v) for v in np.asarray(rotation, dtype=np.float64).reshape(9)]
        t = [float(v) for v in np.asarray(translation, dtype=np.float64).reshape(3)]
        wp.launch(
            kp.world_rays,
            dim=-(-rays // HOST_SAMPLES_PER_THREAD),
            inputs=[
                wp.array(d_sensor, dtype=wp.vec3d, device="cpu", copy=False),
                wp.mat33d(*R),
                wp.vec3d(*t),
                wp.int32(rays),
                wp.int32(HOST_SAMPLES_PER_THREAD),
            ],
            outputs=[
                wp.array(origins, dtype=wp.vec3d, device="cpu", copy=False),
                wp.array(directions, dtype=wp.vec3d, device="cpu", copy=False),
            ],
            device="cpu",
        )
        wp.synchronize_device("cpu")
    return origins, directions


def triangle_ranges(
    *,
    origins: np.ndarray,
    directions: np.ndarray,
    triangle: np.ndarray,
    instance: np.ndarray,
    sea_surface_instance: int,
    v0: np.ndarray,
    e1: np.ndarray,
    e2: np.ndarray,
    threads: int | None = None,
) -> np.ndarray:
    """The range of each ray to the one surface it names (Warp ``cpu``).

    The twin, bit for bit, of ``np.where(instance == sea_surface_instance, t_sea, t)``
    with ``t`` the second result of
    :func:`leviathan.reference_cpu.trace.intersect_ray_triangle` against row
    ``triangle`` of ``v0, e1, e2`` (with ``t_max = inf``) and ``t_sea`` that of
    :func:`leviathan.raycast.intersect_sea_surface`: the ``t`` of every ray, hit or
    not (:func:`leviathan.kernels.physics.triangle_ranges`). The sonar's channel
    rules trace a frame's top-K slots with it.

    Args:
        origins, directions: The rays in world NED, float64 [n, 3].
        triangle: Each ray's row of ``v0, e1, e2``, int64 [n], in range where the ray's
            instance is not the sea surface's (not read there).
        instance: Each ray's instance, int64 [n].
        sea_surface_instance: The sea surface's instance index.
        v0, e1, e2: Triangles' first vertex and edges in world NED [m], float64 [m, 3].
        threads: Pool threads (default: the tracing stage's, one per allowed core).

    Returns:
        ``t`` [m] of each ray, float64 [n].

    Raises:
        ValueError: Where an array is off its shape, or a ray's row is out of range.
    """
    n = int(np.shape(origins)[0])
    m = int(np.shape(v0)[0])
    for name, a, shape in (
        ("origins", origins, (n, 3)),
        ("directions", directions, (n, 3)),
        ("triangle", triangle, (n,)),
        ("instance", instance, (n,)),
        ("v0", v0, (m, 3)),
        ("e1", e1, (m, 3)),
        ("e2", e2, (m, 3)),
    ):
        if np.shape(a) != shape:
            raise ValueError(f"triangle_ranges: {name} has shape {np.shape(a)}, expected {shape}")
    triangle = np.ascontiguousarray(triangle, dtype=np.int64)
    instance = np.ascontiguousarray(instance, dtype=np.int64)
    mesh = instance != sea_surface_instance
    if np.any(mesh & ((triangle < 0) | (triangle >= m))):
        raise ValueError(f"triangle_ranges: a triangle row is outside [0, {m})")
    load_kernels("cpu")
    wp = init_warp()
    from leviathan.kernels import physics as kp

    range_m = np.empty(n, dtype=np.float64)
    shared = [cpu_array(np.asarray(a, dtype=np.float64), wp.vec3d) for a in (v0, e1, e2)]

    def launch(a: int, b: int) -> None:
        wp.launch(
            kp.triangle_ranges,
            dim=-(-(b - a) // HOST_SAMPLES_PER_THREAD),
            inputs=[
                cpu_array(np.asarray(origins[a:b], dtype=np.float64), wp.vec3d),
                cpu_array(np.asarray(directions[a:b], dtype=np.float64), wp.vec3d),
                cpu_array(triangle[a:b], wp.int64),
                cpu_array(instance[a:b], wp.int64),
                wp.int64(sea_surface_instance),
                *shared,
                wp.int32(b - a),
                wp.int32(HOST_SAMPLES_PER_THREAD),
            ],
            outputs=[cpu_array(range_m[a:b], wp.float64)],
            device="cpu",
        )

    if n:
        run_cpu_batches(launch, n, HOST_BATCH_SAMPLES, threads=threads)
    return range_m
