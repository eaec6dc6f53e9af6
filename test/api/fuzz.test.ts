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
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startHarness, type Harness, type HttpResult, type RequestOptions } from '../harness.js';

// ---------------------------------------------------------------------------------------------------------------
// Routes and what the spec allows for them
// ---------------------------------------------------------------------------------------------------------------

type RouteName =
  | 'login'
  | 'logout'
  | 'users'
  | 'user'
  | 'whitelist'
  | 'map'
  | 'mapKey'
  | 'transactions'
  | 'summary'
  | 'active'
  | 'systemState'
  | 'messages'
  | 'settings'
  | 'appSettings'
  | 'appDashboard'
  | 'pairing';

interface Route {
  /** Callable without a session (spec 5 item 1). */
  public?: boolean;
  /** Per supported method: the statuses section 4 lists, plus 400 (7.1: malformed request or query). */
  methods: Partial<Record<string, readonly number[]>>;
}

const ROUTES: Record<RouteName, Route> = {
  login: { public: true, methods: { GET: [200, 400], POST: [200, 400, 401] } },
  logout: { methods: { POST: [204, 400] } },
  users: { methods: { GET: [200, 400], POST: [201, 400] } },
  user: { methods: { GET: [200, 400, 404], PATCH: [200, 400, 404], DELETE: [204, 400, 404] } },
  whitelist: { methods: { GET: [200, 400], POST: [200, 400, 404], DELETE: [204, 400, 404] } },
  map: { methods: { GET: [200, 400], POST: [201, 400, 409], PATCH: [200, 400, 404] } },
  mapKey: { methods: { GET: [200, 400, 404], DELETE: [204, 400, 404] } },
  transactions: { methods: { GET: [200, 400] } },
  summary: { methods: { GET: [200, 400] } },
  active: { methods: { GET: [200, 204, 400] } },
  systemState: { methods: { GET: [200, 400] } },
  messages: { methods: { GET: [200, 400] } },
  settings: { methods: { GET: [200, 400, 404], POST: [200, 400], PATCH: [200, 400] } },
  appSettings: { methods: { GET: [200, 400] } },
  appDashboard: { methods: { GET: [200, 400] } },
  pairing: { methods: { GET: [200, 500], POST: [200, 500] } },
};

/** Methods sent to known paths: the API's own, the unsupported usual ones, and a few WebDAV ones Node accepts. */
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'HEAD', 'PROPFIND', 'COPY', 'PURGE'] as const;
const READ_ONLY = new Set(['GET', 'HEAD']);

/** Session error codes of spec 7.2. */
const SESSION_CODES = [0, ...Array.from({ length: 15 }, (_, i) => 1001 + i)];

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SYSTEM_STATE_VALUES: Record<string, readonly string[]> = {
  systemState: ['idle', 'connected', 'wait_for_auth', 'charging', 'charging_pause', 'finished', 'unavailable', 'error'],
  connectionState: [
    'no_vehicle_connected',
    'vehicle_connected_schuko',
    'vehicle_charging_schuko',
    'vehicle_connected_type2',
    'vehicle_charging_type2',
    'vehicle_connector_error',
  ],
  authState: ['not_authorized_for_charging', 'wait_for_auth', 'authorized_for_charging', 'auth_timeout'],
  ocppState: ['available', 'occupied', 'reserved', 'unavailable', 'faulted', 'preparing', 'charging', 'suspendedevse', 'suspendedev', 'finishing'],
  type2State: ['a', 'b', 'c', 'd', 'e'],
};

