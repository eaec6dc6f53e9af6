/**
 * Property-based fuzzing of the whole REST API (spec sections 2, 4, 5, 7, 8) through HTTP against one running
 * controller.
 *
 * Every generated request is checked for:
 * - no 500, no connection error, no hang (each request has a time limit), and the controller still answers
 *   GET /v1/system_state afterwards;
 * - a status the spec allows for that endpoint and method (section 4 plus 7.1; 401 only without a valid session,
 *   except for POST /v1/login), and where the spec pins the outcome (lengths of section 8, the whitelist `type`,
 *   date-time queries, key/value existence) exactly the status the spec calls for;
 * - the body shape: OperationFailed `{success: false, cause}` for errors, the not-logged-in body (2.6) for 401,
 *   an empty body for 204 (and for the 201 of POST /v1/map), and the success shapes of section 2;
 * - no change on rejection: the observable state (GET /v1/users, GET /v1/whitelist?type=local, GET /v1/map) is
 *   byte-identical after every rejected request.
 *
 * The session never expires by itself (the harness's clock is simulated), so one login serves the whole file. POST
 * /v1/login is fuzzed late (failed logins throttle further logins) and POST /v1/logout with the real session last.
 * fast-check picks the seeds and prints seed and counterexample on failure.
 *
 * The tests under "regressions" pin problems this fuzzing once found (now fixed).
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startHarness, type Harness, type HttpResult, type RequestOptions } from '../../harness.js';
import { allowedStatuses, READ_ONLY, type RouteName, SESSION_CODES, SYSTEM_STATE_VALUES, UUID_RE } from './spec.js';
import { enc } from './generators.js';

// ---------------------------------------------------------------------------------------------------------------
// HTTP plumbing
// ---------------------------------------------------------------------------------------------------------------

export const REQUEST_TIMEOUT_MS = 10_000;
export const RUNS = 100;

export let h: Harness;
export let session = '';

export const short = (s: string, max = 240) => (s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s);

/** One request with a time limit: a hang or a connection error fails the property with the request named. */
export async function call(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
  });
  try {
    return await Promise.race([h.http(method, path, opts), timeout]);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // ERR_* codes are Node's client refusing to send the request: a fault of this file, not of the controller.
    const hint = e.code?.startsWith('ERR_') ? 'the test could not send this request' : 'controller crashed or hung?';
    throw new Error(`${method} ${short(path)}: ${e.message} (${hint})`);
  } finally {
    clearTimeout(timer);
  }
}

export interface Probe {
  route: RouteName | undefined;
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Authorization header: the valid session when left out, none for null, else this (invalid) value. */
  auth?: string | null;
  /** Local address to send from (the session is bound to 127.0.0.1). */
  from?: string;
  /** Where the spec pins the outcome: the statuses it calls for (checked on top of the allowed ones). */
  expected?: readonly number[];
}

export function describeProbe(p: Probe): string {
  const body =
    p.body === undefined ? '' : typeof p.body === 'string' ? ` body=${short(JSON.stringify(p.body))}` : ` body=<bytes ${short(p.body.toString('hex'))}>`;
  const auth = p.auth === undefined ? '' : p.auth === null ? ' (no session)' : ` (Authorization ${short(JSON.stringify(p.auth), 80)})`;
  const headers = p.headers ? ` headers=${JSON.stringify(p.headers)}` : '';
  const from = p.from ? ` from ${p.from}` : '';
  return `${p.method} ${short(p.path)}${body}${auth}${headers}${from}`;
}

/** Sends one generated request and checks status and body against the spec. */
export async function probe(p: Probe, guard?: StateGuard): Promise<HttpResult> {
  const opts: RequestOptions = {};
  if (p.auth === undefined) opts.session = session;
  else if (p.auth !== null) opts.session = p.auth;
  if (p.body !== undefined) opts.rawBody = p.body;
  if (p.headers) opts.headers = p.headers;
  if (p.from) opts.from = p.from;
  const authed = p.auth === undefined && p.from === undefined;
  const label = describeProbe(p);
  const res = await call(p.method, p.path, opts);
  checkAnswer(p, res, label, authed);
  if (guard) await guard.after(p.method, res, label);
  return res;
}

