// The page's connection to the controller: the public REST API (/v1) with the session id in the Authorization
// header (spec 5), kept in this tab's sessionStorage (never a cookie or localStorage: it survives a reload, not the
// tab, and is sent only where the page sends it). A 401 on any call ends the page's session at once; the views stay
// as they were (what was typed is kept) behind a login dialog, until the same account logs in again. Every answered
// call counts as activity; when the page makes no other call for KEEPALIVE_MS it makes one (GET /v1/messages, which
// also refreshes the messages), so an open page keeps its session. The next keep-alive is scheduled when an answer
// arrives, not from a timer, so browsers that throttle chained timers in background tabs (Chrome: to once a minute)
// do not let the 60 s session time-out pass.
import { batch, computed, effect, signal } from '@preact/signals';
import { loginProof } from './login-proof.js';

const STORE_KEY = 'cc-session';

/** The session this tab kept over a reload, or null. */
function storedSession() {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORE_KEY) || 'null');
    return s && typeof s.id === 'string' && typeof s.username === 'string' && typeof s.role === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** The logged-in session `{id, username, role}`, or null. */
export const session = signal(storedSession());
effect(() => {
  if (session.value) sessionStorage.setItem(STORE_KEY, JSON.stringify(session.value));
  else sessionStorage.removeItem(STORE_KEY);
});
/**
 * `{username, role}` of a session the controller ended (a 401: another login, the time-out, a changed address)
 * while the page showed it: the views stay, behind the login dialog, until that account logs in again.
 */
export const interrupted = signal(null);
/** Whose page this is: the session's account, or the interrupted one's while the login dialog is open. */
export const account = computed(() => session.value || interrupted.value);
/** Why the page is logged out: a key of the UI strings, shown on the login screen. */
export const logoutReason = signal(null);
/** True while the controller does not answer. */
export const offline = signal(false);
/** The current errors and warnings (spec 2.14), refreshed by the keep-alive. */
export const messages = signal([]);
/** True from a restart request until the controller is back (then the page is logged out). */
export const restarting = signal(false);

export const KEEPALIVE_MS = 20_000;
const RESTART_POLL_MS = 1000;
const RESTART_GIVE_UP_MS = 120_000;

/** The session error codes of spec 7.2 the page explains (others read as "not logged in"). */
const LOGGED_OUT = { 1003: 'loggedOut.1003', 1004: 'loggedOut.1004', 1005: 'loggedOut.1005' };

/** A refused call: `status`, the body, and its cause as the controller wrote it. */
export class ApiError extends Error {
  constructor(status, json) {
    super((json && (json.cause || json.message)) || `HTTP ${status}`);
    this.status = status;
    this.json = json;
  }
}

/** While the controller does not answer, the page asks again this often, so it notices when it is back. */
const RETRY_MS = 5000;

let keepalive;
function scheduleKeepalive(ms = KEEPALIVE_MS) {
  clearTimeout(keepalive);
  keepalive = setTimeout(() => {
    refreshMessages().catch(() => undefined);
  }, ms);
}

/** Ends the page's session; `keepViews`: an ended session the same account may take up again (the login dialog). */
function endSession(reason, keepViews = false) {
  clearTimeout(keepalive);
  const ended = session.peek();
  batch(() => {
    restarting.value = false;
    interrupted.value = keepViews && ended ? { username: ended.username, role: ended.role } : null;
    session.value = null;
    logoutReason.value = reason;
  });
}

/**
 * One API call; answers `{status, ok, json}`. A 401 for the page's session ends it with the reason the code gives.
 * `sessionId` sends another session id than the page's (only while logging in).
 */
export async function request(method, path, body, sessionId) {
  const current = session.peek();
  const headers = {};
  if (sessionId || current) headers.Authorization = sessionId || current.id;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch (err) {
    offline.value = true;
    if (current && session.peek() === current) scheduleKeepalive(RETRY_MS);
    throw new ApiError(0, null);
  }
  return answered(current, res.status, await res.text());
}

/** An answer of the page's session: a 401 ends it, any other answer counts as activity. */
function answered(current, status, text) {
  offline.value = false;
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (current && session.peek() === current) {
    if (status === 401) {
      if (restarting.peek()) endSession('loggedOut.restart');
      else endSession(LOGGED_OUT[json && json.code] || 'loggedOut.1002', true);
    } else scheduleKeepalive();
  }
  return { status, ok: status >= 200 && status < 300, json };
}

