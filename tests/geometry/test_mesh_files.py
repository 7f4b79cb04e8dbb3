"""Meshes from files, pinned by their SHA-256: ``TriangleMesh.load(path, sha256=...)`` and
``SceneObject.from_mesh_file`` (one call), as hull mesh files are pinned."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import trimesh

from leviathan import Transform
from leviathan.identity import content_hash
from leviathan.materials import TEST_LAMBERT_BRIGHT
from leviathan.scene import MeshSource, TriangleMesh
from leviathan.world import Environment, SceneObject


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("suffix", [".ply", ".stl", ".obj", ".glb", ".off"])
def test_every_format_loads_what_the_file_holds_unprocessed(tmp_path, suffix) -> None:
    box = trimesh.creation.box(extents=(2.0, 1.0, 0.5))
    path = tmp_path / f"box{suffix}"
    box.export(path)
    expected = trimesh.load(str(path), force="mesh", process=False)
    mesh = TriangleMesh.load(path, sha256=_digest(path))
    assert mesh.vertices.dtype == np.float64 and mesh.faces.dtype == np.int64
    np.testing.assert_array_equal(mesh.vertices, np.asarray(expected.vertices, dtype=np.float64))
    np.testing.assert_array_equal(mesh.faces, np.asarray(expected.faces))
    assert mesh.source == MeshSource(path=str(path), sha256=_digest(path))


def test_a_changed_file_is_refused_with_the_digest_it_has(tmp_path) -> None:
    path = tmp_path / "rock.stl"
    trimesh.creation.icosphere(subdivisions=1).export(path)
    pinned = _digest(path)
    trimesh.creation.icosphere(subdivisions=2).export(path)
    with pytest.raises(ValueError) as caught:
        TriangleMesh.load(path, sha256=pinned)
    assert str(caught.value) == (
        f"sha256: the mesh file {str(path)!r} has SHA-256 {_digest(path)}, expected {pinned}; "
        "pass the new digest if the file changed on purpose"
    )
    with pytest.raises(ValueError, match="64 lowercase hex digits"):
        TriangleMesh.load(path, sha256=pinned.upper())


def test_the_source_is_recorded_beside_the_content_not_in_it(tmp_path) -> None:
    path = tmp_path / "box.ply"
    trimesh.creation.box().export(path)
    loaded = TriangleMesh.load(path)
    same = TriangleMesh(loaded.vertices, loaded.faces)
    assert loaded.source is not None and same.source is None
    assert content_hash(loaded) == content_hash(same)


def test_a_scene_object_from_a_mesh_file_in_one_call(tmp_path) -> None:
    path = tmp_path / "rock.ply"
    trimesh.creation.icosphere(subdivisions=2, radius=0.8).export(path)
    pose = Transform.from_euler(0.0, 0.0, 0.5, translation=(4.0, 1.0, 24.0))
    rock = SceneObject.from_mesh_file(
        "rock", path, sha256=_digest(path), T_world_object=pose, semantic_label="target",
        material=TEST_LAMBERT_BRIGHT,
    )  # fmt: skip
    assert rock.mesh.source.sha256 == _digest(path)
    assert rock.mesh.triangle_count == 320
    scene = Environment(objects=(rock,)).scene_at(0)
    assert scene.instances[0].object_id == "rock"
    with pytest.raises(ValueError, match="has SHA-256"):
        SceneObject.from_mesh_file(
            "rock", path, sha256="0" * 64, T_world_object=pose, semantic_label="target"
        )
    with pytest.raises(FileNotFoundError):
        SceneObject.from_mesh_file(
            "rock", tmp_path / "missing.ply", sha256="0" * 64, T_world_object=pose,
            semantic_label="target",
        )  # fmt: skip


def test_a_file_that_holds_no_mesh_is_refused_naming_it(tmp_path) -> None:
    path = tmp_path / "empty.ply"
    path.write_bytes(b"not a mesh")
    with pytest.raises(ValueError, match="holds no usable triangle mesh"):
        TriangleMesh.load(path)
