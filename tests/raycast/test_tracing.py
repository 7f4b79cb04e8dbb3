"""One backend switch for every ray-casting sensor: resolution, errors and identical results."""

from __future__ import annotations

import numpy as np
import pytest

from leviathan.kernels import compile_reports, load_kernels
from leviathan.parity import build_scene
from leviathan.raycast import BACKENDS, prepare_scene, resolve_backend, trace_rays
from leviathan.sonar import SonarFrame


def test_backends_are_listed() -> None:
    assert BACKENDS == ("auto", "reference", "warp")


def _has_cuda(devices: tuple[str, ...]) -> bool:
    return any(d.startswith("cuda") for d in devices)


def test_auto_picks_warp_on_cuda_when_present_else_warp_on_the_cpu(
    devices: tuple[str, ...],
) -> None:
    assert resolve_backend() == ("warp", "cuda:0" if _has_cuda(devices) else "cpu")
    assert resolve_backend("auto", "cpu") == ("warp", "cpu")


def test_reference_runs_on_the_cpu_only() -> None:
    assert resolve_backend("reference") == ("reference", "cpu")
    assert resolve_backend("reference", "cpu") == ("reference", "cpu")
    with pytest.raises(ValueError, match=r"device: the reference backend runs on 'cpu' only"):
        resolve_backend("reference", "cuda:0")


def test_unknown_backend_and_absent_device_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"backend: expected one of .*'optix'"):
        resolve_backend("optix")
    with pytest.raises(ValueError, match=r"device: 'cuda:7' is not available"):
        resolve_backend("warp", "cuda:7")
    with pytest.raises(TypeError, match="device"):
        resolve_backend("warp", 0)  # type: ignore[arg-type]


def test_cuda_alias_names_the_first_device(devices: tuple[str, ...]) -> None:
    if not _has_cuda(devices):
        with pytest.raises(ValueError, match="'cuda' is not available"):
            resolve_backend("warp", "cuda")
    else:
        assert resolve_backend("warp", "cuda") == ("warp", "cuda:0")


def test_compile_report_is_kept_per_device() -> None:
    report = load_kernels("cpu")
    assert report.device == "cpu" and report.seconds >= 0.0
    assert compile_reports()["cpu"] == report
    assert load_kernels("cpu") is report


def test_trace_rays_with_sea_surface_is_identical_across_backends(device: str) -> None:
    case = build_scene("sea_surface_interface")
    prepared = prepare_scene(case.scene)
    rng = np.random.default_rng(17)
    d = rng.normal(size=(4000, 3))
    d /= np.linalg.norm(d, axis=1)[:, None]
    o = np.broadcast_to(case.sensor_pose.translation, d.shape)
    sea = case.scene.sea_surface_instance
    ref = trace_rays(prepared, o, d, t_max=60.0, sea_surface_instance=sea, backend="reference")
    ours = trace_rays(
        prepared, o, d, t_max=60.0, sea_surface_instance=sea, backend="warp", device=device
    )
    assert ours.t.dtype == np.float64 and ours.instance.dtype == np.int32
    assert ours.triangle.dtype == np.int32 and ours.t.shape == (4000,)
    assert np.count_nonzero(ref.instance == sea) > 100
    assert np.count_nonzero((ref.instance >= 0) & (ref.instance != sea)) > 100
    np.testing.assert_array_equal(ours.t, ref.t)
    np.testing.assert_array_equal(ours.instance, ref.instance)
    np.testing.assert_array_equal(ours.triangle, ref.triangle)


def test_render_records_the_backend_it_ran_on_outside_the_identity() -> None:
    case = build_scene("flat_survey")
    auto = case.render(backend="auto")
    reference = case.render(backend="reference")
    assert (auto.backend, auto.device) == resolve_backend()
    assert auto.content_hash == reference.content_hash


def test_world_samples_are_identical_on_every_backend() -> None:
    from world_cases import seabed_scene, survey_setup

    from leviathan.world import World

    def run(**tracing: str) -> tuple[list[tuple[int, str]], tuple[str, str]]:
        world = World.create(
            vehicles=[survey_setup()],
            environment=seabed_scene(),
            root_seed=5,
            step_ns=10_000_000,
            **tracing,
        )
        groups = world.step(45)
        samples = [s for g in groups for s in g.samples.values()]
        assert any(isinstance(s, SonarFrame) for s in samples)
        assert any(getattr(s, "kind", None) == "dvl" for s in samples)
        return [(g.time_ns, g.content_hash) for g in groups], world.tracing

    reference, used = run(tracing_backend="reference")
    assert used == ("reference", "cpu")
    auto, used = run()
    assert used == resolve_backend()
    assert auto == reference


def test_world_refuses_an_unknown_tracing_backend() -> None:
    from world_cases import seabed_scene, small_survey_spec

    from leviathan.controllers import DirectThrust
    from leviathan.world import VehicleSetup, World

    spec = small_survey_spec()
    with pytest.raises(ValueError, match=r"backend: expected one of"):
        World.create(
            vehicles=[VehicleSetup("survey", spec, DirectThrust([0.0] * len(spec.thrusters)))],
            environment=seabed_scene(),
            step_ns=10_000_000,
            tracing_backend="optix",
        )


def test_auto_falls_back_to_the_reference_when_warp_cpu_cannot_load(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import leviathan.kernels.backend as kb
    import leviathan.raycast._dispatch as dispatch

    def broken(device: str = "cpu"):
        raise RuntimeError("no CPU compiler")

    monkeypatch.setattr(kb, "load_kernels", broken)
    monkeypatch.setattr(kb, "default_device", lambda: "cpu")
    monkeypatch.setattr(dispatch, "_warp_cpu_failure", [])
    with caplog.at_level("WARNING", logger="leviathan.raycast"):
        assert resolve_backend("auto") == ("reference", "cpu")
        assert resolve_backend("auto") == ("reference", "cpu")
    assert [r.getMessage() for r in caplog.records].count(
        "Warp CPU kernels unavailable (RuntimeError: no CPU compiler); "
        "backend='auto' uses the numpy reference"
    ) == 1
    # An explicit Warp request is not silently redirected.
    assert resolve_backend("warp", "cpu") == ("warp", "cpu")
