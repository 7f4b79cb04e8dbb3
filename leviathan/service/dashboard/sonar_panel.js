// The Imaging sonar panel: an analytic range x bearing image (B-scan or fan) and its
// whole report, through the service's /analytic endpoints and nothing else.
//
// Two pose sources, the two endpoints:
//   * a typed vehicle pose (north, east, down [m]; roll, pitch, yaw [deg]) over the
//     built-in survey scene, imaged by the catalogue's reference survey sonar:
//     POST /analytic/sonar-image/{product} {position_ned_m, rpy_deg, scene, ...};
//   * a hosted World's vehicle at its committed pose, with one of its imaging sonars:
//     POST /analytic/worlds/{id}/vehicles/{vehicle}/sonar-image/{product} {sensor, ...}.
// Each render asks for the PNG (fan.png or bscan.png) and report.json with the same
// body. The analytic tier is not canonical, and the panel says so.
// The report itself is drawn by sonar_report.js.

import { bus, plainError } from "./api.js";
import { el, showReport } from "./sonar_report.js";

const SURVEY_SONAR = "the catalogue's reference survey sonar (900 kHz, 90 deg FOV, 0.5-60 m)";

const POSE_FIELDS = [
  ["north", "North", "m", "-12"],
  ["east", "East", "m", "-8"],
  ["down", "Down", "m", "20"],
  ["roll", "Roll", "deg", "0"],
  ["pitch", "Pitch", "deg", "0"],
  ["yaw", "Yaw", "deg", "0"],
];

const POSE_MEANING = {
  north: "the vehicle's north position in metres",
  east: "the vehicle's east position in metres",
  down: "the vehicle's depth (down) in metres",
  roll: "the roll angle in degrees",
  pitch: "the pitch angle in degrees",
  yaw: "the yaw (heading) angle in degrees",
};

function labelled(id, label, input, unit) {
  return el("label", { for: id, className: "sonar-field" },
    el("span", { className: "sonar-field-label", text: label }), input,
    unit ? el("span", { className: "sonar-unit", text: unit }) : null);
}

function textInput(id, value, placeholder) {
  return el("input", {
    id, type: "text", inputmode: "decimal", value, placeholder, autocomplete: "off",
    size: 8,
  });
}

/** A finite number from a text field, or a plain-words error naming the field. */
function readNumber(input, label, meaning) {
  const raw = input.value.trim();
  const value = Number(raw);
  if (raw === "" || !Number.isFinite(value)) {
    const given = raw === "" ? "nothing was given" : `"${raw}" is not a number`;
    throw new PanelError(`${label}: ${given}. Give ${meaning}, for example ${input.placeholder}.`);
  }
  return value;
}

/** An optional number (blank: null); ``integer`` requires a whole number. */
function readOptional(input, label, meaning, { integer = false } = {}) {
  const raw = input.value.trim();
  if (raw === "") return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    const kind = integer ? "a whole number" : "a number";
    throw new PanelError(
      `${label}: "${raw}" is not ${kind}. Give ${meaning}, or leave it blank.`);
  }
  return value;
}

class PanelError extends Error {}

// The request fields the panel fills, by the name the service's errors give them.
const FIELD_LABELS = {
  "scene.seabed_triangles": "Seabed triangles",
  elevation_sample_count: "Elevation samples",
  bandwidth_hz: "Pulse bandwidth",
  saturation_ceiling_db: "Saturation ceiling",
  position_ned_m: "Pose (north, east, down)",
  rpy_deg: "Pose (roll, pitch, yaw)",
  sensor: "Sonar",
  vehicle: "Vehicle",
};

/** A service error about one of the panel's own fields in its words; else plainError's. */
function panelError(err) {
  const detail = err?.detail;
  const field = typeof detail?.field === "string" ? detail.field.replace(/\.\d+$/, "") : null;
  const label = field === null ? undefined : FIELD_LABELS[field];
  if (label === undefined || err.status !== 422) return plainError(err);
  const expected = detail.expected ? String(detail.expected) : "";
  const why = expected ? ` (${expected.charAt(0).toLowerCase()}${expected.slice(1)})` : "";
  return `${label}: the service refused ${JSON.stringify(detail.value)}${why}. ` +
    "Correct it and render again.";
}

/** The panel's own styles (sonar_panel.css beside this module), linked once. */
function addStyles() {
  if (document.getElementById("sonar-panel-styles")) return;
  const link = el("link", {
    id: "sonar-panel-styles",
    rel: "stylesheet",
    href: new URL("./sonar_panel.css", import.meta.url),
  });
  document.head.append(link);
}

