"""Determinism matrix: the same hashes under every environment that picks a numeric kernel.

One worker (this file run as a script) computes, and prints as one JSON line:

* ``world/*``: a three-vehicle World of catalogue vehicles in a current (the
  survey vehicle with sonar, DVL and IMU under a
  :class:`~leviathan.controllers.WaypointFollower`; the inspection ROV, with a
  small camera, and the torpedo AUV each under an
  :class:`~leviathan.controllers.Autopilot`; each catalogue vehicle declares a
  hull, so every vehicle is geometry in the others' sonar, camera and DVL),
  stepped 300 ticks on the numpy
  reference tracer: the snapshot hash, every capture group's hash and
  ``json.dumps(world.state(), sort_keys=True)`` (floats as ``repr``, so a
  last-bit change shows);
* ``sonar/*``: every frozen parity scene rendered by the reference and by the
  default backend (``"auto"``: Warp on CUDA or on the CPU; its kernels are
  loaded from Warp's cache, warmed once by the parent first);
* ``survey/*``: the survey demo's World (:func:`leviathan.demo.build_demo_world`,
  default tracer) for :data:`SURVEY_TICKS` ticks (two sonar pings), nothing
  written: every capture group's hash, the demo's run hash over them, the
  snapshot hash, and the number of sonar cells the inspection ROV's hull gives
  in each survey ping (a second vehicle in view).

The worker runs in subprocesses that inherit this process's environment and
change one thing each (:data:`VARIANTS`): the OpenBLAS kernel
(``OPENBLAS_CORETYPE`` unset or forced), BLAS/OpenMP thread counts, the hash
seed, and numpy's own SIMD dispatch. Every digest must equal the baseline's.

A forced core type the CPU cannot execute (e.g. ``SkylakeX`` without AVX-512)
kills a process only when a BLAS kernel actually runs, so a worker that dies
there by SIGILL is reported as "a BLAS kernel ran on this path".
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

TICKS = 300
# Two survey pings (ticks 0 and 20 at 5 Hz on 10 ms ticks): the catalogue sonar's dense
# elevation sampling makes each ping costly, and two already cover every sonar stage.
SURVEY_TICKS = 20
WORKER_TIMEOUT_S = 180
POOL_SIZE = 2  # the suite's reference machine has 2 cores

BASELINE = "baseline"
_UNSET = None


def _settings(variable: str, *values: str) -> dict[str, dict[str, str | None]]:
    """One variant per value of ``variable``, named ``"VARIABLE=value"``."""
    return {f"{variable}={value}": {variable: value} for value in values}


# name -> environment changes applied to a copy of os.environ (None: removed).
VARIANTS: dict[str, dict[str, str | None]] = {
    BASELINE: {},
    "OPENBLAS_CORETYPE unset": {"OPENBLAS_CORETYPE": _UNSET},
    **_settings("OPENBLAS_CORETYPE", "Haswell", "SkylakeX", "Zen", "Prescott", "Nehalem"),
    **_settings("OPENBLAS_NUM_THREADS", "1", "2"),
    **_settings("OMP_NUM_THREADS", "1"),
    **_settings("PYTHONHASHSEED", "0", "1", "12345", "random"),
    # numpy's own runtime CPU dispatch: baseline (x86-64-v2) SIMD loops only.
    **_settings("NPY_DISABLE_CPU_FEATURES", "X86_V3"),
}


# --------------------------------------------------------------------------- worker


def _openblas_core() -> str:
    """The OpenBLAS kernel this process loaded (asked without running any BLAS)."""
    import ctypes

    import numpy  # noqa: F401  (loads numpy's OpenBLAS)

    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = [line.split()[-1] for line in maps if "openblas" in line.lower()]
    except OSError:
        return "unknown (no /proc/self/maps)"
    if not paths:
        return "unknown (no OpenBLAS library loaded)"
    lib = ctypes.CDLL(paths[0])
    for symbol in (
        "scipy_openblas_get_corename64_",
        "scipy_openblas_get_corename",
        "openblas_get_corename64_",
        "openblas_get_corename",
    ):
        corename = getattr(lib, symbol, None)
        if corename is not None:
            corename.restype = ctypes.c_char_p
            return corename().decode()
    return f"unknown ({Path(paths[0]).name} exports no corename)"


def _matrix_world() -> Any:
    from world_cases import autopilot_setup, seabed_plane, small_survey_spec, with_sensor

    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import WaypointFollower, lawnmower
    from leviathan.frames import Transform
    from leviathan.geometry import box_mesh
    from leviathan.materials import TEST_LAMBERT_BRIGHT
    from leviathan.specs import WaterSpec
    from leviathan.world import Environment, SceneObject, VehicleSetup, World

    survey = small_survey_spec(bearing_count=24, elevation_sample_count=4, range_bin_count=48)
    rov = get_vehicle("inspection_rov")
    camera = rov.sensor("front_camera")
    rov = with_sensor(
        rov,
        "front_camera",
        width_px=24,
        height_px=16,
        fx_px=12.0,
        fy_px=12.0,
        cx_px=11.5,
        cy_px=7.5,
        schedule=camera.schedule.from_rate_hz(5),
    )
    torpedo = get_vehicle("torpedo_auv")
    torpedo = type(torpedo).model_validate({**torpedo.model_dump(), "sensors": []})
    at = Transform.from_euler
    environment = Environment(
        water=WaterSpec(current_ned_m_per_s=(0.07, -0.03, 0.0)),
        objects=(
            seabed_plane(120.0, 12),
            SceneObject(
                "crate",
                box_mesh((2.0, 3.0, 1.5)),
                at(0, 0, 0.3, translation=(8.0, 2.0, 29.0)),
                "target",
                TEST_LAMBERT_BRIGHT,
                velocity_ned_m_per_s=(0.0, 0.2, 0.0),
            ),
        ),
    )
    waypoints = lawnmower(
        origin_ne_m=(0.0, 0.0),
        heading_rad=0.3,
        leg_length_m=6.0,
        leg_spacing_m=3.0,
        legs=2,
        depth_m=21.0,
    )
    return World.create(
        vehicles=[
            VehicleSetup(
                "survey",
                survey,
                WaypointFollower(waypoints, speed_m_per_s=1.2, acceptance_radius_m=1.5),
                position_ned_m=(-2.0, -1.0, 20.0),
            ),
            autopilot_setup(
                "rov",
                rov,
                speed_m_per_s=0.3,
                depth_m=26.0,
                heading_rad=0.7,
                position_ned_m=(4.0, 2.0, 25.0),
                rpy_rad=(0.0, 0.0, 0.2),
            ),
            autopilot_setup(
                "torpedo",
                torpedo,
                speed_m_per_s=1.5,
                depth_m=12.0,
                heading_rad=-0.9,
                position_ned_m=(-5.0, 6.0, 10.0),
            ),
        ],
        environment=environment,
        root_seed=20261130,
        step_ns=10_000_000,
        tracing_backend="reference",
    )


def _groups(groups: list[Any]) -> list[str]:
    return [f"{g.tick}:{g.content_hash}" for g in groups]


def compute_digests() -> dict[str, Any]:
    """Every digest of the matrix, computed in this process."""
    from leviathan.demo import build_demo_world
    from leviathan.identity import content_hash
    from leviathan.parity import scene_cases

    parts: dict[str, Any] = {}
    world = _matrix_world()
    parts["world/sensor_ids"] = list(world.sensor_ids())
    parts["world/capture_groups"] = _groups(world.step(TICKS))
    parts["world/snapshot"] = world.snapshot().content_hash
    parts["world/state"] = json.dumps(world.state(), sort_keys=True)
    for case in scene_cases():
        for backend in ("reference", "auto"):
            parts[f"sonar/{case.name}/{backend}"] = case.render(backend=backend).content_hash
    survey = build_demo_world()
    groups = survey.step(SURVEY_TICKS)
    parts["survey/capture_groups"] = _groups(groups)
    # the demo's run hash: content_hash over the groups' hashes in time order
    parts["survey/run_hash"] = content_hash([g.content_hash for g in groups])
    parts["survey/snapshot"] = survey.snapshot().content_hash
    # The two-vehicle World's other vehicle in the survey sonar: its cells per ping.
    parts["survey/inspector_cells"] = [
        int((f.channels["primary_object"] == f.metadata["object_ids"].index("inspector")).sum())
        for f in (g.samples["survey/sonar"] for g in groups if "survey/sonar" in g.samples)
    ]
    return parts


def _numpy_simd() -> str:
    """numpy's runtime SIMD dispatch targets that are enabled in this process."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # a private module: its name may move between numpy releases
        return "unknown"
    return ",".join(t for t in __cpu_dispatch__ if __cpu_features__.get(t)) or "baseline only"


