// The Multibeam panel: a hosted World's latest multibeam ping, through the service's
// public endpoints only:
//   * GET /worlds/{id}/scene lists the World's vehicles and their sensors (kind multibeam);
//   * GET /worlds/{id}/multibeam/{vehicle}/{sensor}/soundings is the newest kept ping,
//     beam by beam: detected sounding, quality flags, the axis ray's truth and the error;
//   * GET /worlds/{id}/multibeam/{vehicle}/{sensor}/water-column is its water column PNG.
// It redraws after every change of the World it hears of ("world-changed",
// "world-ticked"), one draw at a time.
//
// The profile (canvas data-role=multibeam-profile) plots each beam across the swath by
// its angle (port left, starboard right) against depth (world NED z, down the canvas):
//   x = MARGIN + round((angle - a0) / (a1 - a0) * (width - 2 MARGIN)), a0/a1 the first and
//   last beam's angle; y = MARGIN + round((z - z0) / (z1 - z0) * (height - 2 MARGIN)),
//   z0/z1 the least and greatest depth of the soundings and truths (widened to 1 m).
// Each detected sounding is a 3 x 3 square in its quality's colour (QUALITY_COLOURS), its
// truth a white cross 7 px wide drawn over it (so a truth off its sounding stands
// beside it); a beam without a sounding is a red 3 x 3 square in the bottom margin.
// Below it (data-role=multibeam-error) each beam's vertical error (sounding minus
// truth, positive too deep) is a 3 px wide bar from the centre line, down for too deep,
// scaled so the largest |error| fills half the height. Everything is drawn with integer
// rectangles, so each pixel keeps its colour exactly (the tests read them).

import { canvasPixels, drawPng, el, followWorld, oneAtATime, sensorsOfKind, setChoices, showError } from "./sensor_panel.js";

const PROFILE = { width: 512, height: 200 };
const ERROR = { width: 512, height: 80 };
const MARGIN = 12;
const BACKGROUND = [16, 24, 32];
const TRUTH = [255, 255, 255];
const QUALITY_COLOURS = {
  detected: [46, 204, 64], // DETECTED and nothing else
  footprint: [255, 176, 0], // DETECTED with NONPLANAR_FOOTPRINT or MIXED_FOOTPRINT
  obstructed: [220, 60, 220], // DETECTED with SEA_SURFACE or MOVING_BODY
  missing: [224, 48, 48], // no sounding (NO_BOTTOM, BELOW_THRESHOLD, MISSING_RETURN)
};
const ERROR_BAR = { deep: [255, 96, 64], shallow: [64, 160, 255] };

const rgb = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;

/** The colour class of one beam (QUALITY_COLOURS' key). */
export function qualityClass(beam) {
  if (!beam.sounding_ned_m) return "missing";
  if (beam.flags.includes("SEA_SURFACE") || beam.flags.includes("MOVING_BODY")) return "obstructed";
  if (beam.flags.includes("NONPLANAR_FOOTPRINT") || beam.flags.includes("MIXED_FOOTPRINT")) return "footprint";
  return "detected";
}

/** The profile's pixel mapping for a ping's beams (see the module comment). */
export function profileMapping(beams, width = PROFILE.width, height = PROFILE.height) {
  const a0 = beams[0].angle_rad;
  const a1 = beams[beams.length - 1].angle_rad;
  const depths = [];
  for (const b of beams) {
    if (b.sounding_ned_m) depths.push(b.sounding_ned_m[2]);
    if (b.truth_point_ned_m) depths.push(b.truth_point_ned_m[2]);
  }
  let z0 = depths.length ? Math.min(...depths) : 0;
  let z1 = depths.length ? Math.max(...depths) : 1;
  if (z1 - z0 < 1) {
    const mid = (z0 + z1) / 2;
    z0 = mid - 0.5;
    z1 = mid + 0.5;
  }
  const x = (angle) => MARGIN + (a1 > a0 ? Math.round(((angle - a0) / (a1 - a0)) * (width - 2 * MARGIN)) : Math.round((width - 2 * MARGIN) / 2));
  const y = (z) => MARGIN + Math.round(((z - z0) / (z1 - z0)) * (height - 2 * MARGIN));
  return { a0, a1, z0, z1, margin: MARGIN, width, height, x, y };
}

