"""Warp per-sample physics of the acoustic fan: the compiled host stage's first kernel.

Mirrors :func:`leviathan.reference_cpu.sonar.sample_physics` and the gathers of
:func:`leviathan.sonar._physics.integrated_samples` operation for operation, in
float64, in the same written order (see the reference module's docstring for
the formulas)::

    point   = o + R * d                                  # component by component
    cos_inc = |(nx * dx + ny * dy) + nz * dz|
    area    = ((R * R) * dOmega) / cos_inc
    gw0     = (G2 * area) / ((R * R) * (R * R))
    gw      = gw0 * pow(10, -((alpha * (2 * R)) / 10))    # NaN: medium unsupported
    c       = (mu * (cos_inc * cos_inc)) * gw             # NaN: status not KNOWN

The module compiles with ``fuse_fp=False`` (no FMA contraction) and
``fast_math=False`` (IEEE division), so each ``+ - * /`` rounds as numpy's does.
It runs on Warp's ``cpu`` device only: there ``wp.pow`` is the C library's
``::pow``, the very function ``math.pow`` calls in the reference (CUDA's ``pow``
is another algorithm, whose last bit differs). Constants are typed
``wp.float64``; the NaN written where a term has no value is numpy's
``np.nan`` bit pattern, ``0x7ff8000000000000``.

Each thread owns a run of consecutive samples (``samples_per_thread``; Warp's CPU
launch pays a fixed entry cost per thread) and writes only their slots.
"""

from __future__ import annotations

import warp as wp

from leviathan._kernel_options import KERNEL_OPTIONS

wp.set_module_options(KERNEL_OPTIONS)

__all__ = [
    "RangeWindow",
    "acos_clipped",
    "clipped_acos",
    "compact_samples",
    "count_samples",
    "kernel_inputs",
    "launch_acos_clipped",
    "launch_sample_physics",
    "range_bin",
    "sample_physics",
    "struct_of",
    "thread_run",
    "triangle_ranges",
    "triangle_t",
    "world_rays",
]

ZERO = wp.constant(wp.float64(0.0))
ONE = wp.constant(wp.float64(1.0))
TWO = wp.constant(wp.float64(2.0))
TEN = wp.constant(wp.float64(10.0))
# float("nan") is 0x7ff8000000000000, numpy's np.nan; a float32 NaN widened is the same.
NAN = wp.constant(wp.float64(float("nan")))


@wp.struct
class RangeWindow:
    """:func:`range_bin`'s window: ``[range_min_m, range_max_m)`` in ``bin_count`` bins of
    ``width``, the host's ``(range_max_m - range_min_m) / bin_count``."""

    range_min_m: wp.float64
    range_max_m: wp.float64
    width: wp.float64
    bin_count: wp.int64


@wp.func
def thread_run(start: wp.int32, t: wp.int32, per_thread: wp.int32, end: wp.int32):
    """The items ``[first, last)`` thread ``t`` owns: ``per_thread`` consecutive ones from
    ``start + t * per_thread``, the last thread's run cut at ``end``."""
    first = start + t * per_thread
    return first, wp.min(first + per_thread, end)


@wp.kernel
def world_rays(
    directions_sensor: wp.array(dtype=wp.vec3d),
    rotation: wp.mat33d,
    translation: wp.vec3d,
    ray_count: wp.int32,
    rays_per_thread: wp.int32,
    origins: wp.array(dtype=wp.vec3d),
    directions: wp.array(dtype=wp.vec3d),
):
    """A run of rays in world NED: ``d_i = (R_i0 x + R_i1 y) + R_i2 z`` and ``o = t``.

    :meth:`leviathan.frames.Transform.apply_direction`'s order, element by element.
    """
    first, last = thread_run(0, wp.tid(), rays_per_thread, ray_count)
    for r in range(first, last):
        v = directions_sensor[r]
        directions[r] = wp.vec3d(
            (rotation[0, 0] * v[0] + rotation[0, 1] * v[1]) + rotation[0, 2] * v[2],
            (rotation[1, 0] * v[0] + rotation[1, 1] * v[1]) + rotation[1, 2] * v[2],
            (rotation[2, 0] * v[0] + rotation[2, 1] * v[1]) + rotation[2, 2] * v[2],
        )
        origins[r] = translation


