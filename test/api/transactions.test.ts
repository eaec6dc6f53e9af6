import { count, sql } from 'drizzle-orm';
import { transactions } from '../../db/schema.js';
import { completedIn } from '../../services/transactions.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { txRecord } from '../transactions.js';

let h: Harness;
let session: string;
const ids: string[] = [];
const at = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  h = await startHarness();
  session = await h.login();
  const tx = h.controller.transactions;
  // Three completed transactions, one still active.
  const specs = [
    {
      start: '2026-01-10T08:00:00.000Z',
      end: '2026-01-10T09:00:00.000Z',
      from: 1000,
      to: 8000,
      max: 11000,
      tagId: '04A1',
      userId: 'b3a5f5a4-2c1e-4c4b-9a39-0f6d2d1c9e11',
    },
    { start: '2026-02-01T12:00:00.000Z', end: '2026-02-01T12:30:00.000Z', from: 8000, to: 9500, max: 3700 },
    { start: '2026-03-05T23:59:59.999Z', end: '2026-03-06T01:00:00.000Z', from: 9500, to: 20000, max: 22000, tagId: 'EV:01' },
  ];
  for (const s of specs) {
    const t = txRecord({ meterWh: s.from, startedAt: at(s.start), ...(s.tagId ? { tagId: s.tagId } : {}), ...(s.userId ? { userId: s.userId } : {}) });
    await tx.begin(t);
    await tx.checkpoint({ ...t, meterLastWh: s.to - 10, meterLastAt: at(s.end) - 1000, maxPowerW: s.max });
    await tx.finish({ ...t, meterLastWh: s.to, meterLastAt: at(s.end), maxPowerW: s.max }, { reason: 'EVDisconnected', at: at(s.end) });
    ids.push(t.id);
  }
  await tx.begin(txRecord({ meterWh: 20000, startedAt: at('2026-03-07T10:00:00.000Z') }));
});
afterAll(() => h.stop());

const get = (path: string) => h.http('GET', path, { session });

test('lists completed transactions only, oldest first, with every field of 2.9', async () => {
  const res = await get('/v1/transactions');
  expect(res.status).toBe(200);
  expect(res.json).toEqual([
    {
      transactionId: ids[0],
      tagId: '04A1',
      userId: 'b3a5f5a4-2c1e-4c4b-9a39-0f6d2d1c9e11',
      startTransaction: '2026-01-10T08:00:00.000Z',
      endTransaction: '2026-01-10T09:00:00.000Z',
      consumption: 7000,
      maxPower: 11000,
      // Extensions for billing: the meter's register at start and stop, the stop reason.
      meterStartWh: 1000,
      meterStopWh: 8000,
      stopReason: 'EVDisconnected',
    },
    {
      transactionId: ids[1],
      startTransaction: '2026-02-01T12:00:00.000Z',
      endTransaction: '2026-02-01T12:30:00.000Z',
      consumption: 1500,
      maxPower: 3700,
      meterStartWh: 8000,
      meterStopWh: 9500,
      stopReason: 'EVDisconnected',
    },
    {
      transactionId: ids[2],
      tagId: 'EV:01',
      startTransaction: '2026-03-05T23:59:59.999Z',
      endTransaction: '2026-03-06T01:00:00.000Z',
      consumption: 10500,
      maxPower: 22000,
      meterStartWh: 9500,
      meterStopWh: 20000,
      stopReason: 'EVDisconnected',
    },
  ]);
});

test('from/to select by start time, both ends inclusive; to alone and from alone work', async () => {
  const idsOf = async (q: string) => (await get(`/v1/transactions${q}`)).json.map((t: { transactionId: string }) => t.transactionId);
  expect(await idsOf('?from=2026-02-01T12:00:00.000Z')).toEqual([ids[1], ids[2]]);
  expect(await idsOf('?to=2026-02-01T12:00:00.000Z')).toEqual([ids[0], ids[1]]);
  expect(await idsOf('?from=2026-01-10T08:00:00.001Z&to=2026-03-05T23:59:59.998Z')).toEqual([ids[1]]);
  expect(await idsOf('?from=2027-01-01T00:00:00.000Z')).toEqual([]);
});

test('summary: count, total duration in seconds, total consumption in Wh, with the same range rules', async () => {
  const all = await get('/v1/transactions/summary');
  expect([all.status, all.json]).toEqual([200, { transactionCount: 3, totalDuration: 3600 + 1800 + 3600, totalConsumption: 19000 }]);
  const feb = await get('/v1/transactions/summary?from=2026-02-01T00:00:00.000Z&to=2026-02-28T23:59:59.999Z');
  expect(feb.json).toEqual({ transactionCount: 1, totalDuration: 1800, totalConsumption: 1500 });
  const none = await get('/v1/transactions/summary?from=2030-01-01T00:00:00.000Z');
  expect(none.json).toEqual({ transactionCount: 0, totalDuration: 0, totalConsumption: 0 });
});

test('invalid from/to: 400 OperationFailed for list and summary', async () => {
  for (const q of [
    '?from=2026-01-10',
    '?from=2026-01-10T08:00:00Z',
    '?from=2026-01-10T08:00:00.000%2B01:00',
    '?to=yesterday',
    '?from=2026-02-30T00:00:00.000Z',
    '?from=2026-13-01T00:00:00.000Z',
    '?from=',
    '?from=2026-03-01T00:00:00.000Z&to=2026-02-01T00:00:00.000Z',
  ]) {
    for (const path of ['/v1/transactions', '/v1/transactions/summary']) {
      const res = await get(`${path}${q}`);
      expect([path + q, res.status, res.json]).toEqual([path + q, 400, { success: false, cause: expect.stringMatching(/from|to/) }]);
    }
  }
});

test('GET /v1/transactions/active: 204 without body while the charge cycle reports none', async () => {
  const res = await get('/v1/transactions/active');
  expect([res.status, res.text]).toEqual([204, '']);
});

test('the range filter of list and summary is served by the index', async () => {
  const { db } = h.controller.database;
  for (const range of [{ from: 0 }, { to: 1 }, { from: 0, to: 1 }]) {
    const query = db.select({ n: count() }).from(transactions).where(completedIn(range));
    const plan = await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${query.getSQL()}`);
    expect([range, plan.map((r) => r.detail).join(' ')]).toEqual([range, expect.stringContaining('USING INDEX transactions_completed_by_start')]);
  }
});
