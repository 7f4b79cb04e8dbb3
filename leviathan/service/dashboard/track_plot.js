// The World panel's north-up track plot: east to the right, north up, one trace per
// vehicle, the same metres per pixel on both axes (so a circle stays a circle), the view
// refitted to the tracks on every update. uPlot reads the ranges of scales with
// auto: false only when told to (setScale), not on setData, so update() sets both.
// uPlot in its x-y mode (mode 2: each series has its own east and north arrays); the
// traces are drawn in time order by trackPath, since uPlot's own line builder assumes
// x increases along a series and decimates on that assumption.

import uPlot from "./vendor/uplot/uPlot.esm.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const MIN_SPAN_M = 0.5; // the view never zooms in past a 0.5 m box (a still vehicle)

function trackPath(u, seriesIdx) {
  const [east, north] = u.data[seriesIdx];
  const stroke = new Path2D();
  for (let i = 0; i < east.length; i++) {
    const x = u.valToPos(east[i], "x", true);
    const y = u.valToPos(north[i], "y", true);
    if (i === 0) stroke.moveTo(x, y);
    else stroke.lineTo(x, y);
  }
  if (east.length > 0) {
    // The vehicle's latest position, as a small ring at the end of its trace.
    const last = east.length - 1;
    const x = u.valToPos(east[last], "x", true);
    const y = u.valToPos(north[last], "y", true);
    const r = 4 * (window.devicePixelRatio || 1);
    stroke.moveTo(x + r, y);
    stroke.arc(x, y, r, 0, 2 * Math.PI);
  }
  return { stroke, fill: null, clip: null, band: null, gaps: null, flags: 0 };
}

/** The track plot in `container`; call update({vehicle: {east: [], north: []}}). */
export class TrackPlot {
  constructor(container, { width = 560, height = 420 } = {}) {
    this.container = container;
    this.width = width;
    this.height = height;
    this.tracks = new Map(); // vehicle -> {east: number[], north: number[]}
    this.ranges = { x: [-1, 1], y: [-1, 1] };
    this.plot = null;
    this.names = [];
  }

  /** Points drawn, over all vehicles (or of one vehicle). */
  pointCount(vehicle = null) {
    if (vehicle !== null) return this.tracks.get(vehicle)?.east.length ?? 0;
    let total = 0;
    for (const t of this.tracks.values()) total += t.east.length;
    return total;
  }

  /** What uPlot last drew: its scales' ranges [m], the plot area in canvas pixels,
   * the device pixel ratio and each trace's colour (for tests that read the canvas). */
  drawn() {
    if (!this.plot) return null;
    const u = this.plot;
    const { left, top, width, height } = u.bbox;
    return {
      x: [u.scales.x.min, u.scales.x.max],
      y: [u.scales.y.min, u.scales.y.max],
      bbox: { left, top, width, height },
      dpr: window.devicePixelRatio || 1,
      colours: Object.fromEntries(this.names.map((n, i) => [n, COLOURS[i % COLOURS.length]])),
    };
  }

  /** RGBA bytes of a w x h window of the plot's canvas at canvas pixel (x, y). */
  pixels(x, y, w, h) {
    const canvas = this.container.querySelector("canvas");
    return Array.from(canvas.getContext("2d").getImageData(x, y, w, h).data);
  }

  /** Replaces every track: {vehicleName: {east: [m], north: [m]}} (arrays are kept). */
  update(tracks) {
    this.tracks = new Map(Object.entries(tracks));
    const names = [...this.tracks.keys()];
    if (!this.plot || names.join("\n") !== this.names.join("\n")) this.rebuild(names);
    this.fitRanges();
    const u = this.plot;
    u.batch(() => {
      u.setData(this.data(), false);
      u.setScale("x", { min: this.ranges.x[0], max: this.ranges.x[1] });
      u.setScale("y", { min: this.ranges.y[0], max: this.ranges.y[1] });
    });
  }

  data() {
    return [null, ...this.names.map((n) => [this.tracks.get(n).east, this.tracks.get(n).north])];
  }

  // Equal scale: the larger of the two spans (in metres per pixel of the plot area)
  // sets both, around the centre of the tracks' bounding box.
  fitRanges() {
    let e0 = Infinity, e1 = -Infinity, n0 = Infinity, n1 = -Infinity;
    for (const t of this.tracks.values()) {
      for (let i = 0; i < t.east.length; i++) {
        e0 = Math.min(e0, t.east[i]); e1 = Math.max(e1, t.east[i]);
        n0 = Math.min(n0, t.north[i]); n1 = Math.max(n1, t.north[i]);
      }
    }
    if (!Number.isFinite(e0)) { e0 = -1; e1 = 1; n0 = -1; n1 = 1; }
    const box = this.plot.bbox;
    const w = box.width > 0 ? box.width : this.width;
    const h = box.height > 0 ? box.height : this.height;
    const margin = 1.1;
    const perPx = Math.max((e1 - e0) * margin / w, (n1 - n0) * margin / h, MIN_SPAN_M / Math.min(w, h));
    const ec = (e0 + e1) / 2, nc = (n0 + n1) / 2;
    this.ranges.x = [ec - (perPx * w) / 2, ec + (perPx * w) / 2];
    this.ranges.y = [nc - (perPx * h) / 2, nc + (perPx * h) / 2];
  }

  rebuild(names) {
    if (this.plot) this.plot.destroy();
    this.names = names;
    const opts = {
      mode: 2,
      width: this.width,
      height: this.height,
      cursor: { show: false },
      legend: { show: true, live: false },
      scales: {
        x: { time: false, auto: false, range: () => this.ranges.x },
        y: { auto: false, range: () => this.ranges.y },
      },
      axes: [
        { label: "east [m]", stroke: "#333", grid: { stroke: "#e4e4e4" } },
        { label: "north [m]", stroke: "#333", grid: { stroke: "#e4e4e4" } },
      ],
      series: [
        {},
        ...names.map((name, i) => ({
          label: name,
          stroke: COLOURS[i % COLOURS.length],
          width: 2,
          facets: [{ scale: "x", auto: false }, { scale: "y", auto: false }],
          paths: trackPath,
          points: { show: false },
        })),
      ],
    };
    this.container.replaceChildren();
    this.plot = new uPlot(opts, this.data(), this.container);
  }
}