@wp.func
def range_bin(r: wp.float64, window: RangeWindow) -> wp.int64:
    """:func:`leviathan.sonar.range_bin` of one range: ``min(floor((R - r_min) / width), N - 1)``.

    -1 outside the half-open window ``[r_min, r_max)`` or for NaN.
    """
    if r >= window.range_min_m and r < window.range_max_m:
        return wp.min(
            wp.int64(wp.floor((r - window.range_min_m) / window.width)),
            window.bin_count - wp.int64(1),
        )
    return wp.int64(-1)


@wp.kernel
def count_samples(
    hit_t: wp.array(dtype=wp.float64),
    hit_instance: wp.array(dtype=wp.int32),
    window: RangeWindow,
    ray_count: wp.int32,
    rays_per_thread: wp.int32,
    ray_bin: wp.array(dtype=wp.int64),
    thread_samples: wp.array(dtype=wp.int32),
):
    """A run of rays: each ray's range bin (-1: no sample) and the run's sample count."""
    t = wp.tid()
    first, last = thread_run(0, t, rays_per_thread, ray_count)
    found = int(0)
    for r in range(first, last):
        k = wp.int64(-1)
        if hit_instance[r] >= 0:
            k = range_bin(hit_t[r], window)
        ray_bin[r] = k
        if k >= wp.int64(0):
            found = found + 1
    thread_samples[t] = found


@wp.kernel
def compact_samples(
    ray_bin: wp.array(dtype=wp.int64),
    thread_first_sample: wp.array(dtype=wp.int32),
    hit_t: wp.array(dtype=wp.float64),
    hit_instance: wp.array(dtype=wp.int32),
    hit_triangle: wp.array(dtype=wp.int32),
    ray_column: wp.array(dtype=wp.int64),
    ray_row: wp.array(dtype=wp.int64),
    column_count: wp.int64,
    ray_count: wp.int32,
    rays_per_thread: wp.int32,
    sample_ray: wp.array(dtype=wp.int64),
    range_m: wp.array(dtype=wp.float64),
    instance: wp.array(dtype=wp.int64),
    triangle: wp.array(dtype=wp.int64),
    row: wp.array(dtype=wp.int64),
    column: wp.array(dtype=wp.int64),
    cell: wp.array(dtype=wp.int64),
):
    """A run of rays: its samples, in ray order, from the run's first slot on."""
    t = wp.tid()
    first, last = thread_run(0, t, rays_per_thread, ray_count)
    s = thread_first_sample[t]
    for r in range(first, last):
        k = ray_bin[r]
        if k >= wp.int64(0):
            sample_ray[s] = wp.int64(r)
            range_m[s] = hit_t[r]
            instance[s] = wp.int64(hit_instance[r])
            triangle[s] = wp.int64(hit_triangle[r])
            row[s] = ray_row[r]
            column[s] = ray_column[r]
            cell[s] = k * column_count + ray_column[r]
            s = s + 1


