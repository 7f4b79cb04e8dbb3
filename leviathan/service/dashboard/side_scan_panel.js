// The Side-scan panel: a waterfall, through the service's public endpoints only, from
// one of two sources:
//   * the World selected in the World panel, live:
//       GET /worlds/{id}/scene lists its vehicles and their sensors (kind side_scan);
//       GET /worlds/{id}/side-scan/{vehicle}/{sensor}/waterfall?view=... is the PNG of
//       the lines the World keeps (newest at the top, port left, nadir in the centre).
//     It redraws after every change of the World it hears of (the World panel's
//     "world-changed" and "world-ticked" events).
//   * a typed straight track, without a World: a catalogue side-scan (GET /catalogue)
//     from a pose (north, east, down [m]; roll, pitch, yaw [deg]) at a speed [m/s] for a
//     number of pings on the sensor's own schedule, over the built-in survey scene:
//       POST /side-scan/waterfall {sensor, position_ned_m, rpy_deg, speed_m_per_s,
//       ping_count, view, scene}.
// Both answers carry the waterfall's display hash, line count and newest line's hash
// in headers, and the status line reports them. Each waterfall row is drawn ROW_PX
// pixels tall, without smoothing, so every cell keeps its own colour.

import { el, canvasPixels, drawPng, followWorld, oneAtATime, sensorsOfKind, setChoices, showError } from "./sensor_panel.js";

const ROW_PX = 3;
const WORLD_HINT = "Select a World with a side-scan sonar in the World panel.";

// The typed track's fields: [name, label, unit, default, what it means, whole number].
const TRACK_FIELDS = [
  ["north", "North", "m", "-40", "the start's north position in metres", false],
  ["east", "East", "m", "0", "the start's east position in metres", false],
  ["down", "Down", "m", "20", "the start's depth (down) in metres", false],
  ["roll", "Roll", "deg", "0", "the roll angle in degrees", false],
  ["pitch", "Pitch", "deg", "0", "the pitch angle in degrees", false],
  ["yaw", "Yaw", "deg", "0", "the heading (yaw) in degrees", false],
  ["speed", "Speed", "m/s", "1.5", "the speed along the heading in metres per second", false],
  ["pings", "Pings", "", "64", "a whole number of pings", true],
  ["triangles", "Seabed triangles", "", "100000", "a whole number of seabed triangles", true],
];

// The request fields, by the name the service's errors give them, in the form's words.
const FIELD_LABELS = {
  position_ned_m: "Start (north, east, down)",
  rpy_deg: "Attitude (roll, pitch, yaw)",
  speed_m_per_s: "Speed",
  ping_count: "Pings",
  "scene.seabed_triangles": "Seabed triangles",
  sensor: "Side-scan",
};

class PanelError extends Error {}

/** A number from a text field, or a plain-words PanelError naming the field. */
function readNumber(input, label, meaning, integer) {
  const raw = input.value.trim();
  const value = Number(raw);
  if (raw === "" || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    const given = raw === "" ? "nothing was given" : `"${raw}" is not ${integer ? "a whole number" : "a number"}`;
    throw new PanelError(`${label}: ${given}. Give ${meaning}, for example ${input.placeholder}.`);
  }
  return value;
}

/** A service refusal of one of the track's fields in the form's words; else plain words. */
function trackError(err) {
  const detail = err?.detail;
  const field = typeof detail?.field === "string" ? detail.field.replace(/\[\d+\]$/, "") : null;
  const label = field === null ? undefined : FIELD_LABELS[field];
  if (label === undefined || err.status !== 422) return err;
  const expected = detail.expected ? ` (${String(detail.expected)})` : "";
  return `${label}: the service refused ${JSON.stringify(detail.value)}${expected}. Correct it and render again.`;
}

