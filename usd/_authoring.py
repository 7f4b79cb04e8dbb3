"""Authoring the prims of an exported stage: root, scene, sea surface, vehicles, hulls, sensors.

The layout these functions write is documented in :mod:`leviathan.usd._stage`; each takes
the ``pxr`` modules as a namespace, so that ``pxr`` is imported only when a stage is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from leviathan.frames import Transform
from leviathan.geometry import hull_mesh
from leviathan.materials import DeclaredMaterial, LambertMaterial, MaterialParameter, get_material
from leviathan.scene import Instance, Scene
from leviathan.sensors import sensor_declarations
from leviathan.usd._conventions import (
    R_SENSOR_USDCAMERA,
    R_ZUP_NED,
    camera_lens,
    prim_names,
    usd_matrix,
)

if TYPE_CHECKING:
    from leviathan.usd._track import VehicleTrack

_ROOT = "/World"
_NED = "/World/NED"
_REQUIRED_PROVENANCE = {
    "snapshot_hash": "leviathan:snapshotHash",
    "root_seed": "leviathan:rootSeed",
    "leviathan_version": "leviathan:leviathanVersion",
}
# Smallest side of the sea-surface display plane [m]; it grows to cover the content.
_SEA_DISPLAY_MIN_SIZE_M = 100.0


# --------------------------------------------------------------------------- pxr


def _import_pxr() -> SimpleNamespace:
    """Import the pxr modules used here, or raise an ImportError naming usd-core."""
    try:
        from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, Vt
    except ImportError as error:
        raise ImportError(
            "exporting OpenUSD needs the 'usd-core' package (OpenUSD's Python bindings, "
            "module 'pxr'); install it with `pip install usd-core`"
        ) from error
    try:
        from pxr import UsdSemantics
    except ImportError:  # usd-core before UsdSemantics existed: fall back to an attribute
        UsdSemantics = None
    return SimpleNamespace(
        Gf=Gf, Sdf=Sdf, Usd=Usd, UsdGeom=UsdGeom, UsdPhysics=UsdPhysics, Vt=Vt,
        UsdSemantics=UsdSemantics,
    )  # fmt: skip


def _gf_matrix(pxr: SimpleNamespace, transform: Transform) -> Any:
    return pxr.Gf.Matrix4d(*usd_matrix(transform).ravel().tolist())


def _set(pxr: SimpleNamespace, prim: Any, name: str, type_name: str, value: Any, doc: str) -> Any:
    """Author a custom, uniform ``leviathan:*`` attribute with its meaning and unit."""
    attr = prim.CreateAttribute(
        name, getattr(pxr.Sdf.ValueTypeNames, type_name), True, pxr.Sdf.VariabilityUniform
    )
    attr.Set(value)
    attr.SetDocumentation(doc)
    return attr


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _transform_op(pxr: SimpleNamespace, prim: Any) -> Any:
    return pxr.UsdGeom.Xformable(prim).AddTransformOp(pxr.UsdGeom.XformOp.PrecisionDouble)


# --------------------------------------------------------------------------- authoring


def _author_root(
    pxr: SimpleNamespace,
    stage: Any,
    provenance: Mapping[str, Any],
    epochs: Sequence[Any],
    g_ns: int,
    ticks: list[int],
    times_ns: list[int],
) -> None:
    root = pxr.UsdGeom.Xform.Define(stage, _ROOT).GetPrim()
    stage.SetDefaultPrim(root)
    for key, name in _REQUIRED_PROVENANCE.items():
        type_name = "UInt64" if key == "root_seed" else "String"
        _set(pxr, root, name, type_name, provenance[key], f"Provenance: {key}")
    _set(pxr, root, "leviathan:provenance", "String", _json(dict(provenance)),
         "Whole provenance record as sorted-key JSON")  # fmt: skip
    _set(pxr, root, "leviathan:epochs", "String", _json([e.to_dict() for e in epochs]),
         "Clock epochs as JSON [{start_tick, start_time_ns, step_ns}] [tick, ns, ns]")  # fmt: skip
    _set(pxr, root, "leviathan:timeCodeNanoseconds", "Int64", g_ns,
         "Length of one time code [ns]: gcd of every epoch's step_ns and start_time_ns; "
         "time_ns = timeCode * this, exactly")  # fmt: skip
    _set(pxr, root, "leviathan:ticks", "Int64Array", pxr.Vt.Int64Array(ticks),
         "Committed tick indices exported, one time sample each")  # fmt: skip
    _set(pxr, root, "leviathan:timesNs", "Int64Array", pxr.Vt.Int64Array(times_ns),
         "Time of each exported tick [ns]")  # fmt: skip
    _set(pxr, root, "leviathan:frame", "String", "NED",
         "World frame of everything below /World/NED: x north, y east, z down [m]")  # fmt: skip
    _set(pxr, root, "leviathan:bodyFrame", "String", "FRD",
         "Vehicle body frame: x forward, y starboard, z down, origin at the CG")  # fmt: skip
    _set(pxr, root, "leviathan:sensorFrame", "String", "FRD",
         "Sensor frame of every sensors/<name> prim: x boresight, y starboard, z down")  # fmt: skip
    _set(pxr, root, "leviathan:cameraFrame", "String", "OpenCV",
         "Camera intrinsics convention: OpenCV optical (x right, y down, z forward); the "
         "UsdGeom.Camera child differs from it by Rx(180 deg)")  # fmt: skip

    ned = pxr.UsdGeom.Xform.Define(stage, _NED)
    # Exact matrix, not rotateX = 180 (sin(pi) != 0 in floating point).
    rows = np.eye(4)
    rows[:3, :3] = R_ZUP_NED.T
    _transform_op(pxr, ned.GetPrim()).Set(pxr.Gf.Matrix4d(*rows.ravel().tolist()))
    _set(pxr, ned.GetPrim(), "leviathan:frame", "String", "NED",
         "Everything below is world NED; this prim's fixed Rx(180 deg) = diag(1, -1, -1) "
         "only shows it right way up in Z-up viewers (north +X, west +Y, up +Z)")  # fmt: skip


def _author_material(pxr: SimpleNamespace, prim: Any, instance: Instance) -> None:
    material = instance.material
    status = instance.acoustic_status.name.lower()
    _set(pxr, prim, "leviathan:acoustic:status", "Token", status,
         "Acoustic status: known, unknown (no declared material), unsupported")  # fmt: skip
    if material is None:
        return
    _set(pxr, prim, "leviathan:acoustic:material", "String", material.name, "Material name")
    _set(pxr, prim, "leviathan:acoustic:model", "Token", material.model, "Scattering model")
    _set(pxr, prim, "leviathan:acoustic:description", "String", material.description,
         "What the material stands for")  # fmt: skip
    params: tuple[MaterialParameter, ...]
    if isinstance(material, LambertMaterial):
        params = (material.mu,)
    elif isinstance(material, DeclaredMaterial):
        params = material.parameters
    else:  # pragma: no cover - Instance validates the type
        raise TypeError(f"unexpected material type {type(material).__name__}")
    for param, name in zip(params, prim_names([p.name for p in params]), strict=True):
        base = f"leviathan:acoustic:{name}"
        _set(pxr, prim, f"{base}:value", "Double", param.value, f"{param.meaning} [{param.units}]")
        _set(pxr, prim, f"{base}:units", "String", param.units, "Units of value")
        _set(pxr, prim, f"{base}:meaning", "String", param.meaning, "Meaning of the parameter")
        _set(pxr, prim, f"{base}:source", "String", param.source, "Where the value comes from")
        _set(pxr, prim, f"{base}:evidenceClass", "Token", param.evidence_class.value,
             "How the value is known")  # fmt: skip


def _author_semantics(pxr: SimpleNamespace, prim: Any, label: str) -> None:
    if pxr.UsdSemantics is not None:
        labels = pxr.UsdSemantics.LabelsAPI.Apply(prim, "class")
        labels.CreateLabelsAttr().Set(pxr.Vt.TokenArray([label]))
    else:  # older usd-core without UsdSemantics: same data, namespaced
        _set(pxr, prim, "leviathan:semantics:class", "TokenArray", pxr.Vt.TokenArray([label]),
             "Semantic class (UsdSemantics unavailable in this usd-core)")  # fmt: skip


def _author_scene(pxr: SimpleNamespace, stage: Any, scene: Scene) -> tuple[float, str]:
    """Author meshes and the sea surface.

    Returns:
        The largest horizontal |world coordinate| of any mesh vertex [m] and the
        sea-surface prim path.
    """
    scope = pxr.UsdGeom.Scope.Define(stage, f"{_NED}/scene").GetPrim()
    _set(pxr, scope, "leviathan:sceneName", "String", scene.name, "Scene name")
    _set(pxr, scope, "leviathan:sceneContentHash", "String", scene.content_hash,
         "SHA-256 of the scene's canonical content")  # fmt: skip
    names = prim_names([*(i.object_id for i in scene.instances), scene.sea_surface.object_id])
    reach_m = 0.0
    for index, (instance, name) in enumerate(zip(scene.instances, names, strict=False)):
        mesh = _author_mesh(pxr, stage, f"{_NED}/scene/{name}", instance)
        _transform_op(pxr, mesh.GetPrim()).Set(_gf_matrix(pxr, instance.T_world_object))
        prim = mesh.GetPrim()
        _set(pxr, prim, "leviathan:objectId", "String", instance.object_id, "Object identifier")
        _set(pxr, prim, "leviathan:instanceIndex", "Int", index,
             "Instance index in the scene (ground-truth 'instance' id)")  # fmt: skip
        _set(pxr, prim, "leviathan:moving", "Bool", instance.moving, "Belongs to a moving body")
        _set(pxr, prim, "leviathan:meshContentHash", "String", instance.mesh.content_hash,
             "SHA-256 of the float64 object-local mesh (points here are float32)")  # fmt: skip
        _author_semantics(pxr, prim, instance.semantic_label)
        _author_material(pxr, prim, instance)
        world = instance.T_world_object.apply_point(instance.mesh.vertices)
        reach_m = max(reach_m, float(np.max(np.abs(world[:, :2]))))

    sea = scene.sea_surface
    sea_path = f"{_NED}/scene/{names[-1]}"
    prim = pxr.UsdGeom.Xform.Define(stage, sea_path).GetPrim()
    _set(pxr, prim, "leviathan:seaSurface:plane", "String", "z = 0 (world NED)",
         "The sea surface is the analytic, unbounded plane z = 0 of world NED")  # fmt: skip
    _set(pxr, prim, "leviathan:seaSurface:normal", "Double3", sea.normal_world,
         "Unit normal of the sea surface in world NED (pointing up, out of the water)")  # fmt: skip
    _set(pxr, prim, "leviathan:objectId", "String", sea.object_id, "Object identifier")
    _set(pxr, prim, "leviathan:instanceIndex", "Int", scene.sea_surface_instance,
         "Instance index in the scene (always the last)")  # fmt: skip
    _set(pxr, prim, "leviathan:moving", "Bool", sea.moving, "Belongs to a moving body")
    _set(pxr, prim, "leviathan:acoustic:status", "Token", sea.acoustic_status.name.lower(),
         "Acoustic status: an interface whose scattering is not modelled")  # fmt: skip
    _author_semantics(pxr, prim, sea.semantic_label)
    return reach_m, sea_path


def _author_mesh(pxr: SimpleNamespace, stage: Any, path: str, instance: Instance) -> Any:
    """A plain triangle mesh prim of ``instance.mesh`` in its object frame (no transform)."""
    mesh = pxr.UsdGeom.Mesh.Define(stage, path)
    points = instance.mesh.vertices.astype(np.float32)
    faces = instance.mesh.faces
    if int(faces.max()) >= 2**31:
        raise ValueError(f"instance {instance.object_id!r}: too many vertices for USD int indices")
    mesh.CreatePointsAttr(pxr.Vt.Vec3fArray.FromNumpy(points))
    mesh.CreateFaceVertexCountsAttr(pxr.Vt.IntArray([3] * instance.mesh.triangle_count))
    mesh.CreateFaceVertexIndicesAttr(pxr.Vt.IntArray.FromNumpy(faces.astype(np.int32).ravel()))
    mesh.CreateExtentAttr(
        pxr.Vt.Vec3fArray.FromNumpy(np.stack([points.min(axis=0), points.max(axis=0)]))
    )
    # A plain triangle mesh (not a subdivision cage), two-sided like the sonar sees it.
    mesh.CreateSubdivisionSchemeAttr(pxr.UsdGeom.Tokens.none)
    mesh.CreateDoubleSidedAttr(True)
    return mesh


def _author_hull(pxr: SimpleNamespace, stage: Any, path: str, name: str, hull: Any) -> None:
    """The vehicle's hull mesh under its body prim (body FRD, CG origin), material and label."""
    material = None if hull.material is None else get_material(hull.material)
    instance = Instance(
        name, hull_mesh(hull), Transform.identity(), hull.semantic_label, material,
        moving=True, vehicle=name,
    )  # fmt: skip
    prim = _author_mesh(pxr, stage, path, instance).GetPrim()
    _set(pxr, prim, "leviathan:objectId", "String", name,
         "Object id of the hull in other vehicles' ground truth (the vehicle name)")  # fmt: skip
    _set(pxr, prim, "leviathan:frame", "String", "FRD",
         "Points are body FRD [m] about the CG; the vehicle prim carries the pose")  # fmt: skip
    _set(pxr, prim, "leviathan:moving", "Bool", True, "Belongs to a moving body")
    _set(pxr, prim, "leviathan:hull:shape", "Token", hull.shape,
         "Hull geometry: cylinder, box or mesh (see leviathan.specs.HullSpec)")  # fmt: skip
    _set(pxr, prim, "leviathan:hull:visibleToOwnSensors", "Bool", hull.visible_to_own_sensors,
         "Whether the vehicle's own sensors see this hull")  # fmt: skip
    _set(pxr, prim, "leviathan:meshContentHash", "String", instance.mesh.content_hash,
         "SHA-256 of the float64 body-frame mesh (points here are float32)")  # fmt: skip
    _author_semantics(pxr, prim, hull.semantic_label)
    _author_material(pxr, prim, instance)


