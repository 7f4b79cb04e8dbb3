"""``VehicleState.T_world_body`` is built once per state, with the values of a fresh build."""

from __future__ import annotations

import numpy as np
import pytest

from leviathan.dynamics import VehicleState
from leviathan.dynamics._rotation import rotation_rows_from_quaternion
from leviathan.frames import Transform


def test_the_pose_is_cached_and_equals_a_fresh_transform() -> None:
    state = VehicleState.from_euler(
        position_ned_m=(1.0, -2.0, 20.0),
        roll_rad=0.1,
        pitch_rad=-0.2,
        yaw_rad=2.9,
        thruster_count=4,
    )
    pose = state.T_world_body
    assert state.T_world_body is pose
    fresh = Transform(
        rotation_rows_from_quaternion(*state.attitude_q.tolist()), state.position_ned_m
    )
    assert pose.rotation.tobytes() == fresh.rotation.tobytes()
    assert pose.translation.tobytes() == fresh.translation.tobytes()
    # The cache is no field: equality, hashing and content are those of the state.
    twin = VehicleState.from_dict(state.to_dict())
    assert twin == state and hash(twin) == hash(state)
    assert "T_world_body" not in twin.__dict__
    assert twin.T_world_body == pose


def test_a_state_stays_immutable_with_its_cached_pose() -> None:
    state = VehicleState.from_euler(position_ned_m=(0.0, 0.0, 5.0), thruster_count=2)
    pose = state.T_world_body
    with pytest.raises(AttributeError):
        state.position_ned_m = np.zeros(3)
    assert state.T_world_body is pose
