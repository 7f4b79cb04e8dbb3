// The World panel (Figure 2.2): create a World from the catalogue, list and select the
// open Worlds, Play/Pause, Step 20, Reset, Show in Viewport, Export USD, Delete; the
// north-up track plot; each vehicle's depth, speed, position, heading and attitude; the
// simulation time and tick from the integer clock; the snapshot hash; the current.
// Everything goes through the service's public endpoints (api.js); numbers are in
// LEVIATHAN's frames (NED metres, body FRD), angles shown in degrees.

import { ServiceError, emit, plainError } from "./api.js";
import { TrackPlot } from "./track_plot.js";

const DEG = 180 / Math.PI;
const STEP_TICKS = 20;
// Suggested values for required controller fields (the service has no default for them).
const SUGGESTED = {
  speed_m_per_s: 1.0, depth_m: 5.0, heading_rad: 0.0, acceptance_radius_m: 2.0,
  leg_length_m: 30.0, leg_spacing_m: 8.0, legs: 2, origin_ne_m: "0, 0",
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

// A document field name as a label and its unit: "depth_bandwidth_rad_s" -> ["depth
// bandwidth", "rad/s"]; angles given in radians are shown and typed in degrees.
const UNITS = [["_m_per_s", "m/s"], ["_rad_s", "rad/s"], ["_rad", "deg"], ["_m", "m"], ["_n", "N"]];

function fieldLabel(name) {
  for (const [suffix, unit] of UNITS) {
    if (name.endsWith(suffix)) return [name.slice(0, -suffix.length).replace(/_/g, " "), unit];
  }
  return [name.replace(/_/g, " "), ""];
}

function labelled(text, input, unit = "") {
  return el("label", { class: "field" }, el("span", {}, text + (unit ? ` [${unit}]` : "")), input);
}

function numberInput(name, value, { step = "any" } = {}) {
  return el("input", { type: "number", name, value: String(value), step });
}

/** Integer nanoseconds as exact decimal seconds ("1.25"), with no float rounding. */
export function formatSeconds(timeNs) {
  const ns = BigInt(timeNs);
  const whole = ns / 1000000000n;
  const frac = (ns % 1000000000n).toString().padStart(9, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}

function fixed(value, digits) {
  return value === null || value === undefined ? "–" : Number(value).toFixed(digits);
}

function parseNumber(text, what) {
  const value = Number(String(text).trim());
  if (String(text).trim() === "" || !Number.isFinite(value)) {
    throw new Error(`${what}: expected a number, got "${text}"`);
  }
  return value;
}

function parseList(text, what) {
  return String(text).split(/[,\s]+/).filter(Boolean).map((t) => parseNumber(t, what));
}

function parsePoints(text, what) {
  return String(text).split(/[\n;]+/).map((l) => l.trim()).filter(Boolean).map((line) => {
    const xyz = parseList(line, what);
    if (xyz.length !== 3) throw new Error(`${what}: expected north, east, down per line, got "${line}"`);
    return xyz;
  });
}

class WorldPanel {
  constructor(section, api) {
    this.section = section;
    this.api = api;
    this.catalogue = null;
    this.worldId = null;
    this.info = null;
    this.state = null;
    this.hash = null;
    this.tracks = new Map(); // vehicle -> {ticks, east, north}
    this.currents = new Map(); // world id -> its current as GET .../current reported it
    this.socket = null;
    this.refreshing = null;
    this.refreshAgain = false;
    this.actions = Promise.resolve(); // the World actions, one after another
    this.actionsPending = 0;
    this.build();
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.error = el("p", { class: "error", role: "alert", hidden: true, "data-role": "error" });
    this.createForm = el("form", { class: "create", "data-role": "create-form", onsubmit: (e) => { e.preventDefault(); this.create(); } });
    this.vehicleRows = el("div", { class: "vehicle-rows" });
    this.worldSelect = el("select", { name: "world", "data-role": "world-select", onchange: () => this.guard(() => this.select(this.worldSelect.value || null)) });
    const button = (action, text, handler) =>
      el("button", { type: "button", "data-action": action, disabled: true, onclick: () => this.guard(handler) }, text);
    this.buttons = {
      play: button("play", "Play", () => this.play()),
      pause: button("pause", "Pause", () => this.pause()),
      step: button("step", `Step ${STEP_TICKS}`, () => this.step()),
      reset: button("reset", "Reset", () => this.reset()),
      viewport: button("viewport", "Show in Viewport", () => this.showInViewport()),
      usd: button("usd", "Export USD", () => this.exportUsd()),
      delete: button("delete", "Delete", () => this.remove()),
    };
    this.playMode = el("select", { name: "play-mode", "data-role": "play-mode" },
      el("option", { value: "realtime" }, "real time"), el("option", { value: "fast" }, "as fast as possible"));
    this.clock = el("dl", { class: "clock", "data-role": "clock" });
    this.vehicleTable = el("table", { class: "vehicles", "data-role": "vehicles" });
    this.plotBox = el("div", { class: "track-plot", "data-role": "track-plot" }, el("p", { class: "empty" }, "No World selected."));
    this.plot = new TrackPlot(this.plotBox);
    this.currentForm = this.buildCurrentForm();

    this.section.append(
      this.error,
      el("details", { class: "create-box", open: true },
        el("summary", {}, "Create a World"), this.createForm),
      el("div", { class: "world-bar" },
        labelled("Open Worlds", this.worldSelect),
        el("button", { type: "button", "data-action": "refresh-list", onclick: () => this.guard(() => this.loadWorlds()) }, "Refresh list")),
      el("div", { class: "buttons" }, this.buttons.play, this.playMode, this.buttons.pause, this.buttons.step,
        this.buttons.reset, this.buttons.viewport, this.buttons.usd, this.buttons.delete),
      el("div", { class: "world-body" },
        el("div", { class: "readouts" }, this.clock, this.vehicleTable, this.currentForm),
        this.plotBox),
    );
  }

  buildCreateForm() {
    const f = this.createForm;
    f.replaceChildren(
      this.vehicleRows,
      el("div", { class: "row" },
        el("button", { type: "button", "data-action": "add-vehicle", onclick: () => this.addVehicleRow() }, "Add a vehicle")),
      el("div", { class: "row" },
        labelled("Seed", el("input", { type: "number", name: "root_seed", value: "0", min: "0", step: "1" })),
        labelled("Tick length", el("input", { type: "text", name: "step_s", value: "0.05", size: "8" }), "s"),
        el("button", { type: "submit", "data-action": "create" }, "Create World")),
    );
    this.addVehicleRow();
  }

  addVehicleRow() {
    const index = this.vehicleRows.children.length;
    const vehicles = this.catalogue.vehicles;
    const spec = el("select", { name: "spec" }, ...vehicles.map((v) =>
      el("option", { value: v.name, selected: v.name === "reference_survey_vehicle" }, v.name)));
    const kind = el("select", { name: "controller_kind" }, ...this.catalogue.controllers.map((c) =>
      el("option", { value: c.kind, selected: c.kind === "autopilot", title: c.description }, c.kind.replace(/_/g, " "))));
    const fields = el("div", { class: "controller-fields" });
    const row = el("fieldset", { class: "vehicle-row", "data-role": "vehicle-row" },
      el("legend", {}, `Vehicle ${index + 1}`),
      el("div", { class: "row" },
        labelled("Vehicle", spec),
        labelled("Name", el("input", { type: "text", name: "name", value: index === 0 ? "auv" : `auv${index + 1}`, size: "8" })),
        labelled("North", numberInput("north", 0), "m"),
        labelled("East", numberInput("east", index * 5), "m"),
        labelled("Down", numberInput("down", 2), "m"),
        labelled("Heading", numberInput("heading_deg", 0), "deg")),
      el("div", { class: "row" }, labelled("Controller", kind), fields));
    const render = () => this.renderControllerFields(fields, kind.value, spec.value);
    kind.addEventListener("change", render);
    spec.addEventListener("change", render);
    render();
    if (index > 0) {
      row.append(el("button", { type: "button", "data-action": "remove-vehicle", onclick: () => row.remove() }, "Remove"));
    }
    this.vehicleRows.append(row);
  }

  renderControllerFields(box, kind, specName) {
    const controller = this.catalogue.controllers.find((c) => c.kind === kind);
    const vehicle = this.catalogue.vehicles.find((v) => v.name === specName);
    const optionalBox = el("div", { class: "row" });
    box.replaceChildren();
    for (const field of controller.fields) {
      const optional = field.required ? "" : " (optional)";
      const title = field.description ?? "";
      let input;
      if (field.type === "number" || field.type === "integer") {
        const inDegrees = field.name.endsWith("_rad");
        const suggested = field.required ? (SUGGESTED[field.name] ?? "") : (field.default ?? "");
        const bounds = inDegrees ? {} : { min: field.minimum ?? undefined, max: field.maximum ?? undefined };
        input = el("input", { type: "number", step: field.type === "integer" ? "1" : "any", name: field.name,
          value: String(suggested), title, ...bounds,
          dataset: { ftype: field.type, unit: inDegrees ? "deg" : "", required: String(field.required) } });
        const [label, unit] = fieldLabel(field.name);
        (field.required ? box : optionalBox).append(labelled(label, input, unit));
      } else if (field.type === "pair") {
        input = el("input", { type: "text", name: field.name, value: String(SUGGESTED[field.name] ?? "0, 0"), size: "10",
          title, dataset: { ftype: "pair", required: String(field.required) } });
        const [label, unit] = fieldLabel(field.name);
        box.append(labelled(`${label} (north, east)${optional}`, input, unit));
      } else if (field.type === "numbers") {
        const zeros = (vehicle?.thrusters ?? []).map(() => "0").join(", ");
        input = el("input", { type: "text", name: field.name, value: zeros, size: "24", title,
          dataset: { ftype: "numbers", required: String(field.required) } });
        const names = (vehicle?.thrusters ?? []).map((t) => t.name).join(", ");
        box.append(labelled(`thrust per thruster (${names})${optional}`, input, "N"));
      } else if (field.type === "points") {
        input = el("textarea", { name: field.name, rows: "3", cols: "22", title,
          dataset: { ftype: "points", required: String(field.required) } }, "20, 0, 5\n20, 20, 5");
        box.append(labelled(`waypoints, north, east, down per line${optional}`, input, "m"));
      } else {
        throw new Error(`controller field ${field.name}: the service sent an unknown form type ${field.type}`);
      }
    }
    if (optionalBox.children.length) {
      box.append(el("details", { class: "optional" },
        el("summary", {}, "optional settings (left empty: the library's defaults)"), optionalBox));
    }
  }

  buildCurrentForm() {
    const mode = el("select", { name: "current_mode", "data-role": "current-mode" },
      el("option", { value: "ned" }, "north, east, down"),
      el("option", { value: "polar" }, "speed and direction"));
    const ned = el("div", { class: "row", "data-role": "current-ned" },
      labelled("North", numberInput("current_north", 0), "m/s"),
      labelled("East", numberInput("current_east", 0), "m/s"),
      labelled("Down", numberInput("current_down", 0), "m/s"));
    const polar = el("div", { class: "row", "data-role": "current-polar", hidden: true },
      labelled("Speed", numberInput("current_speed", 0), "m/s"),
      labelled("Towards", numberInput("current_direction_deg", 0), "deg from north"));
    mode.addEventListener("change", () => {
      ned.hidden = mode.value !== "ned";
      polar.hidden = mode.value !== "polar";
    });
    this.currentShown = el("p", { class: "current-shown", "data-role": "current-shown" });
    this.currentApply = el("button", { type: "submit", "data-action": "set-current", disabled: true }, "Set current");
    return el("form", { class: "current", "data-role": "current-form",
      onsubmit: (e) => { e.preventDefault(); this.guard(() => this.setCurrent()); } },
      el("h3", {}, "Current"), labelled("Give it as", mode), ned, polar, this.currentApply, this.currentShown);
  }

  // ------------------------------------------------------------------ errors

  showError(err) {
    this.error.textContent = plainError(err);
    this.error.hidden = false;
  }

  clearError() {
    this.error.hidden = true;
    this.error.textContent = "";
  }

  /** Runs an action; any failure is shown in the panel in plain words. */
  async guard(action) {
    try {
      await this.exclusive(action);
      this.clearError();
    } catch (err) {
      this.showError(err);
      if (err?.code === "world_not_found" || err?.code === "world_released") await this.forget(this.worldId);
    }
  }

  // ------------------------------------------------------------------ worlds

  async start() {
    try {
      this.catalogue = await this.api.get("/catalogue");
      this.buildCreateForm();
      await this.loadWorlds();
    } catch (err) {
      this.showError(err);
    }
  }

  async loadWorlds() {
    const { worlds } = await this.api.get("/worlds");
    const keep = this.worldId;
    this.worldSelect.replaceChildren(
      el("option", { value: "" }, worlds.length ? "— choose a World —" : "— no open Worlds —"),
      ...worlds.map((w) => el("option", { value: w.id }, `${w.id} · ${w.vehicles.join(", ")} · tick ${w.tick}`)));
    const stillOpen = worlds.some((w) => w.id === keep);
    this.worldSelect.value = stillOpen ? keep : "";
    if (!stillOpen && keep !== null) await this.select(null);
  }

  readVehicleRow(row) {
    const value = (name) => row.querySelector(`[name="${name}"]`).value;
    const name = value("name").trim();
    const controller = { kind: value("controller_kind") };
    for (const input of row.querySelectorAll(".controller-fields [name]")) {
      const what = `${name}.controller.${input.name}`;
      const text = input.value.trim();
      if (text === "" && input.dataset.required !== "true") continue;
      const type = input.dataset.ftype;
      if (type === "number" || type === "integer") {
        const v = parseNumber(text, what);
        controller[input.name] = input.dataset.unit === "deg" ? v / DEG : v;
      } else if (type === "pair") {
        const pair = parseList(text, what);
        if (pair.length !== 2) throw new Error(`${what}: expected north, east, got "${text}"`);
        controller[input.name] = pair;
      } else if (type === "numbers") controller[input.name] = parseList(text, what);
      else controller[input.name] = parsePoints(text, what);
    }
    return {
      name,
      spec: value("spec"),
      controller,
      position_ned_m: [parseNumber(value("north"), `${name}.north`), parseNumber(value("east"), `${name}.east`), parseNumber(value("down"), `${name}.down`)],
      rpy_rad: [0, 0, parseNumber(value("heading_deg"), `${name}.heading`) / DEG],
    };
  }

  async create() {
    await this.guard(async () => {
      const f = this.createForm;
      const seedText = f.querySelector('[name="root_seed"]').value.trim();
      const body = {
        vehicles: [...this.vehicleRows.querySelectorAll("[data-role=vehicle-row]")].map((r) => this.readVehicleRow(r)),
        root_seed: seedText === "" ? 0 : Number(seedText),
        step_s: f.querySelector('[name="step_s"]').value.trim(),
      };
      const info = await this.api.post("/worlds", body);
      await this.loadWorlds();
      this.worldSelect.value = info.id;
      await this.select(info.id);
      emit("world-changed", { id: info.id });
    });
  }

  async select(id) {
    this.closeStream();
    this.worldId = id;
    this.info = this.state = this.hash = null;
    this.tracks = new Map();
    for (const b of Object.values(this.buttons)) b.disabled = id === null;
    this.currentApply.disabled = id === null;
    if (id !== null && this.worldSelect.value !== id) this.worldSelect.value = id;
    if (id === null) {
      this.plotBox.replaceChildren(el("p", { class: "empty" }, "No World selected."));
      this.plot = new TrackPlot(this.plotBox);
      this.render();
      emit("world-selected", { id: null });
      return;
    }
    emit("world-selected", { id });
    this.openStream(id);
    await this.settle();
  }

  async forget(id) {
    if (id === null || id !== this.worldId) return;
    await this.select(null);
    try {
      await this.loadWorlds();
    } catch {
      // The list is refreshed on the next action; the error shown already says why.
    }
  }

  // ------------------------------------------------------------------ live

  openStream(id) {
    let socket;
    try {
      socket = new WebSocket(this.api.url(`/worlds/${encodeURIComponent(id)}/stream`, { ws: true }));
    } catch {
      return; // no live push; the panel still refreshes after each action
    }
    this.socket = socket;
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      const message = JSON.parse(event.data);
      if (message.type === "state") {
        this.state = message.state;
        emit("world-ticked", { id, tick: message.state?.tick ?? null });
        this.renderLive();
        this.scheduleRefresh();
      } else if (message.type === "closed" || message.type === "error") {
        this.showError(new ServiceError({
          status: 0,
          code: message.code ?? "world_not_found",
          message: message.message ?? `${id}: the World was ${message.reason ?? "closed"}`,
          detail: message,
        }));
        this.forget(id);
      }
    });
  }

  closeStream() {
    if (this.socket) {
      const s = this.socket;
      this.socket = null;
      s.close();
    }
  }

  /**
   * Runs one action at a time, each after the refresh in flight has ended; a refresh
   * the live push asks for meanwhile waits for the action's own. Otherwise a refresh
   * that read the World before a Reset would ask it for track ticks it no longer has.
   */
  exclusive(action) {
    this.actionsPending += 1;
    const run = this.actions.then(async () => {
      if (this.refreshing) await this.refreshing.catch(() => {});
      return action();
    });
    this.actions = run.catch(() => {}).finally(() => {
      this.actionsPending -= 1;
      if (this.actionsPending === 0 && this.refreshAgain && !this.refreshing) this.scheduleRefresh();
    });
    return run;
  }

  /** Refreshes after an action; a failure is the action's (shown by guard). */
  async settle() {
    await this.scheduleRefresh({ report: false, action: true });
  }

  /**
   * One refresh at a time (two at once could read the World on either side of a
   * step or reset and ask for track ticks it no longer has); a request arriving
   * meanwhile runs once more afterwards. While an action is queued, a running loop ends
   * after its pass and the live push's requests wait for the action's own refresh (see
   * exclusive). report: show a failure here, or throw it.
   */
  scheduleRefresh({ report = true, action = false } = {}) {
    if (!this.refreshing && this.actionsPending > 0 && !action) {
      this.refreshAgain = true;
      return Promise.resolve();
    }
    if (!this.refreshing) {
      this.refreshing = (async () => {
        try {
          do {
            this.refreshAgain = false;
            await this.refresh();
          } while (this.refreshAgain && this.worldId !== null && this.actionsPending === 0);
        } finally {
          this.refreshing = null;
        }
      })();
    } else {
      this.refreshAgain = true;
    }
    const running = this.refreshing;
    if (!report) return running;
    return running.catch(async (err) => {
      this.showError(err);
      if (err?.code === "world_not_found" || err?.code === "world_released") await this.forget(this.worldId);
    });
  }

  async refresh() {
    const id = this.worldId;
    if (id === null) return;
    const path = `/worlds/${encodeURIComponent(id)}`;
    const [info, state, snapshot, current] = await Promise.all([
      this.api.get(path), this.api.get(`${path}/state`), this.api.get(`${path}/snapshot`),
      this.api.get(`${path}/current`)]);
    if (id !== this.worldId) return;
    this.currents.set(id, current);
    this.info = info;
    this.state = state.state;
    this.hash = snapshot.content_hash;
    await this.refreshTracks(id, info);
    this.render();
  }

  // Only the new ticks are fetched; a World that went back (Reset) is fetched whole.
  async refreshTracks(id, info) {
    for (const vehicle of info.vehicles) {
      let track = this.tracks.get(vehicle);
      const last = track && track.ticks.length ? track.ticks[track.ticks.length - 1] : -1;
      if (!track || info.tick < last) {
        track = { ticks: [], east: [], north: [] };
        this.tracks.set(vehicle, track);
      } else if (info.tick === last) continue;
      const from = track.ticks.length ? last + 1 : 0;
      const got = await this.api.get(`/worlds/${encodeURIComponent(id)}/track`, { query: { vehicle, from_tick: from } });
      if (id !== this.worldId) return;
      for (let i = 0; i < got.ticks.length; i++) {
        if (track.ticks.length && got.ticks[i] <= track.ticks[track.ticks.length - 1]) continue;
        track.ticks.push(got.ticks[i]);
        track.north.push(got.position_ned_m[i][0]);
        track.east.push(got.position_ned_m[i][1]);
      }
    }
    for (const name of [...this.tracks.keys()]) if (!info.vehicles.includes(name)) this.tracks.delete(name);
  }

  render() {
    this.renderClock();
    const option = this.info && [...this.worldSelect.options].find((o) => o.value === this.info.id);
    if (option) option.textContent = `${this.info.id} · ${this.info.vehicles.join(", ")} · tick ${this.info.tick}`;
    this.renderLive();
    const playing = Boolean(this.info?.playing);
    if (this.worldId !== null) {
      this.buttons.play.disabled = playing;
      this.buttons.pause.disabled = !playing;
      this.plot.update(Object.fromEntries([...this.tracks].map(([n, t]) => [n, { east: t.east, north: t.north }])));
    }
    // The World's current as the service reports it (GET .../current), not what the form holds.
    const current = this.currents.get(this.worldId);
    const c = current?.current_ned_m_per_s;
    this.currentShown.textContent = !current
      ? ""
      : current.profile.length
        ? `The World's current: a depth profile of ${current.profile.length} layers`
        : `The World's current: north ${fixed(c[0], 3)}, east ${fixed(c[1], 3)}, down ${fixed(c[2], 3)} m/s`;
  }

  renderClock() {
    const info = this.info;
    const rows = info
      ? [["World", info.id], ["Simulation time", `${formatSeconds(info.time_ns)} s`], ["Tick", String(info.tick)],
         ["Tick length", `${formatSeconds(info.step_ns)} s`], ["Playing", info.playing ? "yes" : "no"],
         ["Snapshot hash", this.hash ?? "–"]]
      : [["World", "none selected"]];
    this.clock.replaceChildren(...rows.flatMap(([k, v]) => [
      el("dt", {}, k), el("dd", { dataset: { value: k.toLowerCase().replace(/ /g, "-") } }, v)]));
  }

  renderLive() {
    const vehicles = this.state?.vehicles ?? {};
    const head = el("tr", {}, ...["vehicle", "depth [m]", "speed [m/s]", "north [m]", "east [m]", "down [m]",
      "heading [deg]", "roll [deg]", "pitch [deg]", "yaw [deg]"].map((h) => el("th", {}, h)));
    const rows = Object.entries(vehicles).map(([name, v]) => el("tr", { dataset: { vehicle: name } },
      el("th", {}, name),
      el("td", { dataset: { value: "depth" } }, fixed(v.depth_m, 3)),
      el("td", { dataset: { value: "speed" }, title: `through water ${fixed(v.speed_through_water_m_s, 3)} m/s` }, fixed(v.speed_over_ground_m_s, 3)),
      el("td", { dataset: { value: "north" } }, fixed(v.position_ned_m[0], 3)),
      el("td", { dataset: { value: "east" } }, fixed(v.position_ned_m[1], 3)),
      el("td", { dataset: { value: "down" } }, fixed(v.position_ned_m[2], 3)),
      el("td", { dataset: { value: "heading" } }, fixed(((v.heading_rad * DEG) % 360 + 360) % 360, 2)),
      el("td", { dataset: { value: "roll" } }, fixed(v.roll_rad * DEG, 2)),
      el("td", { dataset: { value: "pitch" } }, fixed(v.pitch_rad * DEG, 2)),
      el("td", { dataset: { value: "yaw" } }, fixed(v.yaw_rad * DEG, 2))));
    this.vehicleTable.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
    if (this.state && this.info && this.state.tick !== undefined) {
      const tickCell = this.clock.querySelector('[data-value="tick"]');
      if (tickCell) tickCell.textContent = String(this.state.tick);
      const timeCell = this.clock.querySelector('[data-value="simulation-time"]');
      if (timeCell) timeCell.textContent = `${formatSeconds(this.state.time_ns)} s`;
    }
  }

  // ------------------------------------------------------------------ buttons

  path(suffix = "") {
    return `/worlds/${encodeURIComponent(this.worldId)}${suffix}`;
  }

  async play() {
    await this.api.post(this.path("/play"), { mode: this.playMode.value });
    await this.settle();
  }

  async pause() {
    await this.api.post(this.path("/pause"), {});
    await this.settle();
  }

  async step() {
    await this.api.post(this.path("/step"), { n: STEP_TICKS });
    await this.settle();
    emit("world-changed", { id: this.worldId });
  }

  async reset() {
    await this.api.post(this.path("/reset"), {});
    this.tracks = new Map();
    await this.settle();
    emit("world-changed", { id: this.worldId });
  }

  showInViewport() {
    emit("show-in-viewport", { id: this.worldId });
    document.getElementById("viewport-panel")?.scrollIntoView({ behavior: "smooth", block: "start" });
  }

  async exportUsd() {
    const response = await this.api.get(this.path("/usd"), { raw: true, query: { format: "usda" } });
    const disposition = response.headers.get("content-disposition") ?? "";
    const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `${this.worldId}.usda`;
    const href = URL.createObjectURL(await response.blob());
    const link = el("a", { href, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  }

  async remove() {
    const id = this.worldId;
    await this.api.del(this.path());
    this.currents.delete(id);
    await this.select(null);
    await this.loadWorlds();
    emit("world-changed", { id });
  }

  async setCurrent() {
    const f = this.currentForm;
    const read = (name) => parseNumber(f.querySelector(`[name="${name}"]`).value, name.replace("current_", "current "));
    let ned;
    if (f.querySelector('[name="current_mode"]').value === "ned") {
      ned = [read("current_north"), read("current_east"), read("current_down")];
    } else {
      // Oceanographic convention: the direction the water flows towards, from north.
      const speed = read("current_speed");
      const towards = read("current_direction_deg") / DEG;
      ned = [speed * Math.cos(towards), speed * Math.sin(towards), 0];
    }
    const id = this.worldId;
    const result = await this.api.put(this.path("/current"), { current_ned_m_per_s: ned });
    const current = await this.api.get(this.path("/current"));
    if (id !== this.worldId) return;
    this.currents.set(id, current);
    this.state = result.state;
    await this.settle();
    emit("world-changed", { id: this.worldId });
  }
}

let panel = null;

/** Mounts the World panel into its <section>; `api` is api.js's api object. */
export async function mount(section, api) {
  panel = new WorldPanel(section, api);
  Object.assign((window.leviathanTest ??= {}), {
    trackPointCount: (vehicle = null) => panel.plot.pointCount(vehicle),
    trackPlotDrawn: () => panel.plot.drawn(),
    trackPlotPixels: (x, y, w, h) => panel.plot.pixels(x, y, w, h),
    worldPanelWorld: () => panel.worldId,
  });
  await panel.start();
}
