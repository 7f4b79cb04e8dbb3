"""Writing an analytic run's outputs: npz streams and tracks, the JSON manifest, PNG plots.

Atomic: everything is written into a temporary sibling folder that is renamed
into place at the end (:func:`leviathan._files.atomic_directory`), so a failed or
interrupted write leaves the previous output, or nothing, never half of one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from leviathan._files import atomic_directory, write_atomically, write_npz
from leviathan.analytic._scenario_records import SCENARIO_JOB, ScenarioResult, file_stem

__all__ = ["check_output_folder", "write_scenario_outputs"]


def check_output_folder(out: Path) -> None:
    """Refuse to replace a folder that is not empty and not a previous scenario output."""
    if not out.exists():
        return
    if not out.is_dir():
        raise FileExistsError(f"out: {out} exists and is not a folder; choose another --out")
    if not any(out.iterdir()):
        return
    manifest = out / "manifest.json"
    try:
        job = json.loads(manifest.read_text()).get("job")
    except (OSError, ValueError, AttributeError):
        job = None
    if job != SCENARIO_JOB:
        raise FileExistsError(
            f"out: {out} is not empty and holds no previous scenario output (no manifest.json "
            f"with job {SCENARIO_JOB!r}); choose an empty or new folder"
        )


def write_scenario_outputs(result: ScenarioResult, out: str | os.PathLike[str]) -> Path:
    """Write a run's outputs into ``out``, atomically (a sibling folder renamed into place).

    ``manifest.json``; ``tracks/<vehicle>.npz`` (:meth:`VehicleRun.arrays`);
    ``streams/<vehicle>__<sensor>.npz`` (the stream arrays); PNG plots in
    ``plots/``: ``track.png`` (north-up, fault markers), ``depth_thrust.png`` and
    ``error_<vehicle>__<sensor>.png`` per sensor whose kind has measured and true
    channels to compare.

    Returns:
        ``out`` as a :class:`Path`.
    """
    from leviathan.analytic import _plots

    out = Path(out)
    check_output_folder(out)
    with atomic_directory(out) as tmp:
        (tmp / "tracks").mkdir()
        (tmp / "streams").mkdir()
        (tmp / "plots").mkdir()
        for name, run in result.vehicles.items():
            write_npz(tmp / "tracks" / f"{name}.npz", run.arrays())
        for sid, stream in result.sensors.items():
            write_npz(tmp / "streams" / f"{file_stem(sid)}.npz", dict(stream.arrays))
        plots = ["plots/track.png", "plots/depth_thrust.png"]
        _plots.track_plot(result, tmp / plots[0])
        _plots.depth_thrust_plot(result, tmp / plots[1])
        for sid, stream in result.sensors.items():
            if not stream.errors():
                continue  # no measured/true pair to plot (the manifest lists what was drawn)
            name = f"plots/error_{file_stem(sid)}.png"
            _plots.sensor_error_plot(stream, tmp / name)
            plots.append(name)
        manifest = {**result.manifest(), "plots": plots}
        text = json.dumps(manifest, indent=2, sort_keys=False, allow_nan=False) + "\n"
        write_atomically(tmp / "manifest.json", text.encode())
    return out
