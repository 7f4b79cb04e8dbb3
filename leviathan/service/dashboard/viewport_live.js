// Follows one World live: the WebSocket /worlds/{id}/stream (routers/_live.py) pushes
// {"type": "state", world_id, seq, tick, time_ns, state} after every committed change;
// {"type": "closed", reason} when the World is deleted or released; an error message in
// the service's one shape for an unknown World. The track trail is kept whole: a tick
// that follows the last one is appended from the pushed state, a jump (Step 20 commits
// 20 ticks at once) is filled from GET /worlds/{id}/track, and a step back (Reset)
// reloads the track from tick 0.

/** A live connection to one World's stream; calls back with states and closings. */
export class WorldStream {
  /**
   * @param {object} api The Dashboard's api (api.js).
   * @param {string} worldId The World to follow.
   * @param {{onState: Function, onClosed: Function, onError: Function}} handlers
   *   onState(message, {fresh}) for every state message (fresh: the first of a
   *   connection); onClosed(reason) once the World is gone; onError(text) when the
   *   stream fails (it retries with a growing delay).
   */
  constructor(api, worldId, { onState, onClosed, onError }) {
    this.api = api;
    this.worldId = worldId;
    this.handlers = { onState, onClosed, onError };
    this.stopped = false;
    this.retries = 0;
    this.socket = null;
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const socket = new WebSocket(this.api.url(`/worlds/${encodeURIComponent(this.worldId)}/stream`, { ws: true }));
    this.socket = socket;
    let finished = false;
    let first = true;
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") {
        this.retries = 0;
        this.handlers.onState(message, { fresh: first });
        first = false;
      } else if (message.type === "closed") {
        finished = true;
        this.handlers.onClosed(message.reason);
      } else if (message.type === "error") {
        finished = true;
        this.handlers.onClosed(message.message);
      }
    };
    socket.onclose = (event) => {
      if (this.stopped || finished || this.socket !== socket) return;
      // 1013: this client fell too far behind; anything else: the connection broke.
      // Either way the next connection starts with the current state, so nothing is lost.
      this.retries += 1;
      const delay = Math.min(5000, 250 * 2 ** Math.min(this.retries, 5));
      this.handlers.onError(
        `The live stream closed (code ${event.code}); reconnecting in ${(delay / 1000).toFixed(1)} s.`,
      );
      setTimeout(() => this.connect(), delay);
    };
  }

  /** Whether the WebSocket is connected now. */
  isOpen() {
    return Boolean(this.socket && this.socket.readyState === WebSocket.OPEN);
  }

  /** Closes the stream for good. */
  stop() {
    this.stopped = true;
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000);
    this.socket = null;
  }
}

/** Keeps one vehicle's trail equal to the World's track through its pushed states. */
export class TrailSync {
  /**
   * @param {object} api The Dashboard's api.
   * @param {string} worldId The World.
   * @param {string} vehicle The vehicle name.
   * @param {import("./viewport_scene.js").Trail} trail The drawn trail.
   * @param {Function} onChange Called after the trail changed (to redraw).
   */
  constructor(api, worldId, vehicle, trail, onChange) {
    Object.assign(this, { api, worldId, vehicle, trail, onChange });
    this.nextTick = 0; // the trail holds ticks 0 .. nextTick - 1
    this.lastTick = -1; // tick of the last pushed state seen (they come in commit order)
    this.chain = Promise.resolve();
    this.stopped = false;
  }

  /**
   * Brings the trail up to ``tick`` given the vehicle's pushed position (serialised).
   * ``fresh``: the first state of a new connection, after which nothing about earlier
   * messages can be assumed (a Reset may have happened meanwhile): reload the track.
   */
  update(tick, positionNed, { fresh = false } = {}) {
    this.chain = this.chain.then(() => this.sync(tick, positionNed, fresh)).catch((err) => {
      if (!this.stopped) console.warn(`viewport trail of ${this.vehicle}:`, err);
    });
    return this.chain;
  }

  async sync(tick, positionNed, fresh) {
    if (this.stopped) return;
    if (fresh || tick < this.lastTick) {
      // Went back (Reset), or a new connection: reload from tick 0.
      this.trail.clear();
      this.nextTick = 0;
    }
    this.lastTick = tick;
    if (tick < this.nextTick) {
      return; // already drawn (a track read ran ahead of the pushed states)
    } else if (tick === this.nextTick) {
      this.trail.extend([positionNed]);
      this.nextTick = tick + 1;
    } else if (tick > this.nextTick) {
      const track = await this.api.get(`/worlds/${encodeURIComponent(this.worldId)}/track`, {
        query: { vehicle: this.vehicle, from_tick: this.nextTick },
      });
      if (this.stopped) return;
      const from = this.nextTick;
      const points = [];
      track.ticks.forEach((t, i) => {
        if (t >= from) points.push(track.position_ned_m[i]);
      });
      this.trail.extend(points);
      if (track.ticks.length) this.nextTick = track.ticks[track.ticks.length - 1] + 1;
    }
    this.onChange();
  }

  stop() {
    this.stopped = true;
  }
}
