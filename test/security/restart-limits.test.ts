import { expect, test } from 'vitest';
import { MAX_RESTARTS, RESTART_WINDOW_MS } from '../../api/routes/restart.js';
import { charging, useChargers } from '../charging/scenario.js';

/**
 * Issue 35 item 4 (the API side): POST /v1/restart is limited (an operator in a loop would end every charge), does
 * not end a running charge unless the request confirms it, and is written to the event log with who and from where.
 */
const chargers = useChargers();

test(`at most ${MAX_RESTARTS} restarts within ${RESTART_WINDOW_MS / 60_000} minutes: then 429 with Retry-After, until the first is old enough`, async () => {
  let restarts = 0;
  const c = await chargers.start({ harness: { restart: () => restarts++ } });
  for (let i = 0; i < MAX_RESTARTS; i++) {
    expect((await c.api('POST', '/v1/restart')).status).toBe(200);
    c.h.clock.increment(60_000);
  }
  const refused = await c.api('POST', '/v1/restart');
  expect([refused.status, refused.json.success, refused.headers['retry-after']]).toEqual([
    429,
    false,
    String((RESTART_WINDOW_MS - MAX_RESTARTS * 60_000) / 1000),
  ]);
  expect(refused.headers['x-content-type-options']).toBe('nosniff');
  await new Promise((resolve) => setImmediate(resolve));
  expect(restarts).toBe(MAX_RESTARTS);
  c.h.clock.increment(RESTART_WINDOW_MS - MAX_RESTARTS * 60_000);
  expect((await c.api('POST', '/v1/restart')).status).toBe(200);
  const events = (await c.api('GET', '/v1/events')).json.events.filter((e: { kind: string }) => e.kind === 'restart');
  expect(events).toHaveLength(MAX_RESTARTS + 1);
  expect(events[0]).toMatchObject({ by: 'installer', address: '127.0.0.1', transactionEnded: false, message: 'Restart asked by installer from 127.0.0.1' });
});

test('a running charge is not ended by a restart unless the request confirms it (409 otherwise)', async () => {
  let restarts = 0;
  const c = await chargers.start({ harness: { restart: () => restarts++ } });
  await charging(c);
  const refused = await c.api('POST', '/v1/restart');
  expect([refused.status, refused.json.cause]).toEqual([409, expect.stringContaining('endTransaction')]);
  expect((await c.api('POST', '/v1/restart', { endTransaction: 'yes' })).status).toBe(400);
  await new Promise((resolve) => setImmediate(resolve));
  expect(restarts).toBe(0);
  expect((await c.state()).systemState).toBe('charging');
  expect((await c.api('POST', '/v1/restart', { endTransaction: true })).status).toBe(200);
  await new Promise((resolve) => setImmediate(resolve));
  expect(restarts).toBe(1);
  const events = (await c.api('GET', '/v1/events')).json.events.filter((e: { kind: string }) => e.kind === 'restart');
  expect(events).toMatchObject([{ by: 'installer', transactionEnded: true }]);
});
