import { afterEach, describe, expect, it } from 'vitest';
import { POWER_CUT_DELAY_MS } from '../../machines/charge-cycle.js';
import { PILOT_DEBOUNCE_MS, POLL_INTERVAL_MS } from '../../services/core/supervision.js';
import { charging, startCharger, type Charger } from '../charging/scenario.js';
import { startHarness, type Harness } from '../harness.js';

/**
 * GET /metrics: the safety reactions the charge-point core measures at its outputs (on the manual clock, so the
 * figures are exact), each thread's event-loop delay, requests by route and status, process metrics; who may read it.
 */

let open: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.stop()));
  open = [];
});

async function charger(): Promise<Charger> {
  const c = await startCharger();
  open.push(c.h);
  return c;
}

/** The value of one sample line of the exposition, e.g. `safety_reaction_max_seconds{reaction="power_cut"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const metrics = async (h: Harness) => {
  const res = await h.http('GET', '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
};

describe('safety reactions', () => {
  it('the self-driven EV: every C→B under load opens the contactor one debounce after the reading changed', async () => {
    const c = await charger();
    await charging(c);
    await c.sim('ev', { alternateMs: 200 });
    for (let i = 0; i < 20; i++) await c.step(100);
    expect((await c.view()).plant.alternateMs).toBe(200);
    await c.sim('ev', { alternateMs: 0 });
    const text = await metrics(c.h);
    const count = sample(text, 'safety_reaction_seconds_count{reaction="contactor_open_on_pause"}')!;
    expect(count).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'safety_reaction_max_seconds{reaction="contactor_open_on_pause"}')).toBe(PILOT_DEBOUNCE_MS / 1000);
    expect(sample(text, 'safety_reaction_seconds_sum{reaction="contactor_open_on_pause"}')).toBeCloseTo((count * PILOT_DEBOUNCE_MS) / 1000, 9);
    expect(sample(text, 'safety_reaction_seconds_bucket{le="0.04",reaction="contactor_open_on_pause"}')).toBe(count);
    expect(sample(text, 'safety_reaction_seconds_bucket{le="0.03",reaction="contactor_open_on_pause"}')).toBe(0);
  });

  it('power cut: the PWM stops, the EV stays in C, the contactor opens exactly at the 6 s deadline', async () => {
    const c = await charger();
    await charging(c);
    await c.sim('load-limit', { amps: 0 });
    await c.step(POWER_CUT_DELAY_MS - 10);
    expect((await c.view()).plant.contactorClosed).toBe(true);
    await c.step(20);
    expect((await c.view()).plant.contactorClosed).toBe(false);
    const text = await metrics(c.h);
    expect(sample(text, 'safety_reaction_seconds_count{reaction="power_cut"}')).toBe(1);
    expect(sample(text, 'safety_reaction_max_seconds{reaction="power_cut"}')).toBe(0);
  });

  it('faults under load: a CP short opens after the debounce, an overtemperature reading at once', async () => {
    const c = await charger();
    await charging(c);
    await c.sim('fault', { fault: 'cp-short' });
    await c.step(50);
    expect((await c.view()).plant.contactorClosed).toBe(false);
    let text = await metrics(c.h);
    expect(sample(text, 'safety_reaction_max_seconds{reaction="fault_open"}')).toBe(PILOT_DEBOUNCE_MS / 1000);

    const d = await charger();
    await charging(d);
    await d.sim('temperature', { celsius: 85 });
    await d.step(POLL_INTERVAL_MS);
    expect((await d.view()).plant.contactorClosed).toBe(false);
    text = await metrics(d.h);
    expect(sample(text, 'safety_reaction_seconds_count{reaction="fault_open"}')).toBe(1);
    expect(sample(text, 'safety_reaction_max_seconds{reaction="fault_open"}')).toBe(0);
  });

  it('unplugging under load is measured apart; a B glitch shorter than the debounce asks for nothing', async () => {
    const c = await charger();
    await charging(c);
    await c.sim('pause');
    await c.step(PILOT_DEBOUNCE_MS / 2);
    await c.sim('charge');
    await c.step(100);
    expect((await c.view()).plant.contactorClosed).toBe(true);
    await c.sim('unplug');
    await c.step(100);
    const text = await metrics(c.h);
    expect(sample(text, 'safety_reaction_seconds_count{reaction="contactor_open_on_pause"}')).toBe(0);
    expect(sample(text, 'safety_reaction_seconds_count{reaction="contactor_open_on_unplug"}')).toBe(1);
    expect(sample(text, 'safety_reaction_max_seconds{reaction="contactor_open_on_unplug"}')).toBe(PILOT_DEBOUNCE_MS / 1000);
  });
});

describe('the rest of /metrics', () => {
  it('event-loop delay of both threads, requests by route pattern and status, resident memory', async () => {
    const h = await startHarness();
    open.push(h);
    const session = await h.login();
    await h.http('GET', '/v1/users/6f1d4c1e-3c0b-4f55-8d0e-6a2f3c1b9d77', { session });
    await h.http('GET', '/v1/users/0b7d1e8a-1f4f-4a8e-9f3e-2b1c0d9e8f71', { session });
    await h.http('GET', '/no/such/path');
    const text = await metrics(h);
    expect(sample(text, 'http_requests_total{method="GET",route="/v1/users/:userId",status="404"}')).toBe(2);
    expect(sample(text, 'http_requests_total{method="POST",route="/v1/login",status="200"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    for (const thread of ['main', 'core']) {
      for (const stat of ['p50', 'p99', 'max']) expect(sample(text, `eventloop_delay_seconds{thread="${thread}",stat="${stat}"}`)).toBeGreaterThanOrEqual(0);
      expect(sample(text, `eventloop_delay_max_seconds{thread="${thread}"}`)).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10e6);
    // No personal data: no tag ids, user ids or user names in any label.
    expect(text).not.toMatch(/6f1d4c1e|operator"/);
  });

  it('loopback clients without a session; others only with the METRICS_TOKEN bearer token', async () => {
    const h = await startHarness();
    open.push(h);
    const from = (address: string, authorization?: string) =>
      h.controller.fetch(new Request('http://controller/metrics', authorization ? { headers: { authorization } } : {}), { clientAddress: address });
    expect((await from('127.0.0.1')).status).toBe(200);
    expect((await from('::1')).status).toBe(200);
    const refused = await from('192.168.1.20');
    expect([refused.status, await refused.json()]).toEqual([403, { success: false, cause: expect.stringMatching(/METRICS_TOKEN/) }]);
    expect((await from('nfc')).status).toBe(403);

    const token = 'metrics-token-0123456789';
    const t = await startHarness({ env: { METRICS_TOKEN: token } });
    open.push(t);
    const remote = (authorization?: string) =>
      t.controller.fetch(new Request('http://controller/metrics', authorization ? { headers: { authorization } } : {}), { clientAddress: '192.168.1.20' });
    expect((await remote(`Bearer ${token}`)).status).toBe(200);
    expect((await remote('Bearer wrong-token-0123456789')).status).toBe(401);
    expect((await remote(token)).status).toBe(401);
    expect((await remote()).status).toBe(401);
    expect(t.logs.join('')).not.toContain(token);
  });
});
