"""Shared builders of the multibeam tests: specs, poses and closed-form seabeds."""

from __future__ import annotations

import math

from sonar_cases import sonar_test_spec

from leviathan.frames import Transform
from leviathan.geometry import heightfield_mesh, plane_mesh
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.parity._multibeam_scenes import MULTIBEAM_FIELDS
from leviathan.scene import Instance, Scene
from leviathan.specs import MultibeamSpec


def multibeam_spec(**over: object) -> MultibeamSpec:
    """A small multibeam: the parity fixture's (400 kHz, equiangular Gaussian beams, 3 rays
    along-track, from 0.5 m) over a 130 degree swath of 33 one-degree beams, 7 rays across
    each, 0.05 m bins to 100 m."""
    base = dict(
        MULTIBEAM_FIELDS,
        swath_deg=130.0,
        beam_count=33,
        along_track_width_deg=1.0,
        across_track_width_deg=1.0,
        across_track_sample_count=7,
        range_max_m=100.0,
        range_bin_count=2000,
    )
    return sonar_test_spec(MultibeamSpec, base, period_ns=200_000_000, over=over)


def level_pose(
    north: float = 0.0, east: float = 0.0, depth: float = 5.0, *, roll_deg: float = 0.0
) -> Transform:
    """T_world_sensor of a sensor at (north, east, depth), rolled by ``roll_deg``."""
    return Transform.from_euler(math.radians(roll_deg), 0.0, 0.0, translation=(north, east, depth))


def flat_seabed(depth: float, *, size: float = 400.0, material=TEST_LAMBERT_MEDIUM) -> Scene:
    """A flat seabed at world z = ``depth``."""
    mesh = plane_mesh(size, size, divisions_x=4, divisions_y=4)
    inst = Instance(
        "seabed",
        mesh,
        Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, depth)),
        "seabed",
        material,
    )
    return Scene([inst], name="flat")


def tilted_seabed(depth: float, slope_rad: float, *, size: float = 2000.0) -> Scene:
    """The plane ``z = depth + y tan(slope)`` (a plane rolled about north)."""
    mesh = plane_mesh(size, size / math.cos(slope_rad), divisions_x=4, divisions_y=4)
    pose = Transform.from_euler(slope_rad, 0.0, 0.0, translation=(0.0, 0.0, depth))
    return Scene([Instance("seabed", mesh, pose, "seabed", TEST_LAMBERT_MEDIUM)], name="tilted")


def stepped_seabed(shallow: float, deep: float, step_east: float, *, size: float = 400.0) -> Scene:
    """``z = shallow`` for ``y < step_east``, ``z = deep`` beyond, a vertical face between."""
    half = 0.5 * size
    y = [-half, step_east, step_east, half]
    z_row = [shallow, shallow, deep, deep]
    # heightfield rows run along y (east), columns along x (north); duplicate y for the face.
    depths = [[z_row[j], z_row[j]] for j in range(4)]
    mesh = heightfield_mesh(depths, spacing_m=(size, 1.0), origin=(-half, 0.0))
    v = mesh.vertices.copy()
    for j in range(4):
        v[2 * j, 1] = y[j]
        v[2 * j + 1, 1] = y[j]
    from leviathan.scene import TriangleMesh

    mesh = TriangleMesh(v, mesh.faces)
    return Scene(
        [Instance("seabed", mesh, Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)], name="step"
    )
