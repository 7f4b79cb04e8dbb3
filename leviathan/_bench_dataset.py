"""The dataset bench behind ``leviathan bench dataset``: figures to print, never assertions.

It steps the survey demo's World (:func:`leviathan.demo.build_demo_world`) until
its survey sonar has made ``frames`` pings, writes those capture groups in five
layouts: the HDF5 writer's current one (format version 5: small samples, the
IMU's and pressure sensor's, as rows of their sensor's table, and as version 4),
version 4 (sonar truth sparse over occupied cells and used top-K slots,
few-valued channels as codes into a table, the channels a kind's rule rebuilds as
the rule, with the rule support that lets the truth's ranges, normals and return
terms be rules), version 3 (the same without rule support), version 2 (sparse, no
codes or rules) and version 1 (every channel dense, the peer; same groups, same
run). It reports for each the file size, the bytes per sonar frame, the write time
of a capture group with a sonar frame (one group a call), the write time of all
the groups in the demo's calls of 50 ticks, and the time to read the whole file
back with ``verify``, their ratios, the projection to the demo's 101 pings,
and whether each layout read back with ``verify=True`` gives every content hash
written. The occupied share of the frames' cells and of their top-K slots is
reported too: what the sparse layout cannot drop.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["bench_dataset", "format_dataset_bench"]

DEMO_PINGS = 101
"""Sonar pings of the survey demo (20 s at 5 Hz, both ends)."""

DEMO_BATCH_TICKS = 50
"""Capture groups (ticks) the survey demo hands its writers in one call."""

_RATIOS = (
    ("v5", "v1"),
    ("v4", "v1"),
    ("v3", "v1"),
    ("v2", "v1"),
    ("v5", "v4"),
    ("v4", "v3"),
    ("v3", "v2"),
)


def bench_dataset(*, frames: int = 5, seabed_triangles: int = 100_000) -> dict[str, Any]:
    """Sizes and write times of the same capture groups in HDF5 versions 5 to 1."""
    from leviathan.datasets import read_hdf5
    from leviathan.datasets.hdf5 import Hdf5Writer
    from leviathan.demo import build_demo_world
    from leviathan.sonar import SonarFrame

    if frames < 1:
        raise ValueError(f"frames: expected >= 1, got {frames}")
    world = build_demo_world(seabed_triangles=seabed_triangles)
    vehicles = {name: world.vehicle_spec(name) for name in world.vehicle_names}
    groups: list[Any] = []
    sonar_frames: list[Any] = []
    while len(sonar_frames) < frames:
        for group in world.step(10):
            groups.append(group)
            sonar_frames += [s for s in group.samples.values() if isinstance(s, SonarFrame)]
    result: dict[str, Any] = {"frames": len(sonar_frames), "capture_groups": len(groups)}
    with tempfile.TemporaryDirectory(prefix="leviathan-bench-dataset-") as folder:
        for version in (5, 4, 3, 2, 1):
            path = Path(folder) / f"v{version}.h5"
            times = []
            with Hdf5Writer(path, vehicles=vehicles, manifest={}, format_version=version) as w:
                for group in groups:
                    t0 = time.perf_counter()
                    w.write([group], [])
                    if any(isinstance(s, SonarFrame) for s in group.samples.values()):
                        times.append(time.perf_counter() - t0)
            batched = Path(folder) / f"v{version}_batched.h5"
            t0 = time.perf_counter()
            with Hdf5Writer(batched, vehicles=vehicles, manifest={}, format_version=version) as w:
                for start in range(0, len(groups), DEMO_BATCH_TICKS):
                    w.write(groups[start : start + DEMO_BATCH_TICKS], [])
            batched_s = time.perf_counter() - t0
            batched.unlink()
            size = path.stat().st_size
            result[f"v{version}"] = {
                "bytes": size,
                "bytes_per_frame": size / len(sonar_frames),
                "demo_projection_bytes": size / len(sonar_frames) * DEMO_PINGS,
                "write_median_s_per_sonar_group": statistics.median(times),
                "write_s_in_demo_batches": batched_s,
            }
            t0 = time.perf_counter()
            back = [g.content_hash for g in read_hdf5(path, verify=True).groups()]
            result[f"v{version}"]["read_verify_s"] = time.perf_counter() - t0
            result[f"v{version}"]["verified_identical"] = back == [g.content_hash for g in groups]
    for current, peer in _RATIOS:
        result[f"size_ratio_{current}_to_{peer}"] = result[current]["bytes"] / result[peer]["bytes"]
        result[f"write_ratio_{current}_to_{peer}"] = (
            result[current]["write_median_s_per_sonar_group"]
            / result[peer]["write_median_s_per_sonar_group"]
        )
        result[f"batch_write_ratio_{current}_to_{peer}"] = (
            result[current]["write_s_in_demo_batches"] / result[peer]["write_s_in_demo_batches"]
        )
    counts = [np.asarray(f["sample_count"]) for f in sonar_frames]
    top_k = sonar_frames[0]["topk_range_m"].shape[-1]
    result["occupied_cell_share"] = float(np.mean([np.mean(c > 0) for c in counts]))
    result["used_topk_slot_share_of_occupied"] = float(
        np.mean([np.minimum(c[c > 0], top_k).sum() / (top_k * np.count_nonzero(c)) for c in counts])
    )
    return result


def format_dataset_bench(result: dict[str, Any]) -> str:
    """A readable table of :func:`bench_dataset`'s result."""
    lines = [
        f"dataset bench: {result['frames']} survey sonar frames ({result['capture_groups']} "
        "capture groups) of the demo World, written in five layouts in one run",
        f"  {'layout':<22} {'MB/frame':>9} {'demo MB':>8} {'write s/frame':>13} "
        f"{'batches s':>9} {'read+verify s':>13}",
    ]
    layouts = (
        ("v5", "v5 +rows (now)"),
        ("v4", "v4 +rule support"),
        ("v3", "v3 +codes +rules"),
        ("v2", "v2 sparse"),
        ("v1", "v1 dense (peer)"),
    )
    for version, name in layouts:
        r = result[version]
        lines.append(
            f"  {name:<22} {r['bytes_per_frame'] / 1e6:>9.2f} "
            f"{r['demo_projection_bytes'] / 1e6:>8.0f} "
            f"{r['write_median_s_per_sonar_group']:>13.3f} {r['write_s_in_demo_batches']:>9.2f} "
            f"{r['read_verify_s']:>13.2f}"
        )
    for current, peer in (("v5", "v1"), ("v5", "v4"), ("v4", "v3")):
        lines.append(
            f"  {current} / {peer}: size x{result[f'size_ratio_{current}_to_{peer}']:.3f}, "
            f"write time x{result[f'write_ratio_{current}_to_{peer}']:.2f} a sonar group, "
            f"x{result[f'batch_write_ratio_{current}_to_{peer}']:.2f} in the demo's batches"
        )
    verified = all(result[v]["verified_identical"] for v, _ in layouts)
    lines.append(
        f"  every layout read back with verify: {'identical' if verified else 'DIFFERENT'}"
    )
    lines.append(
        f"  occupied cells {result['occupied_cell_share']:.1%}; used top-K slots of occupied "
        f"cells {result['used_topk_slot_share_of_occupied']:.1%} (what sparse storage keeps)"
    )
    return "\n".join(lines)