class SideScanPanel {
  constructor(section, api) {
    this.api = api;
    this.worldId = null;
    this.drawn = { source: null, worldId: null, sensor: null, view: null, lines: 0, displayHash: null, width: 0, height: 0 };
    this.redraw = oneAtATime(() => this.draw());
    this.fromWorld = el("input", { type: "radio", name: "side-scan-source", value: "world", "data-role": "side-scan-source-world", checked: "" });
    this.fromTrack = el("input", { type: "radio", name: "side-scan-source", value: "track", "data-role": "side-scan-source-track" });
    this.select = el("select", { "data-role": "side-scan-select", "aria-label": "Side-scan sensor" });
    this.view = el("select", { "data-role": "side-scan-view", "aria-label": "Waterfall view" },
      el("option", { value: "slant_range", text: "slant range (as sampled)" }),
      el("option", { value: "ground_range", text: "ground range (flat-bottom corrected)" }));
    this.trackSensor = el("select", { "data-role": "side-scan-track-sensor", "aria-label": "Catalogue side-scan" });
    this.inputs = {};
    const fields = TRACK_FIELDS.map(([name, label, unit, value]) => {
      this.inputs[name] = el("input", { type: "text", inputmode: "decimal", size: "8", value, placeholder: value,
        autocomplete: "off", "data-field": name, "aria-label": `${label}${unit ? ` [${unit}]` : ""}` });
      return el("label", { class: "side-scan-field" }, `${label} `, this.inputs[name], unit ? ` ${unit}` : null);
    });
    this.render = el("button", { type: "submit", "data-action": "side-scan-render", text: "Render track" });
    this.track = el("form", { class: "side-scan-track", "data-role": "side-scan-track", novalidate: "" },
      el("p", { class: "note", text: "A straight track at constant attitude and speed, pinged on the sensor's own schedule, over the built-in survey scene (seabed, crate, drum, pipeline, ball); no World needed." }),
      el("label", { class: "side-scan-field" }, "Side-scan ", this.trackSensor), ...fields, this.render);
    this.status = el("p", { "data-role": "side-scan-status", role: "status", text: WORLD_HINT });
    this.canvas = el("canvas", { "data-role": "side-scan-waterfall", width: "1", height: "1",
      "aria-label": "Side-scan waterfall: port left, nadir in the centre, newest line on top" });
    this.exact = document.createElement("canvas"); // 1:1 copy, read by the test hook
    this.error = el("p", { class: "error", "data-role": "error", role: "alert", hidden: "" });
    section.append(
      el("p", { class: "note", text: "Each row is one ping (newest on top); port on the left, starboard on the right, nadir in the centre. Dark: no echo (the nadir gap, shadows)." }),
      el("fieldset", { class: "side-scan-source" }, el("legend", { text: "Waterfall of" }),
        el("label", {}, this.fromWorld, " the selected World's side-scan"),
        el("label", {}, this.fromTrack, " a typed straight track")),
      el("div", { class: "side-scan-controls" }, this.select, this.view),
      this.track, this.status, this.canvas, this.error);
    this.select.addEventListener("change", () => this.redraw());
    this.view.addEventListener("change", () => (this.source() === "world" ? this.redraw() : this.renderTrack()));
    this.fromWorld.addEventListener("change", () => this.syncSource());
    this.fromTrack.addEventListener("change", () => this.syncSource());
    this.track.addEventListener("submit", (event) => {
      event.preventDefault();
      this.renderTrack();
    });
    followWorld({ current: () => this.worldId, setWorld: (id) => this.setWorld(id), redraw: () => this.redraw() });
    this.syncSource();
  }

  source() {
    return this.fromTrack.checked ? "track" : "world";
  }

  syncSource() {
    const track = this.source() === "track";
    this.track.hidden = !track;
    this.select.disabled = track;
    if (track) {
      this.loadCatalogue();
      this.status.textContent = "Give a start, attitude, speed and pings, then Render track.";
    } else {
      this.status.textContent = WORLD_HINT;
      if (this.worldId !== null) this.redraw();
    }
  }

  async loadCatalogue() {
    if (this.trackSensor.options.length) return;
    try {
      const catalogue = await this.api.get("/catalogue");
      const ids = [];
      for (const vehicle of catalogue.vehicles) {
        for (const sensor of vehicle.sensors) if (sensor.kind === "side_scan") ids.push(`${vehicle.name}/${sensor.name}`);
      }
      setChoices(this.trackSensor, ids);
    } catch (err) {
      showError(this.error, err);
    }
  }