/** Statuses the spec allows for `method` on `route` (undefined: a path that is no endpoint). */
function allowedStatuses(route: RouteName | undefined, method: string, authed: boolean): readonly number[] {
  if (route === undefined) return authed ? [400, 404] : [401, 404];
  const r = ROUTES[route];
  if (!authed && !r.public) return [401];
  // 7.1 has no 405: an unsupported method is a malformed request (400) or no such endpoint (404).
  return r.methods[method === 'HEAD' ? 'GET' : method] ?? [400, 404];
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP plumbing
// ---------------------------------------------------------------------------------------------------------------

const REQUEST_TIMEOUT_MS = 10_000;
const RUNS = 100;

let h: Harness;
let session = '';

const short = (s: string, max = 240) => (s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s);

/** One request with a time limit: a hang or a connection error fails the property with the request named. */
async function call(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
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

interface Probe {
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

function describeProbe(p: Probe): string {
  const body =
    p.body === undefined ? '' : typeof p.body === 'string' ? ` body=${short(JSON.stringify(p.body))}` : ` body=<bytes ${short(p.body.toString('hex'))}>`;
  const auth = p.auth === undefined ? '' : p.auth === null ? ' (no session)' : ` (Authorization ${short(JSON.stringify(p.auth), 80)})`;
  const headers = p.headers ? ` headers=${JSON.stringify(p.headers)}` : '';
  const from = p.from ? ` from ${p.from}` : '';
  return `${p.method} ${short(p.path)}${body}${auth}${headers}${from}`;
}

/** Sends one generated request and checks status and body against the spec. */
async function probe(p: Probe, guard?: StateGuard): Promise<HttpResult> {
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

function checkAnswer(p: Probe, res: HttpResult, label: string, authed: boolean): void {
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

function checkNotLoggedIn(json: any, what: string): void {
  expect(Object.keys(json).sort(), `not-logged-in body (2.6) expected: ${what}`).toEqual(['code', 'logged_in', 'message']);
  expect(json.logged_in, what).toBe(false);
  expect(typeof json.message === 'string' && json.message.trim() !== '', `empty message: ${what}`).toBe(true);
  expect(SESSION_CODES, `code not in 7.2: ${what}`).toContain(json.code);
}

function checkOperationFailed(json: any, what: string): void {
  expect(Object.keys(json).sort(), `OperationFailed (2.1) expected: ${what}`).toEqual(['cause', 'success']);
  expect(json.success, what).toBe(false);
  expect(typeof json.cause === 'string' && json.cause.trim() !== '', `empty cause: ${what}`).toBe(true);
}

const isUser = (u: any) => typeof u === 'object' && u !== null && UUID_RE.test(u.userId) && typeof u.userName === 'string';
const isStringRecord = (o: any) =>
  typeof o === 'object' && o !== null && !Array.isArray(o) && Object.values(o).every((v) => typeof v === 'string');

function checkSuccessBody(p: Probe, res: HttpResult, what: string): void {
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
async function expectAlive(): Promise<void> {
  const res = await call('GET', '/v1/system_state', { session });
  expect(res.status, `GET /v1/system_state afterwards answered ${res.status} ${res.text}`).toBe(200);
  expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted by a "__proto__" member').toBeUndefined();
}

// ---------------------------------------------------------------------------------------------------------------
// Observable state: no change on rejection
// ---------------------------------------------------------------------------------------------------------------

interface Snapshot {
  users: string;
  whitelist: string;
  map: string;
}

async function snapshot(): Promise<Snapshot> {
  const [users, whitelist, map] = await Promise.all(
    ['/v1/users', '/v1/whitelist?type=local', '/v1/map'].map(async (path) => {
      const res = await call('GET', path, { session });
      if (res.status !== 200) throw new Error(`snapshot: GET ${path} answered ${res.status} ${res.text}`);
      return res.text;
    }),
  );
  return { users: users!, whitelist: whitelist!, map: map! };
}

const render = (s: Snapshot) => `users: ${s.users}\nwhitelist: ${s.whitelist}\nmap: ${s.map}`;

/**
 * Holds the state last seen. After a rejected write the state must be byte-identical to it; after an accepted one
 * it becomes the new reference. Reads are covered by `end()`.
 */
class StateGuard {
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

interface Tag {
  id: string;
  tagType?: string;
  number?: number;
  name?: string;
  userid?: string;
  priority?: string;
}

const SEED_USER_NAMES = ['Seed User One', 'Seed User Two'] as const;
const seedUsers: string[] = [];
const SEED_MAP: Record<string, string> = { 'seed-key-1': 'one', 'seed-key-2': 'two', 'seed key/é😀': 'three' };
const SEED_KEYS = Object.keys(SEED_MAP);
const SEED_TAG_IDS = ['SEED-TAG-1', 'SEED-TAG-2', 'SEED-TAG-3'];
const seedTags = (): Tag[] => [
  { id: 'SEED-TAG-1', tagType: 'RFID', number: 1, name: 'Seed one', userid: seedUsers[0]!, priority: 'HIGH' },
  { id: 'SEED-TAG-2' },
  { id: 'SEED-TAG-3', tagType: 'NFC', name: 'Seed three' },
];

async function must(method: string, path: string, body: unknown, status: number): Promise<HttpResult> {
  const res = await call(method, path, { session, body });
  if (res.status !== status) throw new Error(`seeding: ${method} ${path} answered ${res.status} ${res.text}`);
  return res;
}

/** Puts the seed users, whitelist entries and pairs back the way they were (fuzzing may change or delete them). */
async function ensureSeeds(): Promise<void> {
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
// Generators
// ---------------------------------------------------------------------------------------------------------------

const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Text the database cannot keep as sent (NUL, lone surrogates): the controller refuses any body holding it (400). */
const unstorable = (s: string) => s.includes('\u0000') || LONE_SURROGATE_RE.test(s);

/** Whether any string of a parsed JSON value, member names included, is unstorable (iterative: any depth or length). */
function holdsUnstorable(root: unknown): boolean {
  const stack = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (unstorable(value)) return true;
    } else if (Array.isArray(value)) {
      for (const element of value) stack.push(element);
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) stack.push(k, v);
    }
  }
  return false;
}

/** Length in characters (code points), the unit of the spec's limits. */
const chars = (s: string) => [...s].length;
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

/** Percent-encodes the UTF-8 bytes of `s` (a lone surrogate becomes U+FFFD), leaving only unreserved characters. */
function enc(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Well-formed single code points without control characters or commas: ASCII, 2-, 3- and 4-byte UTF-8, format chars. */
const GOOD_UNITS = ['a', 'Z', '7', ' ', '-', 'é', 'ß', 'Ω', '中', '€', '😀', '𝄞', '\u200b', '\u2028', '\ufeff', '\u0085'];
/** Code points that are awkward somewhere: control characters, a lone (low) surrogate, a comma, quote, backslash. */
const BAD_UNITS = ['\u0000', '\u0001', '\u001f', '\u007f', '\n', '\t', '\udfff', ',', '"', '\\', '%'];

/** A string of exactly `n` characters cycling through `units` (single code points). */
const sized = (n: number, units: readonly string[]) => Array.from({ length: n }, (_, i) => units[i % units.length]).join('');

/** Leaves printable ASCII as is and percent-encodes the rest (Node refuses spaces and the like in a request target). */
const rawSafe = (s: string) => s.replace(/[^\x21-\x7e]+/gu, (m) => enc(m));

const sizedFrom = (lengths: readonly number[], units: readonly string[]) =>
  fc
    .tuple(fc.constantFrom(...lengths), fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 3 }))
    .map(([n, u]) => sized(n, u));

/** Strings of the limit lengths of section 8 (255/256, 256/257, 1000/1001) and around, in all kinds of characters. */
const sizedString = sizedFrom([0, 1, 254, 255, 256, 257, 999, 1000, 1001], [...GOOD_UNITS, ...BAD_UNITS]);

const anyUnit = fc.oneof(
  fc.constantFrom(...GOOD_UNITS, ...BAD_UNITS),
  fc.integer({ min: 0, max: 0x10ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff).map((cp) => String.fromCodePoint(cp)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
);

const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.string({ unit: anyUnit, maxLength: 20 }),
  sizedString,
);

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(0, -1, 0.5, 1e308, 2 ** 31, 2 ** 53 + 2),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

const anyValue = fc.oneof(weirdString, wrongType);

const isJsonText = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

const MALFORMED_JSON = [
  '',
  ' ',
  '\n\t',
  '{',
  '}',
  '[',
  '{"',
  '{"a"',
  '{"a":',
  '{"a":}',
  "{'a':'b'}",
  '{a:1}',
  '{"a":1,}',
  '[1,]',
  'NaN',
  'Infinity',
  'undefined',
  'nul',
  'tru',
  '"unterminated',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\u0001"}',
  '\u0000',
  '\ufeff',
  '{"a":1}}',
  '{"a":1} x',
  '01',
  '1e',
  '--1',
  '/* comment */ {}',
  '{"a":1 /* c */}',
  '{"userName":"x"',
  '{"type":"local","command":"add","tags":[{"id":"x"}]',
  '{"seed-key-1":"x",}',
  '[]]',
  '{"__proto__":',
  '['.repeat(5000),
];

/** Text that is not JSON: fixed cases, random text, truncated and corrupted JSON. */
const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...MALFORMED_JSON),
  fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !isJsonText(s)),
  fc
    .tuple(fc.json({ maxDepth: 3 }), fc.nat())
    .map(([j, n]) => j.slice(0, n % Math.max(j.length, 1)))
    .filter((s) => !isJsonText(s)),
  fc
    .tuple(fc.json({ maxDepth: 3 }), fc.nat(), fc.constantFrom('{', '}', '"', ',', ':', '\\', '\u0000', "'", 'x', ']'))
    .map(([j, n, c]) => {
      const i = n % (j.length + 1);
      return j.slice(0, i) + c + j.slice(i);
    })
    .filter((s) => !isJsonText(s)),
);

/** Bytes that are not UTF-8 (or are, by chance). */
const rawBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  fc.constantFrom(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), Buffer.from('{"userName":"\xff"}', 'latin1'), Buffer.from([0xc0, 0xaf])),
);

const stringify = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return 'null';
  }
};

/** Valid JSON of any type. */
const jsonDocument: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map(stringify),
  fc
    .anything({
      maxDepth: 3,
      withBoxedValues: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withDate: true,
      withTypedArray: true,
      withSparseArray: true,
    })
    .map(stringify),
);

/** Any body at all: malformed, raw bytes, valid JSON of the wrong type. */
const junkBody: fc.Arbitrary<string | Buffer> = fc.oneof(malformedJson, rawBytes, jsonDocument);

/** A JSON object with the given members plus, sometimes, junk members and a `__proto__` member. */
function objectText(members: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc
    .tuple(members, fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), fc.boolean(), fc.boolean())
    .map(([m, extra, withExtra, withProto]) => {
      const text = stringify(withExtra ? { ...extra, ...m } : m);
      return withProto && text.startsWith('{"') ? `{"__proto__":{"polluted":1},${text.slice(1)}` : text;
    });
}

/**
 * The body as the controller accepts it: UTF-8 (BOM dropped), valid JSON without unstorable text; `json: false` means
 * it is refused.
 */
function parsedBody(raw: string | Buffer): { json: true; value: unknown } | { json: false } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  } catch {
    return { json: false };
  }
  if (text.trim() === '') return { json: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { json: false };
  }
  return holdsUnstorable(value) ? { json: false } : { json: true, value };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// --- paths and queries ---