export function checkAnswer(p: Probe, res: HttpResult, label: string, authed: boolean): void {
  const what = `${label}\n  → ${res.status} ${short(res.text, 400)}`;
  // 500 only where the spec answers a refusal with it (pairing outside idle or before any tag), with a cause.
  if (p.route !== 'pairing') expect(res.status, `internal error: ${what}`).not.toBe(500);
  else if (res.status === 500) expect(res.json.cause, `pairing 500 without a cause: ${what}`).toMatch(/pairing|tag/i);
  expect(allowedStatuses(p.route, p.method, authed), `status the spec does not allow: ${what}`).toContain(res.status);
  if (p.expected) expect(p.expected, `status other than the spec calls for: ${what}`).toContain(res.status);

  if (p.method === 'HEAD') {
    expect(res.text, `HEAD with a body: ${what}`).toBe('');
    return;
  }
  if (res.status === 204 || (p.route === 'map' && p.method === 'POST' && res.status === 201)) {
    expect(res.text, `answer without content has a body: ${what}`).toBe('');
    return;
  }
  expect(String(res.headers['content-type']), `not a JSON answer: ${what}`).toMatch(/^application\/json/);
  expect(res.json, `body is not JSON: ${what}`).toBeDefined();
  const loginBadRequest = p.route === 'login' && p.method === 'POST' && res.status === 400;
  if (res.status === 401 || (loginBadRequest && res.json && 'logged_in' in res.json)) {
    checkNotLoggedIn(res.json, what);
  } else if (res.status >= 400) {
    checkOperationFailed(res.json, what);
  } else {
    checkSuccessBody(p, res, what);
  }
}

export function checkNotLoggedIn(json: any, what: string): void {
  expect(Object.keys(json).sort(), `not-logged-in body (2.6) expected: ${what}`).toEqual(['code', 'logged_in', 'message']);
  expect(json.logged_in, what).toBe(false);
  expect(typeof json.message === 'string' && json.message.trim() !== '', `empty message: ${what}`).toBe(true);
  expect(SESSION_CODES, `code not in 7.2: ${what}`).toContain(json.code);
}

export function checkOperationFailed(json: any, what: string): void {
  expect(Object.keys(json).sort(), `OperationFailed (2.1) expected: ${what}`).toEqual(['cause', 'success']);
  expect(json.success, what).toBe(false);
  expect(typeof json.cause === 'string' && json.cause.trim() !== '', `empty cause: ${what}`).toBe(true);
}

export const isUser = (u: any) => typeof u === 'object' && u !== null && UUID_RE.test(u.userId) && typeof u.userName === 'string';
export const isStringRecord = (o: any) => typeof o === 'object' && o !== null && !Array.isArray(o) && Object.values(o).every((v) => typeof v === 'string');

