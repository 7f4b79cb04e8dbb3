// Builds the Viewport's three.js objects from GET /worlds/{id}/scene (base64 meshes).
// Everything here is in LEVIATHAN's frames and goes under the NED group of
// viewport_frames.js: environment objects in world NED, hulls in body FRD, sensor
// frames and fields of view in sensor FRD. A field of view is the footprint the
// sensor's kind declares (line segments and triangles in sensor FRD), drawn as given.

import * as THREE from "three";
import { matrixFromPose } from "./viewport_frames.js";

const COLOURS = {
  seabedShallow: new THREE.Color(0xc9b27c),
  seabedDeep: new THREE.Color(0x5b4a36),
  object: 0xe07b39,
  hull: 0xf2c230,
  marker: 0xff4fa3,
  trail: 0xff6b6b,
};

function decode(b64, Type, count) {
  // Little-endian by the endpoint's contract, read through a DataView so the byte
  // order of this machine does not matter.
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  const out = new Type(count);
  const float = Type === Float32Array;
  for (let i = 0; i < count; i += 1) {
    out[i] = float ? view.getFloat32(4 * i, true) : view.getUint32(4 * i, true);
  }
  return out;
}

/** A BufferGeometry from a scene mesh document (encoding "base64"). */
export function meshGeometry(mesh) {
  const geometry = new THREE.BufferGeometry();
  const positions = decode(mesh.vertices, Float32Array, 3 * mesh.vertex_count);
  const indices = decode(mesh.indices, Uint32Array, 3 * mesh.triangle_count);
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setIndex(new THREE.BufferAttribute(indices, 1));
  geometry.computeVertexNormals();
  geometry.computeBoundingBox();
  return geometry;
}

function colourByDepth(geometry, pose) {
  // Seabed relief reads at a glance when shallow is light and deep is dark: colour
  // each vertex by its world depth (z of T_world_object applied to the vertex).
  const r = pose.rotation[2];
  const tz = pose.translation[2];
  const p = geometry.getAttribute("position");
  const depths = new Float64Array(p.count);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < p.count; i += 1) {
    const d = r[0] * p.getX(i) + r[1] * p.getY(i) + r[2] * p.getZ(i) + tz;
    depths[i] = d;
    lo = Math.min(lo, d);
    hi = Math.max(hi, d);
  }
  const colours = new Float32Array(3 * p.count);
  const c = new THREE.Color();
  for (let i = 0; i < p.count; i += 1) {
    const f = hi > lo ? (depths[i] - lo) / (hi - lo) : 0.5;
    c.copy(COLOURS.seabedShallow).lerp(COLOURS.seabedDeep, f);
    colours.set([c.r, c.g, c.b], 3 * i);
  }
  geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
}

/** The environment objects: one mesh per object, posed by T_world_object (world NED). */
export function buildObjects(objects) {
  const group = new THREE.Group();
  group.name = "environment";
  const byId = new Map();
  for (const obj of objects) {
    const geometry = meshGeometry(obj.mesh);
    const seabed = obj.semantic_label === "seabed";
    if (seabed) colourByDepth(geometry, obj.T_world_object);
    const material = new THREE.MeshLambertMaterial({
      color: seabed ? 0xffffff : COLOURS.object,
      vertexColors: seabed,
      side: THREE.DoubleSide,
    });
    const mesh = new THREE.Mesh(geometry, material);
    mesh.name = obj.object_id;
    mesh.matrixAutoUpdate = false;
    mesh.matrix.copy(matrixFromPose(obj.T_world_object));
    mesh.userData = { object: obj };
    group.add(mesh);
    byId.set(obj.object_id, mesh);
  }
  return { group, byId };
}

/** Places moving objects at time_ns: t(t) = t(0) + v t, as the World does. */
export function poseObjects(byId, timeNs) {
  const tS = timeNs / 1e9;
  for (const mesh of byId.values()) {
    const obj = mesh.userData.object;
    if (!obj.moving) continue;
    const t0 = obj.T_world_object_t0.translation;
    const v = obj.velocity_ned_m_per_s;
    const pose = {
      rotation: obj.T_world_object_t0.rotation,
      translation: [t0[0] + v[0] * tS, t0[1] + v[1] * tS, t0[2] + v[2] * tS],
    };
    mesh.matrix.copy(matrixFromPose(pose));
    mesh.matrixWorldNeedsUpdate = true;
  }
}


