"""Canonical paths use no BLAS/LAPACK and no order-unspecified float reductions.

A content hash is only as stable as the arithmetic under it. numpy hands ``@``,
``np.dot``, ``np.linalg`` and ``einsum`` to OpenBLAS/LAPACK, whose kernel (and
so its summation order, blocking and FMA use) is picked at load time from the
CPU and ``OPENBLAS_CORETYPE``; ``np.sum``/``mean``/``std`` and their methods use
pairwise, SIMD-blocked summation whose order numpy does not specify. Either
can change the last bit of a result, and the last bit is in the hash.

This module reads the source of every canonical module (``CANONICAL_MODULES``:
everything content hashes, frozen fixtures or promised-identical outputs flow
through) with :mod:`ast` and fails on each such construct that is not in
``ALLOWLIST``. Numpy aliases are resolved from each module's own imports.
Strings and docstrings are not code, so a mention in prose never counts.

Deliberately not forbidden, because each is exact or has exactly one order:
``np.outer``/``np.multiply.outer``/``np.kron`` (one rounded product per element,
no sum), ``np.cross`` (per component, one product minus another),
``np.max``/``min``/``argmax``/``argmin``/``maximum.reduce`` and the other
comparison or bitwise reductions (exact in any order), the builtin ``sum`` and
``math.prod`` (a loop over the iterable in the order given) and ``math.fsum``
(exactly rounded). ``np.cumsum`` and the other accumulations are forbidden even
though numpy happens to run them front to back, because numpy does not promise
that order; integer uses are allowlisted as exact.

Warp kernels (``kernels/``) are scanned too. A Warp builtin such as ``wp.dot``
is flagged like an array method, so a use needs an allowlist entry saying why
it is fixed-order there (Warp compiles it as scalar code, ``fuse_fp=False``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# The package roots installed as leviathan, leviathan.reference_cpu,
# leviathan.kernels and leviathan.usd (pyproject's package-dir).
PACKAGE_ROOTS = ("leviathan", "reference_cpu", "kernels", "usd")

# Every module a content hash, the frozen fixture or a promised-identical
# output (manifest, USD stage) is computed through.
CANONICAL_MODULES = (
    "kernels/__init__.py",
    "kernels/backend.py",
    "kernels/channels.py",
    "kernels/ground_truth.py",
    "kernels/host_cells.py",
    "kernels/host_stage.py",
    "kernels/physics.py",
    "kernels/trace.py",
    "kernels/trace_native.py",
    "leviathan/__init__.py",
    "leviathan/_fan_product.py",
    "leviathan/_frozen.py",
    "leviathan/_kernel_options.py",
    "leviathan/_rational.py",
    "leviathan/_validation.py",
    "leviathan/_version.py",
    "leviathan/acoustics.py",
    "leviathan/catalogue/__init__.py",
    "leviathan/catalogue/_table.py",
    "leviathan/catalogue/_vehicles.py",
    "leviathan/controllers/__init__.py",
    "leviathan/controllers/_allocation.py",
    "leviathan/controllers/_autopilot.py",
    "leviathan/controllers/_direct_thrust.py",
    "leviathan/controllers/_guidance.py",
    "leviathan/controllers/_protocol.py",
    "leviathan/_demo_mapping.py",
    "leviathan/demo.py",
    "leviathan/dynamics/__init__.py",
    "leviathan/dynamics/_equations.py",
    "leviathan/dynamics/_integrator.py",
    "leviathan/dynamics/_model.py",
    "leviathan/dynamics/_rotation.py",
    "leviathan/dynamics/_state.py",
    "leviathan/frames/__init__.py",
    "leviathan/frames/_arithmetic.py",
    "leviathan/frames/_attitude.py",
    "leviathan/frames/_sensor_frames.py",
    "leviathan/frames/_transform.py",
    "leviathan/geometry/__init__.py",
    "leviathan/geometry/_grids.py",
    "leviathan/geometry/_merge.py",
    "leviathan/geometry/_seabed.py",
    "leviathan/geometry/_solids.py",
    "leviathan/geometry/_hull.py",
    "leviathan/identity.py",
    "leviathan/materials.py",
    "leviathan/parity/__init__.py",
    "leviathan/parity/_fixture.py",
    "leviathan/parity/_scene_parts.py",
    "leviathan/parity/_multibeam_scenes.py",
    "leviathan/parity/_scenes.py",
    "leviathan/parity/_side_scan_scenes.py",
    "leviathan/random.py",
    "leviathan/_raycast_stages/__init__.py",
    "leviathan/_raycast_stages/_bvh_compiled.py",
    "leviathan/_raycast_stages/bvh.py",
    "leviathan/_raycast_stages/prepare.py",
    "leviathan/_raycast_stages/result.py",
    "leviathan/raycast/__init__.py",
    "leviathan/raycast/_dispatch.py",
    "leviathan/raycast/_sea_surface.py",
    "leviathan/scene.py",
    "leviathan/schedule.py",
    "leviathan/sensors/__init__.py",
    "leviathan/sensors/_camera.py",
    "leviathan/sensors/_context.py",
    "leviathan/sensors/_declarations.py",
    "leviathan/sensors/_dvl.py",
    "leviathan/sensors/_dvl_relative.py",
    "leviathan/sensors/_imaging_sonar.py",
    "leviathan/sensors/_multibeam.py",
    "leviathan/sensors/_imu.py",
    "leviathan/sensors/_kinematics.py",
    "leviathan/sensors/_pressure.py",
    "leviathan/sensors/_previews.py",
    "leviathan/sensors/_protocol.py",
    "leviathan/sensors/_sample.py",
    "leviathan/multibeam/__init__.py",
    "leviathan/multibeam/_bathymetry.py",
    "leviathan/multibeam/_geometry.py",
    "leviathan/multibeam/_ping.py",
    "leviathan/multibeam/_truth.py",
    "leviathan/sensors/_side_scan.py",
    "leviathan/side_scan/__init__.py",
    "leviathan/side_scan/_line.py",
    "leviathan/side_scan/_render.py",
    "leviathan/side_scan/_track.py",
    "leviathan/sonar/__init__.py",
    "leviathan/sonar/beams.py",
    "leviathan/sonar/_beam_grid.py",
    "leviathan/sonar/_binning.py",
    "leviathan/sonar/_fan.py",
    # Display geometry, outside every hash, but held to the canonical rules: the one fan
    # geometry promises the same pixels on every CPU (no SIMD transcendental).
    "leviathan/sonar/_fan_geometry.py",
    "leviathan/sonar/_frame.py",
    "leviathan/sonar/_ground_truth.py",
    "leviathan/sonar/_physics.py",
    "leviathan/sonar/_ping.py",
    "leviathan/sonar/_rebuild.py",
    "leviathan/sonar/_rule_support.py",
    "leviathan/sonar/_render.py",
    "leviathan/specs/__init__.py",
    "leviathan/specs/_base.py",
    "leviathan/specs/_documents.py",
    "leviathan/specs/_errors.py",
    "leviathan/specs/_mount.py",
    "leviathan/specs/_scan.py",
    "leviathan/specs/_schedule.py",
    "leviathan/specs/_multibeam.py",
    "leviathan/specs/_sensors.py",
    "leviathan/specs/_side_scan.py",
    "leviathan/specs/_vehicle.py",
    "leviathan/specs/_hull.py",
    "leviathan/specs/_water.py",
    "leviathan/specs/_world_documents.py",
    "leviathan/time.py",
    "leviathan/world/__init__.py",
    "leviathan/world/_edits.py",
    "leviathan/world/_environment.py",
    "leviathan/world/_errors.py",
    "leviathan/world/_history.py",
    "leviathan/world/_off_tick.py",
    "leviathan/world/_queries.py",
    "leviathan/world/_records.py",
    "leviathan/world/_registry.py",
    "leviathan/world/_sampling.py",
    "leviathan/world/_hulls.py",
    "leviathan/world/_setup.py",
    "leviathan/world/_state.py",
    "leviathan/world/_stepping.py",
    "leviathan/world/_transactions.py",
    "leviathan/world/_vehicles.py",
    "leviathan/world/_world.py",
    "reference_cpu/__init__.py",
    "reference_cpu/multibeam.py",
    "reference_cpu/side_scan.py",
    "reference_cpu/sonar.py",
    "reference_cpu/trace.py",
    "usd/__init__.py",
    "usd/_authoring.py",
    "usd/_conventions.py",
    "usd/_stage.py",
    "usd/_track.py",
)

_CLI = "command line: argument parsing and printing around the library calls it makes"

# Modules left out, each with why nothing canonical is computed in it.
EXCLUDED_MODULES = {
    "leviathan/__main__.py": "entry point: calls leviathan.cli.main, computes nothing",
    "leviathan/_files.py": "atomic file writer: moves bytes computed elsewhere, no arithmetic",
    "leviathan/_lazy.py": "imports a package's public names on first use, computes nothing",
    "leviathan/bathymetry.py": "a run's bathymetry files (PNGs, HDF5, JSON) around the canonical "
    "leviathan.multibeam comparison; it reads and writes, computes nothing hashed",
    "leviathan/bench.py": "benchmark timings and ratios: printed, never hashed or frozen",
    "leviathan/_bench_world.py": "benchmark timings and ratios: printed, never hashed or frozen",
    "leviathan/_bench_bvh.py": "benchmark timings and ratios: printed, never hashed or frozen",
    "leviathan/_bench_dataset.py": "benchmark sizes and ratios: printed, never hashed or frozen",
    "leviathan/_behind.py": "runs a command's writer on a thread one step behind, no arithmetic",
    "leviathan/_bench_beside.py": "benchmark timings and ratios: printed, never hashed",
    "leviathan/cli/__init__.py": _CLI,
    "leviathan/cli/_base.py": _CLI,
    "leviathan/cli/_bathymetry.py": _CLI,
    "leviathan/cli/_bench.py": _CLI,
    "leviathan/cli/_catalogue.py": _CLI,
    "leviathan/cli/_demo.py": _CLI,
    "leviathan/cli/_export_dataset.py": _CLI,
    "leviathan/cli/_export_usd.py": _CLI,
    "leviathan/cli/_parity.py": _CLI,
    "leviathan/cli/_scenario.py": _CLI,
    "leviathan/cli/_serve.py": _CLI,
    "leviathan/cli/_sonar_image.py": _CLI,
    "leviathan/_cores.py": "the count of usable CPU cores, no arithmetic",
    "leviathan/_interrupt.py": "signal handling and temporary-file bookkeeping, no arithmetic",
    "leviathan/_startup.py": "the command line's start-up signal handler, no arithmetic",
    "leviathan/_allocator.py": "glibc's allocator thresholds for the batch commands: where "
    "memory comes from, never a value",
    "leviathan/_warp_output.py": "filters Warp's console messages, no arithmetic",
    "leviathan/_fallback.py": "tries a compiled path once and logs its failure, no arithmetic",
    "leviathan/_sonar_fill.py": "the fill rule: the analytic tier's elevation count and the "
    "canonical render's warning, never in a frame or a hash",
    "leviathan/sonar/_sampling_warnings.py": "warnings about a finished ping (counts, comparisons, "
    "one-ray traces), never in a frame or a hash",
    "leviathan/datasets/__init__.py": "re-exports the dataset writers, computes nothing",
    "leviathan/datasets/_hdf5_layout.py": "export format: how the HDF5 writer stores arrays and "
    "attributes, computes no hash",
    "leviathan/datasets/_hdf5_reader.py": "reads HDF5 exports back, computes no hash (it checks "
    "hashes with leviathan.identity, the canonical encoder)",
    "leviathan/datasets/_hdf5_rules.py": "export format: runs a sensor kind's channel rules "
    "and compares bytes; the rules themselves are the kinds' (canonical) code",
    "leviathan/datasets/_hdf5_sparse.py": "export format: channels over cells stored sparse; "
    "each form is rebuilt and compared byte for byte with the channel when written, and the "
    "reader's rebuild is what verify hashes",
    "leviathan/datasets/_hdf5_sparse_write.py": "export format: writes the forms "
    "_hdf5_sparse chose and checked byte for byte, computes no hash",
    "leviathan/datasets/_hdf5_rows.py": "export format: small samples as rows of their "
    "sensor's table, stored and read back exactly; verify hashes the records rebuilt",
    "leviathan/datasets/_hdf5_input.py": "checks a writer's input (order, kinds, indices) "
    "before anything is written, computes nothing",
    "leviathan/datasets/_hdf5_sparse_read.py": "export format: rebuilds the sparse, coded, "
    "derived and ruled channels the writer checked byte for byte; verify hashes the result",
    "leviathan/datasets/_mcap_messages.py": "export format: ROS messages built from finished "
    "records, never hashed",
    "leviathan/datasets/_mcap_topics.py": "export format: MCAP topic and frame names, no "
    "arithmetic",
    "leviathan/datasets/channels.py": "units and meanings of exported arrays, no arithmetic",
    "leviathan/datasets/_errors.py": "exception classes of the dataset writers, computes nothing",
    "leviathan/datasets/_writer.py": "with-block protocol of the dataset writers, no arithmetic",
    "leviathan/datasets/hdf5.py": "export format: the HDF5 writer, computes no hash",
    "leviathan/datasets/mcap.py": "export format, computes no hash (ROS messages from records)",
    "leviathan/ros/__init__.py": "re-exports the ROS conventions, computes nothing",
    "leviathan/ros/_frames.py": "ROS frame conventions for export: sign flips and "
    "permutations of finished records, never hashed",
    "leviathan/ros/_definitions.py": "ROS 2 message definitions as text, no arithmetic",
    "leviathan/ros/_messages.py": "export format: ROS message dicts built from finished records, "
    "never hashed",
    "leviathan/datasets/typed_json.py": "text encoding of metadata for export files, no arithmetic",
    "leviathan/datasets/run.py": "feeds records to the dataset writers: an export, never hashed",
    "leviathan/sonar/display.py": "PNG previews of frames: display products, outside every hash",
    "leviathan/side_scan/display.py": "waterfall previews of side-scan lines: display products, "
    "outside every content hash",
    "leviathan/learning/__init__.py": "learning tier: float32, not canonical",
    "leviathan/learning/vehicles.py": "learning tier: float32, not canonical",
    "leviathan/learning/sensing.py": "learning tier: float32, not canonical",
    "leviathan/learning/tasks.py": "learning tier: float32, not canonical",
    "leviathan/learning/_task_kernels.py": "learning tier: float32, not canonical",
    "leviathan/learning/_device_funcs.py": "learning tier: float32, not canonical",
    "leviathan/learning/env.py": "learning tier: float32, not canonical",
    "leviathan/learning/_baseline.py": "learning tier: float32, not canonical",
    "leviathan/learning/_device_inputs.py": "learning tier: float32, not canonical",
    "leviathan/learning/_env_kernels.py": "learning tier: float32, not canonical",
    "leviathan/learning/_task_buffers.py": "learning tier: float32, not canonical",
    "leviathan/learning/_terrain.py": "learning tier: float32, not canonical",
    "leviathan/learning/_vehicle_kernels.py": "learning tier: float32, not canonical",
    "leviathan/client.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/__init__.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_app.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_auth.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_bench.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_deps.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_params.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_requests.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_openapi.py": "service face: the served OpenAPI schema",
    "leviathan/service/_samples.py": "service face: kept samples, byte accounting only",
    "leviathan/service/routers/_vehicles.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/routers/_common.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_errors.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_hosting.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_models.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_play.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/_server.py": "service face: I/O, no canonical arithmetic",
    "leviathan/wire.py": "service wire form: I/O over the typed-JSON codec, no arithmetic",
    "leviathan/_typed_json.py": "text encoding of values for files and the wire, no arithmetic",
    "leviathan/documents.py": "documents to objects: calls the library's constructors",
    "leviathan/service/routers/__init__.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/routers/_live.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/routers/_samples.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/routers/_multibeam.py": "service face: JSON and PNG of a kept ping, no "
    "canonical arithmetic",
    "leviathan/service/routers/_side_scan.py": "service face: PNG of display products, no "
    "canonical arithmetic",
    "leviathan/service/routers/_service.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/routers/_worlds.py": "service face: I/O, no canonical arithmetic",
    "leviathan/service/routers/_analytic.py": "service face: I/O around the analytic sonar image",
    "leviathan/service/routers/_scene.py": "service face: I/O, the Viewport's geometry",
    "leviathan/service/routers/_dashboard.py": "service face: serves the Dashboard's files",
    "leviathan/service/_catalogue.py": "service face: the catalogue for a client's forms",
    "leviathan/sensors/_sonar_noise.py": "analytic tier (not canonical): sonar noise from a "
    "sensor's own numpy generator, never in a canonical hash",
    "leviathan/analytic/_sonar_image.py": "analytic tier (not canonical): calls the canonical "
    "render unchanged, then analytic noise and display",
    "leviathan/analytic/_sonar_report.py": "analytic tier (not canonical): report figures and "
    "fits, hashed only in the analytic domain",
    "leviathan/analytic/_fan.py": "analytic tier (not canonical): PNG drawing of the fan and "
    "B-scan",
    "leviathan/analytic/_sonar_image_files.py": "analytic tier (not canonical): writes an "
    "analytic image's files",
    "leviathan/analytic/__init__.py": "re-exports the analytic tier, computes nothing",
    "leviathan/analytic/_scenario.py": "analytic tier (not canonical): scenario document schema",
    "leviathan/analytic/_scenario_run.py": "analytic tier (not canonical): calls the canonical "
    "controller, dynamics and sensor functions unchanged; faults and noise on top, hashed only "
    "in the analytic domain",
    "leviathan/analytic/_scenario_build.py": "analytic tier (not canonical): builds the "
    "library objects a scenario declares, no arithmetic",
    "leviathan/analytic/_scenario_records.py": "analytic tier (not canonical): run records, "
    "hashed only in the analytic domain",
    "leviathan/analytic/_scenario_outputs.py": "analytic tier (not canonical): writes npz, JSON "
    "and PNG outputs, no arithmetic",
    "leviathan/analytic/_faults.py": "analytic tier (not canonical): thruster faults rewrite "
    "commands before the canonical dynamics, which run unchanged",
    "leviathan/analytic/_generators.py": "analytic tier (not canonical): per-sensor numpy "
    "generators",
    "leviathan/sensors/_imu_noise.py": "analytic tier (not canonical): IMU error model",
    "leviathan/sensors/_dvl_noise.py": "analytic tier (not canonical): DVL error model "
    "(least squares with numpy.linalg)",
    "leviathan/analytic/_plots.py": "analytic tier: PNG plots, display products outside every hash",
    "leviathan/sweep/__init__.py": "sweep: re-exports the sweep package, computes nothing",
    "leviathan/sweep/_schema.py": "sweep: sweep document schema and axis value lists (exact "
    "decimal ranges), no hashed arithmetic",
    "leviathan/sweep/_documents.py": "sweep: builds the documents and objects a run declares; "
    "the World computes",
    "leviathan/sweep/_plan.py": "sweep: orders and keys runs: hashes documents with "
    "leviathan.identity, no arithmetic",
    "leviathan/sweep/_run.py": "sweep: calls the canonical World and the analytic tier unchanged "
    "and writes their products",
    "leviathan/sweep/_index.py": "sweep: index, status and tables of finished runs: bookkeeping, "
    "never hashed",
    "leviathan/sweep/_executors.py": "sweep: schedules runs, computes nothing",
    "leviathan/sweep/_errors.py": "sweep: its error class, computes nothing",
    "leviathan/sweep/_ray.py": "sweep: schedules runs on Ray, computes nothing",
    "leviathan/sweep/_sweep.py": "sweep: plans, skips and schedules runs, computes nothing",
    "leviathan/sweep/_bench.py": "sweep: benchmark timings and ratios: printed, never hashed or "
    "frozen",
    "leviathan/sweep/cli.py": "sweep: argument parsing and printing around the library calls it "
    "makes",
}


@dataclass(frozen=True)
class Allowed:
    """One allowlisted site: module path, enclosing qualname, a snippet of its source."""

    path: str
    qualname: str
    snippet: str
    reason: str


# `@` between two leviathan.frames.Transform objects is Transform.__matmul__, which
# composes element by element in the contract order ((a0 b0 + a1 b1) + a2 b2);
# no BLAS is involved.
_TRANSFORM_AT = "composes two leviathan.frames.Transform: __matmul__ is fixed-order element-wise"

ALLOWLIST: tuple[Allowed, ...] = (
    Allowed(
        "leviathan/frames/_sensor_frames.py",
        "sensor_pose",
        "T_world_body @ T_body_sensor",
        _TRANSFORM_AT,
    ),
    Allowed(
        "leviathan/geometry/_merge.py",
        "merge_meshes",
        "np.cumsum([0] + [m.vertices.shape[0]",
        "int64 vertex counts: an integer prefix sum is exact in any order",
    ),
    Allowed("leviathan/parity/_scene_parts.py", "_pose", "body @ mount", _TRANSFORM_AT),
    Allowed(
        "leviathan/parity/_scenes.py", "_cases.flat_normal_incidence", "body @ down", _TRANSFORM_AT
    ),
    Allowed(
        "leviathan/sensors/_camera.py",
        "render_camera",
        "T_world_sensor @ T_SENSOR_CAMERA",
        _TRANSFORM_AT,
    ),
    Allowed(
        "kernels/backend.py",
        "exclusive_offsets",
        "np.cumsum(counts[:-1], out=start[1:])",
        "int32 per-thread and per-cell sample counts: an integer prefix sum is exact in any order",
    ),
    Allowed(
        "reference_cpu/trace.py",
        "traverse_instance",
        "count.sum()",
        "int64 per-leaf triangle counts: an integer sum is exact in any order",
    ),
    Allowed(
        "reference_cpu/trace.py",
        "traverse_instance",
        "np.cumsum(count)",
        "int64 per-leaf triangle counts: an integer prefix sum is exact in any order",
    ),
)


@dataclass(frozen=True)
class Finding:
    """One forbidden construct found in a scanned module."""

    path: str
    line: int
    qualname: str
    source: str
    why: str

    def render(self) -> str:
        """``file:line function: source  (why it's forbidden)``."""
        return f"{self.path}:{self.line} {self.qualname}: {self.source}  ({self.why})"


_WHY_MATMUL = "`@` on arrays runs BLAS matmul: kernel and summation order depend on the CPU"
_WHY_BLAS = "BLAS product: kernel and summation order depend on the CPU and OPENBLAS_CORETYPE"
_WHY_LAPACK = "numpy.linalg runs LAPACK/BLAS: results depend on the OpenBLAS kernel"
_WHY_SUM = "float reduction in an order numpy does not specify (pairwise, SIMD-blocked)"
_WHY_SCAN = "accumulation whose order numpy does not document; write the loop"
_WHY_FFT = "FFT: the butterfly order and its roundings belong to the FFT library"
_WHY_METHOD = "array method reduction/product: same order problem as its numpy function"
_WHY_SCIPY = "scipy wraps BLAS/LAPACK and order-unspecified reductions"
_WHY_SIMD_MATH = (
    "float64 transcendental ufunc: numpy dispatches it to CPU-specific SIMD code (e.g. "
    "AVX-512 SVML), whose last bit can differ from libm; use math.* element by element"
)

# numpy.<name> -> why; a prefix entry (ending in ".") covers a whole submodule.
_FORBIDDEN_NUMPY: dict[str, str] = {
    **dict.fromkeys(
        ("dot", "vdot", "inner", "matmul", "tensordot", "einsum", "einsum_path", "vecdot"),
        _WHY_BLAS,
    ),
    **dict.fromkeys(("matvec", "vecmat", "polyfit", "cov", "corrcoef"), _WHY_BLAS),
    **dict.fromkeys(("convolve", "correlate"), _WHY_SUM),
    **dict.fromkeys(
        (
            "sum",
            "nansum",
            "prod",
            "nanprod",
            "mean",
            "nanmean",
            "average",
            "std",
            "nanstd",
            "var",
            "nanvar",
            "trace",
            "trapz",
            "trapezoid",
        ),
        _WHY_SUM,
    ),
    **dict.fromkeys(
        (
            "cumsum",
            "nancumsum",
            "cumprod",
            "nancumprod",
            "cumulative_sum",
            "cumulative_prod",
        ),
        _WHY_SCAN,
    ),
    **dict.fromkeys(
        (
            "sin",
            "cos",
            "tan",
            "arcsin",
            "arccos",
            "arctan",
            "arctan2",
            "sinh",
            "cosh",
            "tanh",
            "arcsinh",
            "arccosh",
            "arctanh",
            "exp",
            "exp2",
            "expm1",
            "log",
            "log2",
            "log10",
            "log1p",
            "power",
            "float_power",
            "cbrt",
            "hypot",
        ),
        _WHY_SIMD_MATH,
    ),
    "linalg": _WHY_LAPACK,
    "linalg.": _WHY_LAPACK,
    "fft": _WHY_FFT,
    "fft.": _WHY_FFT,
}
# ufunc methods that reduce; comparison and bitwise ufuncs are exact in any order.
_UFUNC_REDUCERS = ("reduce", "accumulate", "reduceat")
_ORDER_FREE_UFUNCS = frozenset(
    {
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "logical_and",
        "logical_or",
        "logical_xor",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
    }
)
_FORBIDDEN_METHODS = frozenset(
    {"dot", "sum", "mean", "prod", "std", "var", "cumsum", "cumprod", "trace"}
)
_FORBIDDEN_IMPORTS = {"numpy.linalg": _WHY_LAPACK, "numpy.fft": _WHY_FFT, "scipy": _WHY_SCIPY}


def _forbidden_import(module: str) -> str | None:
    for name, why in _FORBIDDEN_IMPORTS.items():
        if module == name or module.startswith(name + "."):
            return why
    return None


def _numpy_why(dotted: str) -> str | None:
    """Why a resolved ``numpy.…`` name is forbidden, or None."""
    if dotted.startswith("scipy"):
        return _WHY_SCIPY
    if not dotted.startswith("numpy."):
        return None
    name = dotted[len("numpy.") :]
    if name in _FORBIDDEN_NUMPY:
        return _FORBIDDEN_NUMPY[name]
    for prefix, why in _FORBIDDEN_NUMPY.items():
        if prefix.endswith(".") and name.startswith(prefix):
            return why
    ufunc, _, method = name.rpartition(".")
    if method in _UFUNC_REDUCERS and ufunc and "." not in ufunc:
        if ufunc not in _ORDER_FREE_UFUNCS:
            return _WHY_SUM
    return None


def _import_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted name, for every absolute import anywhere in the module."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    aliases[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, text: str, tree: ast.Module) -> None:
        self.path = path
        self.text = text
        self.aliases = _import_aliases(tree)
        self.stack: list[str] = []
        self.findings: list[Finding] = []

    # -- helpers ---------------------------------------------------------------
    def _add(self, node: ast.AST, why: str) -> None:
        source = ast.get_source_segment(self.text, node) or ast.unparse(node)
        self.findings.append(
            Finding(
                path=self.path,
                line=node.lineno,
                qualname=".".join(self.stack) or "<module>",
                source=" ".join(source.split()),
                why=why,
            )
        )

    def _resolve(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def _scoped(self, node: ast.AST, name: str) -> None:
        self.stack.append(name)
        self.generic_visit(node)
        self.stack.pop()

    # -- scopes ----------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scoped(node, node.name)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._scoped(node, node.name)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node, node.name)

    # -- imports ---------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            why = _forbidden_import(alias.name)
            if why:
                self._add(node, why)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return
        whys = {_forbidden_import(node.module)}
        whys |= {_forbidden_import(f"{node.module}.{a.name}") for a in node.names}
        whys.discard(None)
        if whys:
            self._add(node, sorted(whys)[0])  # type: ignore[type-var]

    # -- operators -------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult):
            self._add(node, _WHY_MATMUL)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.MatMult):
            self._add(node, _WHY_MATMUL)
        self.generic_visit(node)

    # -- names and calls -------------------------------------------------------
    def _reference(self, node: ast.Attribute | ast.Name, site: ast.AST) -> bool:
        """Records ``node`` (reported as ``site``) if it names a forbidden function."""
        dotted = self._resolve(node)
        why = _numpy_why(dotted) if dotted else None
        if why:
            self._add(site, why)
            return True
        return False

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute | ast.Name) and self._reference(func, node):
            for child in (*node.args, *node.keywords):
                self.visit(child)
            return
        receiver = self._resolve(func.value) if isinstance(func, ast.Attribute) else None
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _FORBIDDEN_METHODS
            # numpy names were judged above; math.prod is a left-to-right loop
            and (receiver or "").split(".")[0] not in ("numpy", "math")
        ):
            self._add(node, _WHY_METHOD)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not self._reference(node, node):
            self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._reference(node, node)