class MultibeamPanel {
  constructor(section, api) {
    this.api = api;
    this.worldId = null;
    this.drawn = { worldId: null, sensor: null, sampleHash: null, waterColumnHash: null, beams: 0 };
    this.redraw = oneAtATime(() => this.draw());
    this.select = el("select", { "data-role": "multibeam-select", "aria-label": "Multibeam sensor" });
    this.status = el("p", { "data-role": "multibeam-status", role: "status",
      text: "Select a World with a multibeam echosounder in the World panel." });
    this.profile = el("canvas", { "data-role": "multibeam-profile", width: String(PROFILE.width), height: String(PROFILE.height),
      "aria-label": "Soundings across the swath: port left, depth down; white crosses: axis truth" });
    this.errors = el("canvas", { "data-role": "multibeam-error", width: String(ERROR.width), height: String(ERROR.height),
      "aria-label": "Vertical error per beam: down too deep, up too shallow" });
    this.waterColumn = el("canvas", { "data-role": "multibeam-water-column", width: "1", height: "1",
      "aria-label": "Water column: beams port to starboard across, range down, detection windows red" });
    this.error = el("p", { class: "error", "data-role": "error", role: "alert", hidden: "" });
    section.append(
      el("p", { class: "note", text: "The latest ping. Top: each beam's sounding by angle (port left) and depth; green detected, amber footprint not planar or mixed, magenta surface or moving body first, red no sounding; white crosses: the beam axis's true hit. Middle: vertical error (orange too deep, blue too shallow). Bottom: the water column, detection windows in red." }),
      el("div", { class: "multibeam-controls" }, this.select),
      this.status, this.profile, this.errors, this.waterColumn, this.error);
    this.select.addEventListener("change", () => this.redraw());
    followWorld({ current: () => this.worldId, setWorld: (id) => this.setWorld(id), redraw: () => this.redraw() });
  }

  async setWorld(id) {
    this.worldId = id ?? null;
    this.select.replaceChildren();
    if (this.worldId === null) {
      this.status.textContent = "Select a World with a multibeam echosounder in the World panel.";
      return;
    }
    let sensors;
    try {
      sensors = await sensorsOfKind(this.api, this.worldId, "multibeam");
    } catch (err) {
      showError(this.error, err);
      return;
    }
    setChoices(this.select, sensors);
    if (!sensors.length) {
      this.status.textContent = `World ${this.worldId} has no multibeam echosounder.`;
      return;
    }
    await this.redraw();
  }

  async draw() {
    if (this.worldId === null || !this.select.value) return;
    const [vehicle, sensor] = this.select.value.split("/");
    const world = this.worldId;
    const base = `/worlds/${encodeURIComponent(world)}/multibeam/${encodeURIComponent(vehicle)}/${encodeURIComponent(sensor)}`;
    let ping;
    let column;
    try {
      ping = await this.api.get(`${base}/soundings`, { raw: true });
      if (ping.status === 204) {
        this.status.textContent = `${vehicle}/${sensor}: no ping yet; step or play the World.`;
        return;
      }
      ping = await ping.json();
      column = await this.api.get(`${base}/water-column`, { raw: true });
    } catch (err) {
      showError(this.error, err);
      return;
    }
    this.drawProfile(ping.beams);
    this.drawErrors(ping.beams);
    let waterColumnHash = null;
    if (column.status === 200) {
      await drawPng(column, this.waterColumn);
      waterColumnHash = column.headers.get("x-leviathan-sample-hash");
    }
    const detected = ping.beams.filter((b) => b.sounding_ned_m);
    const errors = ping.beams.map((b) => b.error_vertical_m).filter((e) => e !== null);
    const worst = errors.length ? Math.max(...errors.map(Math.abs)) : null;
    this.drawn = {
      worldId: world, sensor: `${vehicle}/${sensor}`, sampleHash: ping.sample_hash,
      waterColumnHash, beams: ping.beams.length, timeNs: ping.time_ns,
    };
    this.error.hidden = true;
    this.status.textContent = `${vehicle}/${sensor} at ${(ping.time_ns / 1e9).toFixed(3)} s: ${detected.length} of ${ping.beams.length} beams detected` +
      (worst === null ? "" : `, largest |vertical error| ${worst.toFixed(3)} m`) + `, ping ${ping.sample_hash.slice(0, 12)}…`;
  }