/** Mounts the panel in ``section`` (the <section id="sonar-panel">), talking through ``api``. */
export async function mount(section, api) {
  addStyles();
  const ids = (name) => `sonar-${name}`;
  const inputs = {};
  for (const [name, , , placeholder] of POSE_FIELDS) {
    inputs[name] = textInput(ids(name), placeholder, placeholder);
  }
  inputs.triangles = textInput(ids("seabed-triangles"), "100000", "100000");
  inputs.elevation = textInput(ids("elevation-samples"), "", "fill rule");
  inputs.bandwidth = textInput(ids("bandwidth"), "", "none");
  inputs.ceiling = textInput(ids("ceiling"), "", "peak");

  const sourceTyped = el("input", {
    type: "radio", name: "sonar-source", id: ids("source-typed"), value: "typed", checked: true,
  });
  const sourceWorld = el("input", {
    type: "radio", name: "sonar-source", id: ids("source-world"), value: "world",
  });
  const viewBscan = el("input", {
    type: "radio", name: "sonar-view", id: ids("view-bscan"), value: "bscan", checked: true,
  });
  const viewFan = el("input", {
    type: "radio", name: "sonar-view", id: ids("view-fan"), value: "fan",
  });
  const worldSelect = el("select", { id: ids("world") });
  const vehicleSelect = el("select", { id: ids("vehicle") });
  const sensorSelect = el("select", { id: ids("sensor") });
  const refresh = el("button", {
    type: "button", id: ids("refresh-worlds"), text: "Refresh Worlds",
  });
  const worldNote = el("p", { className: "sonar-note", id: ids("world-note") });
  const render = el("button", { type: "submit", id: ids("render"), text: "Render" });
  const error = el("p", { className: "sonar-error error", id: ids("error"), role: "alert" });
  error.hidden = true;
  const status = el("p", { className: "sonar-status", id: ids("status"), "aria-live": "polite" });
  const image = el("img", { id: ids("image"), alt: "" });
  const caption = el("figcaption", { id: ids("caption") });
  const figure = el("figure", { className: "sonar-figure" }, image, caption);
  figure.hidden = true;
  const report = el("div", { className: "sonar-report", id: ids("report") });

  const typedFields = el("fieldset", { className: "sonar-typed", id: ids("typed") },
    el("legend", { text: "Vehicle pose (world NED, ZYX angles)" }),
    ...POSE_FIELDS.map(([name, label, unit]) => labelled(ids(name), label, inputs[name], unit)),
    labelled(ids("seabed-triangles"), "Seabed triangles", inputs.triangles, ""),
    el("p", { className: "sonar-note",
      text: `Over the built-in survey scene (seabed, crate, drum, pipeline, ball) at t = 0 s, ` +
        `imaged by ${SURVEY_SONAR}.` }));
  const worldFields = el("fieldset", { className: "sonar-world", id: ids("world-fields") },
    el("legend", { text: "A World's vehicle at its committed pose" }),
    labelled(ids("world"), "World", worldSelect, ""),
    labelled(ids("vehicle"), "Vehicle", vehicleSelect, ""),
    labelled(ids("sensor"), "Sonar", sensorSelect, ""),
    refresh, worldNote);
  const form = el("form", { className: "sonar-form", id: ids("form"), novalidate: true },
    el("fieldset", { className: "sonar-source" },
      el("legend", { text: "Pose from" }),
      el("label", { for: ids("source-typed") }, sourceTyped, " a typed pose"),
      el("label", { for: ids("source-world") }, sourceWorld, " a World's vehicle")),
    typedFields, worldFields,
    el("fieldset", { className: "sonar-options" },
      el("legend", { text: "Image" }),
      el("label", { for: ids("view-bscan") }, viewBscan, " B-scan (range x bearing)"),
      el("label", { for: ids("view-fan") }, viewFan,
        " fan (sonar frame: forward up, starboard right)"),
      labelled(ids("elevation-samples"), "Elevation samples", inputs.elevation, ""),
      labelled(ids("bandwidth"), "Pulse bandwidth", inputs.bandwidth, "Hz"),
      labelled(ids("ceiling"), "Saturation ceiling", inputs.ceiling, "dB re 1")),
    render);

  section.replaceChildren(
    el("h2", { id: "sonar-panel-title", text: "Imaging sonar" }),
    el("p", { className: "sonar-note",
      text: "Analytic tier: a quick image and its report, not canonical and not citable." }),
    form, error, status, figure, report);
  section.dataset.state = "idle";

  let objectUrl = null;
  let renderSerial = 0;

  function showError(message) {
    error.textContent = message;
    error.hidden = false;
  }

  function clearError() {
    error.textContent = "";
    error.hidden = true;
  }

  function source() {
    return sourceWorld.checked ? "world" : "typed";
  }

  function syncSource() {
    const world = source() === "world";
    typedFields.disabled = world;
    worldFields.disabled = !world;
    typedFields.classList.toggle("sonar-inactive", world);
    worldFields.classList.toggle("sonar-inactive", !world);
    if (world) loadWorlds();
    syncRenderable();
  }

  function syncRenderable() {
    render.disabled = section.dataset.state === "busy" ||
      (source() === "world" && sensorSelect.value === "");
  }

  function setOptions(select, values, emptyText) {
    select.replaceChildren(...(values.length
      ? values.map(([value, text]) => el("option", { value, text }))
      : [el("option", { value: "", text: emptyText })]));
  }

  // The World choices are read only while the World source is chosen, so a panel in
  // typed mode sends nothing when other panels create, step or delete Worlds. The
  // list (GET /worlds) names each World's vehicles; a vehicle's sonars come from its
  // spec, fetched once per (World, vehicle). Each load carries a number, and a load
  // overtaken by a newer one stops, so a stale answer never overwrites a fresh one.
  let preferredWorld = null;
  let listedWorlds = new Map();
  const sonarsOf = new Map();
  let loadSerial = 0;
  let changeTimer = null;

  async function loadWorlds() {
    if (source() !== "world") return;
    const serial = ++loadSerial;
    const keep = preferredWorld ?? worldSelect.value;
    preferredWorld = null;
    let list;
    try {
      list = await api.get("/worlds");
    } catch (err) {
      if (serial !== loadSerial) return;
      listedWorlds = new Map();
      setOptions(worldSelect, [], "Worlds could not be listed");
      worldNote.textContent = plainError(err);
      await loadVehicles(serial);
      return;
    }
    if (serial !== loadSerial) return;
    listedWorlds = new Map(list.worlds.map((w) => [w.id, w]));
    for (const key of sonarsOf.keys()) {
      if (!listedWorlds.has(key.split("\n")[0])) sonarsOf.delete(key);
    }
    const worlds = list.worlds.map((w) => [w.id, `${w.id} (tick ${w.tick})`]);
    setOptions(worldSelect, worlds, "no open World: create one in the World panel");
    if (listedWorlds.has(keep)) worldSelect.value = keep;
    worldNote.textContent = "";
    await loadVehicles(serial);
  }

  async function loadVehicles(serial = ++loadSerial) {
    const info = listedWorlds.get(worldSelect.value);
    if (!info) {
      setOptions(vehicleSelect, [], "no World selected");
    } else {
      const keep = vehicleSelect.value;
      setOptions(vehicleSelect, info.vehicles.map((v) => [v, v]), "the World has no vehicle");
      if (info.vehicles.includes(keep)) vehicleSelect.value = keep;
    }
    await loadSensors(serial);
  }

  async function loadSensors(serial = ++loadSerial) {
    const worldId = worldSelect.value;
    const vehicle = vehicleSelect.value;
    if (!listedWorlds.has(worldId) || !vehicle) {
      setOptions(sensorSelect, [], "no vehicle selected");
      syncRenderable();
      return;
    }
    const key = `${worldId}\n${vehicle}`;
    if (!sonarsOf.has(key)) {
      try {
        const spec = await api.get(
          `/worlds/${encodeURIComponent(worldId)}/vehicles/${encodeURIComponent(vehicle)}/spec`);
        const sensors = spec.sensors ?? [];
        sonarsOf.set(key, {
          sonars: sensors.filter((s) => s.kind === "imaging_sonar").map((s) => s.name),
          all: sensors.map((s) => `${s.name} (${s.kind})`),
        });
      } catch (err) {
        if (serial !== loadSerial) return;
        setOptions(sensorSelect, [], "sensors could not be listed");
        worldNote.textContent = plainError(err);
        syncRenderable();
        return;
      }
    }
    if (serial !== loadSerial) return;
    const { sonars, all } = sonarsOf.get(key);
    const keep = sensorSelect.value;
    setOptions(sensorSelect, sonars.map((name) => [name, name]), "no imaging sonar");
    if (sonars.includes(keep)) sensorSelect.value = keep;
    worldNote.textContent = sonars.length ? "" :
      `Vehicle ${vehicle} carries no imaging sonar (its sensors: ${all.join(", ") || "none"}); ` +
      "pick another vehicle or a typed pose.";
    syncRenderable();
  }

  // "world-changed" comes with every step of a playing World: coalesce them.
  function worldsChanged() {
    if (source() !== "world" || changeTimer !== null) return;
    changeTimer = setTimeout(() => {
      changeTimer = null;
      loadWorlds();
    }, 300);
  }

  /** The endpoint path (without the product) and the request body, or a PanelError. */
  function request() {
    const body = {};
    const elevation = readOptional(inputs.elevation, "Elevation samples",
      "a whole number of elevation samples (blank: the fill rule picks it)", { integer: true });
    if (elevation !== null) body.elevation_sample_count = elevation;
    const bandwidth = readOptional(inputs.bandwidth, "Pulse bandwidth",
      "the pulse bandwidth in hertz, for the c / 2B range resolution");
    if (bandwidth !== null) body.bandwidth_hz = bandwidth;
    const ceiling = readOptional(inputs.ceiling, "Saturation ceiling",
      "the receiver's full scale in dB re 1 (blank: the image peak)");
    if (ceiling !== null) body.saturation_ceiling_db = ceiling;
    if (source() === "world") {
      const worldId = worldSelect.value;
      const vehicle = vehicleSelect.value;
      if (!worldId || !vehicle || !sensorSelect.value) {
        throw new PanelError(
          "Pick a World, one of its vehicles and that vehicle's imaging sonar first.");
      }
      body.sensor = sensorSelect.value;
      const path = `/analytic/worlds/${encodeURIComponent(worldId)}/vehicles/` +
        `${encodeURIComponent(vehicle)}/sonar-image`;
      return { path, body, worldId };
    }
    const pose = {};
    for (const [name, label] of POSE_FIELDS) {
      pose[name] = readNumber(inputs[name], label, POSE_MEANING[name]);
    }
    const triangles = readOptional(inputs.triangles, "Seabed triangles",
      "a whole number of seabed triangles (blank: 100000)", { integer: true });
    body.position_ned_m = [pose.north, pose.east, pose.down];
    body.rpy_deg = [pose.roll, pose.pitch, pose.yaw];
    body.scene = { kind: "survey_demo", ...(triangles === null ? {} : {
      seabed_triangles: triangles }) };
    return { path: "/analytic/sonar-image", body, worldId: null };
  }

  async function onRender(event) {
    event.preventDefault();
    clearError();
    let req;
    try {
      req = request();
    } catch (err) {
      if (!(err instanceof PanelError)) throw err;
      showError(err.message);
      section.dataset.state = "error";
      return;
    }
    const view = viewFan.checked ? "fan" : "bscan";
    const serial = ++renderSerial;
    section.dataset.state = "busy";
    syncRenderable();
    status.textContent = "Rendering the analytic image (a full-size ping takes a few seconds)...";
    try {
      const [png, json] = await Promise.all([
        api.post(`${req.path}/${view}.png`, req.body, { raw: true }).then((r) => r.blob()),
        api.post(`${req.path}/report.json`, req.body),
      ]);
      if (serial !== renderSerial) return;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = URL.createObjectURL(png);
      await showImage(objectUrl, view, json);
      showReport(report, json, { view, worldId: req.worldId });
      status.textContent = "";
      section.dataset.state = "done";
    } catch (err) {
      if (serial !== renderSerial) return;
      showError(panelError(err));
      status.textContent = "";
      section.dataset.state = "error";
    } finally {
      if (serial === renderSerial) syncRenderable();
    }
  }

  function showImage(url, view, json) {
    return new Promise((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new PanelError("The service's image could not be shown."));
      const what = view === "fan" ? "fan" : "B-scan";
      image.alt = `Analytic ${what} of sonar ${json.sensor}, ${poseWords(json.pose)}`;
      caption.textContent = view === "fan"
        ? "Fan: the range x bearing image drawn in the sonar's own frame (apex at the " +
          "sensor, forward up, starboard right)."
        : "B-scan: slant range upward (near range at the bottom) against bearing (port " +
          "left, starboard right).";
      image.src = url;
      figure.hidden = false;
    });
  }

  function poseWords(pose) {
    if (pose.source === "world") {
      return `vehicle ${pose.vehicle} at tick ${pose.tick}`;
    }
    return "a typed pose over the survey scene";
  }

  sourceTyped.addEventListener("change", syncSource);
  sourceWorld.addEventListener("change", syncSource);
  worldSelect.addEventListener("change", () => loadVehicles());
  vehicleSelect.addEventListener("change", () => loadSensors());
  sensorSelect.addEventListener("change", syncRenderable);
  refresh.addEventListener("click", () => loadWorlds());
  form.addEventListener("submit", onRender);
  bus.addEventListener("world-selected", (event) => {
    preferredWorld = event.detail?.id ?? null;
    loadWorlds();
  });
  bus.addEventListener("world-changed", worldsChanged);
  syncSource();
}
