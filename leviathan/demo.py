"""The main job (for now): sonar pings of the reference survey vehicle over a seabed.

The reference survey vehicle (a declared test and reference model) flies a
straight, constant-speed leg at 20 m depth over a generated 10^5-triangle
seabed with targets (one of them moving), pinging its imaging sonar at 5 Hz.
Vehicle motion here is kinematic; the canonical World with 6-DOF dynamics and
capture groups grows this demo into the full survey.

Writes to the output directory:

* ``frames/<sample>.npz``: every channel of each sonar frame;
* ``previews/<sample>_bscan.png`` and ``previews/<sample>_fan.png``: display products;
* ``manifest.json``: per frame its sample index, time [ns], sensor pose,
  ``content_hash``, per-channel hashes and display hashes; two runs give
  identical manifests.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

__all__ = ["run_demo"]

_PERIOD_NS = 200_000_000  # 5 Hz
_SPEED_M_PER_S = 1.5


def run_demo(out: str | Path, *, pings: int = 10, progress: bool = True) -> Path:
    """Runs the survey demo and writes its products to ``out``; returns the manifest path."""
    from leviathan.bench import survey_scene
    from leviathan.catalogue import get_vehicle
    from leviathan.frames import Transform
    from leviathan.identity import content_hash
    from leviathan.scene import Instance, Scene
    from leviathan.sonar import render
    from leviathan.sonar.display import display_product_hash, fan_pixels, preview_pixels
    from leviathan.time import ns_to_seconds

    if pings < 1:
        raise ValueError(f"pings: expected >= 1, got {pings}")
    out = Path(out)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    (out / "previews").mkdir(parents=True, exist_ok=True)
    vehicle = get_vehicle("reference_survey_vehicle")
    spec = vehicle.sensor("sonar")
    sensor_id = f"{vehicle.name}/{spec.name}"
    base = survey_scene(100_000)
    T_body_sensor = spec.mount.transform()
    frames = []
    for n in range(pings):
        time_ns = n * _PERIOD_NS
        t_s = ns_to_seconds(time_ns)
        # The moving target drifts east at 0.5 m/s; the scene is posed at the sample instant.
        instances = []
        for inst in base.instances:
            if inst.moving:
                T = Transform(
                    inst.T_world_object.rotation,
                    inst.T_world_object.translation + np.array([0.0, 0.5 * t_s, 0.0]),
                )
                inst = Instance(
                    inst.object_id, inst.mesh, T, inst.semantic_label, inst.material, moving=True
                )
            instances.append(inst)
        scene = Scene(instances, name=base.name)
        T_world_body = Transform.from_euler(
            0.0, 0.0, 0.0, translation=(-10.0 + _SPEED_M_PER_S * t_s, 2.0, 20.0)
        )
        pose = T_world_body @ T_body_sensor
        frame = render(scene, spec, pose, sensor_id=sensor_id, sample_index=n, time_ns=time_ns)
        stem = f"{n:06d}"
        np.savez(out / "frames" / f"{stem}.npz", **dict(frame.channels))
        frame.preview_png(str(out / "previews" / f"{stem}_bscan.png"))
        frame.fan_png(str(out / "previews" / f"{stem}_fan.png"))
        frames.append(
            {
                "sample_index": n,
                "time_ns": time_ns,
                "sensor_id": sensor_id,
                "T_world_sensor": pose.to_dict(),
                "content_hash": frame.content_hash,
                "channels": frame.channel_hashes(),
                "display": {
                    "bscan": display_product_hash(preview_pixels(frame)),
                    "fan": display_product_hash(fan_pixels(frame)),
                },
            }
        )
        if progress:
            filled = int(np.count_nonzero(frame["sample_count"]))
            print(
                f"[demo] ping {n + 1}/{pings}  t={t_s:.1f} s  cells with returns: {filled}",
                file=sys.stderr,
                flush=True,
            )
    manifest = {
        "job": "leviathan survey demo (sonar)",
        "vehicle": vehicle.name,
        "scene_hash": base.content_hash,
        "frames": frames,
        "run_hash": content_hash([f["content_hash"] for f in frames]),
    }
    path = out / "manifest.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
    if progress:
        print(
            f"[demo] wrote {pings} frames, previews and {path} "
            f"(run hash {manifest['run_hash'][:16]}…)",
            file=sys.stderr,
        )
    return path
