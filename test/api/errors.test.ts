import { expect, test } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../api/body.js';
import { FAILED, startHarness, useLoggedInController } from '../harness.js';

const ctx = useLoggedInController();


test('/v1/system_state and /v1/messages answer the idle shapes of 2.13 and 2.14', async () => {
  const state = await ctx.h.http('GET', '/v1/system_state', { session: ctx.session });
  expect([state.status, state.json]).toEqual([
    200,
    { systemState: 'idle', connectionState: 'no_vehicle_connected', authState: 'not_authorized_for_charging', ocppState: 'available', type2State: 'a', ambientTemp: 25 },
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
    expect((await broken.http('GET', '/v1/system_state', { session: s })).status).toBe(200);
  } finally {
    await broken.stop();
  }
});