def scan_source(path: str, text: str) -> list[Finding]:
    """Every forbidden construct in one module's source, in source order."""
    tree = ast.parse(text, filename=path)
    scanner = _Scanner(path, text, tree)
    scanner.visit(tree)
    return sorted(scanner.findings, key=lambda f: (f.line, f.source))


def _all_findings() -> list[Finding]:
    findings: list[Finding] = []
    for path in CANONICAL_MODULES:
        findings.extend(scan_source(path, (REPO_ROOT / path).read_text(encoding="utf-8")))
    return findings


def _allowed(finding: Finding, entry: Allowed) -> bool:
    return (
        finding.path == entry.path
        and finding.qualname == entry.qualname
        and entry.snippet in finding.source
    )


def test_every_package_module_is_classified_canonical_or_excluded() -> None:
    on_disk = {
        p.relative_to(REPO_ROOT).as_posix()
        for root in PACKAGE_ROOTS
        for p in (REPO_ROOT / root).rglob("*.py")
    }
    canonical = set(CANONICAL_MODULES)
    assert len(canonical) == len(CANONICAL_MODULES), "a module is listed twice"
    assert not canonical & set(EXCLUDED_MODULES), "a module is both canonical and excluded"
    listed = canonical | set(EXCLUDED_MODULES)
    assert sorted(on_disk - listed) == [], "new modules: add each to CANONICAL or EXCLUDED"
    assert sorted(listed - on_disk) == [], "listed modules that no longer exist"


