"""The BVH build figure of ``leviathan bench sonar``: the compiled build beside numpy's.

For the seabed of each bench scene it builds the BVH of the scene's largest
mesh from the same triangle boxes twice per round, with the numpy build
(:func:`leviathan.raycast.build_bvh` with ``compiled=False``, the definition)
and with the Warp CPU kernels (``compiled=True``, what scene preparation runs),
alternating, and reports each median, their ratio (the peer is numpy's build in
the same run, so the figure compares across loads) and whether the two gave the
same arrays byte for byte. Figures to print, never assertions.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

__all__ = ["bvh_build_figures"]

_FIELDS = ("node_bounds", "node_child", "node_range", "tri_order")


def bvh_build_figures(scene: Any, *, rounds: int = 3) -> dict[str, Any]:
    """Median seconds of both builds over ``rounds`` rounds, their ratio and identity."""
    from leviathan.raycast import build_bvh

    inst = max(scene.instances, key=lambda i: i.mesh.triangle_count)
    world = np.asarray(inst.T_world_object.apply_point(inst.mesh.vertices), dtype=np.float64)
    p0, p1, p2 = (world[inst.mesh.faces[:, k]] for k in range(3))
    tri_min = np.minimum(np.minimum(p0, p1), p2)  # the boxes scene preparation builds on
    tri_max = np.maximum(np.maximum(p0, p1), p2)
    out: dict[str, Any] = {"triangles": int(tri_min.shape[0]), "compiled_available": False}
    numpy_s: list[float] = []
    compiled_s: list[float] = []
    try:
        build_bvh(tri_min[:1], tri_max[:1], compiled=True)  # compiles or loads the kernels
        available = True
    except Exception as exc:  # reported in the figures, not raised: a bench still runs
        out["compiled_error"] = f"{type(exc).__name__}: {exc}"
        available = False
    identical = True
    for _ in range(rounds):
        t0 = time.perf_counter()
        reference = build_bvh(tri_min, tri_max, compiled=False)
        numpy_s.append(time.perf_counter() - t0)
        if available:
            t0 = time.perf_counter()
            compiled = build_bvh(tri_min, tri_max, compiled=True)
            compiled_s.append(time.perf_counter() - t0)
            identical = identical and all(
                getattr(reference, f).tobytes() == getattr(compiled, f).tobytes()
                and getattr(reference, f).dtype == getattr(compiled, f).dtype
                for f in _FIELDS
            )
    out["numpy_median_s"] = statistics.median(numpy_s)
    if available:
        out["compiled_available"] = True
        out["compiled_median_s"] = statistics.median(compiled_s)
        out["speedup_vs_numpy"] = out["numpy_median_s"] / out["compiled_median_s"]
        out["identical"] = identical
    return out


def bvh_build_line(figures: dict[str, Any]) -> str:
    """One line of the bench table."""
    if not figures["compiled_available"]:
        return f"  BVH build numpy {figures['numpy_median_s']:.3f} s; compiled build unavailable"
    return (
        f"  BVH build of {figures['triangles']} triangles: compiled "
        f"{figures['compiled_median_s']:.3f} s, numpy {figures['numpy_median_s']:.3f} s "
        f"(x{figures['speedup_vs_numpy']:.2f}, same run), identical arrays: "
        f"{figures['identical']}"
    )
