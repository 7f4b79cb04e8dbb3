// The Side-scan panel: a live waterfall of a hosted World's side-scan, through the
// service's public endpoints only:
//   * GET /worlds/{id}/scene lists the World's vehicles and their sensors (kind side_scan);
//   * GET /worlds/{id}/side-scan/{vehicle}/{sensor}/waterfall?view=... is the PNG of the
//     lines the World keeps (newest at the top, port left, nadir in the centre), with
//     its display hash and line count in headers.
// It redraws after every change of the World (a step, play, reset) it hears of: the
// World panel's "world-changed" and "world-ticked" events. Each waterfall row is
// drawn ROW_PX pixels tall, without smoothing, so every cell keeps its own colour.

import { on, plainError } from "./api.js";

const ROW_PX = 3;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

class SideScanPanel {
  constructor(section, api) {
    this.api = api;
    this.worldId = null;
    this.sensors = [];
    this.drawn = { worldId: null, sensor: null, view: null, lines: 0, displayHash: null, width: 0, height: 0 };
    this.pending = null;
    this.again = false;
    this.select = el("select", { "data-role": "side-scan-select", "aria-label": "Side-scan sensor" });
    this.view = el("select", { "data-role": "side-scan-view", "aria-label": "Waterfall view" },
      el("option", { value: "slant_range", text: "slant range (as sampled)" }),
      el("option", { value: "ground_range", text: "ground range (flat-bottom corrected)" }));
    this.status = el("p", { "data-role": "side-scan-status", role: "status",
      text: "Select a World with a side-scan sonar in the World panel." });
    this.canvas = el("canvas", { "data-role": "side-scan-waterfall", width: "1", height: "1",
      "aria-label": "Side-scan waterfall: port left, nadir in the centre, newest line on top" });
    this.exact = document.createElement("canvas"); // 1:1 copy, read by the test hook
    this.error = el("p", { class: "error", "data-role": "error", role: "alert", hidden: "" });
    section.append(
      el("p", { class: "note", text: "Each row is one ping (newest on top); port on the left, starboard on the right, nadir in the centre. Dark: no echo (the nadir gap, shadows)." }),
      el("div", { class: "side-scan-controls" }, this.select, this.view),
      this.status, this.canvas, this.error);
    this.select.addEventListener("change", () => this.redraw());
    this.view.addEventListener("change", () => this.redraw());
    on("world-selected", ({ id }) => this.setWorld(id));
    on("world-changed", ({ id }) => (id === this.worldId ? this.redraw() : this.setWorld(id)));
    on("world-ticked", ({ id }) => { if (id === this.worldId) this.redraw(); });
  }

  async setWorld(id) {
    this.worldId = id ?? null;
    this.sensors = [];
    this.select.replaceChildren();
    if (this.worldId === null) {
      this.status.textContent = "Select a World with a side-scan sonar in the World panel.";
      return;
    }
    try {
      const scene = await this.api.get(`/worlds/${encodeURIComponent(this.worldId)}/scene`);
      for (const vehicle of scene.vehicles) {
        for (const sensor of vehicle.sensors) {
          if (sensor.kind === "side_scan") this.sensors.push([vehicle.name, sensor.name]);
        }
      }
    } catch (err) {
      this.showError(err);
      return;
    }
    for (const [vehicle, sensor] of this.sensors) {
      this.select.append(el("option", { value: `${vehicle}/${sensor}`, text: `${vehicle}/${sensor}` }));
    }
    if (!this.sensors.length) {
      this.status.textContent = `World ${this.worldId} has no side-scan sonar.`;
      return;
    }
    await this.redraw();
  }

  /** One draw at a time; a request meanwhile draws once more afterwards. */
  redraw() {
    if (this.pending) {
      this.again = true;
      return this.pending;
    }
    this.pending = (async () => {
      try {
        do {
          this.again = false;
          await this.draw();
        } while (this.again);
      } finally {
        this.pending = null;
      }
    })();
    return this.pending;
  }

  async draw() {
    if (this.worldId === null || !this.select.value) return;
    const [vehicle, sensor] = this.select.value.split("/");
    const world = this.worldId;
    const view = this.view.value;
    const path = `/worlds/${encodeURIComponent(world)}/side-scan/${encodeURIComponent(vehicle)}/${encodeURIComponent(sensor)}/waterfall`;
    let response;
    try {
      response = await this.api.get(path, { raw: true, query: { view } });
    } catch (err) {
      this.showError(err);
      return;
    }
    if (response.status === 204) {
      this.status.textContent = `${vehicle}/${sensor}: no line yet; step or play the World.`;
      return;
    }
    const bitmap = await createImageBitmap(await response.blob());
    this.exact.width = bitmap.width;
    this.exact.height = bitmap.height;
    this.exact.getContext("2d").drawImage(bitmap, 0, 0);
    this.canvas.width = bitmap.width;
    this.canvas.height = bitmap.height * ROW_PX;
    const ctx = this.canvas.getContext("2d");
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(bitmap, 0, 0, bitmap.width, bitmap.height * ROW_PX);
    const lines = Number(response.headers.get("x-leviathan-lines"));
    this.drawn = {
      worldId: world, sensor: `${vehicle}/${sensor}`, view, lines,
      displayHash: response.headers.get("x-leviathan-display-hash"),
      newestLine: response.headers.get("x-leviathan-newest-line"),
      width: bitmap.width, height: bitmap.height,
    };
    this.error.hidden = true;
    this.status.textContent = `${vehicle}/${sensor}: ${lines} line${lines === 1 ? "" : "s"} (${view.replace("_", " ")}), display hash ${this.drawn.displayHash.slice(0, 12)}…`;
  }

  showError(err) {
    this.error.textContent = plainError(err);
    this.error.hidden = false;
  }

  /** The waterfall as drawn, one pixel per cell: rows of [r, g, b] (for the tests). */
  pixels() {
    const { width, height } = this.exact;
    if (!width || !height) return [];
    const data = this.exact.getContext("2d").getImageData(0, 0, width, height).data;
    const rows = [];
    for (let y = 0; y < height; y += 1) {
      const row = [];
      for (let x = 0; x < width; x += 1) {
        const i = 4 * (y * width + x);
        row.push([data[i], data[i + 1], data[i + 2]]);
      }
      rows.push(row);
    }
    return rows;
  }
}

/** Mounts the Side-scan panel into its <section>; `api` is api.js's api object. */
export async function mount(section, api) {
  const panel = new SideScanPanel(section, api);
  Object.assign((window.leviathanTest ??= {}), {
    sideScanDrawn: () => ({ ...panel.drawn }),
    sideScanPixels: () => panel.pixels(),
  });
}