def _worker() -> None:
    parts = compute_digests()
    kernels = {"openblas_core": _openblas_core(), "numpy_simd": _numpy_simd()}
    print(json.dumps({**kernels, "parts": parts}, sort_keys=True))


# --------------------------------------------------------------------------- the test


def _environment(changes: dict[str, str | None]) -> dict[str, str]:
    env = dict(os.environ)  # inherit on purpose: vary exactly one thing
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _run_variant(name: str) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker"],
        env=_environment(VARIANTS[name]),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=WORKER_TIMEOUT_S,
        check=False,
    )
    if completed.returncode != 0:
        died = ""
        if completed.returncode == -signal.SIGILL:
            died = (
                " (SIGILL: this CPU cannot run the forced OpenBLAS kernel, so a BLAS kernel "
                "ran on this path)"
            )
        return {"error": f"worker exited {completed.returncode}{died}: {completed.stderr[-2000:]}"}
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _numpy_blas() -> str:
    import numpy as np

    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version')} ({blas.get('openblas configuration')})"
    except (AttributeError, KeyError, TypeError):
        return f"numpy {np.__version__}: BLAS not reported by numpy.__config__"


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two decoded JSON values first differ, e.g. ``vehicles.rov.heading_rad: x != y``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}{key}: present in one only"
            found = _first_difference(a[key], b[key], f"{path}{key}.")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{path}{k}.")
            if found:
                return found
        return None
    return None if a == b else f"{path.rstrip('.')}: {a!r} != {b!r}"