@wp.kernel
def sample_physics(
    sample_ray: wp.array(dtype=wp.int64),
    hit_t: wp.array(dtype=wp.float64),
    hit_instance: wp.array(dtype=wp.int32),
    hit_triangle: wp.array(dtype=wp.int32),
    origins: wp.array(dtype=wp.vec3d),
    directions: wp.array(dtype=wp.vec3d),
    normal_rows: wp.array(dtype=wp.vec3d),
    normal_start: wp.array(dtype=wp.int64),
    sea_surface_instance: wp.int32,
    instance_status: wp.array(dtype=wp.uint8),
    instance_mu: wp.array(dtype=wp.float64),
    known_status: wp.uint8,
    two_way_gain: wp.array(dtype=wp.float64),
    solid_angle_sr: wp.array(dtype=wp.float64),
    alpha_db_per_m: wp.float64,
    medium_supported: wp.int32,
    sample_count: wp.int32,
    samples_per_thread: wp.int32,
    point: wp.array(dtype=wp.vec3d),
    normal: wp.array(dtype=wp.vec3d),
    cos_incidence: wp.array(dtype=wp.float64),
    status: wp.array(dtype=wp.uint8),
    mu: wp.array(dtype=wp.float64),
    geometric_weight_no_absorption: wp.array(dtype=wp.float64),
    geometric_weight: wp.array(dtype=wp.float64),
    contribution: wp.array(dtype=wp.float64),
):
    """One run of samples: geometry, surface and the return terms of each."""
    first, last = thread_run(0, wp.tid(), samples_per_thread, sample_count)
    for s in range(first, last):
        r = sample_ray[s]
        R = hit_t[r]
        inst = hit_instance[r]
        o = origins[r]
        d = directions[r]
        p = wp.vec3d(o[0] + R * d[0], o[1] + R * d[1], o[2] + R * d[2])
        # The sea surface (the last instance index) has one normal row, whatever the triangle.
        row = normal_start[inst]
        if inst != sea_surface_instance:
            row = row + wp.int64(hit_triangle[r])
        n = normal_rows[row]
        ci = wp.abs((n[0] * d[0] + n[1] * d[1]) + n[2] * d[2])
        code = instance_status[inst]
        m = instance_mu[inst]
        r2 = R * R
        area = (r2 * solid_angle_sr[r]) / ci
        gw0 = (two_way_gain[r] * area) / (r2 * r2)
        gw = NAN
        c = NAN
        if medium_supported != 0:
            x = (alpha_db_per_m * (TWO * R)) / TEN
            gw = gw0 * wp.pow(TEN, -x)
            if code == known_status:
                c = (m * (ci * ci)) * gw
        point[s] = p
        normal[s] = n
        cos_incidence[s] = ci
        status[s] = code
        mu[s] = m
        geometric_weight_no_absorption[s] = gw0
        geometric_weight[s] = gw
        contribution[s] = c


@wp.func
def triangle_t(o: wp.vec3d, d: wp.vec3d, v0: wp.vec3d, e1: wp.vec3d, e2: wp.vec3d) -> wp.float64:
    """The ``t`` of :func:`leviathan.reference_cpu.trace.intersect_ray_triangle`, hit or not.

    The reference's vectorised test computes ``t`` for every ray and masks it with
    ``hit``; this is that ``t``, in its written order (so ``det == 0`` gives what
    ``1.0 / det`` gives there: an infinity or a NaN).
    """
    px = d[1] * e2[2] - d[2] * e2[1]
    py = d[2] * e2[0] - d[0] * e2[2]
    pz = d[0] * e2[1] - d[1] * e2[0]
    det = (e1[0] * px + e1[1] * py) + e1[2] * pz
    inv = ONE / det
    sx = o[0] - v0[0]
    sy = o[1] - v0[1]
    sz = o[2] - v0[2]
    qx = sy * e1[2] - sz * e1[1]
    qy = sz * e1[0] - sx * e1[2]
    qz = sx * e1[1] - sy * e1[0]
    return ((e2[0] * qx + e2[1] * qy) + e2[2] * qz) * inv


@wp.kernel
def triangle_ranges(
    origins: wp.array(dtype=wp.vec3d),
    directions: wp.array(dtype=wp.vec3d),
    triangle: wp.array(dtype=wp.int64),
    instance: wp.array(dtype=wp.int64),
    sea_surface_instance: wp.int64,
    v0: wp.array(dtype=wp.vec3d),
    e1: wp.array(dtype=wp.vec3d),
    e2: wp.array(dtype=wp.vec3d),
    ray_count: wp.int32,
    rays_per_thread: wp.int32,
    range_m: wp.array(dtype=wp.float64),
):
    """A run of rays, each against the one surface it names: :func:`triangle_t` on its
    row ``triangle`` of ``v0, e1, e2``, or ``(0 - oz) / dz`` (the plane ``z = 0``, as
    :func:`leviathan.raycast.intersect_sea_surface`) where its instance is the sea
    surface's."""
    first, last = thread_run(0, wp.tid(), rays_per_thread, ray_count)
    for r in range(first, last):
        o = origins[r]
        d = directions[r]
        if instance[r] == sea_surface_instance:
            range_m[r] = (ZERO - o[2]) / d[2]
        else:
            k = triangle[r]
            range_m[r] = triangle_t(o, d, v0[k], e1[k], e2[k])