/** Malformed or tricky percent escapes and dot segments. */
const pathJunk = fc.constantFrom(
  '%',
  '%%',
  '%Z',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%00',
  '%FF',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%2F',
  '%2f..%2f',
  '%2e%2e',
  '%2e',
  '..',
  '.',
  '%5C',
  '%25',
  '%u0041',
  '%%32%65',
  '%0A',
  '%20',
  '+',
  ';x=1',
  '~',
);

/** Printable ASCII that Node sends as is in a request target (no '/' or '\\', which would change the path's shape). */
const rawPathChar = fc.constantFrom(...'!$&\'()*+,;=:@-._~%?#[]{}|^`"<>ABCabcz019'.split(''));

const pathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.webSegment(),
  fc.string({ unit: rawPathChar, maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }).map(enc),
  fc.string({ unit: anyUnit, maxLength: 20 }).map(enc),
  pathJunk,
  fc.tuple(fc.webSegment(), pathJunk, fc.webSegment()).map(([a, b, c]) => a + b + c),
  sizedFrom([255, 256, 257, 1000, 1001], ['a', '😀', 'é', '%']).map(enc),
  fc.constantFrom(5000, 10000).map((n) => 'a'.repeat(n)),
);

const dateTime = fc
  .date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** Date-time lookalikes: valid ones, and ones wrong in one detail. */
const dateLike: fc.Arbitrary<string> = fc.oneof(
  dateTime,
  fc.tuple(
    dateTime,
    fc.constantFrom(
      (s: string) => s.replace('Z', ''),
      (s: string) => s.replace('Z', '+00:00'),
      (s: string) => s.replace('Z', 'z'),
      (s: string) => s.replace('T', ' '),
      (s: string) => s.replace(/\.\d{3}/, ''),
      (s: string) => s.slice(0, 10),
      (s: string) => s.replace(/-\d{2}-/, '-13-'),
      (s: string) => s.replace(/-\d{2}T/, '-32T'),
      (s: string) => ` ${s}`,
      (s: string) => `${s}x`,
      (s: string) => `+0${s}`,
    ),
  ).map(([s, f]) => f(s)),
  fc.constantFrom('2021-02-29T00:00:00.000Z', '2020-02-30T12:00:00.000Z', '2020-01-01T24:00:00.000Z', '1700000000000', 'now', ''),
);

const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }).map(enc),
  fc.string({ unit: 'binary', maxLength: 12 }).map(enc),
  fc.string({ unit: rawPathChar, maxLength: 12 }),
  pathJunk,
  dateLike.map(enc),
  dateLike.map(rawSafe),
  fc.constantFrom('local', 'LOCAL', 'local%20', 'loc%61l', 'ocpp', '', 'SEED-TAG-1', 'SEED-TAG-1,nope', ',', ',,'),
  sizedFrom([999, 1000, 1001], ['a', ',', 'é']).map(enc),
);

const queryKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('from', 'to', 'ids', 'type', 'params', 'descriptions', 'id', 'key', 'userId', 'typ%65', 'from[]', ''),
  fc.string({ maxLength: 8 }).map(enc),
  pathJunk,
);

/**
 * Longest request target the generators make. Targets over Node's 16 KiB header limit are refused with 400 before
 * routing, whatever the endpoint would say (see "regressions"), so the per-endpoint oracles stay below it.
 */
const MAX_TARGET = 12_000;

/** Query strings without the '?': well-formed ones, random key/value lists with the API's keys, raw junk. */
const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.webQueryParameters(),
  fc
    .array(fc.tuple(queryKey, fc.option(queryValue, { nil: undefined })), { maxLength: 5 })
    .map((pairs) => pairs.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&'))
    .filter((q) => q.length <= MAX_TARGET),
  fc.string({ unit: rawPathChar, maxLength: 30 }),
);

/** The query parameters as the server reads them (first value wins; anything after '#' is not sent on). */
const queryParams = (query: string) => new URLSearchParams(query.split('#')[0]);

/** Whether `s` is a UTC date-time as spec 2 defines it: `YYYY-MM-DDThh:mm:ss.sssZ`, a real calendar instant. */
function isUtcDateTime(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(s)) return false;
  const t = Date.parse(s);
  return !Number.isNaN(t) && new Date(t).toISOString() === s;
}

/** What the spec says GET /transactions(?/summary) answers for a query: 200, 400, or either (left open). */
function rangeExpectation(query: string): readonly number[] {
  const params = queryParams(query);
  const verdict = (v: string | null): 'absent' | 'valid' | 'invalid' | 'open' =>
    v === null ? 'absent' : isUtcDateTime(v) ? 'valid' : /\d{4}-\d{2}-\d{2}T/.test(v) ? 'open' : 'invalid';
  const from = verdict(params.get('from'));
  const to = verdict(params.get('to'));
  if (from === 'invalid' || to === 'invalid') return [400];
  if (from === 'open' || to === 'open') return [200, 400];
  // A reversed range is not named by the spec; refusing it (400) or answering nothing (200) are both fine.
  if (from === 'valid' && to === 'valid') return Date.parse(params.get('from')!) > Date.parse(params.get('to')!) ? [200, 400] : [200];
  return [200];
}

// ---------------------------------------------------------------------------------------------------------------
// Oracles for bodies
// ---------------------------------------------------------------------------------------------------------------

type Verdict = 'valid' | 'invalid' | 'open';

/** userName (spec 4.4): a string of at most 255 characters; empty or control characters are left open. */
function userNameVerdict(v: unknown): Verdict {
  if (typeof v !== 'string' || chars(v) > 255) return 'invalid';
  if (v === '' || CONTROL_RE.test(v)) return 'open';
  return 'valid';
}

function userBodyVerdict(raw: string | Buffer): Verdict {
  const body = parsedBody(raw);
  if (!body.json || !isPlainObject(body.value) || !Object.hasOwn(body.value, 'userName')) return 'invalid';
  return userNameVerdict(body.value.userName);
}

/** Key/value pairs (spec 2.12a, 8): an object of strings, keys ≤ 256 and values ≤ 1000 characters, ≤ 1000 pairs. */
function pairsVerdict(raw: string | Buffer): { verdict: Verdict; keys: string[] } {
  const body = parsedBody(raw);
  if (!body.json || !isPlainObject(body.value)) return { verdict: 'invalid', keys: [] };
  const entries = Object.entries(body.value);
  if (entries.length > 1000) return { verdict: 'invalid', keys: [] };
  let verdict: Verdict = entries.length === 0 ? 'open' : 'valid';
  for (const [k, v] of entries) {
    if (typeof v !== 'string' || chars(v) > 1000 || chars(k) > 256) return { verdict: 'invalid', keys: [] };
    // `.` and `..` cannot be addressed in /v1/map/{key} (dot segments): the controller refuses them.
    if (k === '.' || k === '..') return { verdict: 'invalid', keys: [] };
    if (k === '') verdict = 'open';
  }
  return { verdict, keys: entries.map(([k]) => k) };
}

/** The statuses POST (add) or PATCH (update) /v1/map must answer given the store's content. */
function mapExpectation(method: 'POST' | 'PATCH', raw: string | Buffer, store: Record<string, string>): readonly number[] {
  const { verdict, keys } = pairsVerdict(raw);
  if (verdict === 'invalid') return method === 'POST' ? [400, 409] : [400, 404];
  const present = keys.filter((k) => Object.hasOwn(store, k));
  let ok: number[];
  if (method === 'POST') {
    if (present.length > 0) ok = [409];
    else ok = Object.keys(store).length + keys.length > 1000 ? [400] : [201];
  } else {
    ok = present.length === keys.length ? [200] : [404];
  }
  return verdict === 'open' ? [400, ...ok] : ok;
}

