"""What the fan sonars' ping functions share around the fan render.

The imaging sonar (:func:`leviathan.sonar.render`), the side-scan
(:func:`leviathan.side_scan.render`) and the multibeam
(:func:`leviathan.multibeam.multibeam_ping`) each call
:func:`~leviathan.sonar.render_fan` on their own rays. Around it they time their
stages alike (:class:`StageClock`), take the same slant-range window from their spec
(:func:`spec_range_window`) and open and close their metadata with the same records
(:func:`ping_header`, :func:`scene_record`), so each of those is written here once.
"""

from __future__ import annotations

import time
from typing import Any

from leviathan._interrupt import checkpoint
from leviathan.frames import Transform
from leviathan.scene import Scene
from leviathan.sonar._ground_truth import CELL_FLAGS
from leviathan.specs import WaterSpec

__all__ = ["StageClock", "ping_header", "scene_record", "spec_range_window"]


class StageClock:
    """Writes the seconds since the previous lap under each stage name (or does nothing).

    Each lap is also a :func:`leviathan._interrupt.checkpoint`: a stopped command
    (Ctrl-C) stops between two stages of a ping.

    Args:
        out: The ping function's ``stage_times_s``: ``None``, or a dict to fill.

    Raises:
        TypeError: When ``out`` is neither.
    """

    def __init__(self, out: dict[str, float] | None) -> None:
        if out is not None and not isinstance(out, dict):
            raise TypeError(
                f"stage_times_s: expected None or a dict to fill, got {type(out).__name__}"
            )
        self._out = out
        self._t = time.perf_counter()

    def lap(self, stage: str) -> None:
        """Records the stage that just ended (the fan render's ``lap``)."""
        checkpoint()
        if self._out is not None:
            now = time.perf_counter()
            self._out[stage] = now - self._t
            self._t = now


def spec_range_window(spec: Any) -> dict[str, Any]:
    """A fan sonar spec's slant-range window, as :func:`~leviathan.sonar.render_fan` and
    :func:`~leviathan.sonar.range_bin_edges` take it (``range_min_m``, ``range_max_m``
    [m] as floats, ``range_bin_count`` as an int)."""
    return {
        "range_min_m": float(spec.range_min_m),
        "range_max_m": float(spec.range_max_m),
        "range_bin_count": int(spec.range_bin_count),
    }


def ping_header(
    scene: Scene,
    sensor_pose: Transform,
    water: WaterSpec,
    identifiers: tuple[str, int, int],
    model: str,
    spec_record: dict[str, Any],
) -> dict[str, Any]:
    """The first entries of a ping's metadata: what it is, where, of what and in what water.

    Args:
        scene: The scene pinged (its content hash).
        sensor_pose: ``T_world_sensor``.
        water: The water (temperature, salinity, pH).
        identifiers: ``(sensor_id, sample_index, time_ns)``.
        model: The sensor's model version string.
        spec_record: The spec fields that define the ping's output.
    """
    sensor_id, sample_index, time_ns = identifiers
    return {
        "sensor_id": sensor_id,
        "sample_index": int(sample_index),
        "time_ns": int(time_ns),
        "T_world_sensor": sensor_pose.to_dict(),
        "model": model,
        "spec": spec_record,
        "scene_hash": scene.content_hash,
        "water": {
            "temperature_c": float(water.temperature_c),
            "salinity_psu": float(water.salinity_psu),
            "ph": float(water.ph),
        },
    }


def scene_record(scene: Scene) -> dict[str, Any]:
    """The metadata entries that name what the cells' ids index: the scene's object ids and
    semantic labels, its sea-surface instance, and the cell flags of ``validity``."""
    return {
        "object_ids": list(scene.object_ids),
        "semantic_labels": list(scene.semantic_labels),
        "sea_surface_instance": scene.sea_surface_instance,
        "cell_flags": dict(CELL_FLAGS),
    }