def _describe(part: str, expected: Any, got: Any) -> str:
    if got is None:
        return f"{part}: missing"
    if part.endswith("/state"):
        return f"{part} differs at {_first_difference(json.loads(expected), json.loads(got))}"
    if isinstance(expected, list) and isinstance(got, list):
        diff = [k for k, (x, y) in enumerate(zip(expected, got, strict=False)) if x != y]
        where = f"first at index {diff[0]}: {expected[diff[0]]} != {got[diff[0]]}" if diff else ""
        return (
            f"{part}: {len(diff)} of {len(expected)} differ "
            f"(lengths {len(expected)}/{len(got)}) {where}"
        )
    return f"{part}: {expected} != {got}"


def _run_matrix() -> dict[str, dict[str, Any]]:
    # Warm Warp's kernel cache once here (the default backend's device), so that
    # concurrent workers only load it.
    from leviathan.parity import SCENE_NAMES, build_scene

    build_scene(SCENE_NAMES[0]).render(backend="auto")
    with concurrent.futures.ThreadPoolExecutor(max_workers=POOL_SIZE) as pool:
        futures = {name: pool.submit(_run_variant, name) for name in VARIANTS}
        return {name: future.result() for name, future in futures.items()}


def _check_coverage(parts: dict[str, Any]) -> None:
    """The baseline really computed every part (identical empty lists would prove nothing)."""
    from leviathan.parity import SCENE_NAMES

    scenes = sorted(p for p in parts if p.startswith("sonar/"))
    assert scenes == sorted(f"sonar/{n}/{b}" for n in SCENE_NAMES for b in ("reference", "auto"))
    assert parts["world/sensor_ids"] == [
        "rov/front_camera",
        "survey/dvl",
        "survey/imu",
        "survey/pressure",
        "survey/sonar",
    ]
    # ticks 0..N each deliver a group: the survey vehicle's IMU samples at 100 Hz
    assert len(parts["world/capture_groups"]) == TICKS + 1
    assert len(parts["survey/capture_groups"]) == SURVEY_TICKS + 1
    assert sorted(json.loads(parts["world/state"])["vehicles"]) == ["rov", "survey", "torpedo"]
    # The demo's ROV is in the survey sonar's fan during its first second.
    assert all(cells > 0 for cells in parts["survey/inspector_cells"])


def test_every_digest_is_identical_under_every_environment_variant() -> None:
    # One test for the whole matrix: the subprocesses are the cost, and pytest-xdist
    # would run a shared fixture once per worker.
    matrix = _run_matrix()
    baseline = matrix[BASELINE]
    assert "error" not in baseline, baseline["error"]
    expected = baseline["parts"]
    _check_coverage(expected)
    problems: list[str] = []
    for name, result in matrix.items():
        if "error" in result:
            problems.append(f"[{name}] {result['error']}")
            continue
        kernels = f"OpenBLAS core {result['openblas_core']}, numpy SIMD {result['numpy_simd']}"
        for part in expected:
            got = result["parts"].get(part)
            if got != expected[part]:
                problems.append(f"[{name}] ({kernels}) " + _describe(part, expected[part], got))
    if problems:
        cores = ", ".join(
            f"{n}: {r.get('openblas_core', '?')}" for n, r in matrix.items() if "error" not in r
        )
        pytest.fail(
            f"digests differ from the baseline (numpy's BLAS: {_numpy_blas()}; "
            f"OpenBLAS kernels loaded: {cores}):\n" + "\n".join(problems),
            pytrace=False,
        )


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    _worker()
