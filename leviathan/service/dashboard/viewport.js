// The Viewport: a 3D view of one World (three.js), following it live.
//
// mount(section, api) builds the panel; the World panel's "Show in Viewport" sends bus
// "show-in-viewport" {id}, which opens that World here. Drawn, in LEVIATHAN's frames
// (converted to display axes only by viewport_frames.js): the seabed and objects from
// GET /worlds/{id}/scene, each vehicle's hull (or a marker), its sensor frames (axes
// at each mount), the imaging sonar's fan and volume, camera frustums and DVL beams, the
// sea surface with a 10 m grid, each vehicle's track trail, and each multibeam's latest
// soundings as points coloured by their vertical error (viewport_soundings.js). Poses follow the
// World's WebSocket stream (viewport_live.js), so they move as the World plays or is
// stepped from the World panel; bus "world-changed" reloads the geometry when an edit
// changed it. Camera: orbit (OrbitControls) or follow a vehicle from behind and above.
// The HUD shows numbers from the World's state only: NED metres, degrees, the integer
// clock as seconds and tick.
//
// Test hook: window.leviathanTest.viewportPoses() reads every vehicle's pose back FROM
// the rendered three.js objects (through the inverse of the display conversion);
// viewportCamera() gives the camera's mode and NED position and target, and
// viewportTrails() the number of track points drawn per vehicle (viewportTrail(name)
// the points themselves, NED float32), viewportDrawn() the
// objects, hulls and sensor parts in the scene graph, viewportSoundings() the soundings
// drawn per multibeam.

import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { on, plainError } from "./api.js";
import { displayToNed, headingDeg, nedPoseOf, nedRootMatrix, nedToDisplay, setNedPose } from "./viewport_frames.js";
import { TrailSync, WorldStream } from "./viewport_live.js";
import { SoundingsLayer } from "./viewport_soundings.js";
import { Trail, buildObjects, buildSurface, buildVehicle, poseObjects } from "./viewport_scene.js";

/** Follow camera: this far behind the vehicle along its heading, this far above it [m]. */
export const FOLLOW_BEHIND_M = 9;
export const FOLLOW_ABOVE_M = 4;

const STYLE = `
#viewport-panel .viewport-bar { display: flex; flex-wrap: wrap; gap: 0.6em; align-items: center; margin-bottom: 0.5em; }
#viewport-panel .viewport-stage { position: relative; height: 520px; background: #0b1d2e; border-radius: 4px; overflow: hidden; }
#viewport-panel .viewport-stage canvas { display: block; width: 100%; height: 100%; }
#viewport-panel .viewport-hud { position: absolute; left: 0.6em; top: 0.5em; margin: 0; padding: 0.4em 0.6em;
  background: rgba(5, 15, 25, 0.72); color: #e8f1f8; font: 12px/1.45 ui-monospace, monospace; white-space: pre; border-radius: 3px; pointer-events: none; }
#viewport-panel .viewport-legend { position: absolute; right: 0.6em; bottom: 0.5em; margin: 0; padding: 0.3em 0.6em;
  background: rgba(5, 15, 25, 0.6); color: #cfe0ee; font: 11px/1.4 sans-serif; border-radius: 3px; pointer-events: none; }
#viewport-panel .viewport-empty { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; color: #9fb7cc; }
`;

function element(tag, props = {}, children = []) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function fmt(x, digits = 3) {
  return Number.isFinite(x) ? x.toFixed(digits) : "—";
}

/** What the colours mean, for what this scene holds. */
function legendFor(scene) {
  // Each sensor kind's footprint brings its own legend line (GET /scene), once each.
  const footprints = new Set(
    scene.vehicles.flatMap((v) => v.sensors.filter((s) => s.footprint).map((s) => s.footprint.legend)),
  );
  const parts = [];
  if (scene.objects.some((o) => o.semantic_label === "seabed")) parts.push("seabed: light shallow, dark deep");
  if (scene.objects.some((o) => o.semantic_label !== "seabed")) parts.push("orange: objects");
  if (scene.vehicles.some((v) => v.hull)) parts.push("yellow: hull");
  if (scene.vehicles.some((v) => !v.hull)) parts.push("pink: vehicle without hull");
  parts.push(...footprints);
  if (scene.vehicles.some((v) => v.sensors.some((s) => s.kind === "multibeam"))) {
    parts.push("soundings: white on the truth, red too deep, blue too shallow (full at ±0.25 m)");
  }
  parts.push("red: track", "axes at mounts: red x fwd, green y stbd, blue z down");
  return parts.join(" · ");
}