def test_canonical_modules_use_no_blas_lapack_or_unordered_reductions() -> None:
    offending = [f for f in _all_findings() if not any(_allowed(f, a) for a in ALLOWLIST)]
    if offending:
        pytest.fail(
            f"{len(offending)} forbidden construct(s) on canonical paths; write the arithmetic "
            "element-wise in a fixed order (or exactly), or allowlist the site with a reason:\n"
            + "\n".join(f.render() for f in offending),
            pytrace=False,
        )


def test_every_allowlist_entry_still_matches_a_site() -> None:
    findings = _all_findings()
    stale = [a for a in ALLOWLIST if not any(_allowed(f, a) for f in findings)]
    if stale:
        pytest.fail(
            "allowlist entries that match nothing (remove them):\n"
            + "\n".join(f"{a.path} {a.qualname}: {a.snippet!r}" for a in stale),
            pytrace=False,
        )


def test_every_allowlist_entry_has_a_reason_and_is_unique() -> None:
    keys = [(a.path, a.qualname, a.snippet) for a in ALLOWLIST]
    assert len(set(keys)) == len(keys)
    assert all(a.reason.strip() and a.snippet.strip() for a in ALLOWLIST)
    assert {a.path for a in ALLOWLIST} <= set(CANONICAL_MODULES)


