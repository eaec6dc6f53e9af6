import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CURVE_POINTS, CURVES_KEPT } from '../../services/transaction-curve.js';
import { KNOWN, startCharger, type Charger } from '../charging/scenario.js';
import { FAILED, startHarness } from '../harness.js';
import { txRecord } from '../transactions.js';

/**
 * A transaction's energy curve kept by the controller (GET /v1/transactions/{id}/curve): the start, every checkpoint
 * while it runs, the end; the same figures as the completed transaction; bounded per transaction and in number.
 */

describe('a charge on simulated hardware', () => {
  let c: Charger;
  beforeAll(async () => {
    c = await startCharger();
  });
  afterAll(() => c.h.stop());

  test('the curve grows while it runs and ends at the energy billed; the power is the average between points', async () => {
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await c.step(35_000);
    const id = c.h.controller.charging.chargePoint.state().transaction!.transactionId;
    const running = await c.api('GET', `/v1/transactions/${id}/curve`);
    expect(running.status, running.text).toBe(200);
    const points = running.json.points;
    // The start, a checkpoint as the charge begins (nothing delivered yet), then one every 10 s.
    expect(points.length).toBeGreaterThanOrEqual(5);
    expect(points[0]).toMatchObject({ energyWh: 0, powerW: null });
    for (let i = 1; i < points.length; i++) {
      expect(Date.parse(points[i].at)).toBeGreaterThan(Date.parse(points[i - 1].at));
      expect(points[i].energyWh).toBeGreaterThanOrEqual(points[i - 1].energyWh);
      expect(points[i].powerW).toBeGreaterThanOrEqual(0);
    }
    // The simulated EV draws 16 A on three phases: about 11 kW between the last two points.
    expect(points.at(-1).powerW).toBeGreaterThan(10_000);
    expect(points.at(-1).powerW).toBeLessThan(11_500);
    await c.act('unplug');
    await c.step(1_000);
    const [completed] = (await c.api('GET', '/v1/transactions')).json.filter((t: any) => t.transactionId === id);
    const ended = (await c.api('GET', `/v1/transactions/${id}/curve`)).json.points;
    expect(ended.length).toBeGreaterThan(points.length);
    expect(ended.at(-1).energyWh).toBe(completed.consumption);
    expect(Date.parse(ended.at(-1).at)).toBeLessThanOrEqual(Date.parse(completed.endTransaction));
  });

  test('an id that is not a UUID is 400; an unknown transaction is 404', async () => {
    expect(await c.api('GET', '/v1/transactions/not-a-uuid/curve')).toMatchObject({ status: 400, json: FAILED });
    expect(await c.api('GET', `/v1/transactions/${randomUUID()}/curve`)).toMatchObject({ status: 404, json: FAILED });
  });
});

describe('bounded', () => {
  test(`a long session keeps at most ${CURVE_POINTS} points, its first and newest among them, older ones thinned`, async () => {
    const h = await startHarness();
    try {
      const tx = h.controller.transactions;
      const start = Date.UTC(2026, 0, 1);
      const t = txRecord({ startedAt: start, meterWh: 1_000 });
      await tx.begin(t);
      const checkpoints = 3 * CURVE_POINTS;
      for (let i = 1; i <= checkpoints; i++) await tx.checkpoint({ ...t, meterLastWh: 1_000 + 3 * i, meterLastAt: start + i * 10_000 });
      const session = await h.login();
      const { points } = (await h.http('GET', `/v1/transactions/${t.id}/curve`, { session })).json;
      expect(points.length).toBeLessThanOrEqual(CURVE_POINTS);
      expect(points.length).toBeGreaterThan(CURVE_POINTS / 2);
      expect(points[0]).toMatchObject({ at: new Date(start).toISOString(), energyWh: 0 });
      expect(points.at(-1)).toMatchObject({ at: new Date(start + checkpoints * 10_000).toISOString(), energyWh: 3 * checkpoints });
      // Thinned from the old end: the newest points are still 10 s apart, the oldest further.
      const gap = (i: number) => Date.parse(points[i + 1].at) - Date.parse(points[i].at);
      expect(gap(points.length - 2)).toBe(10_000);
      expect(gap(0)).toBeGreaterThan(10_000);
      // 3 Wh every 10 s: 1,080 W between any two points.
      expect(points.slice(1).every((p: any) => p.powerW === 1_080)).toBe(true);
    } finally {
      await h.stop();
    }
  }, 60_000);

  test(`curves are kept for the newest ${CURVES_KEPT} transactions`, async () => {
    const h = await startHarness();
    try {
      const tx = h.controller.transactions;
      const start = Date.UTC(2026, 0, 1);
      const ids: string[] = [];
      for (let i = 0; i < CURVES_KEPT + 2; i++) {
        const t = txRecord({ startedAt: start + i * 60_000, meterWh: 0 });
        await tx.begin(t);
        await tx.finish({ ...t, meterLastWh: 5, meterLastAt: t.startedAt + 30_000 }, { reason: 'EVDisconnected', at: t.startedAt + 30_000 });
        ids.push(t.id);
      }
      const session = await h.login();
      const curve = async (id: string) => (await h.http('GET', `/v1/transactions/${id}/curve`, { session })).json.points;
      expect(await curve(ids[0]!)).toEqual([]); // the transaction is still listed; its curve is no longer kept
      expect(await curve(ids[1]!)).toEqual([]);
      expect(await curve(ids[2]!)).toHaveLength(2);
      expect(await curve(ids.at(-1)!)).toHaveLength(2);
    } finally {
      await h.stop();
    }
  }, 120_000);
});