class Viewport {
  constructor(section, api) {
    this.section = section;
    this.api = api;
    this.worldId = null;
    this.scene = null; // last /scene response
    this.state = null; // last pushed state message
    this.vehicles = new Map(); // name -> three.js group
    this.trails = new Map(); // name -> {trail, sync}
    this.stream = null;
    this.frames = 0;
    this.buildDom();
    this.buildThree();
  }

  buildDom() {
    document.head.append(element("style", { textContent: STYLE }));
    this.worldLabel = element("span", { id: "viewport-world", textContent: "No World shown" });
    this.modeSelect = element("select", { id: "viewport-camera-mode", title: "Camera mode" }, [
      element("option", { value: "orbit", textContent: "Orbit" }),
      element("option", { value: "follow", textContent: "Follow vehicle" }),
    ]);
    this.vehicleSelect = element("select", { id: "viewport-vehicle", title: "Vehicle for the HUD and Follow" });
    this.recentre = element("button", { id: "viewport-recentre", type: "button", textContent: "Recentre" });
    const bar = element("div", { className: "viewport-bar" }, [
      element("strong", { textContent: "World:" }),
      this.worldLabel,
      element("label", { textContent: "Camera " }, [this.modeSelect]),
      element("label", { textContent: "Vehicle " }, [this.vehicleSelect]),
      this.recentre,
    ]);
    this.stage = element("div", { className: "viewport-stage", id: "viewport-stage" });
    this.hud = element("pre", { className: "viewport-hud", id: "viewport-hud", hidden: true });
    this.empty = element("div", {
      className: "viewport-empty",
      textContent: "Press “Show in Viewport” in the World panel to view a World here.",
    });
    this.legend = element("p", { className: "viewport-legend", id: "viewport-legend", hidden: true });
    this.stage.append(this.hud, this.empty, this.legend);
    this.status = element("p", { className: "viewport-status", id: "viewport-status", role: "status" });
    this.section.append(bar, this.stage, this.status);
    this.modeSelect.addEventListener("change", () => this.applyCamera({ recentre: true }));
    this.vehicleSelect.addEventListener("change", () => {
      this.updateHud();
      this.applyCamera({ recentre: true });
    });
    this.recentre.addEventListener("click", () => this.applyCamera({ recentre: true }));
  }