def _author_sea_display(pxr: SimpleNamespace, stage: Any, sea_path: str, reach_m: float) -> None:
    size_m = max(_SEA_DISPLAY_MIN_SIZE_M, 2.0 * reach_m + 20.0)
    plane = pxr.UsdGeom.Plane.Define(stage, f"{sea_path}/display")
    plane.CreateAxisAttr(pxr.UsdGeom.Tokens.z)
    plane.CreateWidthAttr(size_m)
    plane.CreateLengthAttr(size_m)
    plane.CreateDoubleSidedAttr(True)
    half = size_m / 2.0
    plane.CreateExtentAttr(pxr.Vt.Vec3fArray([(-half, -half, 0.0), (half, half, 0.0)]))
    # A guide: a finite picture of the unbounded plane, hidden from final renders.
    plane.CreatePurposeAttr(pxr.UsdGeom.Tokens.guide)


def _author_sensor(pxr: SimpleNamespace, stage: Any, path: str, vehicle: str, sensor: Any) -> None:
    prim = pxr.UsdGeom.Xform.Define(stage, path).GetPrim()
    _transform_op(pxr, prim).Set(_gf_matrix(pxr, sensor.mount.transform()))
    _set(pxr, prim, "leviathan:name", "String", sensor.name, "Sensor name")
    _set(pxr, prim, "leviathan:sensorId", "String", f"{vehicle}/{sensor.name}",
         "Sensor identifier '<vehicle>/<sensor>'")  # fmt: skip
    _set(pxr, prim, "leviathan:kind", "Token", sensor.kind, "Sensor type tag")
    _set(pxr, prim, "leviathan:frame", "String", "FRD",
         "This prim is the sensor FRD frame (x boresight); transform = T_body_sensor")  # fmt: skip
    _set(pxr, prim, "leviathan:spec", "String", _json(sensor.model_dump(mode="json")),
         "Full sensor specification as sorted-key JSON (units in leviathan.specs)")  # fmt: skip
    _set(pxr, prim, "leviathan:schedule:periodNs", "Int64", sensor.schedule.period_ns,
         "Sampling period [ns]")  # fmt: skip
    _set(pxr, prim, "leviathan:schedule:phaseNs", "Int64", sensor.schedule.phase_ns,
         "Time of the first sample [ns]; samples at phase + n * period")  # fmt: skip
    declared = sensor_declarations(sensor.kind)
    if declared.intrinsics is not None:
        _author_camera(pxr, stage, f"{path}/camera", declared.intrinsics(sensor))
    footprint = declared.footprint(sensor)
    if footprint is not None:
        _author_footprint(pxr, stage, f"{path}/fieldOfView", footprint)