# -- the scanner itself: each forbidden form is caught, each allowed form is not ----------

_HEADER = (
    "import math\nimport numpy\nimport numpy as np\nimport warp as wp\n"
    "from numpy import sum as npsum\n"
)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("y = a @ b", _WHY_MATMUL),
        ("a @= b", _WHY_MATMUL),
        ("y = np.dot(a, b)", _WHY_BLAS),
        ("y = numpy.vdot(a, b)", _WHY_BLAS),
        ("y = np.inner(a, b)", _WHY_BLAS),
        ("y = np.matmul(a, b)", _WHY_BLAS),
        ("y = np.einsum('i,i', a, b)", _WHY_BLAS),
        ("y = np.tensordot(a, b, 1)", _WHY_BLAS),
        ("y = np.linalg.pinv(a)", _WHY_LAPACK),
        ("y = la.norm(a)", _WHY_LAPACK),
        ("f = np.linalg.solve", _WHY_LAPACK),
        ("y = np.sum(a)", _WHY_SUM),
        ("y = npsum(a)", _WHY_SUM),
        ("y = np.prod(a)", _WHY_SUM),
        ("y = np.mean(a)", _WHY_SUM),
        ("y = np.average(a, weights=w)", _WHY_SUM),
        ("y = np.std(a)", _WHY_SUM),
        ("y = np.var(a)", _WHY_SUM),
        ("y = np.nansum(a)", _WHY_SUM),
        ("y = np.trapezoid(a)", _WHY_SUM),
        ("y = np.add.reduce(a)", _WHY_SUM),
        ("y = np.multiply.accumulate(a)", _WHY_SUM),
        ("y = np.cumsum(a)", _WHY_SCAN),
        ("y = np.fft.rfft(a)", _WHY_FFT),
        ("y = a.dot(b)", _WHY_METHOD),
        ("y = (a * b).sum(axis=1)", _WHY_METHOD),
        ("y = a.mean()", _WHY_METHOD),
        ("y = a.prod()", _WHY_METHOD),
        ("y = a.std()", _WHY_METHOD),
        ("y = a.var()", _WHY_METHOD),
        ("y = wp.dot(a, b)", _WHY_METHOD),
        ("import numpy.linalg", _WHY_LAPACK),
        ("from numpy import linalg", _WHY_LAPACK),
        ("from numpy.linalg import pinv", _WHY_LAPACK),
        ("import scipy.linalg", _WHY_SCIPY),
        ("from scipy import sparse", _WHY_SCIPY),
    ],
)
def test_scanner_flags_forbidden_construct(line: str, why: str) -> None:
    header = _HEADER + "import numpy.linalg as la\n"
    source = header + f"def f(a, b, w):\n    {line}\n"
    at = header.count("\n") + 2
    findings = [f for f in scan_source("x.py", source) if f.line == at]
    assert [(f.qualname, f.why) for f in findings] == [("f", why)]
    expression = line.split(" = ", 1)[-1]  # the flagged node: the right-hand side
    assert findings[0].render() == f"x.py:{at} f: {expression}  ({why})"


@pytest.mark.parametrize(
    "line",
    [
        "y = a * b + c",
        "y = np.outer(a, b)",
        "y = np.cross(a, b)",
        "y = np.max(a) + np.maximum.reduce(a)",
        "y = sum(v) + math.fsum(v) + math.prod(v)",
        "y = wp.length(a) + wp.cross(a, b)",
        "y = spec.mean_m",
        "'''np.dot(a, b) and a @ b in prose are not code'''",
    ],
)
def test_scanner_passes_allowed_construct(line: str) -> None:
    source = _HEADER + f"def f(a, b, c, v, spec):\n    {line}\n"
    assert scan_source("x.py", source) == []
