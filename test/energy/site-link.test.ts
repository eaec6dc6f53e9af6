import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { createSiteLink, type SiteLinkService } from '../../services/energy/site-link.js';
import type { Settings } from '../../services/settings/index.js';
import { createPlant, type Plant } from '../fixtures/site-plant.mjs';
import { observe, retained, startBroker, startProxy, type Proxy, type TestBroker } from '../mqtt/broker.js';
import { DrawLog, LAG_MS, SCALED, until } from './site-harness.js';

/**
 * The site link in this process against a real broker (aedes; mosquitto in .ci/run): the record on the broker as
 * another client reads it (retained, the last will), every site setting acting, records that are not valid ignored
 * and logged once, and a site of 16 chargers through joins, a house load step and leaves. Times are the defaults
 * scaled down (site-harness.ts).
 */

let broker: TestBroker;
let siteSeq = 0;
let site = '';
const running: { link: SiteLinkService; plant?: Plant; proxy?: Proxy }[] = [];

beforeAll(async () => {
  broker = await startBroker();
});
afterAll(async () => {
  await broker.stop();
});
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.plant?.kill();
    await r.link.stop();
    await r.proxy?.close();
  }
  site = '';
});

const newSite = () => (site = `test-site/link-${process.pid}-${++siteSeq}`);

interface TestLink {
  link: SiteLinkService;
  warnings: { fields: unknown; msg: string }[];
  set(values: Record<string, unknown>): void;
  shareA(): number | null;
}

function startLink(
  id: string,
  over: Record<string, unknown> = {},
  opts: { url?: string; gridPowerW?: () => { value: [number, number, number]; at: number } | null } = {},
): TestLink {
  const values: Record<string, unknown> = {
    MqttUrl: opts.url ?? broker.url,
    MqttClientId: id,
    SerialNumber_custom: id,
    SiteSharing: 1,
    SiteName: site,
    SiteLimit: [20, 20, 20],
    SiteChargers: 2,
    SitePriority: 0,
    SiteFairness: 0,
    ...over,
  };
  const warnings: { fields: unknown; msg: string }[] = [];
  const logger = { info: () => {}, debug: () => {}, warn: (fields: unknown, msg: string) => warnings.push({ fields, msg }) };
  const settings = { get: (key: string) => values[key] ?? 0 } as unknown as Pick<Settings, 'get'>;
  const link = createSiteLink({ settings, logger: logger as never, params: SCALED, ...(opts.gridPowerW ? { gridPowerW: opts.gridPowerW } : {}) });
  running.push({ link });
  return {
    link,
    warnings,
    set(next) {
      Object.assign(values, next);
      link.configure();
    },
    shareA: () => link.share()?.value[0] ?? null,
  };
}

const demand16 = { demandA: 16, phases: 3 as const, drawA: [0, 0, 0] as const, arrivedAt: 1 };
const shares = (...links: TestLink[]) => links.map((l) => l.shareA());

test('the record is on the broker as another client reads it: retained, and the last will when the charger vanishes', async () => {
  newSite();
  const proxy = await startProxy(broker.port);
  const a = startLink('charger-a', {}, { url: proxy.url });
  running.at(-1)!.proxy = proxy;
  a.link.offer({ ...demand16, drawA: [7, 7, 7], arrivedAt: 1234 });
  let records = await retained(broker.url, `${site}/chargers/+`);
  for (let i = 0; i < 50 && !records.has(`${site}/chargers/charger-a`); i++) {
    await new Promise((r) => setTimeout(r, 100));
    records = await retained(broker.url, `${site}/chargers/+`);
  }
  expect(JSON.parse(records.get(`${site}/chargers/charger-a`)!)).toEqual({
    v: 1,
    online: true,
    demandA: 16,
    lines: [0, 1, 2],
    priority: 0,
    arrivedAt: 1234,
    drawA: [7, 7, 7],
    gridA: null,
  });
  // Cut off without a goodbye: the broker publishes the last will (retained) on the same topic.
  const o = await observe(broker.url, [`${site}/chargers/+`]);
  proxy.refuse(true);
  proxy.cut();
  await o.waitFor((m) => m.payload === '{"v":1,"online":false}', { what: 'the last will' });
  await o.end();
  expect((await retained(broker.url, `${site}/chargers/+`)).get(`${site}/chargers/charger-a`)).toBe('{"v":1,"online":false}');
});

test('records that are not valid are ignored and logged once per topic', async () => {
  newSite();
  const a = startLink('charger-a');
  a.link.offer(demand16);
  const o = await observe(broker.url, []);
  const bad = [
    'not json',
    '{"v":1,"online":true,"demandA":-5}',
    '{"v":2,"online":true}',
    JSON.stringify({ v: 1, online: true, demandA: 16, lines: [0, 0], priority: 0, arrivedAt: null, drawA: [0, 0, 0], gridA: null }),
  ];
  for (const [i, payload] of bad.entries()) await o.publish(`${site}/chargers/bad-${i}`, payload, { retain: true });
  await o.publish(`${site}/chargers/bad-0`, 'still not json', { retain: true });
  await until('a charges alone at its demand', () => a.shareA() === 16, 10_000);
  expect(a.link.state().peers).toEqual([]);
  const logged = a.warnings.filter((w) => w.msg.includes('not valid')).map((w) => (w.fields as { topic: string }).topic);
  expect(logged.sort()).toEqual(bad.map((_, i) => `${site}/chargers/bad-${i}`).sort());
  for (const [i] of bad.entries()) await o.publish(`${site}/chargers/bad-${i}`, '', { retain: true });
  await o.end();
});

