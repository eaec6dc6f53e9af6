import { request, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  BODY_LIMIT_BYTES,
  BODY_TIME_LIMIT_MS,
  PUBLIC_BODIES_IN_FLIGHT_BYTES,
  PUBLIC_BODY_LIMIT_BYTES,
  SESSION_BODIES_IN_FLIGHT_BYTES,
} from '../../api/body.js';
import { FAILED, startHarness, type Harness } from '../harness.js';

/**
 * Request bodies as they arrive over the network: slowly, in pieces, abandoned. A request takes effect once its body
 * is in, so its session is checked again then; a body has BODY_TIME_LIMIT_MS (manual clock) to arrive; bodies
 * without a session are small; the bytes of bodies in flight are bounded.
 */

let h: Harness;
let session: string;
beforeAll(async () => {
  h = await startHarness({ env: { LOG_LEVEL: 'debug' } }); // debug: the request log is checked
});
afterAll(() => h.stop());
beforeEach(async () => {
  session = await h.login();
  for (const key of Object.keys((await h.http('GET', '/v1/map', { session })).json)) await h.http('DELETE', `/v1/map/${key}`, { session });
});

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  json: any;
}

/** A request whose chunked body the test sends piece by piece. */
function streaming(method: string, path: string, opts: { session?: string; from?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'transfer-encoding': 'chunked' };
  if (opts.session) headers.authorization = opts.session;
  const req = request({ host: '127.0.0.1', port: h.controller.port, method, path, headers, localAddress: opts.from, agent: false });
  let answered = false;
  const closed = new Promise<void>((resolve) => req.on('close', () => resolve()));
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        answered = true;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined);
  req.flushHeaders();
  return {
    answer,
    closed,
    answered: () => answered,
    send: (data: string) => new Promise<void>((resolve) => req.write(data, () => resolve())),
    finish: (data: string) => req.end(data),
    abort: () => req.destroy(),
  };
}

/** Resolves when the controller next checks a session, i.e. a request's headers have been handled. */
function nextSessionCheck(): Promise<void> {
  const sessions = h.controller.sessions;
  const authenticate = sessions.authenticate;
  return new Promise((resolve) => {
    sessions.authenticate = (...args) => {
      sessions.authenticate = authenticate;
      const verdict = authenticate(...args);
      resolve();
      return verdict;
    };
  });
}