  async setWorld(id) {
    this.worldId = id ?? null;
    this.select.replaceChildren();
    const live = this.source() === "world";
    if (this.worldId === null) {
      if (live) this.status.textContent = WORLD_HINT;
      return;
    }
    let sensors;
    try {
      sensors = await sensorsOfKind(this.api, this.worldId, "side_scan");
    } catch (err) {
      if (live) showError(this.error, err);
      return;
    }
    setChoices(this.select, sensors);
    if (!sensors.length) {
      if (this.source() === "world") this.status.textContent = `World ${this.worldId} has no side-scan sonar.`;
      return;
    }
    await this.redraw();
  }

  async draw() {
    if (this.source() !== "world" || this.worldId === null || !this.select.value) return;
    const [vehicle, sensor] = this.select.value.split("/");
    const world = this.worldId;
    const view = this.view.value;
    const path = `/worlds/${encodeURIComponent(world)}/side-scan/${encodeURIComponent(vehicle)}/${encodeURIComponent(sensor)}/waterfall`;
    let response;
    try {
      response = await this.api.get(path, { raw: true, query: { view } });
    } catch (err) {
      showError(this.error, err);
      return;
    }
    if (this.source() !== "world") return;
    if (response.status === 204) {
      this.status.textContent = `${vehicle}/${sensor}: no line yet; step or play the World.`;
      return;
    }
    await this.show(response, { source: "world", worldId: world, sensor: `${vehicle}/${sensor}`, view });
  }

  /** The track's request body, or a PanelError naming the field. */
  trackRequest() {
    const v = {};
    for (const [name, label, , , meaning, integer] of TRACK_FIELDS) v[name] = readNumber(this.inputs[name], label, meaning, integer);
    if (!this.trackSensor.value) throw new PanelError("Side-scan: the catalogue lists no side-scan to render.");
    return {
      sensor: this.trackSensor.value,
      position_ned_m: [v.north, v.east, v.down],
      rpy_deg: [v.roll, v.pitch, v.yaw],
      speed_m_per_s: v.speed,
      ping_count: v.pings,
      view: this.view.value,
      scene: { kind: "survey_demo", seabed_triangles: v.triangles },
    };
  }

  async renderTrack() {
    if (this.source() !== "track") return;
    await this.loadCatalogue();
    let body;
    try {
      body = this.trackRequest();
    } catch (err) {
      if (!(err instanceof PanelError)) throw err;
      showError(this.error, err.message);
      return;
    }
    this.render.disabled = true;
    this.status.textContent = `Rendering ${body.ping_count} ping${body.ping_count === 1 ? "" : "s"} of ${body.sensor}...`;
    try {
      const response = await this.api.post("/side-scan/waterfall", body, { raw: true });
      if (this.source() === "track") await this.show(response, { source: "track", worldId: null, sensor: body.sensor, view: body.view });
    } catch (err) {
      this.status.textContent = "";
      showError(this.error, trackError(err));
    } finally {
      this.render.disabled = false;
    }
  }

  /** Draws a waterfall answer and reports its headers. */
  async show(response, what) {
    const bitmap = await drawPng(response, this.exact);
    this.canvas.width = bitmap.width;
    this.canvas.height = bitmap.height * ROW_PX;
    const ctx = this.canvas.getContext("2d");
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(bitmap, 0, 0, bitmap.width, bitmap.height * ROW_PX);
    const lines = Number(response.headers.get("x-leviathan-lines"));
    this.drawn = {
      ...what, lines,
      displayHash: response.headers.get("x-leviathan-display-hash"),
      newestLine: response.headers.get("x-leviathan-newest-line"),
      width: bitmap.width, height: bitmap.height,
    };
    this.error.hidden = true;
    const origin = what.source === "track" ? " along the typed track" : "";
    this.status.textContent = `${what.sensor}${origin}: ${lines} line${lines === 1 ? "" : "s"} (${what.view.replace("_", " ")}), display hash ${this.drawn.displayHash.slice(0, 12)}…`;
  }
}

/** Mounts the Side-scan panel into its <section>; `api` is api.js's api object. */
export async function mount(section, api) {
  const panel = new SideScanPanel(section, api);
  Object.assign((window.leviathanTest ??= {}), {
    sideScanDrawn: () => ({ ...panel.drawn }),
    sideScanPixels: () => canvasPixels(panel.exact),
  });
}
