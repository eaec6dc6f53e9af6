import { beforeEach, expect, test } from 'vitest';
import { KV_MAX_PAIRS } from '../../services/kv-store.js';
import { FAILED, useLoggedInController } from '../harness.js';
import { loopTurnsDuring } from '../turns.js';

const ctx = useLoggedInController();
beforeEach(async () => {
  for (const key of Object.keys((await call('GET', '/v1/map')).json)) await call('DELETE', `/v1/map/${encodeURIComponent(key)}`);
});

const call = ctx.call;
const all = async () => (await call('GET', '/v1/map')).json;

test('POST 201 without body, GET all and one, PATCH 200, DELETE 204', async () => {
  const created = await call('POST', '/v1/map', JSON.parse('{"colour":"blue","a/b c":"slash","__proto__":"proto"}'));
  expect([created.status, created.text]).toEqual([201, '']);
  expect(await all()).toEqual(JSON.parse('{"__proto__":"proto","a/b c":"slash","colour":"blue"}'));
  const one = await call('GET', `/v1/map/${encodeURIComponent('a/b c')}`);
  expect([one.status, one.json]).toEqual([200, { 'a/b c': 'slash' }]);
  expect((await call('GET', '/v1/map/__proto__')).text).toBe('{"__proto__":"proto"}');

  const patched = await call('PATCH', '/v1/map', { colour: 'red' });
  expect([patched.status, patched.json]).toEqual([200, { success: true }]);
  expect((await call('GET', '/v1/map/colour')).json).toEqual({ colour: 'red' });

  const deleted = await call('DELETE', '/v1/map/colour');
  expect([deleted.status, deleted.text]).toEqual([204, '']);
  expect((await call('GET', '/v1/map/colour')).status).toBe(404);
  expect((await call('DELETE', '/v1/map/colour')).status).toBe(404);
});

test('POST: a key that exists is 409 and nothing of the request is added', async () => {
  await call('POST', '/v1/map', { taken: '1' });
  const res = await call('POST', '/v1/map', { fresh: '2', taken: '3' });
  expect([res.status, res.json]).toEqual([409, FAILED]);
  expect(await all()).toEqual({ taken: '1' });
});

test('PATCH: a missing key is 404 and nothing is changed', async () => {
  await call('POST', '/v1/map', { here: '1' });
  const res = await call('PATCH', '/v1/map', { here: '2', absent: '3' });
  expect([res.status, res.json]).toEqual([404, FAILED]);
  expect(await all()).toEqual({ here: '1' });
});

test('limits: key 256, value 1000 characters; longer or wrong types are 400 and change nothing', async () => {
  const k256 = 'k'.repeat(256);
  expect((await call('POST', '/v1/map', { [k256]: 'v'.repeat(1000), ['😀'.repeat(256)]: '😀'.repeat(1000) })).status).toBe(201);
  const before = await all();
  for (const body of [
    { ['k'.repeat(257)]: 'v' },
    { ok: 'v'.repeat(1001) },
    { ok: '😀'.repeat(1001) },
    { ok: 1 },
    { ok: null },
    { ok: ['a'] },
    { '': 'empty key' },
    {},
    ['a'],
    'text',
    42,
  ]) {
    const res = await call('POST', '/v1/map', body);
    expect([body, res.status, res.json]).toEqual([body, 400, FAILED]);
  }
  for (const body of [{ [k256]: 'v'.repeat(1001) }, { [k256]: 5 }, {}, []]) {
    const res = await call('PATCH', '/v1/map', body);
    expect([res.status, res.json]).toEqual([400, FAILED]);
  }
  expect((await call('POST', '/v1/map')).status).toBe(400);
  expect((await ctx.h.http('POST', '/v1/map', { session: ctx.session, rawBody: '{"a": "b",}' })).status).toBe(400);
  expect((await call('GET', `/v1/map/${'k'.repeat(257)}`)).status).toBe(400);
  expect(await all()).toEqual(before);
});

test(`at most ${KV_MAX_PAIRS} pairs: a request that would exceed it is 400 and adds nothing`, async () => {
  const pairs = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
  expect((await call('POST', '/v1/map', pairs(KV_MAX_PAIRS - 2, 'a'))).status).toBe(201);
  const over = await call('POST', '/v1/map', pairs(3, 'b'));
  expect([over.status, over.json]).toEqual([400, FAILED]);
  expect(Object.keys(await all()).length).toBe(KV_MAX_PAIRS - 2);
  expect((await call('POST', '/v1/map', pairs(2, 'c'))).status).toBe(201);
  expect((await call('POST', '/v1/map', pairs(KV_MAX_PAIRS + 1, 'd'))).status).toBe(400);
});

test('a full store of maximal pairs fits in one request, and PATCH changes every value', async () => {
  const pairs = Object.fromEntries(Array.from({ length: KV_MAX_PAIRS }, (_, i) => [String(i).padStart(256, 'k'), 'v'.repeat(1000)]));
  expect((await call('POST', '/v1/map', pairs)).status).toBe(201);
  expect(Object.keys(await all()).length).toBe(KV_MAX_PAIRS);
  const changed = Object.fromEntries(Object.keys(pairs).map((k, i) => [k, `${i}`.padEnd(1000, 'w')]));
  expect((await call('PATCH', '/v1/map', changed)).status).toBe(200);
  expect(await all()).toEqual(changed);
});

test('a write of 1000 maximal pairs lets the event loop turn between its chunks of 100 (the check, then the writes)', async () => {
  const store = ctx.h.controller.keyValues;
  const pairs = Object.fromEntries(Array.from({ length: KV_MAX_PAIRS }, (_, i) => [String(i).padStart(256, 'k'), 'v'.repeat(1000)]));
  expect(await loopTurnsDuring(() => store.add(pairs))).toBeGreaterThanOrEqual(2 * (KV_MAX_PAIRS / 100 - 1));
  expect(await loopTurnsDuring(() => store.update(pairs))).toBeGreaterThanOrEqual(2 * (KV_MAX_PAIRS / 100 - 1));
});

test('concurrent POSTs never exceed the limit, and each key is created exactly once', async () => {
  const batch = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}-${i}`, 'v']));
  await call('POST', '/v1/map', batch(KV_MAX_PAIRS - 50, 'base'));
  // 20 requests of 10 pairs each race for the 50 free places: exactly 5 fit.
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call('POST', '/v1/map', batch(10, `r${i}`))));
  expect(results.filter((r) => r.status === 201).length).toBe(5);
  expect(results.filter((r) => r.status === 400).length).toBe(15);
  expect(Object.keys(await all()).length).toBe(KV_MAX_PAIRS);

  for (const key of Object.keys(await all())) if (key.startsWith('r')) await call('DELETE', `/v1/map/${key}`);
  const same = await Promise.all(Array.from({ length: 10 }, (_, i) => call('POST', '/v1/map', { shared: `writer ${i}` })));
  expect(same.filter((r) => r.status === 201).length).toBe(1);
  expect(same.filter((r) => r.status === 409).length).toBe(9);
});