test('every site setting acts: limit, fairness, priority, chargers installed, name, on/off', async () => {
  newSite();
  const a = startLink('charger-a');
  const b = startLink('charger-b');
  a.link.offer(demand16);
  b.link.offer({ ...demand16, arrivedAt: 2 });
  // 20 A: 6 A each, the rest shared equally.
  await until('equal shares', () => shares(a, b).every((s) => s === 10), 10_000);

  // In order, b first by its priority: b up to its demand of what is left, a its 6 A.
  for (const l of [a, b]) l.set({ SiteFairness: 1 });
  b.set({ SitePriority: 1 });
  await until('b served first', () => a.shareA() === 6 && b.shareA() === 14, 10_000);

  for (const l of [a, b]) l.set({ SiteLimit: [32, 32, 32], SiteFairness: 0, SitePriority: 0 });
  await until('a higher limit', () => shares(a, b).every((s) => s === 16), 10_000);

  // The safe share counts the chargers installed.
  expect(a.link.state().safeA).toBe(16);
  a.set({ SiteChargers: 4 });
  await until('safe share of 4', () => a.link.state().safeA === 8);

  // Another site name: b leaves this site (its record cleared), a has the limit alone.
  const other = `${site}-other`;
  b.set({ SiteName: other, SiteLimit: [20, 20, 20] });
  await until('b gone from a', () => a.link.state().peers.length === 0, 10_000);
  expect((await retained(broker.url, `${site}/chargers/+`)).has(`${site}/chargers/charger-b`)).toBe(false);
  await until('b alone on the other site', () => b.shareA() === 16, 10_000);

  // Off: no site share, the record cleared.
  a.set({ SiteSharing: 0 });
  expect(a.link.share()).toBeNull();
  for (let i = 0; i < 50 && (await retained(broker.url, `${site}/chargers/+`)).has(`${site}/chargers/charger-a`); i++)
    await new Promise((r) => setTimeout(r, 100));
  expect((await retained(broker.url, `${site}/chargers/+`)).has(`${site}/chargers/charger-a`)).toBe(false);
});

test(
  '16 chargers in one process: joins, a house load step with the grid meter, leaves; above the limit only for the reaction time',
  { timeout: 90_000 },
  async () => {
    newSite();
    const LIMIT = 100;
    const log = new DrawLog();
    log.house(0);
    // The grid meter as the energy inputs give it: W per line (230 V nominal).
    const grid = () => {
      const watts = log.total() * 230;
      return { value: [watts, watts, watts] as [number, number, number], at: Date.now() };
    };
    const plants: Plant[] = [];
    const start = (i: number) => {
      const id = `charger-${String(i).padStart(2, '0')}`;
      const l = startLink(id, { SiteLimit: [LIMIT, LIMIT, LIMIT], SiteChargers: 16 }, i === 0 ? { gridPowerW: grid } : {});
      const plant = createPlant({ link: l.link, demandA: 16, lagMs: LAG_MS, stepMs: SCALED.stepMs, onDraw: (amps) => log.draw(id, amps, Date.now()) });
      running.at(-1)!.plant = plant;
      plants.push(plant);
      return id;
    };
    const events: { name: string; at: number }[] = [];
    const mark = (name: string) => events.push({ name, at: Date.now() });
    const drawing = () => plants.map((p) => p.draw());

    mark('6 chargers');
    for (let i = 0; i < 6; i++) start(i);
    await until(
      '6 at their demand',
      () => drawing().every((d) => d === 16),
      20_000,
      () => JSON.stringify(drawing()),
    );
    mark('10 more join');
    for (let i = 6; i < 16; i++) start(i);
    // 100 A / 16: 6.2 A each.
    await until(
      '16 share',
      () => drawing().every((d) => d === 6.2),
      20_000,
      () => JSON.stringify(drawing()),
    );
    mark('house load step 0 → 10 A');
    log.house(10);
    // 90 A: 15 get 6 A in the order of service, the 16th pauses.
    await until(
      'room for the house',
      () => drawing().filter((d) => d === 6).length === 15 && drawing().filter((d) => d === 0).length === 1,
      20_000,
      () => JSON.stringify([drawing(), running[0]!.link.state()]),
    );
    mark('8 leave');
    for (const r of running.slice(8)) {
      await r.plant!.stop();
      await r.link.stop();
    }
    // 90 A for 8: 11.2 A each (11.25 rounded down); one may see 0.1 A less while the others' reported draws
    // still lag in its view of the house load (the grid meter less the chargers), never more.
    await until(
      '8 share',
      () =>
        drawing()
          .slice(0, 8)
          .every((d) => d >= 11.1 && d <= 11.2),
      20_000,
      () => JSON.stringify(drawing()),
    );
    mark('end');

    const during = (t: number) => [...events].reverse().find((e) => e.at <= t)?.name ?? 'start';
    const rows = log
      .overshoots(LIMIT, events[0]!.at)
      .map((o) => ({ event: during(o.start), ms: o.end - o.start, peakA: +o.peakA.toFixed(1), ampSeconds: +o.ampSeconds.toFixed(2) }));
    console.log(
      `site of 16 chargers (one process), ${broker.kind}: above the ${LIMIT} A limit ${rows.length} times` +
        (rows.length ? `\n${rows.map((r) => `  ${r.event}: ${r.ms} ms, peak +${r.peakA} A, ${r.ampSeconds} A·s`).join('\n')}` : ''),
    );
    for (const r of rows) expect(r.event, JSON.stringify(rows)).toBe('house load step 0 → 10 A');
    for (const r of rows) expect(r.ms, JSON.stringify(rows)).toBeLessThanOrEqual(2 * SCALED.stepMs + LAG_MS + 1_000);
  },
);
