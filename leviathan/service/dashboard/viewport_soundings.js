// The Viewport's multibeam soundings: the latest ping of each multibeam of the open
// World (GET /worlds/{id}/multibeam/{vehicle}/{sensor}/soundings) drawn as points at
// their world NED positions (under the Viewport's NED group), each coloured by its
// vertical error against its beam's axis truth (errorColour): white on the truth, red
// towards too deep, blue towards too shallow, full colour at ERROR_SATURATION_M (IHO
// S-44 Special Order's a = 0.25 m) and beyond. The points are drawn over everything
// (no depth test: a sounding lies on the seabed it measured), a fixed POINT_PX wide.
// Each layer refetches when the World's pushed tick changes, one request at a time.

import * as THREE from "three";

export const ERROR_SATURATION_M = 0.25;
export const POINT_PX = 6;

/** The display colour (sRGB bytes) of a vertical error [m] (positive: too deep). */
export function errorColour(error) {
  const t = Math.max(-1, Math.min(1, error / ERROR_SATURATION_M));
  const fade = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? [255, fade, fade] : [fade, fade, 255];
}

export class SoundingsLayer {
  /**
   * @param {object} api The Dashboard's api.
   * @param {string} worldId The World.
   * @param {string[]} sensors Its multibeams, "vehicle/sensor".
   * @param {Function} onChange Called after the points changed (to redraw).
   */
  constructor(api, worldId, sensors, onChange) {
    Object.assign(this, { api, worldId, sensors, onChange });
    this.group = new THREE.Group();
    this.group.name = "soundings";
    this.points = new Map();
    this.drawnPings = {};
    this.stopped = false;
    this.pending = null;
    this.again = false;
    for (const id of sensors) {
      const geometry = new THREE.BufferGeometry();
      const material = new THREE.PointsMaterial({
        size: POINT_PX, sizeAttenuation: false, vertexColors: true,
        depthTest: false, transparent: true, opacity: 1,
      });
      const points = new THREE.Points(geometry, material);
      points.name = `${id} soundings`;
      points.renderOrder = 10;
      points.frustumCulled = false;
      this.points.set(id, points);
      this.group.add(points);
    }
  }

  /** Refetch every multibeam's latest ping (after a new tick). */
  update() {
    if (this.stopped || !this.sensors.length) return this.pending;
    if (this.pending) {
      this.again = true;
      return this.pending;
    }
    this.pending = (async () => {
      try {
        do {
          this.again = false;
          for (const id of this.sensors) await this.fetch(id);
        } while (this.again && !this.stopped);
      } catch (err) {
        if (!this.stopped) console.warn("viewport soundings:", err);
      } finally {
        this.pending = null;
      }
    })();
    return this.pending;
  }

  async fetch(id) {
    const [vehicle, sensor] = id.split("/");
    const path = `/worlds/${encodeURIComponent(this.worldId)}/multibeam/${encodeURIComponent(vehicle)}/${encodeURIComponent(sensor)}/soundings`;
    const response = await this.api.get(path, { raw: true });
    if (this.stopped) return;
    const ping = response.status === 204 ? null : await response.json();
    if (this.stopped) return;
    const positions = [];
    const colours = [];
    const drawn = [];
    const colour = new THREE.Color();
    for (const beam of ping ? ping.beams : []) {
      if (!beam.sounding_ned_m || beam.error_vertical_m === null) continue;
      const rgb = errorColour(beam.error_vertical_m);
      colour.setRGB(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255, THREE.SRGBColorSpace);
      positions.push(...beam.sounding_ned_m);
      colours.push(colour.r, colour.g, colour.b);
      drawn.push({ beam: beam.beam, ned: beam.sounding_ned_m, error: beam.error_vertical_m, rgb });
    }
    const geometry = this.points.get(id).geometry;
    geometry.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
    geometry.setAttribute("color", new THREE.Float32BufferAttribute(colours, 3));
    geometry.computeBoundingSphere();
    this.drawnPings[id] = { sampleHash: ping ? ping.sample_hash : null, points: drawn };
    this.onChange();
  }

  /** What is drawn now, per multibeam: its ping and each point's beam, NED, error, colour. */
  drawn() {
    return JSON.parse(JSON.stringify(this.drawnPings));
  }

  stop() {
    this.stopped = true;
  }
}
