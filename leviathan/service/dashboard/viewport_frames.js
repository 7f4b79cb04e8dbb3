// LEVIATHAN's frames in the Viewport: the one place NED meets three.js's display axes.
//
// LEVIATHAN: world NED (x north, y east, z down, origin at the sea surface), body and
// sensor FRD, metres, attitude roll/pitch/yaw applied ZYX (R = Rz(yaw) Ry(pitch) Rx(roll)).
// three.js: right-handed, y up.
//
// nedToDisplay is the ONE conversion:  display (x, y, z) = (north, -down, east).
// It is a proper rotation (a quarter turn about north), not a mirror, so handedness,
// winding and attitudes carry over unchanged. Everything the Viewport draws in NED
// (seabed, objects, vehicles, sensors, trails) hangs under one group whose matrix is
// this conversion (nedRootMatrix, built from nedToDisplay alone); the camera, which
// lives in display space, is placed with nedToDisplay too. Reading back goes through
// the inverse of that same matrix (displayToNed, nedPoseOf), so a number shown or
// reported is always in LEVIATHAN's frames, never in display axes.

import * as THREE from "three";

/** NED [m] -> three.js display axes: (x, y, z) = (north, -down, east). The one conversion. */
export function nedToDisplay(north, east, down) {
  return new THREE.Vector3(north, -down, east);
}

/** The matrix that maps NED into display axes: its columns are nedToDisplay of N, E, D. */
export function nedRootMatrix() {
  return new THREE.Matrix4().makeBasis(
    nedToDisplay(1, 0, 0),
    nedToDisplay(0, 1, 0),
    nedToDisplay(0, 0, 1),
  );
}

const DISPLAY_TO_NED = nedRootMatrix().invert();

/** Display axes -> NED: the inverse of nedToDisplay. Returns {north, east, down} [m]. */
export function displayToNed(vector) {
  const v = vector.clone().applyMatrix4(DISPLAY_TO_NED);
  return { north: v.x, east: v.y, down: v.z };
}

/** A three.js matrix from a LEVIATHAN pose document {rotation: 3x3 rows, translation [m]}. */
export function matrixFromPose(pose) {
  const r = pose.rotation;
  const t = pose.translation;
  return new THREE.Matrix4().set(
    r[0][0], r[0][1], r[0][2], t[0],
    r[1][0], r[1][1], r[1][2], t[1],
    r[2][0], r[2][1], r[2][2], t[2],
    0, 0, 0, 1,
  );
}

/** Sets an object (under the NED group) to a vehicle pose: position NED [m], ZYX angles [rad]. */
export function setNedPose(object, position, rollRad, pitchRad, yawRad) {
  object.position.set(position[0], position[1], position[2]);
  // three.js's "ZYX" order builds Rz(z) Ry(y) Rx(x): LEVIATHAN's ZYX convention.
  object.rotation.set(rollRad, pitchRad, yawRad, "ZYX");
}

function wrapRad(angle) {
  // (-pi, pi], as leviathan.frames.wrap_angle.
  let a = angle;
  while (a <= -Math.PI) a += 2 * Math.PI;
  while (a > Math.PI) a -= 2 * Math.PI;
  return a;
}

/**
 * The NED pose of a rendered object, read back from its world matrix (display axes)
 * through the inverse of the NED group's matrix. Returns {north, east, down} [m] and
 * {roll_deg, pitch_deg, yaw_deg}, extracted as leviathan.frames.euler_from_rotation does
 * (pitch in [-90, 90], roll and yaw in (-180, 180]).
 */
export function nedPoseOf(object, nedRoot) {
  object.updateWorldMatrix(true, false);
  const local = new THREE.Matrix4().copy(nedRoot.matrixWorld).invert().multiply(object.matrixWorld);
  const e = local.elements; // column-major: R[i][j] = e[j * 4 + i]
  const R = (i, j) => e[j * 4 + i];
  const cosPitch = Math.hypot(R(0, 0), R(1, 0));
  let roll;
  let pitch;
  let yaw;
  if (cosPitch <= 1e-9) {
    pitch = Math.sign(-R(2, 0)) * (Math.PI / 2);
    roll = 0;
    yaw = wrapRad(Math.atan2(-R(0, 1), R(1, 1)));
  } else {
    pitch = Math.atan2(-R(2, 0), cosPitch);
    roll = wrapRad(Math.atan2(R(2, 1), R(2, 2)));
    yaw = wrapRad(Math.atan2(R(1, 0), R(0, 0)));
  }
  const deg = 180 / Math.PI;
  return {
    north: e[12],
    east: e[13],
    down: e[14],
    roll_deg: roll * deg,
    pitch_deg: pitch * deg,
    yaw_deg: yaw * deg,
  };
}

/** Heading [deg] in [0, 360) from yaw [rad], for display. */
export function headingDeg(yawRad) {
  const d = (yawRad * 180) / Math.PI;
  return ((d % 360) + 360) % 360;
}
