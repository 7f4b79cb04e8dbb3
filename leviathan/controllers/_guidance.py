"""Guidance: line-of-sight waypoint following and lawnmower survey patterns."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from leviathan._validation import check_finite, check_keys, float_array, is_integer
from leviathan.controllers._autopilot import Autopilot
from leviathan.controllers._protocol import _ControllerBase
from leviathan.dynamics import RigidBodyModel, VehicleState


def _waypoint_array(waypoints_ned_m: Any) -> tuple[tuple[float, float, float], ...]:
    array = float_array(
        "waypoints_ned_m", waypoints_ned_m, "a sequence of (north, east, depth) [m]"
    )
    if array.ndim != 2 or array.shape[1] != 3 or array.shape[0] == 0:
        raise ValueError(
            "waypoints_ned_m must be a non-empty sequence of (north, east, depth) [m], "
            f"shape (k, 3), got shape {array.shape}"
        )
    return tuple(tuple(row) for row in array.tolist())


class WaypointFollower(_ControllerBase):
    """Line-of-sight waypoint guidance over an :class:`Autopilot`.

    Waypoint k is active while ``controller_state["waypoint_index"] == k``; it
    is reached when the horizontal distance to it falls below
    ``acceptance_radius_m`` (depth is tracked by the depth loop, not checked).
    Towards the first waypoint the vehicle steers straight at it; towards
    waypoint k > 0 it follows the segment from waypoint k − 1 with
    line-of-sight guidance ``ψ_d = α_k + atan2(−e, Δ)``, where ``α_k`` is the
    segment's azimuth, ``e`` the cross-track error (positive to starboard of the
    path) and ``Δ`` the lookahead distance. The depth setpoint is the active
    waypoint's depth. Heading, not course, is commanded: a cross current is
    rejected only through the cross-track term.

    When the last waypoint is reached (``waypoint_index == len(waypoints)``),
    the follower holds the heading it was commanding at that moment
    (``hold_heading_rad``) and the last waypoint's depth at zero speed.

    Args:
        waypoints_ned_m: Waypoints ``(north, east, depth)`` [m], shape (k, 3), k >= 1
            (``waypoints_ned=``, its old name, still works and warns).
        speed_m_per_s: Surge speed over ground while following [m/s].
        acceptance_radius_m: Horizontal acceptance radius [m], > 0.
        lookahead_m: Line-of-sight lookahead distance Δ [m], > 0.
        autopilot_options: Gain options passed to :class:`Autopilot`.
    """

    __content_type__ = "leviathan.controllers.WaypointFollower"

    kind = "waypoint_follower"

    def __init__(
        self,
        waypoints_ned_m: Sequence[Sequence[float]] | None = None,
        *,
        speed_m_per_s: float,
        acceptance_radius_m: float,
        lookahead_m: float = 5.0,
        **autopilot_options: Any,
    ) -> None:
        if "waypoints_ned" in autopilot_options:
            waypoints_ned_m = _renamed(
                "WaypointFollower",
                "waypoints_ned",
                "waypoints_ned_m",
                waypoints_ned_m,
                autopilot_options.pop("waypoints_ned"),
            )
        if waypoints_ned_m is None:
            raise TypeError("WaypointFollower: missing waypoints_ned_m (north, east, depth) [m]")
        self._waypoints = _waypoint_array(waypoints_ned_m)
        self._speed = check_finite("speed_m_per_s", speed_m_per_s, unit="m/s")
        self._radius = check_finite("acceptance_radius_m", acceptance_radius_m, unit="m", above=0.0)
        self._lookahead = check_finite("lookahead_m", lookahead_m, unit="m", above=0.0)
        first = self._waypoints[0]
        self._autopilot = Autopilot(
            speed_m_per_s=self._speed, depth_m=first[2], heading_rad=0.0, **autopilot_options
        )

    @property
    def waypoints_ned_m(self) -> tuple[tuple[float, float, float], ...]:
        """Waypoints ``(north, east, depth)`` [m]."""
        return self._waypoints

    @property
    def waypoints_ned(self) -> tuple[tuple[float, float, float], ...]:
        """Deprecated name of :attr:`waypoints_ned_m`."""
        warnings.warn(
            "WaypointFollower.waypoints_ned is renamed waypoints_ned_m", DeprecationWarning, 2
        )
        return self._waypoints

    @property
    def acceptance_radius_m(self) -> float:
        """Horizontal acceptance radius [m]."""
        return self._radius

    def __content__(self) -> dict:
        """Configuration for content hashing.

        The key ``"waypoints_ned"`` is part of the hashed encoding (every World
        snapshot with a follower hashes it), so it keeps its name although the
        argument is now ``waypoints_ned_m``.
        """
        gains = self._autopilot.config()
        for key in ("speed_m_per_s", "depth_m", "heading_rad"):
            gains.pop(key)
        return {
            "kind": self.kind,
            "waypoints_ned": [list(w) for w in self._waypoints],
            "speed_m_per_s": self._speed,
            "acceptance_radius_m": self._radius,
            "lookahead_m": self._lookahead,
            "autopilot": gains,
        }

    def __repr__(self) -> str:
        return (
            f"WaypointFollower({len(self._waypoints)} waypoints, speed_m_per_s={self._speed!r}, "
            f"acceptance_radius_m={self._radius!r}, lookahead_m={self._lookahead!r})"
        )

    def initial_state(self) -> dict:
        """Return ``{"waypoint_index": 0, "hold_heading_rad": 0.0, "autopilot": {...}}``."""
        return {
            "waypoint_index": 0,
            "hold_heading_rad": 0.0,
            "autopilot": self._autopilot.initial_state(),
        }

    def _desired_heading(self, index: int, north: float, east: float) -> float:
        target = self._waypoints[index]
        if index == 0:
            return math.atan2(target[1] - east, target[0] - north)
        start = self._waypoints[index - 1]
        azimuth = math.atan2(target[1] - start[1], target[0] - start[0])
        cross_track = -(north - start[0]) * math.sin(azimuth) + (east - start[1]) * math.cos(
            azimuth
        )
        return azimuth + math.atan2(-cross_track, self._lookahead)

    def _command(
        self, model: RigidBodyModel, state: VehicleState, controller_state: dict, dt_s: float
    ) -> tuple[np.ndarray, dict]:
        """Thruster commands [N], shape (n,), and the new follower state."""
        check_keys(
            "controller_state",
            controller_state,
            ("autopilot", "hold_heading_rad", "waypoint_index"),
        )
        check_keys(
            "controller_state['autopilot']", controller_state["autopilot"], Autopilot._STATE_KEYS
        )
        index = controller_state["waypoint_index"]
        count = len(self._waypoints)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= count:
            raise ValueError(
                f"controller_state['waypoint_index'] must be an int in [0, {count}], got {index!r}"
            )
        hold_heading = float(controller_state["hold_heading_rad"])
        north, east = (float(c) for c in state.position_ned_m[:2])
        # Advance past every waypoint already inside the acceptance circle.
        while index < count:
            target = self._waypoints[index]
            if math.hypot(target[0] - north, target[1] - east) >= self._radius:
                break
            hold_heading = self._desired_heading(index, north, east)
            index += 1
        if index < count:
            speed = self._speed
            heading = self._desired_heading(index, north, east)
            depth = self._waypoints[index][2]
        else:
            speed = 0.0
            heading = hold_heading
            depth = self._waypoints[-1][2]
        commands, autopilot_state = self._autopilot._track(
            model,
            state,
            controller_state["autopilot"],
            speed_m_per_s=speed,
            depth_m=depth,
            heading_rad=heading,
            dt_s=dt_s,
        )
        new_state = {
            "waypoint_index": index,
            "hold_heading_rad": hold_heading,
            "autopilot": autopilot_state,
        }
        return commands, new_state


def _renamed(owner: str, old: str, new: str, given: Any, value: Any) -> Any:
    """The value of an argument given by its old name (warns; refuses both names at once)."""
    if given is not None:
        raise TypeError(f"{owner}: give {new} only ({old} is its old name)")
    warnings.warn(f"{owner}: {old}= is renamed {new}=", DeprecationWarning, stacklevel=3)
    return value


def lawnmower(
    *,
    origin_ne_m: Sequence[float] | None = None,
    heading_rad: float,
    leg_length_m: float,
    leg_spacing_m: float,
    legs: int,
    depth_m: float,
    origin_ne: Sequence[float] | None = None,
) -> list[tuple[float, float, float]]:
    """Waypoints of a lawnmower (boustrophedon) survey.

    Leg i starts ``i * leg_spacing_m`` to starboard of ``origin_ne_m`` (measured
    perpendicular to ``heading_rad``) and runs ``leg_length_m`` along the
    heading for even i, against it for odd i.

    Args:
        origin_ne_m: Start of the first leg (north, east) [m] (``origin_ne=``, its
            old name, still works and warns).
        heading_rad: Direction of the first leg [rad], clockwise from north.
        leg_length_m: Length of each leg [m], > 0.
        leg_spacing_m: Distance between legs [m], > 0.
        legs: Number of legs, >= 1.
        depth_m: Depth of every waypoint [m].

    Returns:
        ``2 * legs`` waypoints ``(north, east, depth)`` [m]: start and end of each leg.
    """
    if origin_ne is not None:
        origin_ne_m = _renamed("lawnmower", "origin_ne", "origin_ne_m", origin_ne_m, origin_ne)
    if origin_ne_m is None:
        raise TypeError("lawnmower: missing origin_ne_m, the first leg's (north, east) [m]")
    if len(origin_ne_m) != 2:
        raise ValueError(f"origin_ne_m must be (north, east) [m], got {origin_ne_m!r}")
    north0 = check_finite("origin_ne_m[0]", origin_ne_m[0], unit="m")
    east0 = check_finite("origin_ne_m[1]", origin_ne_m[1], unit="m")
    heading = check_finite("heading_rad", heading_rad, unit="rad")
    length = check_finite("leg_length_m", leg_length_m, unit="m", above=0.0)
    spacing = check_finite("leg_spacing_m", leg_spacing_m, unit="m", above=0.0)
    depth = check_finite("depth_m", depth_m, unit="m")
    if not is_integer(legs) or legs < 1:
        raise ValueError(f"legs must be an int >= 1, got {legs!r}")
    forward = (math.cos(heading), math.sin(heading))
    starboard = (-forward[1], forward[0])
    waypoints = []
    for leg in range(int(legs)):
        start_n = north0 + leg * spacing * starboard[0]
        start_e = east0 + leg * spacing * starboard[1]
        end_n = start_n + length * forward[0]
        end_e = start_e + length * forward[1]
        ends = [(start_n, start_e, depth), (end_n, end_e, depth)]
        waypoints.extend(ends if leg % 2 == 0 else ends[::-1])
    return waypoints