/**
 * Sends a file as the raw body (application/octet-stream) with XMLHttpRequest, whose upload reports its progress
 * (fetch has none): `onProgress(sent, total)`. Answers and throws as `call`.
 */
export function upload(method, path, file, onProgress) {
  const current = session.peek();
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    if (current) xhr.setRequestHeader('Authorization', current.id);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      const r = answered(current, xhr.status, xhr.responseText);
      if (r.ok) resolve(r.json);
      else reject(new ApiError(r.status, r.json));
    };
    xhr.onerror = () => {
      offline.value = true;
      if (current && session.peek() === current) scheduleKeepalive(RETRY_MS);
      reject(new ApiError(0, null));
    };
    xhr.send(file);
  });
}

/** An API call that must succeed: answers the body, throws ApiError otherwise. */
export async function call(method, path, body, sessionId) {
  const r = await request(method, path, body, sessionId);
  if (!r.ok) throw new ApiError(r.status, r.json);
  return r.json;
}

export async function refreshMessages() {
  const r = await request('GET', '/v1/messages');
  if (r.ok) messages.value = r.json.messages;
}

/** Logs in (spec 5: a one-time token, then the proof), then asks who the session is (extension /v1/session). */
export async function login(username, password) {
  const token = await call('GET', '/v1/login');
  const answer = await call('POST', '/v1/login', { username, password: loginProof(password, token.token) });
  const who = await call('GET', '/v1/session', undefined, answer.session.id);
  batch(() => {
    const before = interrupted.peek();
    // Another account than the interrupted one starts afresh (its views are not that account's work).
    if (before && (before.username !== who.username || before.role !== who.role)) interrupted.value = null;
    // mustChange: a generated password, replaced first (views/first-run.js).
    session.value = { id: answer.session.id, username: who.username, role: who.role, mustChange: who.passwordChangeRequired === true };
    logoutReason.value = null;
  });
  interrupted.value = null;
}

/** Leaves the interrupted views for the plain login page. */
export function abandonInterrupted() {
  interrupted.value = null;
}

/**
 * A session kept over a reload: asks the controller whether it still stands (its answer counts as activity); a 401
 * ends it with the reason. Also on returning to the tab, so a login elsewhere is noticed when the person is back.
 */
export function checkSession() {
  const current = session.peek();
  if (!current) return;
  request('GET', '/v1/session')
    .then((r) => {
      const mustChange = r.ok && r.json.passwordChangeRequired === true;
      if (r.ok && session.peek() === current && mustChange !== Boolean(current.mustChange)) session.value = { ...current, mustChange };
    })
    .catch(() => undefined);
}
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') checkSession();
});

export async function logout() {
  try {
    await request('POST', '/v1/logout');
  } finally {
    endSession('loggedOut.manual');
  }
}

/**
 * Restarts the controller (extension POST /v1/restart), asking the operator first when it would end a running
 * transaction. It answers first and then restarts; once the old session
 * id is unknown (401), the controller is back and the page shows the login with the reason.
 */
export async function restartController() {
  const current = session.peek();
  // A running transaction would end with the restart: the controller answers 409 and the operator decides.
  const first = await request('POST', '/v1/restart');
  if (first.status === 409 && window.confirm(first.json.cause)) await call('POST', '/v1/restart', { endTransaction: true });
  else if (!first.ok) throw new ApiError(first.status, first.json);
  clearTimeout(keepalive);
  restarting.value = true;
  const started = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, RESTART_POLL_MS));
    if (session.peek() !== current) break; // another call of the page saw it back already
    try {
      const res = await fetch('/v1/session', { headers: { Authorization: current.id }, cache: 'no-store' });
      if (res.status === 401) break;
    } catch {
      // down while it restarts
    }
    if (Date.now() - started > RESTART_GIVE_UP_MS) {
      endSession('loggedOut.restartSlow');
      return;
    }
  }
  if (session.peek() === current) endSession('loggedOut.restart');
}

/** The roles, lowest first (spec 5 item 9). */
export const ROLES = ['user', 'operator', 'installer', 'manufacturer'];
export const roleAtLeast = (role, min) => ROLES.indexOf(role) >= ROLES.indexOf(min);