  buildThree() {
    this.three = new THREE.Scene();
    this.three.background = new THREE.Color(0x0b1d2e);
    this.nedRoot = new THREE.Group();
    this.nedRoot.name = "NED";
    this.nedRoot.matrixAutoUpdate = false;
    this.nedRoot.matrix.copy(nedRootMatrix());
    this.three.add(this.nedRoot);
    // Light from above the sea (display +y is up) and a soft sky/seabed fill.
    this.three.add(new THREE.HemisphereLight(0xbfd8ff, 0x3a2f22, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.4);
    sun.position.copy(nedToDisplay(-30, -20, -100));
    this.three.add(sun);
    this.camera = new THREE.PerspectiveCamera(50, 16 / 9, 0.05, 5000);
    this.camera.position.copy(nedToDisplay(-20, -20, -15));
    try {
      this.renderer = new THREE.WebGLRenderer({ antialias: true });
    } catch (err) {
      this.renderer = null;
      this.showStatus(
        `This browser cannot draw 3D (WebGL is unavailable: ${err.message}); the HUD still follows the World.`,
        true,
      );
    }
    if (this.renderer) {
      this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
      this.stage.prepend(this.renderer.domElement);
      this.controls = new OrbitControls(this.camera, this.renderer.domElement);
      this.controls.addEventListener("change", () => this.requestRender());
      new ResizeObserver(() => this.resize()).observe(this.stage);
      this.resize();
    }
  }

  resize() {
    const w = this.stage.clientWidth || 800;
    const h = this.stage.clientHeight || 450;
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.renderer.setSize(w, h, false);
    this.requestRender();
  }

  requestRender() {
    if (!this.renderer || this.renderPending) return;
    this.renderPending = true;
    requestAnimationFrame(() => {
      this.renderPending = false;
      this.renderer.render(this.three, this.camera);
      this.frames += 1;
    });
  }

  showStatus(text, isError = false) {
    this.status.textContent = text;
    this.status.classList.toggle("error", isError);
  }

  // ---------------------------------------------------------------- opening a World

  async open(worldId) {
    this.close();
    this.worldId = worldId;
    this.worldLabel.textContent = worldId;
    this.showStatus(`Loading ${worldId}…`);
    try {
      const scene = await this.api.get(`/worlds/${encodeURIComponent(worldId)}/scene`, {
        query: { encoding: "base64" },
      });
      if (this.worldId !== worldId) return;
      this.build(scene);
      this.needsRecentre = true; // once per World opened, never on a rebuild after an edit
    } catch (err) {
      if (this.worldId === worldId) this.showStatus(plainError(err), true);
      return;
    }
    this.stream = new WorldStream(this.api, worldId, {
      onState: (message, { fresh }) => this.onState(message, fresh),
      onClosed: (reason) => this.onClosed(reason),
      onError: (text) => {
        this.streamTrouble = true;
        this.showStatus(text, true);
      },
    });
    this.showStatus(`Following ${worldId} live.`);
  }

  close() {
    if (this.stream) this.stream.stop();
    this.stream = null;
    for (const { sync } of this.trails.values()) sync.stop();
    this.trails.clear();
    if (this.soundings) this.soundings.stop();
    this.soundings = null;
    this.vehicles.clear();
    while (this.nedRoot.children.length) this.nedRoot.remove(this.nedRoot.children[0]);
    this.scene = null;
    this.state = null;
    this.worldId = null;
    this.hud.hidden = true;
    this.legend.hidden = true;
    this.empty.hidden = false;
    this.requestRender();
  }

  build(scene) {
    // Rebuilding keeps the World, its stream and its trails; only geometry is replaced.
    for (const child of [...this.nedRoot.children]) {
      if (child.name !== "trails") this.nedRoot.remove(child);
    }
    this.scene = scene;
    const { group, byId } = buildObjects(scene.objects);
    this.objects = byId;
    this.nedRoot.add(group);
    const extent = new THREE.Box3();
    group.updateMatrixWorld(true);
    for (const mesh of byId.values()) {
      const box = mesh.geometry.boundingBox.clone().applyMatrix4(mesh.matrix);
      extent.union(box);
    }
    const half = extent.isEmpty() ? 60 : Math.max(60, extent.max.x - extent.min.x, extent.max.y - extent.min.y);
    const surface = buildSurface(half);
    if (!extent.isEmpty()) surface.position.set((extent.min.x + extent.max.x) / 2, (extent.min.y + extent.max.y) / 2, 0);
    this.nedRoot.add(surface);
    this.vehicles.clear();
    for (const vehicle of scene.vehicles) {
      const node = buildVehicle(vehicle);
      this.vehicles.set(vehicle.name, node);
      this.nedRoot.add(node);
    }
    let trails = this.nedRoot.children.find((c) => c.name === "trails");
    if (!trails) {
      trails = new THREE.Group();
      trails.name = "trails";
      this.nedRoot.add(trails);
    }
    for (const vehicle of scene.vehicles) {
      if (this.trails.has(vehicle.name)) continue;
      const trail = new Trail();
      trails.add(trail.line);
      const sync = new TrailSync(this.api, this.worldId, vehicle.name, trail, () => this.requestRender());
      this.trails.set(vehicle.name, { trail, sync });
    }
    const names = scene.vehicles.map((v) => v.name);
    const chosen = names.includes(this.vehicleSelect.value) ? this.vehicleSelect.value : names[0];
    this.vehicleSelect.replaceChildren(...names.map((n) => element("option", { value: n, textContent: n })));
    this.vehicleSelect.value = chosen;
    if (this.soundings) this.soundings.stop();
    const multibeams = scene.vehicles.flatMap((v) => v.sensors.filter((s) => s.kind === "multibeam").map((s) => s.sensor_id));
    this.soundings = new SoundingsLayer(this.api, this.worldId, multibeams, () => this.requestRender());
    this.nedRoot.add(this.soundings.group);
    if (this.state) this.soundings.update();
    this.legend.textContent = legendFor(scene);
    this.legend.hidden = false;
    this.empty.hidden = true;
    poseObjects(this.objects, scene.time_ns);
    this.requestRender();
  }

  // ---------------------------------------------------------------- live state

  onState(message, fresh) {
    if (message.world_id !== this.worldId) return;
    const previous = this.state;
    this.state = message;
    if (this.streamTrouble) {
      this.streamTrouble = false;
      this.showStatus(`Following ${this.worldId} live.`);
    }
    // A commit that kept the tick is an edit (or a current, or a Reset at tick 0),
    // from this page or any other client: the geometry may have changed with it.
    if (!fresh && previous && previous.tick === message.tick) this.onWorldChanged(message.world_id);
    this.applyPoses(message, fresh);
  }

  applyPoses(message, fresh) {
    for (const [name, v] of Object.entries(message.state.vehicles)) {
      const node = this.vehicles.get(name);
      if (node) setNedPose(node, v.position_ned_m, v.roll_rad, v.pitch_rad, v.yaw_rad);
      const entry = this.trails.get(name);
      if (entry) entry.sync.update(message.tick, v.position_ned_m, { fresh });
    }
    if (this.objects) poseObjects(this.objects, message.time_ns);
    if (this.soundings) this.soundings.update();
    this.updateHud();
    this.applyCamera({ recentre: this.needsRecentre });
    this.needsRecentre = false;
    this.requestRender();
  }

  onClosed(reason) {
    const id = this.worldId;
    this.close();
    this.worldLabel.textContent = "No World shown";
    this.showStatus(`World ${id} is no longer open (${reason}).`, true);
  }

  async onWorldChanged(id) {
    // The stream already carries poses; an edit may have changed the geometry, which
    // the stream does not carry. Ask the list first, so a deleted World is not fetched.
    if (id !== this.worldId || !this.scene) return;
    try {
      const { worlds } = await this.api.get("/worlds");
      if (id !== this.worldId) return;
      if (!worlds.some((w) => w.id === id)) return; // the stream reports the closing
      if (!this.stream || !this.stream.isOpen()) {
        // Between reconnections the stream is silent: read the state instead.
        const { state } = await this.api.get(`/worlds/${encodeURIComponent(id)}/state`);
        if (id !== this.worldId) return;
        const message = { type: "state", world_id: id, tick: state.tick, time_ns: state.time_ns, state };
        this.onState(message, true);
      }
      const scene = await this.api.get(`/worlds/${encodeURIComponent(id)}/scene`, { query: { encoding: "base64" } });
      if (id !== this.worldId) return;
      const key = (s) => JSON.stringify([s.environment_hash, s.vehicles.map((v) => [v.name, v.spec_hash])]);
      if (key(scene) !== key(this.scene)) {
        this.build(scene);
        if (this.state) this.applyPoses(this.state, false);
      }
    } catch (err) {
      if (id === this.worldId) this.showStatus(plainError(err), true);
    }
  }

  updateHud() {
    const name = this.vehicleSelect.value;
    const v = this.state && this.state.state.vehicles[name];
    if (!v) {
      this.hud.hidden = true;
      return;
    }
    const deg = 180 / Math.PI;
    const [n, e, d] = v.position_ned_m;
    const t = this.state.time_ns;
    // The integer clock shown as seconds without float rounding: whole s and ns apart.
    const seconds = `${Math.floor(t / 1e9)}.${String(t % 1e9).padStart(9, "0")}`;
    this.hud.textContent = [
      `${this.worldId} · vehicle ${name}`,
      `tick ${this.state.tick} · t ${seconds} s`,
      `N ${fmt(n)} m  E ${fmt(e)} m  D ${fmt(d)} m`,
      `heading ${fmt(headingDeg(v.heading_rad), 1)}°  roll ${fmt(v.roll_rad * deg, 1)}°  pitch ${fmt(v.pitch_rad * deg, 1)}°`,
      `speed ${fmt(v.speed_over_ground_m_s, 2)} m/s over ground`,
    ].join("\n");
    this.hud.hidden = false;
  }

  // ---------------------------------------------------------------- camera

  applyCamera({ recentre = false } = {}) {
    const v = this.state && this.state.state.vehicles[this.vehicleSelect.value];
    if (!v) return;
    const [n, e, d] = v.position_ned_m;
    const target = nedToDisplay(n, e, d);
    const follow = this.modeSelect.value === "follow";
    if (this.controls) this.controls.enabled = !follow;
    if (follow) {
      // Behind the vehicle along its heading and above it, looking at it.
      const yaw = v.yaw_rad;
      this.camera.position.copy(
        nedToDisplay(n - FOLLOW_BEHIND_M * Math.cos(yaw), e - FOLLOW_BEHIND_M * Math.sin(yaw), d - FOLLOW_ABOVE_M),
      );
      this.camera.lookAt(target);
      if (this.controls) this.controls.target.copy(target);
    } else if (recentre) {
      // Orbit: from astern, to port and above, close enough that the hull reads as a
      // vehicle, aimed a little ahead and below it, where its sonar looks.
      const yaw = v.yaw_rad;
      const back = 11;
      const side = 6;
      this.camera.position.copy(
        nedToDisplay(
          n - back * Math.cos(yaw) + side * Math.sin(yaw),
          e - back * Math.sin(yaw) - side * Math.cos(yaw),
          d - 5,
        ),
      );
      const ahead = nedToDisplay(n + 5 * Math.cos(yaw), e + 5 * Math.sin(yaw), d + 2);
      if (this.controls) {
        this.controls.target.copy(ahead);
        this.controls.update();
      } else {
        this.camera.lookAt(ahead);
      }
    }
    this.requestRender();
  }

  // ---------------------------------------------------------------- test hook

  poses() {
    const vehicles = {};
    for (const [name, node] of this.vehicles) vehicles[name] = nedPoseOf(node, this.nedRoot);
    return { worldId: this.worldId, tick: this.state ? this.state.tick : null, vehicles };
  }

  drawn() {
    // What is in the three.js scene graph now (not what was fetched).
    const env = this.nedRoot.children.find((c) => c.name === "environment");
    const vehicles = {};
    for (const [name, node] of this.vehicles) {
      vehicles[name] = {
        hull: Boolean(node.getObjectByName(`${name} hull`)),
        marker: Boolean(node.getObjectByName(`${name} marker`)),
        sensors: node.children.filter((c) => c.name.startsWith(`${name}/`)).map((c) => ({
          id: c.name,
          parts: c.children.map((p) => p.name),
        })),
      };
    }
    return { objects: env ? env.children.map((c) => c.name) : [], vehicles };
  }

  trailCounts() {
    const counts = {};
    for (const [name, { trail }] of this.trails) counts[name] = trail.count;
    return counts;
  }

  trailPoints(name) {
    // The drawn vertices (float32, NED: the trail lies under the NED group).
    const entry = this.trails.get(name);
    if (!entry) return null;
    const { positions, count } = entry.trail;
    return Array.from({ length: count }, (_, i) => Array.from(positions.subarray(3 * i, 3 * i + 3)));
  }

  /** What WebGL draws at the NED point (north, east, down) [m]: renders a frame and
   * reads that drawing-buffer pixel (RGBA), and again with vehicle ``without`` hidden
   * (so a test can tell the vehicle is what is drawn there). */
  pixelAt(north, east, down, without = null) {
    if (!this.renderer) return null;
    this.nedRoot.updateMatrixWorld(true);
    const p = new THREE.Vector3(north, east, down).applyMatrix4(this.nedRoot.matrixWorld);
    p.project(this.camera);
    const size = this.renderer.getDrawingBufferSize(new THREE.Vector2());
    // NDC to drawing-buffer pixels; WebGL counts rows from the bottom.
    const x = Math.min(size.x - 1, Math.max(0, Math.floor(((p.x + 1) / 2) * size.x)));
    const y = Math.min(size.y - 1, Math.max(0, Math.floor(((p.y + 1) / 2) * size.y)));
    const gl = this.renderer.getContext();
    const read = () => {
      this.renderer.render(this.three, this.camera);
      const rgba = new Uint8Array(4);
      gl.readPixels(x, y, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
      return Array.from(rgba);
    };
    const pixel = read();
    let hidden = null;
    const node = without === null ? null : this.vehicles.get(without);
    if (node) {
      node.visible = false;
      hidden = read();
      node.visible = true;
      this.renderer.render(this.three, this.camera);
    }
    const inView = Math.abs(p.x) <= 1 && Math.abs(p.y) <= 1 && p.z >= -1 && p.z <= 1;
    return { x, y, inView, pixel, without: hidden };
  }

  cameraInfo() {
    const target = this.controls ? this.controls.target : new THREE.Vector3();
    return {
      mode: this.modeSelect.value,
      vehicle: this.vehicleSelect.value || null,
      position: displayToNed(this.camera.position),
      target: displayToNed(target),
      frames: this.frames,
      webgl: Boolean(this.renderer),
    };
  }
}

/** Builds the Viewport in ``section``; opens a World on bus "show-in-viewport" {id}. */
export function mount(section, api) {
  const viewport = new Viewport(section, api);
  on("show-in-viewport", ({ id }) => {
    viewport.open(id);
    section.hidden = false;
    section.scrollIntoView({ block: "start" });
  });
  on("world-changed", ({ id }) => viewport.onWorldChanged(id));
  Object.assign((window.leviathanTest ??= {}), {
    viewportPoses: () => viewport.poses(),
    viewportCamera: () => viewport.cameraInfo(),
    viewportTrails: () => viewport.trailCounts(),
    viewportTrail: (name) => viewport.trailPoints(name),
    viewportDrawn: () => viewport.drawn(),
    viewportSoundings: () => (viewport.soundings ? viewport.soundings.drawn() : {}),
    viewportPixelAt: (north, east, down, without = null) => viewport.pixelAt(north, east, down, without),
  });
  return viewport;
}
