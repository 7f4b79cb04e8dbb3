// Mounts the five panels, each into its own <section>. Each panel module exports
// mount(sectionElement, api). They are loaded one by one and independently, so a panel
// that fails shows its error in its own section and the others still work (never a
// blank page). <body data-ready="true"> says every panel has been tried.

import { api, on, plainError } from "./api.js";

const HEALTH_POLL_MS = 2000; // Worlds opened or closed by other clients show within this

const PANELS = [
  ["world-panel", "./world_panel.js"],
  ["sonar-panel", "./sonar_panel.js"],
  ["side-scan-panel", "./side_scan_panel.js"],
  ["multibeam-panel", "./multibeam_panel.js"],
  ["viewport-panel", "./viewport.js"],
];

function showPanelError(section, err) {
  const box = document.createElement("p");
  box.className = "error panel-error";
  box.setAttribute("role", "alert");
  box.textContent = `This panel could not start. ${plainError(err)}`;
  section.append(box);
}

async function mountPanel(id, path) {
  const section = document.getElementById(id);
  try {
    const module = await import(path);
    await module.mount(section, api);
  } catch (err) {
    console.warn(`panel ${id}:`, err);
    showPanelError(section, err);
  }
}

async function showService() {
  const status = document.getElementById("service-status");
  try {
    const health = await api.get("/health");
    status.textContent = `service ${health.version} · ${health.worlds_open}/${health.max_worlds} Worlds open`;
    status.classList.remove("error");
  } catch (err) {
    status.textContent = plainError(err);
    status.classList.add("error");
  }
}

async function main() {
  await Promise.all([showService(), ...PANELS.map(([id, path]) => mountPanel(id, path))]);
  // The header's "N/32 Worlds open" follows the service: at once after this page's own
  // changes, and by polling for everyone else's (other pages, clients, idle release).
  on("world-changed", () => showService());
  setInterval(showService, HEALTH_POLL_MS);
  document.body.dataset.ready = "true";
}

main();
