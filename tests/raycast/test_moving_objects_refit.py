"""Moving scene objects are prepared like hulls: one tree per mesh, refitted per pose.

:func:`leviathan.raycast.prepare_scene` used to build a fresh BVH for a moving
object at every sample instant; it now refits the mesh's tree
(:func:`leviathan.raycast.prepare_posed_instance`). The world triangles are the
same arrays and the nearest hits (exact tie rule) the same, bit for bit, on
every backend.
"""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_array_equal
from trace_cases import unit

from leviathan.frames import Transform
from leviathan.geometry import box_mesh, uv_sphere_mesh
from leviathan.raycast import PreparedScene, prepare_instance, prepare_scene, trace_meshes
from leviathan.scene import Instance, Scene


def _scene(t_s: float) -> Scene:
    ball = uv_sphere_mesh(3.0, segments=20, rings=10)
    crate = box_mesh((4.0, 4.0, 4.0))
    return Scene(
        [
            Instance(
                "crate", crate, Transform.from_euler(0.0, 0.0, 0.3, translation=(0, 8, 0)), "c"
            ),
            Instance(
                "ball",
                ball,
                Transform.from_euler(0.2, 0.1, 0.0, translation=(1.5 * t_s, -2.0, 0.5 * t_s)),
                "b",
                moving=True,
            ),
        ]
    )


def _fresh(scene: Scene) -> PreparedScene:
    prepared = []
    for inst in scene.instances:
        world = inst.T_world_object.apply_point(inst.mesh.vertices)
        prepared.append(prepare_instance(world, inst.mesh.faces))
    return PreparedScene(instances=tuple(prepared), scene_hash=scene.content_hash)


def test_a_moving_object_is_refitted_not_rebuilt() -> None:
    first, later = prepare_scene(_scene(0.0)), prepare_scene(_scene(1.25))
    # One topology for every pose: the tree was refitted, not rebuilt.
    assert later.instances[1].bvh.tri_order is first.instances[1].bvh.tri_order
    assert later.instances[1].bvh.node_child is first.instances[1].bvh.node_child


def test_a_moving_object_traces_as_a_fresh_build(device) -> None:
    rng = np.random.default_rng(21)
    for t_s in (0.0, 0.75, 2.5):
        scene = _scene(t_s)
        prepared, fresh = prepare_scene(scene), _fresh(scene)
        for ours, theirs in zip(prepared.instances, fresh.instances, strict=True):
            for name in ("v0", "e1", "e2", "normal"):
                assert getattr(ours, name).tobytes() == getattr(theirs, name).tobytes(), name
        centre = scene.instances[1].T_world_object.translation
        o = rng.uniform(-20.0, 20.0, (2000, 3))
        d = unit(centre + rng.normal(scale=4.0, size=(2000, 3)) - o)
        expected = trace_meshes(fresh, o, d, t_max=100.0, backend="reference")
        assert 200 < np.count_nonzero(expected.instance == 1) < 1900
        for backend, dev in (("reference", None), ("warp", device)):
            got = trace_meshes(prepared, o, d, t_max=100.0, backend=backend, device=dev)
            assert_array_equal(got.t, expected.t)
            assert_array_equal(got.instance, expected.instance)
            assert_array_equal(got.triangle, expected.triangle)
