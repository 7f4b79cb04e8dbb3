// The Imaging sonar panel's report: every figure of the service's report.json with its
// unit, grouped as a reader looks for them, plus the pose, tier, hash, trace and noise.
//
// Every number is shown as the report gives it, in its unit, rounded to 6 significant
// digits by formatNumber (the tests read the rounded figure back and compare it with the
// endpoint's JSON). A unit "-" marks a count or a share, shown with no unit.

// The report's figures, grouped as a reader looks for them. A figure the report gains
// later and no group names is still shown, under "Other figures".
const GROUPS = [
  ["Image grid", [
    ["bearing_count", "Bearings"],
    ["range_bin_count", "Range bins"],
    ["range_bin_width_m", "Range-bin width"],
    ["bearing_spacing_deg", "Bearing spacing"],
    ["elevation_aperture_deg", "Elevation aperture"],
    ["elevation_sample_count", "Elevation samples"],
    ["elevation_step_deg", "Elevation step"],
    ["fill_plane_distance_m", "Fill-rule plane distance"],
  ]],
  ["Range window and field of view", [
    ["range_min_m", "Range min"],
    ["range_max_m", "Range max"],
    ["azimuth_fov_deg", "Azimuth field of view"],
  ]],
  ["Levels: dynamic range, empty and saturated cells", [
    ["dynamic_range_db", "Dynamic range (image)"],
    ["display_dynamic_range_db", "Display dynamic range"],
    ["cell_count", "Cells"],
    ["empty_cell_count", "Empty cells"],
    ["empty_cell_share", "Empty share"],
    ["no_value_cell_count", "Cells without a value"],
    ["saturated_cell_count", "Saturated cells"],
    ["saturated_cell_share", "Saturated share"],
    ["saturation_ceiling_db", "Saturation ceiling"],
  ]],
  ["Range falloff fit", [
    ["falloff_slope", "Slope"],
    ["falloff_intercept_db", "Intercept"],
    ["falloff_explained_share", "Explained variance"],
    ["falloff_bin_count", "Bins fitted"],
  ]],
  ["Resolution", [
    ["range_resolution_m", "Range (bin width)"],
    ["range_resolution_bandwidth_m", "Range (c / 2B)"],
    ["cross_range_resolution_near_m", "Cross-range, near"],
    ["cross_range_resolution_middle_m", "Cross-range, middle"],
    ["cross_range_resolution_far_m", "Cross-range, far"],
  ]],
  ["Water and acoustics", [
    ["water_temperature_c", "Water temperature"],
    ["water_salinity_psu", "Salinity"],
    ["water_ph", "pH"],
    ["sensor_depth_m", "Sensor depth"],
    ["sound_speed_m_per_s", "Sound speed"],
    ["absorption_db_per_km", "Absorption"],
    ["max_ping_rate_hz", "Maximum ping rate"],
  ]],
];

/**
 * A number as the panel shows it: integers in full, others to 6 significant digits
 * (exponent form below 1e-4 or from 1e6 up); a string (a non-finite value) as given;
 * null as "none".
 */
