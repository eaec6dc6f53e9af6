import { connect } from 'node:net';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../api/body.js';
import { charCount } from '../../services/errors.js';
import { FAILED, startHarness, useLoggedInController } from '../harness.js';

const ctx = useLoggedInController();

test('/v1/system_state and /v1/messages answer the idle shapes of 2.13 and 2.14', async () => {
  const state = await ctx.h.http('GET', '/v1/system_state', { session: ctx.session });
  expect([state.status, state.json]).toEqual([
    200,
    {
      systemState: 'idle',
      connectionState: 'no_vehicle_connected',
      authState: 'not_authorized_for_charging',
      ocppState: 'available',
      type2State: 'a',
      ambientTemp: 25,
      // The documented extension (docs/energy.md; its shape: test/energy/manager.test.ts).
      energy: expect.objectContaining({ currentA: 16, reason: 'maxCurrent' }),
    },
  ]);
  expect(state.headers['content-type']).toMatch(/^application\/json/);
  const messages = await ctx.h.http('GET', '/v1/messages', { session: ctx.session });
  expect([messages.status, messages.json]).toEqual([200, { messages: [] }]);
});

test('unknown paths: 404 OperationFailed (with a session), also outside /v1 (`/` is the web interface)', async () => {
  for (const path of ['/v1/nothing', '/v1/users/a/b', '/v2/users', '/nothing', '/web/nothing.js', '/v1/users/']) {
    const res = await ctx.h.http('GET', path, { session: ctx.session });
    expect([path, res.status, res.json]).toEqual([path, 404, FAILED]);
  }
});

test('unsupported methods on known paths: 400 OperationFailed naming the supported ones', async () => {
  for (const [method, path] of [
    ['PUT', '/v1/users'],
    ['DELETE', '/v1/system_state'],
    ['POST', '/v1/messages'],
    ['PATCH', '/v1/whitelist'],
    ['PUT', '/v1/map/key'],
    ['GET', '/v1/logout'],
    ['DELETE', '/v1/login'],
  ] as const) {
    const res = await ctx.h.http(method, path, { session: ctx.session });
    expect([method, path, res.status, res.json]).toEqual([method, path, 400, FAILED]);
    expect(res.json.cause).toMatch(/use (GET|POST|PATCH|DELETE)/);
  }
});

test(`bodies over ${BODY_LIMIT_BYTES} bytes: 400, declared or chunked, and nothing stored`, async () => {
  const big = JSON.stringify({ k: 'v'.repeat(BODY_LIMIT_BYTES) });
  const declared = await ctx.h.http('POST', '/v1/map', { session: ctx.session, rawBody: big });
  expect([declared.status, declared.json]).toEqual([400, FAILED]);
  expect(declared.json.cause).toContain(String(BODY_LIMIT_BYTES));
  const chunked = await ctx.h.http('POST', '/v1/map', { session: ctx.session, rawBody: big, headers: { 'transfer-encoding': 'chunked' } });
  expect([chunked.status, chunked.json]).toEqual([400, FAILED]);
  expect((await ctx.h.http('GET', '/v1/map', { session: ctx.session })).json).toEqual({});
});

test('HEAD on a GET endpoint answers its status without a body', async () => {
  const res = await ctx.h.http('HEAD', '/v1/system_state', { session: ctx.session });
  expect([res.status, res.text]).toEqual([200, '']);
});

test('an internal fault (the database gone) answers 500 OperationFailed, is logged, and the process goes on', async () => {
  const broken = await startHarness();
  try {
    const s = await broken.login();
    await broken.controller.database.close();
    const res = await broken.http('GET', '/v1/users', { session: s });
    expect([res.status, res.json]).toEqual([500, FAILED]);
    expect(res.json.cause).not.toMatch(/sqlite|libsql|stack|at /i);
    expect(broken.logs.join('')).toContain('"msg":"unexpected error"');
    // Requests that need no database are still served; those with a session need it (the account is checked).
    expect((await broken.http('GET', '/v1/login')).status).toBe(200);
  } finally {
    await broken.stop();
  }
});

test('JSON arrays of any length the body limit admits (123,000 to 1,000,000 elements) are handled: 400, not 500', async () => {
  for (const length of [123_000, 400_000, 1_000_000]) {
    const elements = `[${Array.from({ length }, () => '0').join(',')}]`;
    expect(elements.length).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
    for (const [method, path] of [
      ['POST', '/v1/map'],
      ['POST', '/v1/users'],
      ['POST', '/v1/whitelist'],
      ['PATCH', '/v1/settings'],
    ] as const) {
      const res = await ctx.h.http(method, path, { session: ctx.session, rawBody: elements });
      expect([length, path, res.status, res.json]).toEqual([length, path, 400, FAILED]);
    }
    // As many values inside the request's shape reach validation and are refused there.
    const tags = `{"type":"local","command":"add","tags":[${Array.from({ length: length / 10 }, () => '{"id":"x"}').join(',')}]}`;
    const res = await ctx.h.http('POST', '/v1/whitelist', { session: ctx.session, rawBody: tags });
    expect([length, res.status, res.json]).toEqual([length, 400, FAILED]);
  }
  expect((await ctx.h.http('GET', '/v1/map', { session: ctx.session })).json).toEqual({});
});

