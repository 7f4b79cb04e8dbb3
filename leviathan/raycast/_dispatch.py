"""Backend dispatch: the one place that picks a tracing backend, and the one ray trace.

Every sensor that casts rays (imaging sonar, camera, DVL) traces through
:func:`trace_rays` here, so all of them use the same backend and all of them
get the same answer from every backend, bit for bit:

* ``"reference"``: the numpy reference (:func:`leviathan.reference_cpu.trace.nearest_hits`),
  CPU only. It is the scientific authority the frozen fixture came from.
* ``"warp"``: NVIDIA Warp float64 kernels (:func:`leviathan.kernels.nearest_hits`) on
  ``device="cpu"`` or ``"cuda:N"``, over the same prepared arrays.
* ``"auto"`` (the default): Warp on ``cuda:0`` when a CUDA device is present,
  else Warp on the CPU, the fastest bit-identical CPU path (about 8-14x the
  numpy reference's rays/s on the survey seabeds; ``leviathan bench sonar``
  measures it). With an explicit ``device``, ``"auto"`` means Warp on that
  device. If Warp's CPU kernels cannot be compiled or loaded here, ``"auto"``
  on the CPU falls back to the reference (same results) and logs a warning.

Only the nearest mesh hit (``nearest_hits``, the same name in both backends)
differs between backends; preparation and everything after the hit are shared
host code. The sea surface is composed on the host after the reference's mesh
search, and seeded on the device before Warp's (each ray starts from its plane
hit), which gives the same answer in one pass.

Both backends are imported when first used: the reference imports this
package's shared stages, and Warp is optional and slow to import.
"""

from __future__ import annotations

import numpy as np

from leviathan._fallback import usable_once
from leviathan._interrupt import checkpoint
from leviathan._raycast_stages import PreparedScene, TraceResult, check_rays
from leviathan.raycast._sea_surface import combine_with_sea_surface

__all__ = ["BACKENDS", "resolve_backend", "trace_meshes", "trace_rays"]

BACKENDS: tuple[str, ...] = ("auto", "reference", "warp")


def resolve_backend(backend: str = "auto", device: str | None = None) -> tuple[str, str]:
    """The concrete ``(backend, device)`` that a request runs on.

    Args:
        backend: One of :data:`BACKENDS`.
        device: ``None`` (the backend's default), ``"cpu"`` or ``"cuda:N"``.

    Returns:
        ``("reference", "cpu")`` or ``("warp", device)``.

    Raises:
        ValueError: For an unknown backend, or a device the backend cannot use here.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {BACKENDS}, got {backend!r}")
    if device is not None and not isinstance(device, str):
        raise TypeError(f"device: expected None or a name like 'cpu' or 'cuda:0', got {device!r}")
    if backend == "reference":
        if device not in (None, "cpu"):
            raise ValueError(
                f"device: the reference backend runs on 'cpu' only, got {device!r}; "
                "use backend='warp' for a CUDA device"
            )
        return "reference", "cpu"
    from leviathan.kernels.backend import check_device, default_device

    chosen = default_device() if device is None else check_device(device)
    if backend == "auto" and chosen == "cpu" and not _warp_cpu_usable():
        return "reference", "cpu"
    return "warp", chosen


_warp_cpu_failure: list[str] = []


def _warp_cpu_usable() -> bool:
    """Whether Warp's CPU kernels load here; if not, ``"auto"`` falls back to the reference.

    The CPU path needs Warp's bundled compiler (or its kernel cache). Should that
    fail on some platform, ``"auto"`` keeps working on the reference, which gives
    the same results, and says so once on the ``leviathan.raycast`` logger;
    ``backend="warp"`` still raises the error.
    """
    from leviathan.kernels.backend import load_kernels

    return usable_once(
        _warp_cpu_failure,
        lambda: load_kernels("cpu"),
        "Warp CPU kernels unavailable (%s); backend='auto' uses the numpy reference",
    )


def trace_meshes(
    prepared: PreparedScene,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    t_max: float,
    backend: str = "auto",
    device: str | None = None,
) -> TraceResult:
    """Nearest mesh hit per ray (no sea surface): the chosen backend's ``nearest_hits``.

    Args:
        prepared: Prepared scene (:func:`leviathan.raycast.prepare_scene`).
        origins: Ray origins in world NED [m], float64 [ray_count, 3].
        directions: Unit ray directions in world NED, float64 [ray_count, 3].
        t_max: Largest ray parameter of interest [m].
        backend: One of :data:`BACKENDS`.
        device: Device for the backend (see :func:`resolve_backend`).
    """
    name, dev = resolve_backend(backend, device)
    if name == "reference":
        from leviathan.reference_cpu.trace import nearest_hits

        return nearest_hits(prepared, origins, directions, t_max=t_max)
    from leviathan.kernels.backend import nearest_hits as warp_nearest_hits

    return warp_nearest_hits(prepared, origins, directions, t_max=t_max, device=dev)


def trace_rays(
    prepared: PreparedScene,
    origins: np.ndarray,
    directions: np.ndarray,
    *,
    t_max: float,
    sea_surface_instance: int,
    backend: str = "auto",
    device: str | None = None,
) -> TraceResult:
    """Nearest hit per ray against the meshes and the analytic sea surface.

    The one composition of tracing with the sea surface: the sonar, the camera
    and the DVL all trace through it. Same arguments as :func:`trace_meshes`,
    plus the sea surface's instance index (``scene.sea_surface_instance``). The
    reference composes the plane after its mesh search
    (:func:`~leviathan.raycast._sea_surface.combine_with_sea_surface`); Warp seeds it
    before (:func:`leviathan.kernels.backend.nearest_hits_with_sea_surface`): the
    same result, bit for bit.
    """
    name, dev = resolve_backend(backend, device)
    if name == "warp" and _after_meshes(sea_surface_instance, prepared):
        # The sea surface seeded on the device before the meshes are traced: the same
        # answer as the composition below, in one pass (nearest_hits_with_sea_surface,
        # which checks the rays).
        from leviathan.kernels.backend import nearest_hits_with_sea_surface

        checkpoint()  # a stopped command (Ctrl-C) stops before a trace, not after it
        hits = nearest_hits_with_sea_surface(
            prepared,
            origins,
            directions,
            t_max=t_max,
            sea_surface_instance=int(sea_surface_instance),
            device=dev,
        )
        checkpoint()
        return hits
    o, d = check_rays(origins, directions)
    checkpoint()  # a stopped command (Ctrl-C) stops before a trace, not after it
    meshes = trace_meshes(prepared, o, d, t_max=t_max, backend=name, device=dev)
    checkpoint()
    return combine_with_sea_surface(
        meshes, o, d, t_max=t_max, sea_surface_instance=sea_surface_instance
    )


def _after_meshes(sea_surface_instance: object, prepared: PreparedScene) -> bool:
    """Whether the sea surface's index follows every mesh instance's, as a scene's does
    (``scene.sea_surface_instance``): then the traversal's tie rule is the composition's."""
    return (
        isinstance(sea_surface_instance, int | np.integer)
        and not isinstance(sea_surface_instance, bool)
        and int(sea_surface_instance) >= len(prepared.instances)
    )