/** Waits (for the network, not for a time rule) until `done` holds, at most 5 s. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await sleep(10);
}

const notLoggedIn = (code: number) => ({ logged_in: false, message: expect.any(String), code });

describe('a request takes effect when its body is in: its session must still be valid then', () => {
  test('logout while the body arrives: 401 (1003), nothing stored', async () => {
    const checked = nextSessionCheck();
    const post = streaming('POST', '/v1/map', { session });
    await post.send('{"k":');
    await checked; // the session was valid when the headers arrived
    expect((await h.http('POST', '/v1/logout', { session })).status).toBe(204);
    post.finish('"v"}');
    const res = await post.answer;
    expect([res.status, res.json]).toEqual([401, notLoggedIn(1003)]);
    session = await h.login();
    expect((await h.http('GET', '/v1/map', { session })).json).toEqual({});
  });

  test('another login while the body arrives: 401 (1003), nothing stored', async () => {
    const checked = nextSessionCheck();
    const post = streaming('POST', '/v1/whitelist', { session });
    await post.send('{"type":"local","command":"add",');
    await checked;
    const next = await h.login('operator', undefined, '127.0.0.5');
    post.finish('"tags":[{"id":"LATE"}]}');
    const res = await post.answer;
    expect([res.status, res.json]).toEqual([401, notLoggedIn(1003)]);
    expect((await h.http('GET', '/v1/whitelist?type=local', { session: next, from: '127.0.0.5' })).json.tags).toEqual([]);
  });

  test('a body completed in time with the session still valid takes effect', async () => {
    const checked = nextSessionCheck();
    const post = streaming('POST', '/v1/map', { session });
    await post.send('{"k":');
    await checked;
    await h.clock.advance(BODY_TIME_LIMIT_MS - 1);
    post.finish('"v"}');
    expect((await post.answer).status).toBe(201);
    expect((await h.http('GET', '/v1/map', { session })).json).toEqual({ k: 'v' });
  });
});

describe(`a body has ${BODY_TIME_LIMIT_MS / 1000} s to arrive`, () => {
  test('then 400 OperationFailed, the connection is closed, nothing stored', async () => {
    const checked = nextSessionCheck();
    const post = streaming('POST', '/v1/map', { session });
    await post.send('{"k":"v"');
    await checked;
    await h.clock.advance(BODY_TIME_LIMIT_MS - 1);
    expect(post.answered()).toBe(false);
    await h.clock.advance(1);
    const res = await post.answer;
    expect([res.status, res.json]).toEqual([400, FAILED]);
    expect(res.json.cause).toContain(`${BODY_TIME_LIMIT_MS / 1000} s`);
    expect(res.headers.connection).toBe('close');
    await post.closed;
    expect((await h.http('GET', '/v1/map', { session })).json).toEqual({});
  });

  test('also for a login body (400, 1007)', async () => {
    const timers = h.clock.pending();
    const post = streaming('POST', '/v1/login');
    await post.send('{"username":"operator",');
    await until(() => h.clock.pending() > timers); // the body's time limit is armed
    await h.clock.advance(BODY_TIME_LIMIT_MS);
    const res = await post.answer;
    expect([res.status, res.json]).toEqual([400, notLoggedIn(1007)]);
    expect(res.json.message).toContain(`${BODY_TIME_LIMIT_MS / 1000} s`);
  });
});

describe('bodies without a session are small', () => {
  test(`a simulator control's body over ${PUBLIC_BODY_LIMIT_BYTES} bytes is refused with 400, declared or chunked`, async () => {
    const big = JSON.stringify({ id: 'T'.repeat(PUBLIC_BODY_LIMIT_BYTES) });
    const declared = await h.http('POST', '/sim/tag', { rawBody: big });
    expect([declared.status, declared.json]).toEqual([400, FAILED]);
    expect(declared.json.cause).toContain(String(PUBLIC_BODY_LIMIT_BYTES));
    const chunked = await h.http('POST', '/sim/tag', { rawBody: big, headers: { 'transfer-encoding': 'chunked' } });
    expect([chunked.status, chunked.json]).toEqual([400, FAILED]);
  });

  test('with a session the limit stays 2 MiB', async () => {
    const value = 'v'.repeat(1000);
    const pairs = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${String(i).padStart(252, '0')}`, value]));
    const res = await h.http('POST', '/v1/map', { session, body: pairs });
    expect(JSON.stringify(pairs).length).toBeLessThan(BODY_LIMIT_BYTES);
    expect(res.status).toBe(201);
  });
});

describe('the bytes of bodies in flight are bounded', () => {
  test(`without a session: at most ${PUBLIC_BODIES_IN_FLIGHT_BYTES} bytes over all requests; beyond, 400`, async () => {
    const piece = `{"username":"${'u'.repeat(3986)}`; // 4000 bytes, the body not finished
    const count = Math.floor(PUBLIC_BODIES_IN_FLIGHT_BYTES / 4000) + 8;
    const posts = Array.from({ length: count }, () => streaming('POST', '/v1/login'));
    await Promise.all(posts.map((p) => p.send(piece)));
    await until(() => posts.filter((p) => p.answered()).length >= 8);
    const refused = await Promise.all(posts.filter((p) => p.answered()).map((p) => p.answer));
    expect(refused.length).toBeGreaterThanOrEqual(8);
    for (const res of refused) expect([res.status, res.json.code, res.json.message]).toEqual([400, 1011, expect.stringMatching(/too many request bodies/)]);
    // The others wait for the rest of their bodies, which never comes; the time limit ends them.
    await h.clock.advance(BODY_TIME_LIMIT_MS);
    for (const res of await Promise.all(posts.map((p) => p.answer))) expect(res.status).toBe(400);
    // Every byte was given back: logins work.
    expect(await h.login()).toMatch(/-/);
  });

  test(`with a session: at most ${SESSION_BODIES_IN_FLIGHT_BYTES} bytes, a budget of its own`, async () => {
    const piece = `{"k":"${'v'.repeat(2_000_000)}`;
    const posts = Array.from({ length: 5 }, () => streaming('POST', '/v1/map', { session }));
    await Promise.all(posts.map((p) => p.send(piece)));
    await until(() => posts.some((p) => p.answered()));
    const refused = await Promise.all(posts.filter((p) => p.answered()).map((p) => p.answer));
    expect(refused.map((r) => [r.status, r.json.cause])).toEqual([[400, expect.stringMatching(/too many request bodies/)]]);
    // Bodies without a session do not count against it.
    const sim = await h.http('POST', '/sim/temperature', { body: { celsius: 25 } });
    expect(sim.status).toBe(200);
    for (const p of posts.filter((x) => !x.answered())) p.abort();
    await Promise.all(posts.map((p) => p.closed));
    const res = await h.http('POST', '/v1/map', { session, body: { k: 'v'.repeat(1000) } });
    expect(res.status).toBe(201);
  });
});

describe('a client that goes away before its body arrived', () => {
  test('is logged as one request line with status 499 (client closed request), no error, no stack', async () => {
    const before = h.logs.length;
    for (const [path, opts] of [
      ['/v1/map', { session }],
      ['/v1/login', {}],
      ['/sim/tag', {}],
    ] as const) {
      const timers = h.clock.pending();
      const post = streaming('POST', path, opts);
      await post.send('{"k":');
      await until(() => h.clock.pending() > timers); // the request is reading its body
      post.abort();
      await until(() => h.logs.slice(before).some((l) => l.includes(`"path":"${path}"`)));
    }
    const lines = h.logs
      .slice(before)
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const aborted = lines.filter((l) => l.status === 499);
    expect(aborted.map((l) => [l.level, l.method, l.path])).toEqual([
      [20, 'POST', '/v1/map'],
      [20, 'POST', '/v1/login'],
      [20, 'POST', '/sim/tag'],
    ]);
    expect(lines.filter((l) => l.level >= 40 || 'err' in l)).toEqual([]);
  });
});