  drawProfile(beams) {
    const ctx = this.profile.getContext("2d");
    ctx.fillStyle = rgb(BACKGROUND);
    ctx.fillRect(0, 0, PROFILE.width, PROFILE.height);
    if (!beams.length) return;
    const map = profileMapping(beams);
    this.mapping = { a0: map.a0, a1: map.a1, z0: map.z0, z1: map.z1, margin: MARGIN, width: PROFILE.width, height: PROFILE.height };
    for (const beam of beams) {
      const x = map.x(beam.angle_rad);
      const kind = qualityClass(beam);
      ctx.fillStyle = rgb(QUALITY_COLOURS[kind]);
      const y = kind === "missing" ? PROFILE.height - Math.ceil(MARGIN / 2) : map.y(beam.sounding_ned_m[2]);
      ctx.fillRect(x - 1, y - 1, 3, 3);
    }
    ctx.fillStyle = rgb(TRUTH);
    for (const beam of beams) {
      if (!beam.truth_point_ned_m) continue;
      const x = map.x(beam.angle_rad);
      const y = map.y(beam.truth_point_ned_m[2]);
      ctx.fillRect(x - 3, y, 7, 1);
      ctx.fillRect(x, y - 3, 1, 7);
    }
  }

  drawErrors(beams) {
    const ctx = this.errors.getContext("2d");
    ctx.fillStyle = rgb(BACKGROUND);
    ctx.fillRect(0, 0, ERROR.width, ERROR.height);
    if (!beams.length) return;
    const map = profileMapping(beams, ERROR.width, ERROR.height);
    const values = beams.map((b) => b.error_vertical_m).filter((e) => e !== null);
    const scale = Math.max(1e-6, ...values.map(Math.abs));
    const mid = Math.floor(ERROR.height / 2);
    ctx.fillStyle = rgb([96, 96, 96]);
    ctx.fillRect(0, mid, ERROR.width, 1);
    this.errorScale = scale;
    for (const beam of beams) {
      if (beam.error_vertical_m === null) continue;
      const h = Math.round((Math.abs(beam.error_vertical_m) / scale) * (mid - 2));
      if (h === 0) continue;
      const x = map.x(beam.angle_rad);
      ctx.fillStyle = rgb(beam.error_vertical_m > 0 ? ERROR_BAR.deep : ERROR_BAR.shallow);
      if (beam.error_vertical_m > 0) ctx.fillRect(x - 1, mid + 1, 3, h);
      else ctx.fillRect(x - 1, mid - h, 3, h);
    }
  }

}

/** Mounts the Multibeam panel into its <section>; `api` is api.js's api object. */
export async function mount(section, api) {
  const panel = new MultibeamPanel(section, api);
  Object.assign((window.leviathanTest ??= {}), {
    multibeamDrawn: () => ({ ...panel.drawn, mapping: panel.mapping ?? null, errorScale: panel.errorScale ?? null }),
    multibeamPixels: (which) => canvasPixels({ profile: panel.profile, error: panel.errors, water: panel.waterColumn }[which]),
  });
}