/** After an accepted POST or PATCH /v1/map, every pair of the request reads back as sent. */
async function expectStored(raw: string | Buffer, store: Record<string, string>): Promise<void> {
  const sent = (parsedBody(raw) as { value: Record<string, string> }).value;
  for (const [key, value] of Object.entries(sent)) {
    expect(Object.hasOwn(store, key) ? store[key] : '<missing>', `pair ${JSON.stringify(key)} read back after ${short(JSON.stringify(String(raw)))}`).toBe(
      value,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Lifecycle
// ---------------------------------------------------------------------------------------------------------------

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

/** The known endpoints with concrete paths (the seed ids fill the path parameters). */
function concretePaths(): { route: RouteName; path: string }[] {
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

// ---------------------------------------------------------------------------------------------------------------
// Sessions and methods
// ---------------------------------------------------------------------------------------------------------------

describe('authentication and methods', () => {
  test('every endpoint but /v1/login answers 401 with the not-logged-in body to a missing, wrong or foreign session', async () => {
    const paths = concretePaths().filter((p) => p.route !== 'login');
    const badAuth = fc.oneof(
      fc.constant<string | null>(null),
      fc.constant(''),
      fc.uuid(),
      fc.string({ unit: fc.constantFrom(...' !#$%&*+-./0123456789:;=?@ABCDEFabcdef_~'.split('')), maxLength: 60 }),
      fc.constantFrom(
        (s: string) => s.toUpperCase(),
        (s: string) => `Bearer ${s}`,
        (s: string) => `${s}x`,
        (s: string) => s.slice(0, -1),
        (s: string) => `${s},${s}`,
        (s: string) => s.replace(/[0-9a-f]$/, (c) => (c === '0' ? '1' : '0')),
      ).map((f) => f(session)),
    ).filter((a) => a === null || a.trim() !== session);
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom(...ALL_METHODS),
        fc.oneof(badAuth.map((auth) => ({ auth, from: undefined as string | undefined })), fc.constant({ auth: undefined, from: '127.0.0.2' })),
        fc.option(junkBody, { nil: undefined }),
        async ({ route, path }, method, { auth, from }, body) => {
          const res = await probe({ route, method, path, auth, from, body, expected: [401] });
          if (method !== 'HEAD') {
            // A header value of only spaces arrives empty (HTTP trims the whitespace around a value).
            const codes = from ? [1005] : !auth?.trim() ? [1002, 1003] : [1003];
            expect(codes, `session error code for ${method} ${path}`).toContain(res.json.code);
          }
        },
      ),
      { numRuns: 100 },
    );
    await guard.end();
    await expectAlive(); // the real session survived
  });

  test('unsupported methods on known paths are refused (400/404, never 405 or a success) and change nothing', async () => {
    const cases = concretePaths().flatMap(({ route, path }) =>
      ALL_METHODS.filter((m) => !ROUTES[route].methods[m === 'HEAD' ? 'GET' : m]).map((method) => ({ route, path, method })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...cases),
        fc.option(junkBody, { nil: undefined }),
        fc.option(queryString, { nil: undefined }),
        async (c, body, query) => {
          const guard = await StateGuard.begin();
          const path = query === undefined ? c.path : `${c.path}${c.path.includes('?') ? '&' : '?'}${query}`;
          await probe({ route: c.route, method: c.method, path, body, expected: [400, 404] }, guard);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: 80 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Paths and queries
// ---------------------------------------------------------------------------------------------------------------

describe('path segments', () => {
  test('junk user ids in GET/PATCH/DELETE /v1/users/{userId}', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(pathSegment, fc.uuid(), fc.uuid().map((u) => u.toUpperCase()), fc.uuid().map((u) => `${u}x`), fc.uuid().map((u) => u.replace(/-/g, ''))),
        fc.constantFrom('GET', 'PATCH', 'DELETE', 'PUT', 'POST', 'OPTIONS'),
        fc.option(fc.oneof(junkBody, objectText(fc.record({ userName: weirdString }))), { nil: undefined }),
        async (segment, method, body) => {
          const guard = await StateGuard.begin();
          await probe({ route: 'user', method, path: `/v1/users/${segment}`, body }, guard);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('junk keys in GET/DELETE /v1/map/{key}', async () => {
    await fc.assert(
      fc.asyncProperty(
        pathSegment.filter((s) => !SEED_KEYS.some((k) => enc(k) === s)),
        fc.constantFrom('GET', 'DELETE', 'POST', 'PATCH', 'PUT', 'HEAD'),
        fc.option(junkBody, { nil: undefined }),
        async (segment, method, body) => {
          const guard = await StateGuard.begin();
          await probe({ route: 'mapKey', method, path: `/v1/map/${segment}`, body }, guard);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a key in the path counts characters: 256 is looked up (404), 257 is refused (400)', async () => {
    await fc.assert(
      fc.asyncProperty(sizedFrom([1, 255, 256, 257, 300], GOOD_UNITS), fc.constantFrom('GET', 'DELETE'), async (key, method) => {
        // The prefix keeps the key clear of existing ones and of the dot segments.
        const k = `~${key}`.slice(0, key.length);
        const n = chars(k);
        await probe({ route: 'mapKey', method, path: `/v1/map/${enc(k)}`, expected: n <= 256 ? [404] : [400] });
      }),
      { numRuns: RUNS },
    );
  });

  test('unknown paths under /v1 and elsewhere', async () => {
    const known = new Set(['login', 'logout', 'users', 'whitelist', 'map', 'transactions', 'system_state', 'messages']);
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.array(pathSegment, { minLength: 1, maxLength: 3 }).filter((segs) => !known.has(decodeSafe(segs[0]!))),
        fc.constantFrom('/v1/', '/', '/v2/', '/V1/', '/v1//'),
        fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'PUT'),
        fc.boolean(),
        async (segments, prefix, method, authed) => {
          const path = prefix + segments.join('/');
          if (path.length > MAX_TARGET) return;
          // The pages and their files (test/web.test.ts, test/inspector.test.ts), also as paths that resolve to them
          // (`/%2e`, `/v1/%2e%2e`, `/?`).
          if (/^\/(web\/|inspect|$)/.test(resolvedPath(path))) return;
          await probe({ route: undefined, method, path, auth: authed ? undefined : null });
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
    await guard.end();
  });
});

/** The path a URL parser makes of `path` (dot segments resolved, query and fragment cut), or `path` when it fails. */
function resolvedPath(path: string): string {
  try {
    return new URL(path, 'http://controller').pathname;
  } catch {
    return path;
  }
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

describe('query strings', () => {
  test('random queries on every GET endpoint', async () => {
    const gets = concretePaths()
      .filter((p) => ROUTES[p.route].methods.GET)
      .map((p) => ({ ...p, path: p.path.split('?')[0]! }));
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...gets), queryString, async ({ route, path }, query) => {
        let expected: readonly number[] | undefined;
        if (route === 'whitelist') expected = queryParams(query).get('type') === 'local' ? [200] : [400];
        if (route === 'transactions' || route === 'summary') expected = rangeExpectation(query);
        await probe({ route, method: 'GET', path: `${path}?${query}`, expected });
        await expectAlive();
      }),
      { numRuns: 100 },
    );
    await guard.end();
  });

  test('from/to on /v1/transactions and /v1/transactions/summary: valid UTC date-times only', async () => {
    const value = fc.oneof(dateLike.map(rawSafe), dateLike.map(enc), weirdString.map(enc));
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<RouteName>('transactions', 'summary'),
        fc.option(value, { nil: undefined }),
        fc.option(value, { nil: undefined }),
        async (route, from, to) => {
          const query = [from === undefined ? '' : `from=${from}`, to === undefined ? '' : `to=${to}`].filter(Boolean).join('&');
          fc.pre(query.length <= MAX_TARGET); // longer targets are refused before routing (see "regressions")
          const path = route === 'transactions' ? '/v1/transactions' : '/v1/transactions/summary';
          await probe({ route, method: 'GET', path: query ? `${path}?${query}` : path, expected: rangeExpectation(query) });
        },
      ),
      { numRuns: 100 },
    );
    await guard.end();
    await expectAlive();
  });

  test('GET /v1/whitelist needs type=local exactly', async () => {
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.oneof(queryValue, weirdString.map(enc)), { nil: undefined }),
        fc.option(queryString, { nil: undefined }),
        async (type, rest) => {
          const query = [type === undefined ? '' : `type=${type}`, rest ?? ''].filter(Boolean).join('&');
          fc.pre(query.length <= MAX_TARGET); // longer targets are refused before routing (see "regressions")
          const expected = queryParams(query).get('type') === 'local' ? [200] : [400];
          await probe({ route: 'whitelist', method: 'GET', path: `/v1/whitelist?${query}`, expected });
        },
      ),
      { numRuns: RUNS },
    );
    await guard.end();
    await expectAlive();
  });

  test('DELETE /v1/whitelist with junk type/ids queries deletes nothing unless every id exists', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.oneof(fc.constant('local'), queryValue), { nil: undefined }),
        fc.array(fc.oneof(queryValue, fc.constantFrom(...SEED_TAG_IDS), fc.string({ unit: anyUnit, maxLength: 10 }).map(enc)), { minLength: 0, maxLength: 4 }),
        fc.option(junkBody, { nil: undefined }),
        async (type, ids, body) => {
          // Keep at least one id that is not whitelisted: a fully valid request would (rightly) delete seeds.
          const list = [...ids, 'no-such-tag'];
          const query = [type === undefined ? '' : `type=${type}`, `ids=${list.join(',')}`].filter(Boolean).join('&');
          fc.pre(query.length <= MAX_TARGET); // longer targets are refused before routing (see "regressions")
          const guard = await StateGuard.begin();
          const res = await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?${query}`, body, expected: [400, 404] }, guard);
          expect(res.status).toBeGreaterThanOrEqual(400);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------------------------

describe('request bodies', () => {
  test('POST /v1/users: junk bodies and userName of every type and length', async () => {
    const body = fc.oneof(
      junkBody,
      objectText(fc.record({ userName: anyValue })),
      objectText(fc.record({ userName: sizedString })),
      objectText(fc.record({ username: weirdString })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const verdict = userBodyVerdict(raw);
        const expected = verdict === 'valid' ? [201] : verdict === 'invalid' ? [400] : [201, 400];
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'users', method: 'POST', path: '/v1/users', body: raw, expected }, guard);
        if (res.status === 201) {
          // Accepted means stored as sent: the list holds the new user with the name of the request.
          const sent = (parsedBody(raw) as { value: { userName: string } }).value.userName;
          expect(res.json.userName, 'POST /v1/users echoes the name').toBe(sent);
          const stored = guard.users.find((u) => u.userId === res.json.userId);
          expect(stored, `user read back after ${short(JSON.stringify(raw))}`).toEqual({ userId: res.json.userId, userName: sent });
        }
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('PATCH /v1/users/{userId}: junk bodies on existing, missing and malformed ids', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('seed', 'seed-upper', 'missing', 'malformed'),
        fc.uuid(),
        fc.oneof(junkBody, objectText(fc.record({ userName: anyValue })), objectText(fc.record({ userName: sizedString }))),
        async (which, uuid, raw) => {
          const id = which === 'seed' ? seedUsers[1]! : which === 'seed-upper' ? seedUsers[1]!.toUpperCase() : which === 'missing' ? uuid : `${uuid}-0`;
          const verdict = userBodyVerdict(raw);
          let expected: number[];
          if (which === 'malformed') expected = [400];
          else if (verdict === 'invalid') expected = which === 'missing' ? [400, 404] : [400];
          else {
            const ok = which === 'seed' ? [200] : which === 'missing' ? [404] : [200, 404];
            expected = verdict === 'valid' ? ok : [400, ...ok];
          }
          const guard = await StateGuard.begin();
          await probe({ route: 'user', method: 'PATCH', path: `/v1/users/${id}`, body: raw, expected }, guard);
          await expectAlive();
        },
      ),
      { numRuns: 100 },
    );
  });

  test('POST /v1/whitelist: junk bodies and commands with wrong-typed or oversized members', async () => {
    const entry = fc.record(
      {
        id: fc.oneof(weirdString, wrongType, fc.constantFrom(...SEED_TAG_IDS), sizedFrom([255, 256], GOOD_UNITS)),
        tagType: fc.oneof(fc.constantFrom('RFID', 'EVCCID', 'NFC', 'rfid', 'BLE', ''), wrongType),
        number: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constantFrom(-1, 2 ** 31, 1.5, '1', 1e308, -0), wrongType),
        name: fc.oneof(weirdString, wrongType, sizedFrom([255, 256], GOOD_UNITS)),
        userid: fc.oneof(fc.uuid(), fc.constant('not-a-uuid'), wrongType, fc.constant(null), weirdString),
        priority: fc.oneof(fc.constantFrom('NORMAL', 'HIGH', 'LOW', 'normal'), wrongType),
      },
      { requiredKeys: [] },
    );
    const command = fc.record(
      {
        type: fc.oneof(fc.constantFrom('local', 'LOCAL', 'ocpp', ''), wrongType),
        command: fc.oneof(fc.constantFrom('add', 'edit', 'clear', 'delete', 'ADD', 'remove', ''), wrongType),
        tags: fc.oneof(fc.array(entry, { maxLength: 3 }), wrongType, weirdString),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(junkBody, objectText(command)), async (raw) => {
        const guard = await StateGuard.begin();
        await probe({ route: 'whitelist', method: 'POST', path: '/v1/whitelist', body: raw }, guard);
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('DELETE /v1/whitelist: junk bodies in the deprecated body form', async () => {
    const body = fc.record(
      {
        type: fc.oneof(fc.constant('local'), weirdString, wrongType),
        command: fc.oneof(fc.constantFrom('delete', 'DELETE', 'clear', ''), wrongType),
        tags: fc.oneof(
          // Always one tag that does not exist, so a valid body deletes nothing.
          fc
            .array(fc.record({ id: fc.oneof(weirdString, wrongType, fc.constantFrom(...SEED_TAG_IDS)) }), { maxLength: 3 })
            .map((t) => [...t, { id: 'no-such-tag' }]),
          wrongType,
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(junkBody, objectText(body)), fc.constantFrom('', '?type=local', '?type=ocpp'), async (raw, query) => {
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist${query}`, body: raw, expected: [400, 404] }, guard);
        expect(res.status).toBeGreaterThanOrEqual(400);
        await expectAlive();
      }),
      { numRuns: RUNS },
    );
  });

  const mapKey: fc.Arbitrary<string> = fc.oneof(
    fc.constantFrom(...SEED_KEYS),
    fc.string({ minLength: 1, maxLength: 12 }),
    weirdString,
    sizedFrom([255, 256, 257], GOOD_UNITS),
    fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', ' ', 'a/b', '%41', '?x=1', '#f'),
  );
  const mapValue: fc.Arbitrary<unknown> = fc.oneof(weirdString, fc.string(), sizedFrom([999, 1000, 1001], GOOD_UNITS), wrongType);
  const mapBody = fc.oneof(junkBody, objectText(fc.dictionary(mapKey, mapValue, { maxKeys: 4 })));

  test('POST /v1/map: junk bodies, wrong-typed values, keys of 256/257 and values of 1000/1001 characters', async () => {
    await fc.assert(
      fc.asyncProperty(mapBody, async (raw) => {
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'map', method: 'POST', path: '/v1/map', body: raw, expected: mapExpectation('POST', raw, guard.pairs) }, guard);
        if (res.status < 300) await expectStored(raw, guard.pairs);
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('PATCH /v1/map: junk bodies, wrong-typed values, keys of 256/257 and values of 1000/1001 characters', async () => {
    await fc.assert(
      fc.asyncProperty(mapBody, async (raw) => {
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'map', method: 'PATCH', path: '/v1/map', body: raw, expected: mapExpectation('PATCH', raw, guard.pairs) }, guard);
        if (res.status < 300) await expectStored(raw, guard.pairs);
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('junk bodies and headers on endpoints that take no body', async () => {
    const cases = concretePaths()
      .filter((p) => p.route !== 'logout' && p.route !== 'login')
      .flatMap(({ route, path }) => ['GET', 'DELETE'].filter((m) => ROUTES[route].methods[m]).map((method) => ({ route, path, method })))
      // DELETE on the seed user or key would rightly delete it: only on missing ones.
      .map((c) =>
        c.method !== 'DELETE'
          ? c
          : c.route === 'user'
            ? { ...c, path: '/v1/users/00000000-0000-4000-8000-000000000000' }
            : c.route === 'mapKey'
              ? { ...c, path: '/v1/map/no-such-key' }
              : c,
      )
      .filter((c) => !(c.route === 'whitelist' && c.method === 'DELETE'));
    const contentType = fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      '',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...cases), junkBody, contentType, async (c, raw, type) => {
        const guard = await StateGuard.begin();
        await probe({ ...c, body: raw, headers: { 'content-type': type } }, guard);
        await guard.end();
        await expectAlive();
      }),
      { numRuns: RUNS },
    );
  });

  test('content types other than JSON on the write endpoints', async () => {
    const contentType = fc.constantFrom(
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
      '',
      'application/jsonx',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          { route: 'users' as const, method: 'POST', path: '/v1/users', body: '{"userName":"ct"}' },
          { route: 'map' as const, method: 'PATCH', path: '/v1/map', body: '{"no-such-key":"x"}' },
          { route: 'whitelist' as const, method: 'POST', path: '/v1/whitelist', body: '{"type":"local","command":"edit","tags":[{"id":"no-such-tag"}]}' },
        ),
        contentType,
        async (c, type) => {
          const guard = await StateGuard.begin();
          await probe({ ...c, headers: { 'content-type': type } }, guard);
          await expectAlive();
        },
      ),
      { numRuns: 50 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Limits of section 8, exactly at the boundaries, with the data read back
// ---------------------------------------------------------------------------------------------------------------

describe('length limits', () => {
  test('userName: 255 characters are accepted and stored as sent, 256 are refused (POST and PATCH)', async () => {
    await fc.assert(
      fc.asyncProperty(sizedFrom([1, 254, 255, 256, 257], GOOD_UNITS), sizedFrom([1, 255, 256], GOOD_UNITS), async (name, newName) => {
        const guard = await StateGuard.begin();
        const ok = chars(name) <= 255;
        const created = await probe(
          { route: 'users', method: 'POST', path: '/v1/users', body: stringify({ userName: name }), expected: ok ? [201] : [400] },
          guard,
        );
        if (!ok) return;
        expect(created.json.userName).toBe(name);
        const id = created.json.userId as string;
        const read = await probe({ route: 'user', method: 'GET', path: `/v1/users/${id}`, expected: [200] });
        expect(read.json).toEqual({ userId: id, userName: name });
        const okNew = chars(newName) <= 255;
        await probe(
          { route: 'user', method: 'PATCH', path: `/v1/users/${id}`, body: stringify({ userName: newName }), expected: okNew ? [200] : [400] },
          guard,
        );
        const reread = await probe({ route: 'user', method: 'GET', path: `/v1/users/${id}`, expected: [200] });
        expect(reread.json.userName).toBe(okNew ? newName : name);
        await probe({ route: 'user', method: 'DELETE', path: `/v1/users/${id}`, expected: [204] }, guard);
        await probe({ route: 'user', method: 'GET', path: `/v1/users/${id}`, expected: [404] });
      }),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('key/value pairs: keys of 256 and values of 1000 characters are stored as sent, 257 and 1001 refused', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        sizedFrom([1, 255, 256, 257], GOOD_UNITS),
        sizedFrom([0, 999, 1000, 1001], GOOD_UNITS),
        sizedFrom([1, 1000, 1001], GOOD_UNITS),
        async (keyBase, value, newValue) => {
          // A prefix unique to this run keeps the key new (and clear of dot segments); the length stays the same.
          const prefix = `t${(n++).toString(36)}~`;
          const key = prefix + [...keyBase].slice(prefix.length).join('');
          const guard = await StateGuard.begin();
          const ok = chars(key) <= 256 && chars(value) <= 1000;
          await probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ [key]: value }), expected: ok ? [201] : [400] }, guard);
          if (!ok) return;
          const path = `/v1/map/${enc(key)}`;
          expect((await probe({ route: 'mapKey', method: 'GET', path, expected: [200] })).json).toEqual({ [key]: value });
          await probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ [key]: 'again' }), expected: [409] }, guard);
          const okNew = chars(newValue) <= 1000;
          await probe({ route: 'map', method: 'PATCH', path: '/v1/map', body: stringify({ [key]: newValue }), expected: okNew ? [200] : [400] }, guard);
          expect((await probe({ route: 'mapKey', method: 'GET', path, expected: [200] })).json).toEqual({ [key]: okNew ? newValue : value });
          await probe({ route: 'mapKey', method: 'DELETE', path, expected: [204] }, guard);
          await probe({ route: 'mapKey', method: 'GET', path, expected: [404] });
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('whitelist entries: ids and names of up to 255 characters are stored as sent and deletable by ids', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        sizedFrom([1, 100, 255, 256], GOOD_UNITS),
        sizedFrom([1, 255, 256], GOOD_UNITS),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (idBase, name, number) => {
          const prefix = `w${(n++).toString(36)}~`;
          const id = prefix + [...idBase].slice(prefix.length).join('');
          const tag: Tag = { id, tagType: 'EVCCID', number, name, userid: seedUsers[1]!, priority: 'NORMAL' };
          const guard = await StateGuard.begin();
          // The spec sets no length for ids and names; up to 255 characters must be fine, beyond that it may refuse.
          const ok = chars(id) <= 255 && chars(name) <= 255;
          const res = await probe(
            {
              route: 'whitelist',
              method: 'POST',
              path: '/v1/whitelist',
              body: stringify({ type: 'local', command: 'add', tags: [tag] }),
              expected: ok ? [200] : [200, 400],
            },
            guard,
          );
          if (res.status !== 200) return;
          const tags = (await probe({ route: 'whitelist', method: 'GET', path: '/v1/whitelist?type=local', expected: [200] })).json.tags as Tag[];
          expect(tags.find((t) => t.id === id)).toEqual(tag);
          await probe(
            { route: 'whitelist', method: 'POST', path: '/v1/whitelist', body: stringify({ type: 'local', command: 'add', tags: [{ id }] }), expected: [400] },
            guard,
          );
          await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${enc(id)}`, expected: [204] }, guard);
          await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${enc(id)}`, expected: [404] }, guard);
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('DELETE /v1/whitelist ids: 1000 characters including commas are accepted, 1001 refused', async () => {
    const id = (c: string, n: number) => `L-${c}-`.padEnd(n, c);
    const [a, b, c, d, e] = [id('a', 250), id('b', 250), id('c', 250), id('d', 247), id('e', 248)];
    await must('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [a, b, c, d, e].map((x) => ({ id: x })) }, 200);
    const over = [a, b, c, e].join(',');
    const exact = [a, b, c, d].join(',');
    expect([over.length, exact.length]).toEqual([1001, 1000]);
    const guard = await StateGuard.begin();
    await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${over}`, expected: [400] }, guard);
    await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${exact}`, expected: [204] }, guard);
    const left = (await must('GET', '/v1/whitelist?type=local', undefined, 200)).json.tags as Tag[];
    expect(left.map((t) => t.id).filter((x) => x.startsWith('L-'))).toEqual([e]);
    await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${e}`, expected: [204] }, guard);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// All-or-nothing: a request with one bad part changes nothing
// ---------------------------------------------------------------------------------------------------------------

describe('all or nothing', () => {
  /** A new, valid whitelist entry (its id is not whitelisted). */
  const freshTag = fc.record(
    {
      id: fc.stringMatching(/^fresh-[a-z0-9]{6,12}$/),
      tagType: fc.constantFrom('RFID', 'EVCCID', 'NFC'),
      number: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
      priority: fc.constantFrom('NORMAL', 'HIGH'),
    },
    { requiredKeys: ['id'] },
  );

  test('POST /v1/whitelist add/edit with one bad entry adds and edits nothing', async () => {
    type Bad = { command: 'add' | 'edit'; entry: Record<string, unknown>; expected: number[] };
    // Values every reading of spec 2.12 refuses: wrong JSON types and values outside the enums.
    const notString = wrongType.filter((v) => typeof v !== 'string');
    const badField: fc.Arbitrary<[string, unknown]> = fc.oneof(
      fc.tuple(fc.constant('id'), notString),
      fc.tuple(fc.constant('tagType'), fc.oneof(notString, fc.constantFrom('rfid', 'BLE', 'RFID '))),
      fc.tuple(fc.constant('number'), fc.oneof(fc.constantFrom(1.5, '1', true, null, [1], { n: 1 }), fc.string({ minLength: 1, maxLength: 5 }))),
      fc.tuple(fc.constant('name'), notString),
      fc.tuple(fc.constant('userid'), fc.oneof(notString, fc.constantFrom('not-a-uuid', '1234', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz'))),
      fc.tuple(fc.constant('priority'), fc.oneof(notString, fc.constantFrom('LOW', 'normal', 'URGENT'))),
    );
    const bad: fc.Arbitrary<Bad> = fc.oneof(
      fc.constantFrom(...SEED_TAG_IDS).map((id): Bad => ({ command: 'add', entry: { id }, expected: [400] })),
      fc.uuid().map((u): Bad => ({ command: 'add', entry: { id: 'fresh-user-missing', userid: u }, expected: [404] })),
      fc.stringMatching(/^missing-[a-z0-9]{4}$/).map((id): Bad => ({ command: 'edit', entry: { id }, expected: [404] })),
      fc
        .tuple(fc.constantFrom<'add' | 'edit'>('add', 'edit'), badField)
        .map(([command, [field, value]]): Bad => ({
          command,
          entry: { id: command === 'add' ? 'fresh-bad-field' : 'SEED-TAG-2', [field]: value },
          expected: [400],
        })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(freshTag, { minLength: 1, maxLength: 3 }), bad, fc.nat(), fc.boolean(), async (fresh, b, at, duplicate) => {
        await ensureSeeds();
        // add: new entries plus the bad one; edit: changes to every seed plus the bad one.
        const good: Record<string, unknown>[] =
          b.command === 'add' ? fresh : SEED_TAG_IDS.map((id, i) => ({ id, name: `changed ${i}`, priority: 'HIGH' }));
        const tags = [...good];
        tags.splice(at % (tags.length + 1), 0, b.entry);
        if (duplicate) tags.push({ ...good[0]! }); // a repeated id is a bad entry too
        const guard = await StateGuard.begin();
        const res = await probe(
          {
            route: 'whitelist',
            method: 'POST',
            path: '/v1/whitelist',
            body: stringify({ type: 'local', command: b.command, tags }),
            expected: duplicate ? [400, 404] : b.expected,
          },
          guard,
        );
        expect(res.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('POST /v1/map with one existing key or one bad pair adds nothing; PATCH with one missing key or bad value changes nothing', async () => {
    const badPair = fc.oneof(
      fc.constantFrom(...SEED_KEYS).map((k) => ({ key: k, value: 'x' as unknown, post: [409], patch: [] as number[] })),
      fc.stringMatching(/^missing-[a-z0-9]{4}$/).map((k) => ({ key: k, value: 'x' as unknown, post: [] as number[], patch: [404] })),
      sizedFrom([257, 300], GOOD_UNITS).map((k) => ({ key: k, value: 'x' as unknown, post: [400], patch: [400, 404] })),
      fc.constantFrom(...SEED_KEYS).map((k) => ({ key: k, value: sized(1001, ['v', '😀']) as unknown, post: [400, 409], patch: [400] })),
      fc.tuple(fc.constantFrom(...SEED_KEYS), wrongType).map(([k, v]) => ({ key: k, value: v, post: [400, 409], patch: [400] })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'POST' | 'PATCH'>('POST', 'PATCH'),
        fc.dictionary(fc.stringMatching(/^fresh-[a-z0-9]{4,10}$/), fc.string({ unit: 'grapheme', maxLength: 30 }), { minKeys: 1, maxKeys: 3 }),
        badPair.filter((b) => b.post.length > 0 || b.patch.length > 0),
        async (method, fresh, b) => {
          const expected = method === 'POST' ? b.post : b.patch;
          if (expected.length === 0) return;
          await ensureSeeds();
          const good: Record<string, string> = method === 'POST' ? fresh : Object.fromEntries(SEED_KEYS.map((k) => [k, `changed ${k}`]));
          const body = { ...good };
          Object.defineProperty(body, b.key, { value: b.value, enumerable: true, configurable: true, writable: true });
          const guard = await StateGuard.begin();
          const res = await probe({ route: 'map', method, path: '/v1/map', body: stringify(body), expected }, guard);
          expect(res.status).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('DELETE /v1/whitelist with existing ids plus one missing or bad id deletes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(SEED_TAG_IDS, { minLength: 1 }),
        fc.oneof(
          fc.stringMatching(/^missing-[a-z0-9]{4}$/).map((id) => ({ id, expected: [404] })),
          fc.constantFrom('', '%00', '%1F', sized(256, ['x'])).map((id) => ({ id, expected: [400] })),
        ),
        fc.nat(),
        fc.boolean(),
        async (existing, b, at, bodyForm) => {
          await ensureSeeds();
          const ids = [...existing];
          ids.splice(at % (ids.length + 1), 0, b.id);
          const guard = await StateGuard.begin();
          const res = bodyForm
            ? await probe(
                {
                  route: 'whitelist',
                  method: 'DELETE',
                  path: '/v1/whitelist',
                  body: stringify({ type: 'local', command: 'delete', tags: ids.map((id) => ({ id: decodeSafe(id) })) }),
                  expected: b.expected,
                },
                guard,
              )
            : await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${ids.join(',')}`, expected: b.expected }, guard);
          expect(res.status).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Regressions: problems this fuzzing found, now fixed
// ---------------------------------------------------------------------------------------------------------------

describe('regressions', () => {
  test('POST /v1/map with two keys that differ only in lone surrogates is refused with 400 (not a 500 from the database)', async () => {
    // Both keys are distinct JavaScript strings but the same text once stored as UTF-8 (U+FFFD), so the insert
    // hits the primary key inside the transaction.
    const guard = await StateGuard.begin();
    await probe({ route: 'map', method: 'POST', path: '/v1/map', body: '{"\\ud800":"a","\\udc00":"b"}', expected: [400] }, guard);
    await expectAlive();
  });

  test('POST /v1/whitelist add with two ids that differ only in lone surrogates is refused with 400 (not a 500 from the database)', async () => {
    const guard = await StateGuard.begin();
    await probe(
      {
        route: 'whitelist',
        method: 'POST',
        path: '/v1/whitelist',
        body: '{"type":"local","command":"add","tags":[{"id":"\\ud800"},{"id":"\\udc00"}]}',
        expected: [400],
      },
      guard,
    );
    await expectAlive();
  });

  /** Text the database would not keep as sent (NUL, lone surrogates) is refused wherever it appears. */
  const roundTrips: { what: string; write: () => Promise<HttpResult> }[] = [
    {
      what: 'map key with NUL',
      write: () => probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ 'nul\u0000key': 'x' }), expected: [400] }),
    },
    {
      what: 'map value with NUL',
      write: () => probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ 'nul-value': '1\u00002' }), expected: [400] }),
    },
    {
      what: 'map value with a lone surrogate',
      write: () => probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ 'lone-value': 'a\ud800' }), expected: [400] }),
    },
    {
      what: 'userName with a lone surrogate',
      write: () => probe({ route: 'users', method: 'POST', path: '/v1/users', body: stringify({ userName: 'a\ud800' }), expected: [400] }),
    },
    {
      what: 'whitelist name with a lone surrogate',
      write: () =>
        probe({
          route: 'whitelist',
          method: 'POST',
          path: '/v1/whitelist',
          body: stringify({ type: 'local', command: 'add', tags: [{ id: 'lone-name', name: 'a\ud800' }] }),
          expected: [400],
        }),
    },
  ];

  test.each(roundTrips)('a $what is refused with 400 (it could not be read back as sent)', async ({ write }) => {
    expect((await write()).status).toBe(400);
  });

  test('DELETE /v1/whitelist counts the ids query in characters: 752 astral characters are within the 1000 limit', async () => {
    // Spec 8: at most 1000 characters including commas. Three ids of 250 astral characters and two commas are
    // 752 characters (1502 UTF-16 code units).
    const ids = ['😀', '𝄞', '🚗'].map((c) => `${c}`.repeat(250));
    await must('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: ids.map((id) => ({ id })) }, 200);
    const query = ids.join(',');
    expect(chars(query)).toBe(752);
    const res = await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${enc(query)}`, expected: [204] });
    if (res.status !== 204) await must('POST', '/v1/whitelist', { type: 'local', command: 'clear' }, 200);
  });

  test.each([
    { what: 'a key path of 20000 characters', route: 'mapKey' as const, method: 'GET', path: `/v1/map/${'k'.repeat(20_000)}` },
    { what: 'an ids query of 20000 characters', route: 'whitelist' as const, method: 'DELETE', path: `/v1/whitelist?type=local&ids=${'i'.repeat(20_000)}` },
  ])('$what is refused with 400 OperationFailed, not 431', async ({ route, method, path }) => {
    // Spec 7.1/8: a too large path or query is a 400 with OperationFailed; Node's header limit (16 KiB) answers 431.
    await probe({ route, method, path, expected: [400] });
    await expectAlive();
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Login and logout (late: failed logins throttle later ones, and logout ends the one session)
// ---------------------------------------------------------------------------------------------------------------

describe('login and logout', () => {
  test('GET /v1/login answers a fresh token whatever the query and body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(queryString, { nil: undefined }), fc.option(junkBody, { nil: undefined }), fc.boolean(), async (query, body, withSession) => {
        const res = await probe({
          route: 'login',
          method: 'GET',
          path: query === undefined ? '/v1/login' : `/v1/login?${query}`,
          body,
          auth: withSession ? undefined : null,
          expected: [200],
        });
        expect(res.json.token).toMatch(/^.{32}$/);
      }),
      { numRuns: 50 },
    );
    await expectAlive();
  });

  test('POST /v1/login refuses junk with 400 and wrong credentials with 401, and never touches the session', async () => {
    const hex64 = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
    const credentials = fc.record(
      {
        username: fc.oneof(fc.constantFrom('operator', 'OPERATOR', 'admin', '', 'operator\u0000'), weirdString, wrongType),
        password: fc.oneof(hex64, weirdString, wrongType, sizedFrom([63, 64, 65], ['a', 'F', '0', 'g'])),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(junkBody, objectText(credentials), fc.constant(`{"username":"operator","password":"${'0'.repeat(64)}"}${' '.repeat(5000)}`));
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (raw, freshToken) => {
        if (freshToken) await call('GET', '/v1/login');
        const parsed = parsedBody(raw);
        const value = parsed.json ? parsed.value : undefined;
        const shaped =
          isPlainObject(value) &&
          typeof value.username === 'string' &&
          chars(value.username) >= 1 &&
          chars(value.username) <= 255 &&
          typeof value.password === 'string' &&
          /^[0-9a-fA-F]{64}$/.test(value.password);
        const wellTyped = isPlainObject(value) && typeof value.username === 'string' && typeof value.password === 'string';
        const expected = shaped ? [400, 401] : wellTyped ? [400, 401] : [400];
        const res = await probe({ route: 'login', method: 'POST', path: '/v1/login', body: raw, auth: null, expected });
        if (shaped && typeof raw === 'string' && raw.length < 4096) expect(res.status).toBe(401);
        await expectAlive(); // the session still works: a refused login replaced nothing
      }),
      { numRuns: 100 },
    );
    await guard.end();
  });

  test('POST /v1/logout with a wrong session and any body answers 401 and keeps the real session', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant<string | null>(null), fc.uuid(), fc.string({ unit: fc.constantFrom(...'abcdef0123456789-'.split('')), maxLength: 40 })),
        fc.option(junkBody, { nil: undefined }),
        fc.option(queryString, { nil: undefined }),
        async (auth, body, query) => {
          await probe({ route: 'logout', method: 'POST', path: query === undefined ? '/v1/logout' : `/v1/logout?${query}`, auth, body, expected: [401] });
          await expectAlive();
        },
      ),
      { numRuns: 50 },
    );
  });

  test('POST /v1/logout with the session and a junk body answers 204 and ends the session (last)', async () => {
    await probe({ route: 'logout', method: 'POST', path: '/v1/logout?x=%E0%A4%A', body: '{"junk', expected: [204] });
    const after = await probe({ route: 'systemState', method: 'GET', path: '/v1/system_state', auth: session, expected: [401] });
    expect(after.json.code).toBe(1003);
    session = '';
  });
});
