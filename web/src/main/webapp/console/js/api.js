// The console's only door to the server: same-origin fetch, JSON in and out, problem+json errors,
// and the CSRF token on every state-changing request.

const BASE = new URL('../api/', document.baseURI);

/** An HTTP answer that was not 2xx, with its problem body (title, detail, field) when it had one. */
export class ApiError extends Error {
  constructor(status, problem, path) {
    const text = (problem && (problem.detail || problem.title)) || `HTTP ${status}`;
    super(text);
    this.status = status;
    this.problem = problem || {};
    this.path = path;
  }
}

let session = null;
let sessionPromise = null;

export function apiUrl(path) {
  return new URL(path.replace(/^\//, ''), BASE).toString();
}

/** The signed-in user, their roles and the CSRF token (GET /api/session), fetched once. */
export function currentSession(refresh = false) {
  if (refresh || !sessionPromise) {
    sessionPromise = request('GET', '/session', undefined, { csrf: false })
      .then((s) => { session = s; return s; })
      .catch((e) => { sessionPromise = null; throw e; });
  }
  return sessionPromise;
}

export function isAdmin() {
  return !!(session && Array.isArray(session.roles) && session.roles.includes('admin'));
}

function looksLikeCsrfRefusal(error) {
  if (error.status !== 403) return false;
  const words = `${error.problem.title || ''} ${error.problem.detail || ''}`.toLowerCase();
  return words.includes('csrf') || words.includes('token');
}

async function request(method, path, body, { csrf = true } = {}) {
  // Marks the call as the console's: a 401 then offers no Basic challenge, which would make the
  // browser show its own password dialog instead of the console's login page.
  const headers = { Accept: 'application/json, application/problem+json', 'X-Requested-With': 'echomq-console' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (csrf && method !== 'GET' && session && session.csrfToken) headers['X-CSRF-Token'] = session.csrfToken;
  const response = await fetch(apiUrl(path), {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = response.headers.get('Content-Type') || '';
  let data = null;
  if (response.status !== 204 && (type.includes('json'))) {
    try { data = await response.json(); } catch (ignored) { data = null; }
  }
  if (response.status === 401) {
    // The session ended (timed out, or signed out in another tab) while the console was open.
    window.location.assign('login.html');
  }
  if (!response.ok) throw new ApiError(response.status, data, path);
  return data;
}

export function get(path) {
  return request('GET', path);
}

/** A state-changing POST: sends the CSRF token; a refused (stale) token is refreshed once and retried. */
export async function post(path, body) {
  return change('POST', path, body);
}

/** A state-changing PUT, as post. */
export async function put(path, body) {
  return change('PUT', path, body);
}

async function change(method, path, body) {
  if (!session) {
    try { await currentSession(); } catch (ignored) { /* the request will say what is wrong */ }
  }
  try {
    return await request(method, path, body);
  } catch (e) {
    if (e instanceof ApiError && looksLikeCsrfRefusal(e)) {
      await currentSession(true);
      return request(method, path, body);
    }
    throw e;
  }
}

/** Ends the console's session (DELETE /api/session) and opens where the server says to go next. */
export async function signOut() {
  const answer = await change('DELETE', '/session', undefined);
  session = null;
  sessionPromise = null;
  window.location.assign(new URL(answer.next, window.location.href).toString());
}

export const enc = encodeURIComponent;

/**
 * One queue's job-event stream (Server-Sent Events named 'job'), from the next event on, with
 * filters ({ job, lane, event }: empty ones are left out). A reconnecting EventSource resumes
 * after the last id it got (Last-Event-ID), so a dropped connection loses nothing the stream keeps.
 */
export function openJobEvents(queue, filters = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value) query.set(name, value);
  }
  const text = query.toString();
  return new EventSource(apiUrl(`/queues/${encodeURIComponent(queue)}/events${text ? `?${text}` : ''}`), { withCredentials: false });
}

/** The live stats stream (Server-Sent Events, same origin, cached credentials). */
export function openEvents() {
  return new EventSource(apiUrl('/events'), { withCredentials: false });
}