test('a body that is not valid UTF-8 is refused with 400 and stores nothing (login: 1007)', async () => {
  const before = (await ctx.h.http('GET', '/v1/users', { session: ctx.session })).json;
  for (const bytes of [
    Buffer.from('{"userName":"\xff"}', 'latin1'), // a byte that never occurs in UTF-8
    Buffer.from([...Buffer.from('{"userName":"'), 0xc0, 0xaf, ...Buffer.from('"}')]), // an overlong encoding of "/"
    Buffer.from([...Buffer.from('{"userName":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]), // an encoded surrogate
    Buffer.from([...Buffer.from('{"userName":"ab'), 0xe2, 0x82, ...Buffer.from('"}')]), // a truncated sequence
  ]) {
    const res = await ctx.h.http('POST', '/v1/users', { session: ctx.session, rawBody: bytes });
    expect([bytes.toString('hex'), res.status, res.json]).toEqual([bytes.toString('hex'), 400, FAILED]);
    expect(res.json.cause).toMatch(/UTF-8/);
  }
  expect((await ctx.h.http('GET', '/v1/users', { session: ctx.session })).json).toEqual(before);
  const map = await ctx.h.http('POST', '/v1/map', { session: ctx.session, rawBody: Buffer.from('{"k":"\xfe"}', 'latin1') });
  expect([map.status, map.json]).toEqual([400, FAILED]);
  expect((await ctx.h.http('GET', '/v1/map', { session: ctx.session })).json).toEqual({});
  const login = await ctx.h.http('POST', '/v1/login', { rawBody: Buffer.from(`{"username":"\xff","password":"${'0'.repeat(64)}"}`, 'latin1') });
  expect([login.status, login.json]).toEqual([400, { logged_in: false, message: expect.any(String), code: 1007 }]);
});

/** Sends raw bytes on a fresh connection and answers status, headers and body of the reply. */
function rawHttp(port: number, text: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const reply = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = reply.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
    socket.setTimeout(5000, () => socket.destroy());
  });
}

test('requests refused before routing (bad or missing Host, a backslash in the path, "*") answer 400 OperationFailed JSON', async () => {
  for (const request of [
    'GET /v1/system_state HTTP/1.1\r\nHost: bad host\r\n',
    'GET /v1/system_state HTTP/1.1\r\nHost: exa_mple.com:99999\r\n',
    'GET /v1/system_state HTTP/1.1\r\n',
    'GET /v1/system_state HTTP/1.0\r\n',
    'GET /v1\\system_state HTTP/1.1\r\nHost: localhost\r\n',
    'OPTIONS * HTTP/1.1\r\nHost: localhost\r\n',
    'GET * HTTP/1.1\r\nHost: localhost\r\n',
  ]) {
    const res = await rawHttp(ctx.h.controller.port, `${request}Connection: close\r\n\r\n`);
    expect([request, res.status]).toEqual([request, 400]);
    expect(res.head).toMatch(/\r\ncontent-type: application\/json/i);
    expect([request, JSON.parse(res.body)]).toEqual([request, FAILED]);
  }
  expect((await ctx.h.http('GET', '/v1/system_state', { session: ctx.session })).status).toBe(200);
});

test('bare /v1 and /v1/ answer 401 without a session (like every /v1 path) and 404 with one', async () => {
  for (const path of ['/v1', '/v1/', '/v1?x=1']) {
    const anonymous = await ctx.h.http('GET', path);
    expect([path, anonymous.status, anonymous.json]).toEqual([path, 401, { logged_in: false, message: expect.any(String), code: 1002 }]);
    const known = await ctx.h.http('GET', path, { session: ctx.session });
    expect([path, known.status, known.json]).toEqual([path, 404, FAILED]);
  }
});

test('charCount counts Unicode code points as iterating the string does (a surrogate pair once, a lone surrogate once)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
      expect(charCount(text)).toBe([...text].length);
    }),
    { numRuns: 2000, seed: 61851 },
  );
  expect([charCount(''), charCount('😀'), charCount('a\uD800'), charCount('\uDC00\uD800'), charCount('😀'.repeat(1000))]).toEqual([0, 1, 2, 2, 1000]);
});
