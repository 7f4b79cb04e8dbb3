// What the per-sensor panels (Side-scan, Multibeam) share: building elements, finding a
// World's sensors of one kind, drawing one request at a time, following the selected
// World over the bus, and reading a canvas back for the tests. Only public endpoints.

import { on, plainError } from "./api.js";

/** An element with attributes ("text": its text, "dataset": its data-* map) and children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** The World's sensors of ``kind`` as "vehicle/sensor" ids (GET /worlds/{id}/scene). */
export async function sensorsOfKind(api, worldId, kind) {
  const scene = await api.get(`/worlds/${encodeURIComponent(worldId)}/scene`);
  const ids = [];
  for (const vehicle of scene.vehicles) {
    for (const sensor of vehicle.sensors) if (sensor.kind === kind) ids.push(`${vehicle.name}/${sensor.name}`);
  }
  return ids;
}

/** ``draw`` one call at a time: a call meanwhile draws once more afterwards. */
export function oneAtATime(draw) {
  let pending = null;
  let again = false;
  return function redraw() {
    if (pending) {
      again = true;
      return pending;
    }
    pending = (async () => {
      try {
        do {
          again = false;
          await draw();
        } while (again);
      } finally {
        pending = null;
      }
    })();
    return pending;
  };
}

/**
 * Follows the World chosen in the World panel: ``setWorld(id)`` when one is selected (or
 * another one changes), ``redraw()`` when the current one (``current()``) changes or ticks.
 */
export function followWorld({ current, setWorld, redraw }) {
  on("world-selected", ({ id }) => setWorld(id));
  on("world-changed", ({ id }) => (id === current() ? redraw() : setWorld(id)));
  on("world-ticked", ({ id }) => { if (id === current()) redraw(); });
}

/** Fills ``select`` with one option per id (value and text alike). */
export function setChoices(select, ids) {
  select.replaceChildren(...ids.map((id) => el("option", { value: id, text: id })));
}

/** Shows ``err`` in the panel's error line in plain words. */
export function showError(node, err) {
  node.textContent = typeof err === "string" ? err : plainError(err);
  node.hidden = false;
}

/** A PNG answer drawn 1:1 on ``canvas`` (no smoothing); returns the bitmap. */
export async function drawPng(response, canvas) {
  const bitmap = await createImageBitmap(await response.blob());
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(bitmap, 0, 0);
  return bitmap;
}

/** A canvas as drawn: rows of [r, g, b] (for the tests). */
export function canvasPixels(canvas) {
  const { width, height } = canvas;
  if (!width || !height) return [];
  const data = canvas.getContext("2d").getImageData(0, 0, width, height).data;
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
