import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { GRID_POWER_SOURCES } from '../../services/energy/input-settings.js';
import { scaledSiteLinkParams } from '../../services/energy/site-link.js';
import { httpRequest } from '../harness.js';
import { startBroker, startProxy, type Proxy, type TestBroker } from '../mqtt/broker.js';
import { launch, login, until, type Running } from '../processes.js';

/**
 * Whole controllers on one site: three processes as `npm start` runs them (simulated hardware, the core in its
 * worker), sharing a 32 A grid connection over a real broker (aedes in `npm test`; mosquitto in .ci/run), configured
 * and driven through their HTTP API and /sim. Each EV would take 16 A (MaxCurrent). Each controller reaches the
 * broker through a TCP proxy of its own (its network, partitioned at will). Charger a has the site's grid meter: the
 * test pushes it the grid connection point's power (the house and the three EVs) as a home energy system would, every
 * sampling round (POST /v1/energy/grid).
 *
 * The events, in order: the three join; a step of the house load; a network partition of b (and its end); a broker
 * restart; c killed with SIGKILL and started again on its data; c leaving (SIGTERM: it stops its charge and clears
 * its record). The sum of the EVs' currents and the house is sampled all along; above the limit it may be only
 * after a house load step or a process joining, each for its reaction time: the times are printed. Real time: the
 * processes run on their own clocks, so every wait is on a condition, with room for a loaded machine.
 */

const LIMIT = 32;
const DEMAND = 16;
/** Installed: 4, so the safe share (32 A / 4 = 8 A) is below a share of three and a partitioned charger must lower. */
const INSTALLED = 4;
const SAFE = LIMIT / INSTALLED;
const THIRD = LIMIT / 3;
const SITE = `test-site-controllers/${process.pid}`;
const METER_AT = 'a';
const ACCOUNTS = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'accounts.js');
const INSTALLER = { username: 'tech', password: 'tech-password-1' };
const OPERATOR_PASSWORD = 'operator-secret-1';
/**
 * The site link's times, scaled (SITE_TIME_SCALE): a lost charger's safe share is reserved for its peers' reserve
 * time after its last message (15 min, here 90 s), as for a charger that lost the broker and may still charge.
 */
const SCALE = 0.1;
const PARAMS = scaledSiteLinkParams(SCALE);
/** Generous: three controllers and a broker on a loaded 2-core machine. */
const SETTLE_MS = 60_000;
/**
 * How long the sum may stay above the limit after a house load step: the documented reaction, at most 1 s at the
 * defaults (the meter's charger's next step, here 100 ms, the record's delivery, the EV: at once in the simulation).
 * The test's own resolution is added per episode: the meter is pushed, and every controller read, once per sampling
 * round, so the reaction is seen up to two rounds late (about 250 ms each alone, longer on a loaded machine).
 */
const HOUSE_REACTION_MS = 1_000;
/** After a process joins (a first start, a restart): its first current is 6 A, rising 2 A a second; the others lower as its record arrives. */
const JOIN_REACTION_MS = 5_000;
/** W per ampere on a line (the grid meter's nominal 230 V). */
const VOLTS = 230;

interface Charger {
  id: string;
  dataDir: string;
  run: Running;
  session: string;
}

let root: string;
/** Restarts of chargers that ended on their own (see start). */
const restarts: Promise<void>[] = [];
let broker: TestBroker;
const chargers = new Map<string, Charger>();
/** Each charger's network (kept over its restarts). */
const proxies = new Map<string, Proxy>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-site-controllers-'));
  broker = await startBroker();
});

afterAll(async () => {
  stopSampling = true;
  await sampling;
  await Promise.allSettled(restarts);
  for (const c of chargers.values()) c.run.child.kill('SIGKILL');
  for (const p of proxies.values()) await p.close();
  await broker?.stop();
  await rm(root, { recursive: true, force: true });
});

const call = async (c: Charger, method: string, path: string, body?: unknown) => {
  const res = await httpRequest(c.run.port, method, path, { session: c.session, ...(body === undefined ? {} : { body }) });
  if (res.status !== 200) throw new Error(`${c.id}: ${method} ${path}: ${res.status} ${res.text}`);
  return res;
};

