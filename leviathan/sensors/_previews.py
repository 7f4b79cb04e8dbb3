"""Each sensor's preview PNGs written into a run folder, as its kind declares them.

The survey demo and a sweep's World runs write previews the same way: a sensor
whose kind declares ``preview`` (the imaging sonar's fan, the camera's sRGB image)
gets one PNG per chosen sample, named ``<vehicle>_<sensor>_<sample index>.png``;
kinds without a preview are skipped. Which samples are chosen is the caller's
rule: at most one per simulated second (the demo), or every n-th sample (a sweep's
``preview_every``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from leviathan._files import write_atomically
from leviathan.sensors._protocol import sensor_declarations

__all__ = ["PreviewWriter"]

_SECOND_NS = 1_000_000_000


class PreviewWriter:
    """Writes the previews of a World's sensors into ``folder`` (created on first use).

    Args:
        world: The World whose vehicles' sensors are previewed (their specs are read once).
        folder: The previews folder.
        every: ``None``: at most one preview per sensor per simulated second (the
            first sample of each second); ``n``: the samples whose index is a
            multiple of ``n``.
    """

    def __init__(self, world: Any, folder: Path, *, every: int | None = None) -> None:
        if every is not None and (type(every) is not int or every < 1):
            raise ValueError(f"every: {every!r}; expected None or an integer >= 1")
        self._folder = Path(folder)
        self._every = every
        self._render: dict[str, Callable[[Any], bytes]] = {}
        for name in world.vehicle_names:
            for sensor in world.vehicle_spec(name).sensors:
                preview = sensor_declarations(sensor.kind).preview
                if preview is not None:
                    self._render[f"{name}/{sensor.name}"] = preview
        self._last_second: dict[str, int] = {}
        self.written = 0

    def _chosen(self, sensor_id: str, sample: Any) -> bool:
        if self._every is not None:
            return sample.sample_index % self._every == 0
        second = sample.time_ns // _SECOND_NS
        if self._last_second.get(sensor_id) == second:
            return False
        self._last_second[sensor_id] = second
        return True

    def write(self, sensor_id: str, sample: Any) -> None:
        """Writes ``sample``'s preview if its kind has one and the rule chooses it."""
        render = self._render.get(sensor_id)
        if render is None or not self._chosen(sensor_id, sample):
            return
        self._folder.mkdir(exist_ok=True)
        stem = f"{sensor_id.replace('/', '_')}_{sample.sample_index:06d}"
        write_atomically(self._folder / f"{stem}.png", render(sample))
        self.written += 1
