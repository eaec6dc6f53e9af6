import { afterAll, beforeAll, expect, test } from 'vitest';
import { startBroker, type TestBroker } from '../mqtt/broker.js';
import { DrawLog, LAG_MS, SCALED, startSiteCharger, until, type SiteCharger } from './site-harness.js';

/**
 * Several chargers of one site, each a process of its own, against a real broker (aedes in `npm test`; mosquitto
 * in .ci/run): join, a step of the house load with the grid meter closing the loop, a network partition of one
 * charger, kill -9, a broker restart and a leave. The sum of what the simulated EVs and the house draw stays under
 * the site limit but for the reaction time to a house load step; the times above it are measured and printed.
 * Times are the defaults scaled down (site-harness.ts).
 */

const LIMIT = 32;
const DEMAND = 16;
/** More than run: the safe share (8 A) is below the shares of three (10.6 A), so a partitioned charger must lower. */
const INSTALLED = 4;
const SITE = `test-site/${process.pid}`;
/**
 * What may pass above the limit, per event: a house load step until every charger lowered (the meter's charger at
 * its next step, the others when its record arrives) and the EVs followed; with slack for a loaded test machine.
 */
const REACTION_MS = 2 * SCALED.stepMs + LAG_MS + 1_000;

let broker: TestBroker;
const log = new DrawLog();
const chargers = new Map<string, SiteCharger>();
let meter: ReturnType<typeof setInterval> | undefined;

beforeAll(async () => {
  broker = await startBroker();
});

afterAll(async () => {
  clearInterval(meter);
  for (const c of chargers.values()) await c.kill().catch(() => {});
  await broker.stop();
});

const start = async (id: string) => {
  const c = await startSiteCharger(broker.port, { id, site: SITE, limitA: [LIMIT, LIMIT, LIMIT], installed: INSTALLED, demandA: DEMAND }, log);
  chargers.set(id, c);
  return c;
};
const draws = () => [...chargers.keys()].map((id) => `${id} ${log.current(id)} A`).join(', ');
const logs = () => [...chargers.values()].map((c) => c.stderr().split('\n').slice(-15).join('\n')).join('\n---\n');
const settled = (what: string, cond: () => boolean, ms = 20_000) => until(what, cond, ms, () => `${draws()}, house ${log.current('house')} A\n${logs()}`);
const near = (a: number, b: number) => Math.abs(a - b) < 0.2;

test('chargers share the site limit over a real broker: join, house load, partition, kill -9, broker restart, leave', { timeout: 120_000 }, async () => {
  const events: { name: string; at: number }[] = [];
  const mark = (name: string) => events.push({ name, at: Date.now() });

  // The grid meter at charger a: the house and every EV (the loop closing), read every 100 ms.
  log.house(0);
  meter = setInterval(() => {
    const total = log.total();
    chargers.get('a')?.send({ grid: [total, total, total] });
  }, 100);

  mark('two chargers start');
  await start('a');
  await start('b');
  await settled('a and b share the limit', () => near(log.current('a'), 16) && near(log.current('b'), 16));

  mark('c joins');
  await start('c');
  await settled('three share it', () => ['a', 'b', 'c'].every((id) => near(log.current(id), 10.6)));

  mark('b partitioned');
  const b = chargers.get('b')!;
  b.proxy.partition(true);
  // b notices and falls to the safe share (32 A / 4 installed), then pauses after the reserve time; a and c first
  // reserve b's safe share and share the rest, then drop b once it must have paused.
  await settled('b pauses after the reserve time', () => log.current('b') === 0);
  await settled('a and c take the rest once b is dropped', () => near(log.current('a'), 16) && near(log.current('c'), 16));
  mark('b reconnects');
  b.proxy.partition(false);
  await settled('three share again', () => ['a', 'b', 'c'].every((id) => near(log.current(id), 10.6)));

  mark('house load step 0 → 8 A');
  log.house(8);
  await settled('the chargers make room for the house', () => ['a', 'b', 'c'].every((id) => near(log.current(id), 8)));

  mark('c killed (kill -9)');
  await chargers.get('c')!.kill();
  chargers.delete('c');
  await settled('a and b take the rest', () => near(log.current('a'), 12) && near(log.current('b'), 12));

  mark('broker restart');
  const restartAt = Date.now();
  await broker.restart();
  // Without the broker both fall to the safe share (32 A / 4 chargers installed), then join again. The dip lasts
  // about 2 s (scaled join and raise times): read from the draw log, not polled, so a test process starved by a
  // loaded machine (CI) during the broker's restart cannot miss it.
  await settled('both fell to the safe share', () => ['a', 'b'].every((id) => log.drawsSince(id, restartAt).some((amps) => near(amps, 8))));
  await settled('a and b share after the restart', () => near(log.current('a'), 12) && near(log.current('b'), 12));

  mark('b leaves');
  await b.leave();
  chargers.delete('b');
  await settled('a alone up to its demand', () => near(log.current('a'), 16));
  mark('end');

  const overshoots = log.overshoots(LIMIT, events[0]!.at);
  const during = (t: number) => [...events].reverse().find((e) => e.at <= t)?.name ?? 'start';
  const rows = overshoots.map((o) => ({ event: during(o.start), ms: o.end - o.start, peakA: +o.peakA.toFixed(1), ampSeconds: +o.ampSeconds.toFixed(2) }));
  console.log(
    `site of 3 chargers (processes), ${broker.kind}: above the ${LIMIT} A limit ${rows.length} times` +
      (rows.length ? `\n${rows.map((r) => `  ${r.event}: ${r.ms} ms, peak +${r.peakA} A, ${r.ampSeconds} A·s`).join('\n')}` : ''),
  );
  // Only the house load step may pass the limit, and only for the reaction time.
  for (const r of rows) expect(r.event, JSON.stringify(rows)).toBe('house load step 0 → 8 A');
  for (const r of rows) expect(r.ms, JSON.stringify(rows)).toBeLessThanOrEqual(REACTION_MS);
});
