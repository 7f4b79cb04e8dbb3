// The Dashboard's one way to the service: fetch to the same origin, the token, the error
// shape, and a small event bus the panels talk over. Every panel does only what a script
// could do through these same endpoints.

/** A failure the service reported, in its one JSON error shape (or a network failure). */
export class ServiceError extends Error {
  /**
   * @param {{status: number, code: string, message: string, detail: object|null}} parts
   *   status: HTTP status (0: the service could not be reached); code: the service's
   *   stable error code; detail: the whole error body {code, message, field, value, expected}.
   */
  constructor({ status, code, message, detail = null }) {
    super(message);
    this.name = "ServiceError";
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

// With token auth on, the page is opened as /?token=<token>; every API call sends it
// as the service expects (a Bearer header; the WebSocket as its token query).
const token = new URLSearchParams(window.location.search).get("token");

/** The absolute URL of a service path such as "/worlds"; ws: true gives the ws(s):// URL. */
function url(path, { query = null, ws = false } = {}) {
  const u = new URL(path, window.location.origin);
  if (query) {
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null) u.searchParams.set(key, String(value));
    }
  }
  if (ws) {
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    if (token) u.searchParams.set("token", token);
  }
  return u.toString();
}

async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (body && typeof body.code === "string" && typeof body.message === "string") {
    return new ServiceError({ status: response.status, code: body.code, message: body.message, detail: body });
  }
  return new ServiceError({
    status: response.status,
    code: "http_error",
    message: `the service answered ${response.status} ${response.statusText}`,
  });
}

/**
 * One request. Returns the parsed JSON (null for 204), or the Response itself with
 * raw: true (for downloads). Throws ServiceError on any failure.
 */
async function request(method, path, { body = undefined, query = null, raw = false } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url(path, { query }), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ServiceError({
      status: 0,
      code: "unreachable",
      message: `the service at ${window.location.origin} could not be reached (${err.message})`,
    });
  }
  if (!response.ok) throw await errorFrom(response);
  if (raw) return response;
  if (response.status === 204) return null;
  return response.json();
}

export const api = {
  get: (path, options = {}) => request("GET", path, options),
  post: (path, body = {}, options = {}) => request("POST", path, { ...options, body }),
  put: (path, body = {}, options = {}) => request("PUT", path, { ...options, body }),
  del: (path, options = {}) => request("DELETE", path, options),
  url,
  token,
};

const PLAIN = {
  world_not_found: "That World is no longer open (it was deleted, or the service restarted). Choose or create another World.",
  world_released: "That World was released after being idle too long. Create a new World.",
  limit_reached: "The service's limit is reached.",
  refused: "The service refused this operation on a live World.",
  invalid: "The service refused a value.",
  unauthorized: "The service needs its token: open the Dashboard as /?token=<token>.",
  body_too_large: "The request is larger than the service accepts.",
  shutting_down: "The service is shutting down; start it again with leviathan serve.",
  unreachable: "The service cannot be reached; is leviathan serve still running?",
  internal: "The service hit an internal error (a bug); its log has the details.",
  not_found: "The service has no such resource.",
  conflict: "The World's state rules this out.",
  malformed: "The service could not read the request.",
  method_not_allowed: "The service does not offer this operation here.",
};

/** A plain-words sentence for any error, for a panel to show (never a blank page). */
export function plainError(err) {
  if (err instanceof ServiceError) {
    const lead = PLAIN[err.code] ?? `The service reported an error (${err.code}).`;
    return err.message ? `${lead} ${capitalise(err.message)}${/[.!?]$/.test(err.message) ? "" : "."}` : lead;
  }
  return `Something went wrong in the Dashboard: ${err && err.message ? err.message : String(err)}.`;
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Panels talk over this bus: "world-selected" {id}, "show-in-viewport" {id},
 * "world-changed" {id} (created, stepped, reset, current changed, deleted),
 * "world-ticked" {id, tick} (a live state pushed over the World's stream).
 */
export const bus = new EventTarget();

/** Sends a bus event with its detail object. */
export function emit(name, detail) {
  bus.dispatchEvent(new CustomEvent(name, { detail }));
}

/** Listens to a bus event; the handler gets the detail object. Returns the unsubscribe. */
export function on(name, handler) {
  const listener = (event) => handler(event.detail);
  bus.addEventListener(name, listener);
  return () => bus.removeEventListener(name, listener);
}
