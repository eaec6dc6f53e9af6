import { describe, expect, test } from 'vitest';
import { energyDays } from '../../db/schema.js';
import { MAX_PERIODS } from '../../services/energy-history.js';
import { charging, useChargers } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { FAILED, startHarness, TEST_EPOCH } from '../harness.js';
import { txRecord } from '../transactions.js';

/**
 * The energy history by local day and month (GET /v1/energy/history): completed transactions counted on the local
 * day of their start in the controller's time zone, their energy as billed, the energy by origin where energy
 * management kept it, every period of the range, the lifetime total.
 */

const chargers = useChargers();
const HOUR = 3_600_000;

describe('by day and by month, in the time zone', () => {
  test('a transaction counts on its local day; empty days are there; months sum their days; the lifetime total', async () => {
    const h = await startHarness({ timeZone: 'Europe/Berlin' });
    try {
      const tx = h.controller.transactions;
      const add = async (startIso: string, wh: number) => {
        const startedAt = Date.parse(startIso);
        const t = txRecord({ startedAt, meterWh: 1_000 });
        await tx.begin(t);
        await tx.finish({ ...t, meterLastWh: 1_000 + wh, meterLastAt: startedAt + HOUR }, { reason: 'EVDisconnected', at: startedAt + HOUR });
      };
      await add('2026-05-31T22:30:00.000Z', 7_000); // 00:30 on 1 June in Berlin
      await add('2026-06-01T10:00:00.000Z', 3_000);
      await add('2026-06-03T21:59:00.000Z', 5_000); // 23:59 on 3 June
      await add('2026-04-10T10:00:00.000Z', 11_000);
      await h.controller.database.db.insert(energyDays).values([
        { day: '2026-06-01', solarWh: 4_000.4, gridWh: 5_999.8 },
        { day: '2026-06-03', solarWh: 0, gridWh: 5_000 },
      ]);
      const session = await h.login();
      const get = (query: string) => h.http('GET', `/v1/energy/history${query}`, { session });

      const days = await get('?from=2026-05-31&to=2026-06-04');
      expect(days.status, days.text).toBe(200);
      expect(days.json).toEqual({
        by: 'day',
        from: '2026-05-31',
        to: '2026-06-04',
        timeZone: 'Europe/Berlin',
        periods: [
          { period: '2026-05-31', transactionCount: 0, consumptionWh: 0, solarWh: null, gridWh: null },
          { period: '2026-06-01', transactionCount: 2, consumptionWh: 10_000, solarWh: 4_000, gridWh: 6_000 },
          { period: '2026-06-02', transactionCount: 0, consumptionWh: 0, solarWh: null, gridWh: null },
          { period: '2026-06-03', transactionCount: 1, consumptionWh: 5_000, solarWh: 0, gridWh: 5_000 },
          { period: '2026-06-04', transactionCount: 0, consumptionWh: 0, solarWh: null, gridWh: null },
        ],
        consumptionWh: 15_000,
        lifetimeWh: 26_000,
      });

      const months = (await get('?by=month&from=2026-04&to=2026-06')).json;
      expect(months.periods).toEqual([
        { period: '2026-04', transactionCount: 1, consumptionWh: 11_000, solarWh: null, gridWh: null },
        { period: '2026-05', transactionCount: 0, consumptionWh: 0, solarWh: null, gridWh: null },
        { period: '2026-06', transactionCount: 3, consumptionWh: 15_000, solarWh: 4_000, gridWh: 11_000 },
      ]);
      expect(months.consumptionWh).toBe(26_000);

      // Without a range: the last 31 days, or 12 months, up to today (the test clock: 1 June 2026, 10:00 in Berlin).
      const recent = (await get('')).json;
      expect(recent).toMatchObject({ by: 'day', from: '2026-05-02', to: '2026-06-01' });
      expect(recent.periods).toHaveLength(31);
      expect((await get('?by=month')).json).toMatchObject({ from: '2025-07', to: '2026-06' }); // 12 months;
    } finally {
      await h.stop();
    }
  });

  test('bad queries are 400 with the reason and no answer', async () => {
    const h = await startHarness();
    try {
      const session = await h.login();
      for (const query of [
        'by=week',
        'from=2026-02-30&to=2026-03-01',
        'from=2026-6-1&to=2026-06-02',
        'from=2026-06-02&to=2026-06-01',
        'by=month&from=2026-06-01&to=2026-06-30',
        'from=2025-01-01&to=2026-01-02',
        `by=month&from=2010-01&to=2020-01`,
      ]) {
        expect(await h.http('GET', `/v1/energy/history?${query}`, { session }), query).toMatchObject({ status: 400, json: FAILED });
      }
      expect(MAX_PERIODS).toEqual({ day: 366, month: 120 });
      expect((await h.http('GET', '/v1/energy/history?from=2025-01-01&to=2026-01-01', { session })).json.periods).toHaveLength(366);
    } finally {
      await h.stop();
    }
  });
});

test("a charge on simulated hardware: today's period holds it, billed, and its energy by origin", async () => {
  const c = await chargers.start({ harness: { timeZone: 'UTC', clock: new ManualClock(TEST_EPOCH) } });
  await charging(c);
  for (let i = 0; i < 6; i++) await c.step(10_000);
  await c.act('unplug');
  await c.step(1_000);
  const [completed] = (await c.api('GET', '/v1/transactions')).json;
  const { periods, lifetimeWh } = (await c.api('GET', '/v1/energy/history?from=2026-06-01&to=2026-06-01')).json;
  expect(periods[0]).toMatchObject({ period: '2026-06-01', transactionCount: 1, consumptionWh: completed.consumption, solarWh: 0 });
  // By origin as the allocator loop counted it (all from the grid in Fast mode): within a step of the billed figure.
  expect(Math.abs(periods[0].gridWh - completed.consumption)).toBeLessThan(50);
  expect(lifetimeWh).toBe(completed.consumption);
});