@wp.func
def clipped_acos(v: wp.float64) -> wp.float64:
    """``acos(min(v, 1))`` with the C library's ``acos``; NaN stays NaN (numpy's ``minimum``).

    ``wp.acos`` also clamps below at -1 (the reference's ``math.acos`` would raise
    there); the values are ``|cos θ|``, never below 0.
    """
    if wp.isnan(v):
        return v
    return wp.acos(wp.min(v, ONE))


@wp.kernel
def acos_clipped(
    x: wp.array(dtype=wp.float64),
    count: wp.int32,
    per_thread: wp.int32,
    angle: wp.array(dtype=wp.float64),
):
    """:func:`clipped_acos` of a run of values (the channels kernel calls the same func)."""
    first, last = thread_run(0, wp.tid(), per_thread, count)
    for k in range(first, last):
        angle[k] = clipped_acos(x[k])


def _in_order(key: str, what: str, names: list[str], values: dict) -> list:
    """``values`` in the order of ``names``; refuses a name missing or one not among them."""
    if sorted(values) != sorted(names):
        raise TypeError(f"{key}: expected the {what} {', '.join(names)}, got {', '.join(values)}")
    return [values[name] for name in names]


def struct_of(kind, **fields):
    """A host-built instance of the ``@wp.struct`` ``kind`` with every field set by name.

    Built once per launch (a few microseconds) and passed to the kernels in place of
    the values it bundles. Only scalars are bundled in the host stage's structs: an
    array inside a struct misses Warp's CPU fast path for contiguous array arguments
    (their strides made compile-time constants), which costs per-element kernels ~10%.
    """
    names = list(kind.vars)
    # Warp itself would take a missing field as zero and never see a misspelt one.
    values = _in_order(kind.key, "fields", names, fields)
    instance = kind()
    for name, value in zip(names, values, strict=True):
        setattr(instance, name, value)
    return instance


def kernel_inputs(kernel, **arguments) -> list:
    """Every argument of the ``@wp.kernel`` ``kernel``, given by parameter name, in its order.

    What ``wp.launch`` takes as ``inputs`` (outputs included), so a launch names each
    array once, as the kernel does, instead of repeating the kernel's parameter list.
    """
    names = [arg.label for arg in kernel.adj.args]
    return _in_order(kernel.key, "arguments", names, arguments)


def launch_acos_clipped(*, x, angle, per_thread: int) -> None:
    """Launches :func:`acos_clipped` over every value on the ``cpu`` device."""
    count = int(x.shape[0])
    if count == 0:
        return
    wp.launch(
        acos_clipped,
        dim=-(-count // per_thread),
        inputs=[x, wp.int32(count), wp.int32(per_thread)],
        outputs=[angle],
        device="cpu",
    )


def launch_sample_physics(
    *,
    sea_surface_instance: int,
    known_status: int,
    alpha_db_per_m: float | None,
    outputs: dict,
    samples_per_thread: int,
    **arrays,
) -> None:
    """Launches :func:`sample_physics` over every sample on the ``cpu`` device.

    ``arrays`` holds the kernel's eleven input arrays (``sample_ray`` to
    ``solid_angle_sr``) and ``outputs`` its eight output arrays, both by the kernel's
    parameter names. ``alpha_db_per_m`` ``None`` means the medium is unsupported
    (``gw`` and ``c`` NaN).
    """
    count = int(arrays["sample_ray"].shape[0])
    if count == 0:
        return
    threads = -(-count // samples_per_thread)
    wp.launch(
        sample_physics,
        dim=threads,
        inputs=kernel_inputs(
            sample_physics,
            **arrays,
            sea_surface_instance=wp.int32(sea_surface_instance),
            known_status=wp.uint8(known_status),
            alpha_db_per_m=wp.float64(0.0 if alpha_db_per_m is None else alpha_db_per_m),
            medium_supported=wp.int32(0 if alpha_db_per_m is None else 1),
            sample_count=wp.int32(count),
            samples_per_thread=wp.int32(samples_per_thread),
            **outputs,
        ),
        device="cpu",
    )