/** One footprint part (GET /scene's sensors[].footprint.parts[]): points in sensor FRD. */
function footprintPart(part) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(part.points_sensor_m, 3));
  const colour = new THREE.Color(part.colour);
  const transparent = part.opacity < 1;
  let object;
  if (part.style === "surface") {
    object = new THREE.Mesh(
      geometry,
      new THREE.MeshBasicMaterial({
        color: colour,
        transparent,
        opacity: part.opacity,
        side: THREE.DoubleSide,
        depthWrite: false,
      }),
    );
  } else {
    object = new THREE.LineSegments(
      geometry,
      new THREE.LineBasicMaterial({ color: colour, transparent, opacity: part.opacity }),
    );
  }
  object.name = part.name;
  return object;
}

/** One sensor: a group at its mount (T_body_sensor) with its axes and field of view. */
function buildSensor(sensor) {
  const group = new THREE.Group();
  group.name = sensor.sensor_id;
  group.matrixAutoUpdate = false;
  group.matrix.copy(matrixFromPose(sensor.T_body_sensor));
  // Sensor FRD axes: red x (boresight), green y (starboard), blue z (down).
  const axes = new THREE.AxesHelper(0.3);
  axes.name = `${sensor.sensor_id} axes`;
  group.add(axes);
  // The field of view as the sensor's kind declares it, drawn as given: no kind is named here.
  if (sensor.footprint) {
    for (const part of sensor.footprint.parts) group.add(footprintPart(part));
  }
  return group;
}

/** A vehicle: its hull in body FRD (or a marker with a forward arrow), and its sensors. */
export function buildVehicle(vehicle) {
  const group = new THREE.Group();
  group.name = vehicle.name;
  if (vehicle.hull) {
    const hull = new THREE.Mesh(
      meshGeometry(vehicle.hull),
      new THREE.MeshLambertMaterial({ color: COLOURS.hull, side: THREE.DoubleSide }),
    );
    hull.name = `${vehicle.name} hull`;
    group.add(hull);
  } else {
    // No hull declared: a marker the size of a small vehicle, pointing along body x.
    const marker = new THREE.Mesh(
      new THREE.OctahedronGeometry(0.3),
      new THREE.MeshLambertMaterial({ color: COLOURS.marker }),
    );
    marker.name = `${vehicle.name} marker`;
    group.add(marker);
    group.add(new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 0.9, COLOURS.marker));
  }
  for (const sensor of vehicle.sensors) group.add(buildSensor(sensor));
  return group;
}

/** A growing polyline of NED positions (the track trail). */
export class Trail {
  constructor() {
    this.capacity = 1024;
    this.count = 0;
    this.positions = new Float32Array(3 * this.capacity);
    this.geometry = new THREE.BufferGeometry();
    this.geometry.setAttribute("position", new THREE.BufferAttribute(this.positions, 3));
    this.geometry.setDrawRange(0, 0);
    this.line = new THREE.Line(this.geometry, new THREE.LineBasicMaterial({ color: COLOURS.trail }));
    this.line.frustumCulled = false; // the bounding sphere would lag the growing line
    this.line.name = "trail";
  }

  clear() {
    this.count = 0;
    this.geometry.setDrawRange(0, 0);
  }

  /** Appends NED points [[n, e, d], ...]. */
  extend(points) {
    if (this.count + points.length > this.capacity) {
      while (this.count + points.length > this.capacity) this.capacity *= 2;
      const grown = new Float32Array(3 * this.capacity);
      grown.set(this.positions.subarray(0, 3 * this.count));
      this.positions = grown;
      this.geometry.setAttribute("position", new THREE.BufferAttribute(this.positions, 3));
    }
    for (const p of points) {
      this.positions.set(p, 3 * this.count);
      this.count += 1;
    }
    this.geometry.getAttribute("position").needsUpdate = true;
    this.geometry.setDrawRange(0, this.count);
  }
}

/** The sea surface (z = 0, translucent) and a 10 m grid on it, sized to the scene. */
export function buildSurface(halfSizeM) {
  const group = new THREE.Group();
  group.name = "sea-surface";
  const size = 2 * halfSizeM;
  const plane = new THREE.Mesh(
    new THREE.PlaneGeometry(size, size),
    new THREE.MeshBasicMaterial({
      color: 0x4aa3ff,
      transparent: true,
      opacity: 0.08,
      side: THREE.DoubleSide,
      depthWrite: false,
    }),
  );
  // PlaneGeometry lies in its x-y plane: in NED that is the horizontal z = 0 plane.
  group.add(plane);
  const divisions = Math.max(2, Math.round(size / 10));
  const grid = new THREE.GridHelper(size, divisions, 0x6fa8dc, 0x35577a);
  // GridHelper lies in its x-z plane; turn it into NED's x-y plane.
  grid.rotation.x = Math.PI / 2;
  grid.material.transparent = true;
  grid.material.opacity = 0.35;
  group.add(grid);
  return group;
}
