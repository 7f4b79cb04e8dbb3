"""Warnings about a ping that cannot show what its spec or pose asks for.

Two things make a canonical sonar image silently poorer than the user meant, and
:func:`leviathan.sonar.render` says so with a :class:`SonarSamplingWarning` (the
``leviathan`` command line prints each as one ``warning:`` line):

* **Too few elevation samples for the range window.** The fill rule
  (:mod:`leviathan._sonar_fill`, the analytic tier's rule) gives the elevation
  count at which adjacent rays over the surface the ping sees (the instance with
  the most hit cells, at its median perpendicular distance ``h``, so that a rough
  seabed's steepest cells do not count as the surface) land at most one range bin
  apart (``f = 1``). Below it, range bins that surface spans can get no sample:
  empty cells in the swath (47 % of the cells at 256 elevations for the catalogue
  survey sonar over the demo seabed). The warning names the count the rule asks for.
* **A pose inside geometry.** Straight up from the sensor to the sea surface, the
  number of mesh surfaces crossed is odd: the sensor is under a seabed or inside a
  closed object (its own vehicle's hull is not in the scene it sees), and the image
  shows the inside. Counted with the ping's own tracer, a few one-ray traces.

Python's warning filter shows each distinct message once per place (the
default): a message names the sensor and rounds ``h`` to whole metres, so a
survey over one seabed says it once, not every ping.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan._sonar_fill import elevation_samples_for_fill, fill_plane_distance
from leviathan.frames import Transform
from leviathan.raycast import PreparedScene, trace_meshes
from leviathan.scene import Scene
from leviathan.specs import ImagingSonarSpec

__all__ = ["SonarSamplingWarning", "check_ping"]

# Crossings counted upward at most (a stack of more surfaces than this is not a pose
# mistake worth the traces), and the step past each hit so the next trace starts
# beyond it [m].
_MAX_CROSSINGS = 16
_PAST_HIT_M = 1e-6


class SonarSamplingWarning(UserWarning):
    """A sonar ping cannot show what was asked: its elevation sampling cannot fill its
    range window over the surface it sees, or its pose is inside geometry."""


def check_ping(
    channels: Mapping[str, Any],
    spec: ImagingSonarSpec,
    sensor_pose: Transform,
    *,
    scene: Scene,
    prepared: PreparedScene,
    sensor_id: str,
    backend: str,
    device: str,
) -> None:
    """Warns (:class:`SonarSamplingWarning`) about the ping whose frame channels are given.

    Args:
        channels: The frame's channels (cells' sample counts and primary contributors).
        spec: The sonar spec.
        sensor_pose: ``T_world_sensor``.
        scene: The scene that was traced; ``prepared``: its prepared form.
        sensor_id: The sensor's id, named in the messages.
        backend, device: The tracer the ping used (resolved).
    """
    _check_fill(channels, spec, sensor_id)
    _check_inside(sensor_pose, scene, prepared, sensor_id, backend, device)


def _check_fill(channels: Mapping[str, Any], spec: ImagingSonarSpec, sensor_id: str) -> None:
    plane = fill_plane_distance(channels, statistic="median")
    if plane is None:
        return
    h, _, _ = plane
    h = max(h, 1e-6)  # a surface seen edge-on
    M = spec.elevation_sample_count
    if M >= elevation_samples_for_fill(spec, plane_distance_m=h, bin_fraction=1.0):
        return
    shown_h = max(1.0, float(round(h)))
    wanted = elevation_samples_for_fill(spec, plane_distance_m=shown_h, bin_fraction=1.0)
    warnings.warn(
        f"{sensor_id}: elevation_sample_count {M} cannot fill the range window "
        f"{spec.range_min_m:g}-{spec.range_max_m:g} m over the surface the ping sees (about "
        f"{shown_h:g} m away): range bins it spans can get no sample (empty cells); the fill "
        f"rule (leviathan.analytic.elevation_samples_for_fill, bin_fraction=1) asks for about "
        f"{wanted} elevation samples",
        SonarSamplingWarning,
        stacklevel=4,
    )


def _check_inside(
    sensor_pose: Transform,
    scene: Scene,
    prepared: PreparedScene,
    sensor_id: str,
    backend: str,
    device: str,
) -> None:
    origin = np.array(sensor_pose.translation, dtype=np.float64)
    remaining = float(origin[2])  # NED: the sea surface z = 0 is this far up
    if remaining <= 0.0 or not prepared.instances:
        return
    up = np.array([[0.0, 0.0, -1.0]])
    crossed: list[str] = []
    for _ in range(_MAX_CROSSINGS):
        hit = trace_meshes(
            prepared, origin[None, :], up, t_max=remaining, backend=backend, device=device
        )
        t = float(hit.t[0])
        if hit.instance[0] < 0 or not t <= remaining:
            break
        crossed.append(scene.instances[int(hit.instance[0])].object_id)
        step = t + _PAST_HIT_M
        origin[2] -= step
        remaining -= step
        if remaining <= 0.0:
            break
    if len(crossed) % 2 == 1:
        names = ", ".join(dict.fromkeys(crossed))
        warnings.warn(
            f"{sensor_id}: the sonar is inside geometry: straight up to the sea surface it "
            f"crosses {len(crossed)} surface{'s' if len(crossed) > 1 else ''} of {names} (an odd "
            "count: under a seabed or inside a closed object), so its image shows that inside; "
            "check the pose (the vehicle's position or the sensor's mount)",
            SonarSamplingWarning,
            stacklevel=4,
        )