/**
 * Starts a controller as its supervisor does: the core ends a process whose main thread stalls for a second (a
 * loaded machine can do that while it starts), and systemd starts it again (bin/systemd/); so does this, up to 3 times.
 */
async function launchSupervised(env: Record<string, string>): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(env, 30_000);
    } catch (err) {
      if (attempt === 3 || !/^exited with/.test((err as Error).message)) throw err;
      console.log(`started again after: ${(err as Error).message.slice(0, 300)}`);
    }
  }
}

/** Starts charger `id` (again, with its data, after a kill), on the site, its EV plugged in and charging. */
async function start(id: string): Promise<Charger> {
  const dataDir = join(root, id);
  if (!existsSync(dataDir)) {
    // Site settings need an installer: the account made as on a new controller (npm run accounts).
    const made = spawnSync(process.execPath, [ACCOUNTS, 'set', INSTALLER.username, '--role', 'installer', '--password', '-'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      input: `${INSTALLER.password}\n`,
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
  }
  let proxy = proxies.get(id);
  if (!proxy) proxies.set(id, (proxy = await startProxy(broker.port)));
  const run = await launchSupervised({ DATA_DIR: dataDir, OPERATOR_PASSWORD, SITE_TIME_SCALE: String(SCALE) });
  const c: Charger = { id, dataDir, run, session: await login(run.port, INSTALLER.password, INSTALLER.username) };
  chargers.set(id, c);
  // Ended by its core (its main thread stalled on a loaded machine): started again, as systemd would; a kill or a
  // stop by the test removes it from `chargers` first.
  run.child.once('exit', (code, signal) => {
    if (chargers.get(id) !== c || stopSampling) return;
    console.log(`${id} ended (${code ?? signal}), started again: ${run.stdout.join('').split('\n').slice(-3).join('\n').slice(0, 400)}`);
    chargers.delete(id);
    restarts.push(start(id).then(() => undefined));
  });
  const settings = {
    FreeCharging: 1,
    MqttUrl: proxy.url,
    MqttClientId: `site-${id}-${process.pid}`,
    SiteSharing: 1,
    SiteName: SITE,
    SiteLimit: [LIMIT, LIMIT, LIMIT],
    SiteChargers: INSTALLED,
    ...(id === METER_AT ? { GridPowerSource: GRID_POWER_SOURCES.http } : {}),
  };
  const res = await call(c, 'PATCH', '/v1/settings', { params: Object.entries(settings).map(([key, value]) => ({ key, value })) });
  expect(
    res.json.params.every((p: { success: boolean }) => p.success),
    res.text,
  ).toBe(true);
  await call(c, 'POST', '/sim/plug');
  await call(c, 'POST', '/sim/charge');
  return c;
}

/** Ends charger `id` (SIGKILL, or SIGTERM: a stop as systemd's) and waits for its process to exit. */
async function end(id: string, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  const c = chargers.get(id)!;
  chargers.delete(id);
  const exited = new Promise((resolve) => c.run.child.once('exit', resolve));
  c.run.child.kill(signal);
  await exited;
}

type Reading = { currentA: number; siteA: number | null };

/** Each running charger's offered current and site share (A per phase), as GET /v1/system_state's `energy` says. */
async function read(): Promise<Map<string, Reading>> {
  const out = new Map<string, Reading>();
  for (const c of [...chargers.values()]) {
    try {
      const { energy } = (await call(c, 'GET', '/v1/system_state')).json;
      out.set(c.id, { currentA: energy.currentA, siteA: energy.limits.find((l: { source: string }) => l.source === 'site').amps });
    } catch {
      // ending or starting: left out of this round
    }
  }
  return out;
}

/** The house's load on each line (A), set by the test. */
let houseA = 0;
/** The grid connection point (the house and every EV, the same on each line) to the charger with the meter. */
async function pushGridMeter(gridA: number): Promise<void> {
  const meter = chargers.get(METER_AT);
  if (meter) await call(meter, 'POST', '/v1/energy/grid', { powerW: [gridA * VOLTS, gridA * VOLTS, gridA * VOLTS] });
}

/**
 * The site sampled all along (one round after another): the latest reading, and the grid connection point's current
 * over time (a killed charger's EV draws nothing; a round that met it dying is left out), pushed to the grid meter.
 */
const samples: { at: number; gridA: number }[] = [];
let last = new Map<string, Reading>();
let sampling: Promise<void> | undefined;
let stopSampling = false;
async function sampleAll(): Promise<void> {
  while (!stopSampling) {
    try {
      last = await read();
      const gridA = houseA + [...last.values()].reduce((n, v) => n + v.currentA, 0);
      samples.push({ at: Date.now(), gridA });
      await pushGridMeter(gridA);
    } catch {
      // a charger being killed or started: the next round
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What happened when, and how long the site may be above its limit after it (ms). */
const events: { name: string; at: number; allowedMs: number }[] = [];
const mark = (name: string, allowedMs = 0) => events.push({ name, at: Date.now(), allowedMs });

const near = (a: number | null | undefined, b: number) => a !== null && a !== undefined && Math.abs(a - b) < 0.5;
/** The chargers `ids` (and no other) each offer `amps` with a site share of `amps`. */
const sharing = (ids: string[], amps: number) => () =>
  [...last.keys()].sort().join() === ids.join() && ids.every((id) => near(last.get(id)?.currentA, amps) && near(last.get(id)?.siteA, amps));
/** Each charger named offers the current given. */
const offering = (amps: Record<string, number>) => () => Object.entries(amps).every(([id, a]) => near(last.get(id)?.currentA, a));
const shown = () => `${JSON.stringify(Object.fromEntries(last))}, house ${houseA} A`;
/** The shares add up to at most the limit less the house (what the site link gives; the offered currents follow). */
const withinLimit = () => {
  const shares = [...last.values()].reduce((n, v) => n + (v.siteA ?? 0), 0);
  expect(shares + houseA, shown()).toBeLessThanOrEqual(LIMIT + 0.01);
};

test(
  'three whole controllers share one grid connection over a broker: join, house load step, partition, broker restart, kill -9 and restart, leave',
  { timeout: 900_000 },
  async () => {
    sampling = sampleAll();
    mark('a, b and c start', JOIN_REACTION_MS);
    for (const id of ['a', 'b', 'c']) await start(id);
    await until(`a, b and c share the limit: ${shown()}`, sharing(['a', 'b', 'c'], THIRD), SETTLE_MS);
    withinLimit();

    // The house takes 8 A a line: a's grid meter sees it, a lowers at its next step and publishes the reading in its
    // record; b and c lower as it arrives.
    mark('house load step 0 → 8 A', HOUSE_REACTION_MS);
    houseA = 8;
    await until(`the chargers make room for the house: ${shown()}`, sharing(['a', 'b', 'c'], (LIMIT - 8) / 3), SETTLE_MS);
    withinLimit();
    mark('house load step 8 → 0 A');
    houseA = 0;
    await until(`the three share the limit again: ${shown()}`, sharing(['a', 'b', 'c'], THIRD), SETTLE_MS);

    // b's network fails (nothing passes, no close seen): b notices and falls to the safe share, then pauses after
    // the reserve time; a and c learn of it by its last will, reserve its safe share, and drop it only after it
    // must have paused.
    const partitionedAt = Date.now();
    mark('b partitioned');
    proxies.get('b')!.partition(true);
    await until(`b at the safe share, a and c sharing the rest: ${shown()}`, offering({ a: (LIMIT - SAFE) / 2, b: SAFE, c: (LIMIT - SAFE) / 2 }), SETTLE_MS);
    const pausedMs = await until(
      `b pauses: ${shown()}`,
      () => near(last.get('b')?.currentA, 0) && Date.now() - partitionedAt,
      PARAMS.site.reserveMs + SETTLE_MS,
    );
    await until(`a and c take b's share: ${shown()}`, offering({ a: DEMAND, b: 0, c: DEMAND }), PARAMS.site.lostMs + SETTLE_MS);
    const droppedMs = Date.now() - partitionedAt;
    expect(pausedMs, 'b keeps its safe share for the reserve time').toBeGreaterThanOrEqual(PARAMS.membership.reserveMs);
    mark('b reconnects');
    proxies.get('b')!.partition(false);
    await until(`b rejoins and the three share again: ${shown()}`, sharing(['a', 'b', 'c'], THIRD), SETTLE_MS);
    withinLimit();

    // Without the broker each falls to the safe share, then joins again.
    mark('broker restart');
    await broker.restart();
    const atSafeShare = () => ['a', 'b', 'c'].every((id) => (last.get(id)?.currentA ?? 99) <= SAFE + 0.01);
    await until(`all at the safe share or lower: ${shown()}`, atSafeShare, SETTLE_MS);
    await until(`the three share again after the restart: ${shown()}`, sharing(['a', 'b', 'c'], THIRD), SETTLE_MS);

    const killedAt = Date.now();
    mark('c killed (kill -9)');
    await end('c', 'SIGKILL');
    // Its last will tells a and b at once; they keep its safe share reserved (it might be charging without the
    // broker) for the reserve time, then drop it and take its share.
    await until(`a and b take c's share: ${shown()}`, sharing(['a', 'b'], DEMAND), PARAMS.site.reserveMs + PARAMS.site.lostMs + SETTLE_MS);
    const tookMs = Date.now() - killedAt;
    withinLimit();
    expect(tookMs, 'not raised before the reserve time').toBeGreaterThanOrEqual(PARAMS.site.reserveMs);

    const restartedAt = Date.now();
    mark('c restarted', JOIN_REACTION_MS);
    await start('c');
    await until(`c rejoins and the three share again: ${shown()}`, sharing(['a', 'b', 'c'], THIRD), SETTLE_MS);
    const rejoinMs = Date.now() - restartedAt;
    withinLimit();

    // A stop stops the charge, then clears the record: its peers take its share at once, with no reserve.
    const leftAt = Date.now();
    mark('c leaves (SIGTERM)');
    await end('c', 'SIGTERM');
    await until(`a and b take c's share at once: ${shown()}`, sharing(['a', 'b'], DEMAND), SETTLE_MS);
    const leaveMs = Date.now() - leftAt;
    expect(leaveMs, 'no reserve for a charger that left').toBeLessThan(PARAMS.site.reserveMs);
    stopSampling = true;
    await sampling;

    // The grid connection point's current (house and EVs) above the limit: when, for how long, after which event.
    const episodes: { event: string; allowedMs: number; ms: number; peakA: number }[] = [];
    const after = (t: number) => [...events].reverse().find((e) => e.at <= t) ?? events[0]!;
    for (let i = 0; i < samples.length; i++) {
      if (samples[i]!.gridA <= LIMIT + 0.05) continue;
      const { name, allowedMs } = after(samples[i]!.at);
      const from = samples[i]!.at;
      const first = i;
      let peakA = 0;
      while (i < samples.length && samples[i]!.gridA > LIMIT + 0.05) peakA = Math.max(peakA, samples[i++]!.gridA);
      // The longest sampling round around it: the measurement's resolution, for the events that may pass the limit.
      let roundMs = 0;
      for (let k = Math.max(1, first - 1); k <= Math.min(samples.length - 1, i + 1); k++) roundMs = Math.max(roundMs, samples[k]!.at - samples[k - 1]!.at);
      episodes.push({ event: name, allowedMs: allowedMs > 0 ? allowedMs + 2 * roundMs : 0, ms: (samples[i]?.at ?? Date.now()) - from, peakA });
    }
    console.log(
      `site of 3 controllers (processes), ${broker.kind}, ${samples.length} samples:\n` +
        `  b partitioned: paused after ${pausedMs} ms (reserve ${PARAMS.membership.reserveMs} ms), its share taken after ${droppedMs} ms\n` +
        `  c killed: its share taken ${tookMs} ms after (reserve ${PARAMS.site.reserveMs} ms); restarted, rejoined after ${rejoinMs} ms; ` +
        `stopped, its share taken ${leaveMs} ms after\n` +
        `  above the ${LIMIT} A limit ${episodes.length} times` +
        episodes.map((e) => `\n    after ${e.event}: ${e.ms} ms (allowed ${e.allowedMs}), peak ${e.peakA.toFixed(1)} A`).join(''),
    );
    for (const e of episodes) expect(e.ms, JSON.stringify(episodes)).toBeLessThanOrEqual(e.allowedMs);
  },
);