def _author_footprint(pxr: SimpleNamespace, stage: Any, path: str, footprint: Any) -> None:
    """The field of view the sensor's kind declares, in sensor FRD, as guide geometry."""
    scope = pxr.UsdGeom.Scope.Define(stage, path).GetPrim()
    _set(pxr, scope, "leviathan:legend", "String", footprint.legend,
         "What the footprint shows (leviathan.sensors.Footprint), in sensor FRD [m]")  # fmt: skip
    for name, part in zip(
        prim_names([p.name for p in footprint.parts]), footprint.parts, strict=True
    ):
        points = pxr.Vt.Vec3fArray([tuple(p) for p in part.points.tolist()])
        if part.style == "lines":
            gprim = pxr.UsdGeom.BasisCurves.Define(stage, f"{path}/{name}")
            gprim.CreateTypeAttr(pxr.UsdGeom.Tokens.linear)
            gprim.CreateCurveVertexCountsAttr([2] * (len(points) // 2))
        else:
            gprim = pxr.UsdGeom.Mesh.Define(stage, f"{path}/{name}")
            gprim.CreateFaceVertexCountsAttr([3] * (len(points) // 3))
            gprim.CreateFaceVertexIndicesAttr(list(range(len(points))))
            gprim.CreateDoubleSidedAttr(True)
        gprim.CreatePointsAttr(points)
        colour = tuple(int(part.colour[i : i + 2], 16) / 255.0 for i in (1, 3, 5))
        gprim.CreateDisplayColorAttr([colour])
        gprim.CreateDisplayOpacityAttr([float(part.opacity)])
        # A guide: a picture of where the sensor looks, hidden from final renders.
        gprim.CreatePurposeAttr(pxr.UsdGeom.Tokens.guide)


def _author_camera(pxr: SimpleNamespace, stage: Any, path: str, spec: Any) -> None:
    camera = pxr.UsdGeom.Camera.Define(stage, path)
    _transform_op(pxr, camera.GetPrim()).Set(
        _gf_matrix(pxr, Transform(R_SENSOR_USDCAMERA, (0.0, 0.0, 0.0)))
    )
    lens = camera_lens(spec)
    camera.CreateProjectionAttr(pxr.UsdGeom.Tokens.perspective)
    camera.CreateFocalLengthAttr(lens.focal_length)
    camera.CreateHorizontalApertureAttr(lens.horizontal_aperture)
    camera.CreateVerticalApertureAttr(lens.vertical_aperture)
    camera.CreateHorizontalApertureOffsetAttr(lens.horizontal_aperture_offset)
    camera.CreateVerticalApertureOffsetAttr(lens.vertical_aperture_offset)
    camera.CreateClippingRangeAttr(pxr.Gf.Vec2f(*lens.clipping_range))
    prim = camera.GetPrim()
    for name, value, doc in (
        ("fxPx", spec.fx_px, "Focal length along image x [px] (exact)"),
        ("fyPx", spec.fy_px, "Focal length along image y [px] (exact)"),
        ("cxPx", spec.cx_px, "Principal point x from the left edge, pixel-centre convention [px]"),
        ("cyPx", spec.cy_px, "Principal point y from the top edge, pixel-centre convention [px]"),
    ):
        _set(pxr, prim, f"leviathan:intrinsics:{name}", "Double", value, doc)
    _set(pxr, prim, "leviathan:intrinsics:widthPx", "Int", spec.width_px, "Image width [px]")
    _set(pxr, prim, "leviathan:intrinsics:heightPx", "Int", spec.height_px, "Image height [px]")


def _author_vehicle(
    pxr: SimpleNamespace, stage: Any, path: str, track: VehicleTrack, time_codes: list[float]
) -> float:
    """Author one vehicle; return its largest horizontal |position| [m]."""
    spec = track.spec
    xform = pxr.UsdGeom.Xform.Define(stage, path)
    prim = xform.GetPrim()
    attr = _transform_op(pxr, prim).GetAttr()
    layer = stage.GetRootLayer()
    attr_path = attr.GetPath()
    with pxr.Sdf.ChangeBlock():
        for time_code, pose in zip(time_codes, track.poses, strict=True):
            layer.SetTimeSample(attr_path, time_code, _gf_matrix(pxr, pose))

    mass = pxr.UsdPhysics.MassAPI.Apply(prim)
    mass.CreateMassAttr(spec.mass.mass_kg)
    mass.CreateDiagonalInertiaAttr(pxr.Gf.Vec3f(*spec.mass.inertia_kg_m2))
    mass.CreateCenterOfMassAttr(pxr.Gf.Vec3f(*spec.mass.cg_m))  # the body origin is the CG
    mass.CreatePrincipalAxesAttr(pxr.Gf.Quatf(1.0, 0.0, 0.0, 0.0))  # principal axes = FRD axes

    m = spec.mass
    for name, type_name, value, doc in (
        ("leviathan:name", "String", track.name, "Vehicle name in the World"),
        ("leviathan:role", "Token", spec.role, "'production' or 'test_reference'"),
        ("leviathan:description", "String", spec.description, "Human-readable description"),
        ("leviathan:referenceNote", "String", spec.reference_note, "Why a test/reference model"),
        ("leviathan:frame", "String", "FRD", "This prim is the body FRD frame, origin at the CG"),
        ("leviathan:massKg", "Double", m.mass_kg, "Dry mass [kg] (exact; physics:mass is float)"),
        ("leviathan:inertiaKgM2", "Double3", m.inertia_kg_m2,
         "Principal moments (Ixx, Iyy, Izz) about the CG in body FRD [kg m^2]"),
        ("leviathan:buoyancy:centerOfBuoyancyM", "Double3", m.cb_m,
         "Centre of buoyancy in body FRD [m]"),
        ("leviathan:buoyancy:displacedVolumeM3", "Double", m.displaced_volume_m3,
         "Displaced water volume [m^3]"),
        ("leviathan:hydrodynamics:addedMass", "DoubleArray", m.added_mass,
         "Diagonal added mass (X, Y, Z, K, M, N) [kg, kg, kg, kg m^2, kg m^2, kg m^2]"),
        ("leviathan:hydrodynamics:linearDamping", "DoubleArray", m.linear_damping,
         "Diagonal linear damping (surge, sway, heave, roll, pitch, yaw) [N s/m; N m s/rad]"),
        ("leviathan:hydrodynamics:quadraticDamping", "DoubleArray", m.quadratic_damping,
         "Diagonal quadratic damping (surge .. yaw) [N s^2/m^2; N m s^2/rad^2]"),
        ("leviathan:spec", "String", _json(spec.model_dump(mode="json")),
         "Full vehicle specification as sorted-key JSON (units in leviathan.specs)"),
    ):  # fmt: skip
        _set(pxr, prim, name, type_name, value, doc)

    if spec.hull is not None:
        _author_hull(pxr, stage, f"{path}/hull", track.name, spec.hull)

    if spec.thrusters:
        pxr.UsdGeom.Scope.Define(stage, f"{path}/thrusters")
    for thruster, name in zip(
        spec.thrusters, prim_names([t.name for t in spec.thrusters]), strict=True
    ):
        t_prim = pxr.UsdGeom.Xform.Define(stage, f"{path}/thrusters/{name}")
        t_prim.AddTranslateOp(pxr.UsdGeom.XformOp.PrecisionDouble).Set(
            pxr.Gf.Vec3d(*thruster.position_m)
        )
        p = t_prim.GetPrim()
        _set(pxr, p, "leviathan:name", "String", thruster.name, "Thruster name")
        _set(pxr, p, "leviathan:thruster:direction", "Double3", thruster.direction,
             "Unit vector of positive thrust in body FRD (= this prim's axes) [-]")  # fmt: skip
        _set(pxr, p, "leviathan:thruster:maxThrustN", "Double", thruster.max_thrust_n,
             "Maximum (forward) thrust [N]")  # fmt: skip
        _set(pxr, p, "leviathan:thruster:minThrustN", "Double", thruster.min_thrust_n,
             "Minimum thrust [N], negative for reverse")  # fmt: skip
        _set(pxr, p, "leviathan:thruster:timeConstantS", "Double", thruster.time_constant_s,
             "First-order response time constant [s]; 0 = instant")  # fmt: skip

    if spec.sensors:
        pxr.UsdGeom.Scope.Define(stage, f"{path}/sensors")
    for sensor, name in zip(spec.sensors, prim_names([s.name for s in spec.sensors]), strict=True):
        _author_sensor(pxr, stage, f"{path}/sensors/{name}", track.name, sensor)

    return max((float(np.max(np.abs(p.translation[:2]))) for p in track.poses), default=0.0)