export function checkSuccessBody(p: Probe, res: HttpResult, what: string): void {
  const json = res.json;
  const m = p.method === 'HEAD' ? 'GET' : p.method;
  switch (`${p.route} ${m}`) {
    case 'login GET':
      expect(typeof json.token === 'string' && json.token.length === 32, `LoginToken (2.3): ${what}`).toBe(true);
      break;
    case 'login POST':
      expect(json.logged_in === true && UUID_RE.test(json.session?.id), `login success (2.5): ${what}`).toBe(true);
      break;
    case 'users GET':
      expect(Array.isArray(json.users) && json.users.every(isUser), `{users: User[]}: ${what}`).toBe(true);
      break;
    case 'users POST':
    case 'user GET':
      expect(isUser(json), `User (2.11): ${what}`).toBe(true);
      break;
    case 'user PATCH':
    case 'whitelist POST':
    case 'map PATCH':
    case 'active GET':
      expect(json, `OperationSucceeded (2.2): ${what}`).toEqual({ success: true });
      break;
    case 'whitelist GET':
      expect(json.success === true && Array.isArray(json.tags) && json.tags.every((t: any) => typeof t?.id === 'string'), `whitelist: ${what}`).toBe(true);
      break;
    case 'map GET':
      expect(isStringRecord(json), `key/value pairs (2.12a): ${what}`).toBe(true);
      break;
    case 'mapKey GET':
      expect(isStringRecord(json) && Object.keys(json).length === 1, `one key/value pair: ${what}`).toBe(true);
      break;
    case 'transactions GET':
      expect(Array.isArray(json), `array of CompletedTransactionDetails: ${what}`).toBe(true);
      break;
    case 'summary GET':
      for (const k of ['transactionCount', 'totalDuration', 'totalConsumption']) {
        expect(Number.isInteger(json[k]), `CompletedTransactionsSummary.${k}: ${what}`).toBe(true);
      }
      break;
    case 'systemState GET':
      for (const [k, values] of Object.entries(SYSTEM_STATE_VALUES)) expect(values, `SystemState.${k}: ${what}`).toContain(json[k]);
      break;
    case 'messages GET':
      expect(Array.isArray(json.messages), `{messages: Message[]}: ${what}`).toBe(true);
      break;
    default:
      // A junk path that normalised onto some endpoint: the status check above is all that applies.
      break;
  }
}

/** The controller still answers, and (it runs in this process) no body polluted Object.prototype. */
export async function expectAlive(): Promise<void> {
  const res = await call('GET', '/v1/system_state', { session });
  expect(res.status, `GET /v1/system_state afterwards answered ${res.status} ${res.text}`).toBe(200);
  expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted by a "__proto__" member').toBeUndefined();
}

// ---------------------------------------------------------------------------------------------------------------
// Observable state: no change on rejection
// ---------------------------------------------------------------------------------------------------------------

export interface Snapshot {
  users: string;
  whitelist: string;
  map: string;
}

export async function snapshot(): Promise<Snapshot> {
  const [users, whitelist, map] = await Promise.all(
    ['/v1/users', '/v1/whitelist?type=local', '/v1/map'].map(async (path) => {
      const res = await call('GET', path, { session });
      if (res.status !== 200) throw new Error(`snapshot: GET ${path} answered ${res.status} ${res.text}`);
      return res.text;
    }),
  );
  return { users: users!, whitelist: whitelist!, map: map! };
}

export const render = (s: Snapshot) => `users: ${s.users}\nwhitelist: ${s.whitelist}\nmap: ${s.map}`;

/**
 * Holds the state last seen. After a rejected write the state must be byte-identical to it; after an accepted one
 * it becomes the new reference. Reads are covered by `end()`.
 */
export class StateGuard {
  private constructor(private ref: Snapshot) {}

  static async begin(): Promise<StateGuard> {
    return new StateGuard(await snapshot());
  }

  /** The key/value store as last seen. */
  get pairs(): Record<string, string> {
    return JSON.parse(this.ref.map) as Record<string, string>;
  }

  /** The users as last seen. */
  get users(): { userId: string; userName: string }[] {
    return (JSON.parse(this.ref.users) as { users: { userId: string; userName: string }[] }).users;
  }

  async after(method: string, res: HttpResult, label: string): Promise<void> {
    if (READ_ONLY.has(method)) return;
    const now = await snapshot();
    if (res.status >= 400) expect(render(now), `rejected request (${res.status}) changed the state: ${label}`).toBe(render(this.ref));
    this.ref = now;
  }

