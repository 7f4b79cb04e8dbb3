"""A vehicle's hull mesh from its :class:`~leviathan.specs.HullSpec` (body FRD [m], CG origin)."""

from __future__ import annotations

from leviathan.geometry._solids import box_mesh, capsule_mesh, cylinder_mesh
from leviathan.scene import TriangleMesh
from leviathan.specs import HullSpec

# Circles per hemisphere of a hemispherical end: 8 keeps the nose within 2 % of a
# true hemisphere's radius (cos(pi / 16) = 0.981) at 2 * 8 * segments triangles per end.
HULL_END_RINGS = 8


def hull_mesh(hull: HullSpec) -> TriangleMesh:
    """The hull's triangle mesh in body FRD [m], origin at the CG.

    Primitives are generated deterministically (:func:`capsule_mesh` with
    :data:`HULL_END_RINGS` circles per end, :func:`cylinder_mesh`, :func:`box_mesh`,
    all centred on the CG, cylinders along body x). A mesh file is read with trimesh
    without processing, after checking its SHA-256 against ``hull.sha256``.

    Args:
        hull: The hull spec.

    Returns:
        The mesh.

    Raises:
        TypeError: If ``hull`` is not a :class:`~leviathan.specs.HullSpec`.
        OSError: If a mesh file cannot be read.
        ValueError: If a mesh file's SHA-256 is not the declared one, or it holds no
            triangle mesh.
    """
    if not isinstance(hull, HullSpec):
        raise TypeError(f"hull: expected a leviathan.specs.HullSpec, got {type(hull).__name__}")
    if hull.shape == "box":
        return box_mesh(hull.size_m)
    if hull.shape == "cylinder":
        radius = 0.5 * hull.diameter_m
        if hull.ends == "hemispherical":
            return capsule_mesh(
                radius, hull.length_m, segments=hull.segments, rings=HULL_END_RINGS, axis="x"
            )
        return cylinder_mesh(radius, hull.length_m, segments=hull.segments, axis="x")
    # TriangleMesh.load hashes the bytes it parses, so the file cannot change in between.
    try:
        return TriangleMesh.load(hull.path, sha256=hull.sha256)
    except ValueError as exc:
        field = "hull.sha256" if str(exc).startswith("sha256:") else "hull.path"
        message = str(exc).removeprefix("sha256: ")
        raise ValueError(f"{field}: {message}") from exc
