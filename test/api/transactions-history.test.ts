import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LIST_PAGE_ROWS, type TimeRange } from '../../services/transactions.js';
import { startHarness, type Harness } from '../harness.js';
import { txRecord } from '../transactions.js';

/**
 * A long history: GET /v1/transactions is written page by page as it is read (a chunked response, never one
 * string), and the summary, kept as per-day sums, equals the sum over the transactions for any range.
 */

const DAY = 86_400_000;
const BASE = Date.UTC(2026, 0, 1);
let h: Harness;
let session: string;
/** Every completed transaction: start, end, consumption. */
const history: Array<{ id: string; start: number; end: number; wh: number }> = [];
/** The order they were recorded in. */
const order: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  session = await h.login();
  const tx = h.controller.transactions;
  const rng = fc.sample(fc.tuple(fc.integer({ min: 0, max: 40 * DAY }), fc.integer({ min: 1, max: 5 * 3_600_000 }), fc.integer({ min: 0, max: 40_000 })), {
    numRuns: LIST_PAGE_ROWS * 2 + 37,
    seed: 61851,
  });
  // Also starts exactly on day boundaries and the millisecond before them.
  rng.push([10 * DAY, 1000, 5], [10 * DAY - 1, 1000, 7], [11 * DAY, 60_000, 11], [11 * DAY, 30_000, 13], [11 * DAY, 1, 17]);
  for (const [offset, duration, wh] of rng) {
    const t = txRecord({ startedAt: BASE + offset, meterWh: 1000 });
    await tx.begin(t);
    await tx.finish({ ...t, meterLastWh: 1000 + wh, meterLastAt: BASE + offset + duration }, { reason: 'EVDisconnected', at: BASE + offset + duration });
    history.push({ id: t.id, start: BASE + offset, end: BASE + offset + duration, wh });
    order.push(t.id);
  }
  // One completed by the power-loss recovery: it counts in the sums as well.
  const lost = txRecord({ startedAt: BASE + 12 * DAY + 5, meterWh: 500 });
  await tx.begin(lost);
  await tx.checkpoint({ ...lost, meterLastWh: 800, meterLastAt: BASE + 12 * DAY + 5 });
  expect(await tx.closeInterrupted()).toBe(1);
  const row = await h.controller.database.db.query.transactions.findFirst({ where: (t, { eq }) => eq(t.id, lost.id) });
  history.push({ id: lost.id, start: lost.startedAt, end: row!.endedAt!, wh: 300 });
  order.push(lost.id);
  history.sort((a, b) => a.start - b.start || order.indexOf(a.id) - order.indexOf(b.id));
}, 120_000);
afterAll(() => h.stop());

/** GET with the raw response: status, headers and the body's chunks as they arrived. */
function getRaw(path: string): Promise<{ status: number; headers: Record<string, unknown>; chunks: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.controller.port, path, headers: { authorization: session }, agent: false }, (res) => {
      let chunks = 0;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        chunks++;
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /v1/transactions over a long history', () => {
  test('every completed transaction, oldest first (ties in the order recorded), written page by page (chunked, no Content-Length)', async () => {
    const res = await getRaw('/v1/transactions');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.chunks).toBeGreaterThan(1);
    const list = JSON.parse(res.body) as Array<{ transactionId: string; startTransaction: string; consumption: number }>;
    expect(list.map((t) => t.transactionId)).toEqual(history.map((t) => t.id));
    expect(list.map((t) => t.consumption)).toEqual(history.map((t) => t.wh));
  });

  test('a range over page boundaries selects by start time, both ends inclusive', async () => {
    const from = history[LIST_PAGE_ROWS - 3]!.start;
    const to = history[LIST_PAGE_ROWS + 4]!.start;
    const res = await getRaw(`/v1/transactions?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`);
    const ids = (JSON.parse(res.body) as Array<{ transactionId: string }>).map((t) => t.transactionId);
    expect(ids).toEqual(history.filter((t) => t.start >= from && t.start <= to).map((t) => t.id));
  });

  test('transactions that started in the same millisecond stay in the order recorded across a page boundary', async () => {
    const at = BASE + 11 * DAY;
    const pages: string[][] = [];
    for await (const page of h.controller.transactions.pagesCompleted({ from: at, to: at }, 2))
      pages.push((JSON.parse(`[${page}]`) as Array<{ transactionId: string }>).map((t) => t.transactionId));
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    expect(pages.flat()).toEqual(history.filter((t) => t.start === at).map((t) => t.id));
  });

  test('an empty range is an empty array', async () => {
    const res = await getRaw('/v1/transactions?from=2030-01-01T00:00:00.000Z');
    expect([res.status, res.body]).toEqual([200, '[]']);
  });
});

describe('GET /v1/transactions/summary over a long history', () => {
  const expected = (range: TimeRange) => {
    const inRange = history.filter((t) => (range.from === undefined || t.start >= range.from) && (range.to === undefined || t.start <= range.to));
    return {
      transactionCount: inRange.length,
      totalDuration: Math.round(inRange.reduce((s, t) => s + (t.end - t.start), 0) / 1000),
      totalConsumption: inRange.reduce((s, t) => s + t.wh, 0),
    };
  };
  const query = (range: TimeRange) =>
    [range.from !== undefined ? `from=${new Date(range.from).toISOString()}` : '', range.to !== undefined ? `to=${new Date(range.to).toISOString()}` : '']
      .filter(Boolean)
      .join('&');

  test('the whole history', async () => {
    expect(JSON.parse((await getRaw('/v1/transactions/summary')).body)).toEqual(expected({}));
  });

  test('any range equals the sum over its transactions (day boundaries, partial days, one day, open ends)', async () => {
    const instant = fc.oneof(
      fc.integer({ min: -DAY, max: 42 * DAY }).map((o) => BASE + o),
      fc.integer({ min: 0, max: 42 }).chain((d) => fc.constantFrom(BASE + d * DAY, BASE + d * DAY - 1, BASE + d * DAY + 1)),
      fc.constantFrom(...history.map((t) => t.start)),
    );
    await fc.assert(
      fc.asyncProperty(fc.option(instant, { nil: undefined }), fc.option(instant, { nil: undefined }), async (a, b) => {
        const range: TimeRange = {};
        if (a !== undefined) range.from = b !== undefined ? Math.min(a, b) : a;
        if (b !== undefined) range.to = a !== undefined ? Math.max(a, b) : b;
        const res = await getRaw(`/v1/transactions/summary?${query(range)}`);
        expect([range, JSON.parse(res.body)]).toEqual([range, expected(range)]);
      }),
      { numRuns: 150, seed: 2_013 },
    );
  });
});