  async end(): Promise<void> {
    expect(render(await snapshot()), 'the state changed during a batch of rejected or read-only requests').toBe(render(this.ref));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Seed data
// ---------------------------------------------------------------------------------------------------------------

export interface Tag {
  id: string;
  tagType?: string;
  number?: number;
  name?: string;
  userid?: string;
  priority?: string;
}

export const SEED_USER_NAMES = ['Seed User One', 'Seed User Two'] as const;
export const seedUsers: string[] = [];
export const SEED_MAP: Record<string, string> = { 'seed-key-1': 'one', 'seed-key-2': 'two', 'seed key/é😀': 'three' };
export const SEED_KEYS = Object.keys(SEED_MAP);
export const SEED_TAG_IDS = ['SEED-TAG-1', 'SEED-TAG-2', 'SEED-TAG-3'];
export const seedTags = (): Tag[] => [
  // An RFID entry's id must be a hex UID (issue 33): the seed's ids are names, so it is of type EVCCID.
  { id: 'SEED-TAG-1', tagType: 'EVCCID', number: 1, name: 'Seed one', userid: seedUsers[0]!, priority: 'HIGH' },
  { id: 'SEED-TAG-2' },
  { id: 'SEED-TAG-3', tagType: 'NFC', name: 'Seed three' },
];

export async function must(method: string, path: string, body: unknown, status: number): Promise<HttpResult> {
  const res = await call(method, path, { session, body });
  if (res.status !== status) throw new Error(`seeding: ${method} ${path} answered ${res.status} ${res.text}`);
  return res;
}

/** Puts the seed users, whitelist entries and pairs back the way they were (fuzzing may change or delete them). */
export async function ensureSeeds(): Promise<void> {
  for (const [i, name] of SEED_USER_NAMES.entries()) {
    const id = seedUsers[i];
    const got = id === undefined ? undefined : await call('GET', `/v1/users/${id}`, { session });
    if (got === undefined || got.status === 404) seedUsers[i] = (await must('POST', '/v1/users', { userName: name }, 201)).json.userId;
    else if (got.json.userName !== name) await must('PATCH', `/v1/users/${id}`, { userName: name }, 200);
  }
  const tags = (await must('GET', '/v1/whitelist?type=local', undefined, 200)).json.tags as Tag[];
  for (const tag of seedTags()) {
    const current = tags.find((t) => t.id === tag.id);
    if (!current) await must('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [tag] }, 200);
    else if (!isDeepStrictEqual(current, tag)) await must('POST', '/v1/whitelist', { type: 'local', command: 'edit', tags: [tag] }, 200);
  }
  for (const [key, value] of Object.entries(SEED_MAP)) {
    const got = await call('GET', `/v1/map/${enc(key)}`, { session });
    if (got.status === 404) await must('POST', '/v1/map', { [key]: value }, 201);
    else if (got.json[key] !== value) await must('PATCH', '/v1/map', { [key]: value }, 200);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Lifecycle
// ---------------------------------------------------------------------------------------------------------------

/** The controller of the calling test file: started and logged in once, the seeds put back before each test. */
export function useFuzzController(): void {
  beforeAll(async () => {
    h = await startHarness();
    session = await h.login();
    await ensureSeeds();
  });

  afterAll(async () => {
    await h?.stop();
  });

  beforeEach(async () => {
    if (session !== '') await ensureSeeds();
  });
}

/** The one session was ended (POST /v1/logout with it): no more seeding. */
export function sessionEnded(): void {
  session = '';
}

/** The known endpoints with concrete paths (the seed ids fill the path parameters). */
export function concretePaths(): { route: RouteName; path: string }[] {
  return [
    { route: 'login', path: '/v1/login' },
    { route: 'logout', path: '/v1/logout' },
    { route: 'users', path: '/v1/users' },
    { route: 'user', path: `/v1/users/${seedUsers[0]!}` },
    { route: 'whitelist', path: '/v1/whitelist?type=local' },
    { route: 'whitelist', path: '/v1/whitelist' },
    { route: 'map', path: '/v1/map' },
    { route: 'mapKey', path: `/v1/map/${enc(SEED_KEYS[0]!)}` },
    { route: 'transactions', path: '/v1/transactions' },
    { route: 'summary', path: '/v1/transactions/summary' },
    { route: 'active', path: '/v1/transactions/active' },
    { route: 'systemState', path: '/v1/system_state' },
    { route: 'messages', path: '/v1/messages' },
    { route: 'settings', path: '/v1/settings' },
    { route: 'appSettings', path: '/v1/app_settings' },
    { route: 'appDashboard', path: '/v1/app_dashboard' },
    { route: 'pairing', path: '/v1/whitelist/pairing' },
  ];
}