export function formatNumber(value) {
  if (value === null || value === undefined) return "none";
  if (typeof value !== "number") return String(value);
  if (Number.isInteger(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude < 1e6) return String(Number(value.toPrecision(6)));
  const [mantissa, exponent] = value.toExponential(5).split("e");
  return `${String(Number(mantissa))}e${exponent}`;
}

/** Integer nanoseconds as exact decimal seconds (no float rounding). */
function secondsFromNs(ns) {
  const digits = String(Math.abs(ns)).padStart(10, "0");
  const whole = digits.slice(0, -9).replace(/^0+(?=\d)/, "");
  const fraction = digits.slice(-9).replace(/0+$/, "");
  return `${ns < 0 ? "-" : ""}${whole}${fraction ? "." + fraction : ""}`;
}

/** A DOM element with attributes (text, className, others as given) and children. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child !== null) node.append(child);
  return node;
}

/** One figure's row: label, rounded value (and percent for a share), unit, how. */
function figureRow(name, label, figure) {
  const number = el("span", { className: "sonar-number", text: formatNumber(figure.value) });
  const cell = el("td", { className: "sonar-value" }, number);
  if (figure.unit === "-" && typeof figure.value === "number" && name.endsWith("_share")) {
    cell.append(" ", el("span", { className: "sonar-aside",
      text: `(${formatNumber(Number((100 * figure.value).toPrecision(3)))} %)` }));
  }
  // "-" marks a count or a share: no unit to show.
  const unit = figure.unit === "-" ? "" : figure.unit;
  return el("tr", { "data-figure": name, title: figure.how },
    el("th", { scope: "row", text: label }), cell,
    el("td", { className: "sonar-unit-cell", text: unit }),
    el("td", { className: "sonar-how", text: figure.how }));
}

/** The pose the image was taken from: vehicle position and attitude, sonar origin. */
function poseTable(pose) {
  const rows = [];
  const vector = (key, label, names, unit) => {
    if (!Array.isArray(pose[key])) return;
    pose[key].forEach((v, i) => rows.push(el("tr", { "data-pose": `${key}.${i}` },
      el("th", { scope: "row", text: `${label} ${names[i]}` }),
      el("td", { className: "sonar-value" },
        el("span", { className: "sonar-number", text: formatNumber(v) })),
      el("td", { className: "sonar-unit-cell", text: unit }))));
  };
  vector("position_ned_m", "Vehicle", ["north", "east", "down"], "m");
  vector("rpy_deg", "Vehicle", ["roll", "pitch", "yaw"], "deg");
  vector("sensor_position_ned_m", "Sonar origin", ["north", "east", "down"], "m");
  return el("table", { className: "sonar-table" }, el("tbody", {}, ...rows));
}

/**
 * Draws the whole report into ``report`` (the panel's report <div>), replacing what was there.
 *
 * @param {HTMLElement} report  the container.
 * @param {object} json  the service's report.json body.
 * @param {{view: string, worldId: string|null}} options  the image shown ("fan" or
 *   "bscan") and the World rendered from (null: a typed pose).
 */
export function showReport(report, json, { view, worldId }) {
  const figures = json.figures ?? {};
  const shown = new Set();
  const pose = json.pose ?? {};
  const where = pose.source === "world"
    ? `World ${worldId}, vehicle ${pose.vehicle}, sonar ${pose.sensor}, at its ` +
      `committed pose: tick ${pose.tick}, t = ${secondsFromNs(pose.time_ns)} s`
    : "A typed pose over the built-in survey scene at t = 0 s";
  const header = el("div", { className: "sonar-report-head" },
    el("h3", { text: `Report: ${view === "fan" ? "fan" : "B-scan"} of sonar ${json.sensor}` }),
    el("p", { id: "sonar-report-source", text: where + "." }),
    el("p", { className: "sonar-note", id: "sonar-report-tier",
      text: `Tier: ${json.tier} (not canonical). Report hash ${json.report_hash} ` +
        `(${json.identity_domain} identity domain).` }),
    el("p", { className: "sonar-note", id: "sonar-report-trace",
      text: `Traced with the ${json.trace?.backend ?? "?"} backend` +
        `${json.trace?.device ? ` on ${json.trace.device}` : ""}; ` +
        `noise: ${json.noise?.effect ?? "none"}.` }));
  const groups = [];
  for (const [title, members] of GROUPS) {
    const rows = members.filter(([name]) => name in figures).map(([name, label]) => {
      shown.add(name);
      return figureRow(name, label, figures[name]);
    });
    const table = el("table", { className: "sonar-table" }, el("tbody", {}, ...rows));
    const group = el("section", { className: "sonar-group" }, el("h4", { text: title }), table);
    if (title === "Range falloff fit") {
      group.append(el("p", { className: "sonar-falloff-note", id: "sonar-falloff-note",
        text: json.falloff_note }));
    }
    groups.push(group);
  }
  const rest = Object.keys(figures).filter((name) => !shown.has(name));
  if (rest.length) {
    groups.push(el("section", { className: "sonar-group" }, el("h4", { text: "Other figures" }),
      el("table", { className: "sonar-table" }, el("tbody", {},
        ...rest.map((name) => figureRow(name, name.replaceAll("_", " "), figures[name]))))));
  }
  groups.splice(0, 0, el("section", { className: "sonar-group" },
    el("h4", { text: "Pose (world NED)" }), poseTable(pose)));
  const howToggle = el("input", { type: "checkbox", id: "sonar-show-how" });
  howToggle.addEventListener("change", () => {
    report.classList.toggle("sonar-show-how", howToggle.checked);
  });
  report.replaceChildren(header,
    el("label", { for: "sonar-show-how", className: "sonar-how-toggle" }, howToggle,
      " show how each figure is computed"),
    el("div", { className: "sonar-groups" }, ...groups));
}
