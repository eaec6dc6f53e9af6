/**
 * The soak: `npm run soak [-- --sessions N --kills K --seed S --idle SECONDS]` (docs/performance.md, "Soak").
 *
 * The controller as `npm start` runs it (its own data directory under the system's temp directory), OCPP to the
 * development central system and MQTT to an aedes broker, both in this process. Charging sessions one after the
 * other through the simulator's routes, each drawn from the seed: known, unknown (refused, then a known tag) and
 * remote-started tags; EV pauses, the meter offline for a while, a recoverable fault, one or three phases, fast or
 * solar mode; stopped by the tag, by the central system or by unplugging. Meanwhile the central system drops the
 * connection at random, the broker restarts, a reader keeps reading the API and sends NFC requests through the
 * simulated phone, and the controller is SIGKILLed while charging (at random sessions of the first 70 %, so the
 * last 30 % and the idle phase are one process, whose memory growth is measured) and restarted. Then the idle phase:
 * nothing happens, the links stay up, the disk writes are counted.
 *
 * Prints the reconciliation (bin/dev/soak-reconcile.ts), memory and disk figures; exits 1 when a reconciliation
 * check fails (or the soak itself fails).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../drivers/seeded-random.js';
import { children, printTable, stopProcess, type Row } from './bench-tools.js';
import { DB_FILE, databaseFigures, fileSize, integrityOfCopy, SoakController, type MemorySample, type SimView } from './soak-controller.js';
import { reconcile, type DrivenSession, type StoredTransaction } from './soak-reconcile.js';
import { soakPhone } from './soak-phone.js';
import { observeMqtt, REFUSED_PREFIX, startSoakBroker, startSoakCsms, type SoakCsms } from './soak-world.js';

const KNOWN = '04A1B2C3';
const REMOTE = '04C0FFEE';
const BASE_TOPIC = 'soak';
const POLL_MS = 20;
const WAIT_MS = 8_000;
/** Kills fall on sessions of the first part of the run; the rest and the idle phase are one process. */
const KILL_SHARE = 0.7;

interface Options {
  sessions: number;
  kills: number;
  seed: number;
  idleS: number;
  /** One long charge at the end, for the writes per real charging hour. */
  chargeS: number;
}

function options(argv: string[]): Options {
  const o: Options = { sessions: 10_000, kills: 50, seed: 1, idleS: 300, chargeS: 300 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    const key = { '--sessions': 'sessions', '--kills': 'kills', '--seed': 'seed', '--idle': 'idleS', '--charge': 'chargeS' }[argv[i]!] as
      keyof Options | undefined;
    if (!key || !Number.isInteger(value) || value < 0)
      throw new Error(`usage: npm run soak -- [--sessions N] [--kills K] [--seed S] [--idle SECONDS] [--charge SECONDS] (got ${argv[i]} ${argv[i + 1]})`);
    o[key] = value;
  }
  if (o.kills > o.sessions * KILL_SHARE) throw new Error('more kills than sessions in the first 70 % of the run');
  return o;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(c: SoakController, what: string, done: (v: SimView) => boolean, ms = WAIT_MS): Promise<SimView> {
  const end = performance.now() + ms;
  for (;;) {
    const view = await c.sim('');
    if (done(view)) return view;
    if (performance.now() > end) throw new Error(`not within ${ms} ms: ${what} (${JSON.stringify(view.chargePoint)})`);
    await sleep(POLL_MS);
  }
}

/** Background load that goes on until `stop`: returns its counters. */
function every(ms: () => number, work: () => Promise<unknown>) {
  let running = true;
  let count = 0;
  let failed = 0;
  const done = (async () => {
    while (running) {
      await sleep(ms());
      if (!running) break;
      try {
        await work();
        count++;
      } catch {
        failed++;
      }
    }
  })();
  return {
    counts: () => ({ count, failed }),
    async stop() {
      running = false;
      await done;
    },
  };
}

async function soak(o: Options, root: string): Promise<boolean> {
  const random = seededRandom(o.seed);
  const pick = (p: number) => random() < p;
  const between = (a: number, b: number) => a + random() * (b - a);
  const csms: SoakCsms = await startSoakCsms();
  const broker = await startSoakBroker();
  const observer = observeMqtt(broker.url, BASE_TOPIC);
  const dataDir = join(root, 'data');
  // GPIO_PHASE_SWITCH: the simulated phase contactor, for one- and three-phase sessions.
  const c = new SoakController(dataDir, { GPIO_PHASE_SWITCH: '16' });

  // Set-up: the database, an installer, the links, the whitelist; then a restart so every setting holds from start.
  await c.start();
  await c.stop();
  c.addInstaller();
  await c.start();
  const patch = await c.api('PATCH', '/v1/settings', {
    params: [
      { key: 'OcppEnabled', value: 1 },
      { key: 'OcppUrl', value: csms.csms.url },
      { key: 'OcppChargeBoxId', value: 'CP-SOAK' },
      { key: 'MqttEnabled', value: 1 },
      { key: 'MqttUrl', value: broker.url },
      { key: 'MqttBaseTopic', value: BASE_TOPIC },
      { key: 'RFIDMode', value: 1 },
      { key: 'GridPowerSource', value: 1 },
    ],
  });
  if (patch.status !== 200) throw new Error(`settings: ${patch.status} ${patch.text}`);
  const added = await c.api('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: KNOWN }, { id: REMOTE }] });
  if (added.status !== 200) throw new Error(`whitelist: ${added.status} ${added.text}`);
  await c.stop();
  const started = performance.now();
  const afterStart = async () => (process.env.SOAK_NO_DAY ? undefined : c.sim('/day', { profile: 'sunny', startHour: 12, speed: 1 }));
  const sampler = setInterval(() => c.sample(), 1000);

  // Chaos and readers.
  const drops = every(
    () => between(5_000, 40_000),
    () => csms.csms.drop(),
  );
  const brokerRestarts = every(
    () => between(20_000, 90_000),
    () => broker.restart(between(500, 5_000)),
  );
  const reader = every(
    () => 100,
    async () => {
      if (!c.pid) return;
      for (const path of ['/v1/system_state', '/v1/transactions/summary', '/v1/messages']) {
        const res = await c.api('GET', path);
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      }
    },
  );
  const phone = soakPhone(c, random);

  // The sessions.
  const sessions: DrivenSession[] = [];
  const integrity: string[] = [];
  const killAt = new Set<number>();
  while (killAt.size < o.kills) killAt.add(Math.floor(random() * o.sessions * KILL_SHARE));
  let chargingMs = 0;
  let errors = 0;
  const settings = new Map<string, number>();
  const setting = async (key: string, value: number) => {
    if (settings.get(key) === value) return;
    const res = await c.api('PATCH', '/v1/settings', { params: [{ key, value }] });
    if (res.status !== 200) throw new Error(`${key}: ${res.status} ${res.text}`);
    settings.set(key, value);
  };
  let unplanned = 0;
  /** After a kill (or an end the soak did not cause): the database checked, the controller started again. */
  const killedAfter = async () => {
    observer.forget();
    phone.forget();
    settings.clear();
    integrity.push(await integrityOfCopy(dataDir));
    for (let attempt = 1; ; attempt++) {
      try {
        await c.start();
        await afterStart();
        return;
      } catch (err) {
        if (attempt === 20) throw err;
        unplanned++;
        process.stderr.write(`restart ${attempt}: ${err instanceof Error ? err.message : String(err)}\n`);
        await c.stop();
      }
    }
  };
  const lastStretchFrom = { at: 0 };
  await killedAfter();
  integrity.length = 0;

  for (let index = 0; index < o.sessions; index++) {
    if (index === Math.ceil(o.sessions * KILL_SHARE)) lastStretchFrom.at = performance.now() - started;
    const session: DrivenSession = { index, transactionId: null, deliveredWh: 0, killed: false };
    try {
      await phone.visitIfDue();
      await setting('PhaseSwitchMode', pick(0.3) ? 1 : 2);
      await setting('ChargingMode', pick(0.1) ? 1 : 0);
      await c.sim('/ev', { maxCurrentA: Math.round(between(6, 32)) });
      await c.sim('/plug');
      await until(c, 'waiting for a tag', (v) => v.plant.vehicle === 'connected' && v.chargePoint.systemState !== 'idle');
      if (pick(0.15) && !phone.inMinute()) {
        await c.sim('/tag', { id: `${REFUSED_PREFIX}${String(index).padStart(5, '0')}` });
        await sleep(150);
        const v = await c.sim('');
        if (v.chargePoint.transaction) throw new Error(`an unknown tag started transaction ${v.chargePoint.transaction.transactionId}`);
      }
      // Remote start when the central system is connected and the charger accepts it; a tag otherwise. In a phone's
      // minute (no card read) remote start is preferred, and on some visits a tag is presented on purpose: it must
      // start its transaction only after the minute.
      const tagInMinute = phone.checkDue();
      const remote =
        !tagInMinute &&
        (pick(0.15) || phone.inMinute()) &&
        csms.csms.connected() &&
        (await csms.csms.call('RemoteStartTransaction', { connectorId: 1, idTag: REMOTE }).catch(() => undefined))?.status === 'Accepted';
      const tag = remote ? REMOTE : KNOWN;
      const minute = !remote && phone.inMinute() ? phone.minuteBounds() : undefined;
      if (!remote) await c.sim('/tag', { id: tag });
      let view = await until(c, 'the transaction', (v) => v.chargePoint.transaction !== undefined, minute ? minute.latest - performance.now() : WAIT_MS);
      if (minute) phone.checked(performance.now());
      session.transactionId = view.chargePoint.transaction!.transactionId;
      const startWh = view.plant.energyWh;
      sessions.push(session);
      const chargeFrom = performance.now();
      await c.sim('/charge');
      const chargeMs = between(100, 1_000);
      if (killAt.has(index)) {
        await sleep(between(0, chargeMs));
        session.deliveredWh = (await c.sim('')).plant.energyWh - startWh;
        session.killed = true;
        await c.kill();
        chargingMs += performance.now() - chargeFrom;
        await killedAfter();
        continue;
      }
      const faults: string[] = [];
      if (pick(0.1)) faults.push('meter-offline');
      if (pick(0.05)) faults.push('temperature-sensor-offline');
      for (const fault of faults) await c.sim('/fault', { fault });
      if (pick(0.15)) {
        await sleep(chargeMs / 2);
        await c.sim('/pause');
        await sleep(between(50, 500));
        await c.sim('/charge');
        await sleep(chargeMs / 2);
      } else await sleep(chargeMs);
      for (const fault of faults) await c.clearFault(fault);
      // The EV stops asking: the contactor opens, the register stands still, then the transaction ends.
      await c.sim('/pause');
      view = await until(c, 'the contactor open', (v) => !v.plant.contactorClosed);
      session.deliveredWh = view.plant.energyWh - startWh;
      const how = random();
      const backendId = csms.lastTransactionId();
      if (how < 0.2 && csms.csms.connected() && backendId !== undefined) {
        const answer = await csms.csms.call('RemoteStopTransaction', { transactionId: backendId }).catch(() => undefined);
        if (answer?.status !== 'Accepted') await c.sim('/tag', { id: tag });
      } else if (how < 0.8 && !phone.inMinute()) await c.sim('/tag', { id: tag });
      else await c.sim('/unplug');
      await until(c, 'the transaction to end', (v) => v.chargePoint.transaction === undefined);
      chargingMs += performance.now() - chargeFrom;
      if ((await c.sim('')).plant.vehicle !== 'unplugged') await c.sim('/unplug');
      await until(c, 'idle', (v) => v.chargePoint.systemState === 'idle');
    } catch (err) {
      errors++;
      process.stderr.write(`session ${index}: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!c.alive()) {
        // The process ended itself: as a kill (its open transaction is completed at the next start).
        unplanned++;
        if (session.transactionId !== null && !session.killed) [session.killed, session.deliveredWh] = [true, NaN];
        await c.stop();
        await killedAfter();
      } else await c.sim('/unplug').catch(() => undefined);
      await sleep(500);
    }
    if ((index + 1) % 100 === 0)
      process.stdout.write(
        `${index + 1} sessions, ${o.kills && sessions.filter((s) => s.killed).length} kills, ${((performance.now() - started) / 60_000).toFixed(1)} min\n`,
      );
  }
  const sessionsMs = performance.now() - started;
  const writtenSessions = c.written();

  // The end: links up, the readers stopped (an idle charger is not read 10 times a second), the queue sent.
  await Promise.all([drops.stop(), brokerRestarts.stop(), reader.stop()]);
  const nfcCounts = phone.counts();
  const longCharge = o.chargeS > 0 ? await chargeLong(c, o, sessions) : undefined;
  const withTransaction = sessions.filter((s) => s.transactionId !== null).length;
  const queueEnd = performance.now() + 120_000;
  while (csms.stops.length < withTransaction && performance.now() < queueEnd) await sleep(200);

  // The idle phase: links up, nothing happening.
  c.sample();
  const idleFrom = c.written();
  await sleep(o.idleS * 1000);
  c.sample();
  const idleWritten = c.written() - idleFrom;
  clearInterval(sampler);

  const list = await c.api('GET', '/v1/transactions');
  const transactions = list.json as StoredTransaction[];
  const dbBytes = fileSize(join(dataDir, DB_FILE));
  const walBytes = fileSize(join(dataDir, `${DB_FILE}-wal`));
  await c.stop();
  await observer.end();
  await broker.stop();
  const figures = await databaseFigures(dataDir);
  integrity.push(await integrityOfCopy(dataDir));
  await csms.csms.close();

  const result = reconcile({
    sessions,
    transactions,
    starts: csms.starts,
    stops: csms.stops,
    mqttWh: observer.energy,
    openTransactions: figures.open,
    queued: figures.queued,
    integrity,
  });

  // Report.
  const mb = (v: number) => `${v.toFixed(1)} MB`;
  const perHour = (bytes: number, ms: number) => `${((bytes / 1e6) * (3_600_000 / ms)).toFixed(2)} MB/h`;
  const last = c.samples.filter((s) => s.pid === c.samples.at(-1)?.pid && s.at >= lastStretchFrom.at);
  const growth = memoryGrowth(last);
  const whole = memoryGrowth(c.samples);
  const max = (key: 'rss' | 'anon') => Math.max(...c.samples.map((s) => s[key]));
  const rows: Row[] = [
    ...result.figures,
    { figure: 'session errors (the soak could not drive a session)', measured: String(errors) },
    { figure: 'controller ends the soak did not cause (restarted)', measured: String(unplanned) },
    { figure: 'central system: connection drops / broker restarts', measured: `${drops.counts().count} / ${broker.restarts()}` },
    { figure: 'frames the second OCPP validator refused', measured: String(csms.csms.invalid.length) },
    {
      figure: 'API reads (failed) / NFC requests (failed) in phone visits',
      measured: `${reader.counts().count} (${reader.counts().failed}) / ${nfcCounts.requests} (${nfcCounts.failed}) in ${nfcCounts.visits}`,
    },
    {
      figure: "tags presented in a phone's minute, read only after it",
      measured: `${nfcCounts.checks - nfcCounts.checksFailed} of ${nfcCounts.checks}`,
      target: 'all',
      pass: nfcCounts.checksFailed === 0,
    },
    {
      figure: 'sessions phase: time / sessions per hour',
      measured: `${(sessionsMs / 60_000).toFixed(1)} min / ${((o.sessions * 3_600_000) / sessionsMs).toFixed(0)}`,
    },
    { figure: 'memory max: RSS / anonymous', measured: `${mb(max('rss'))} / ${mb(max('anon'))}` },
    {
      figure: 'memory growth 10 % → 100 %, last process (RSS / anonymous)',
      measured: `${mb(growth.rss)} / ${mb(growth.anon)}`,
      target: '<= 5 MB',
      pass: growth.rss <= 5,
    },
    { figure: 'memory growth 10 % → 100 %, whole run across restarts (RSS / anonymous)', measured: `${mb(whole.rss)} / ${mb(whole.anon)}` },
    {
      figure: 'database / WAL per 1,000 transactions',
      measured: `${mb((dbBytes / 1e6 / transactions.length) * 1000)} / ${mb((walBytes / 1e6 / transactions.length) * 1000)}`,
    },
    { figure: 'database / WAL at the end', measured: `${mb(dbBytes / 1e6)} / ${mb(walBytes / 1e6)}` },
    { figure: 'event log: events / bytes', measured: `${figures.events} / ${mb(figures.eventBytes / 1e6)}` },
    { figure: 'written to storage while charging sessions ran, per hour', measured: perHour(writtenSessions, sessionsMs) },
    { figure: 'written per hour of the sessions phase while a transaction was open', measured: perHour(writtenSessions, chargingMs) },
    ...(longCharge
      ? [{ figure: `written per charging hour (one charge of ${o.chargeS} s, links up)`, measured: perHour(longCharge.written, longCharge.ms) }]
      : []),
    { figure: 'written per session', measured: `${(writtenSessions / 1e3 / o.sessions).toFixed(0)} kB` },
    {
      figure: `written per hour idle (${o.idleS} s measured)`,
      measured: perHour(idleWritten, o.idleS * 1000),
      target: '<= 1 MB/h',
      pass: idleWritten * (3600 / o.idleS) <= 1e6,
    },
  ];
  console.log(`\nsoak: ${o.sessions} sessions, ${o.kills} kills, seed ${o.seed}; node ${process.version}\n`);
  printTable(rows);
  // The spec's NFC minute and the phone's answers are checks like the reconciliation's.
  if (nfcCounts.checksFailed > 0) result.failures.push(`${nfcCounts.checksFailed} tags presented in a phone's minute were read in it or not after it`);
  if (nfcCounts.failed > 0) result.failures.push(`${nfcCounts.failed} NFC requests got no 200 answer`);
  if (result.failures.length > 0) {
    console.log('\nreconciliation FAILED:');
    for (const f of result.failures) console.log(`- ${f}`);
  } else console.log('\nreconciliation: every check passed');
  return result.failures.length === 0;
}

/**
 * One charge of `chargeS` seconds with nothing else happening: what a charger in the field writes per charging hour
 * (the compressed sessions put a session's fixed cost on seconds of charging). Reconciled as the other sessions.
 */
async function chargeLong(c: SoakController, o: Options, sessions: DrivenSession[]): Promise<{ ms: number; written: number }> {
  const session: DrivenSession = { index: o.sessions, transactionId: null, deliveredWh: 0, killed: false };
  await c.sim('/plug');
  await until(c, 'waiting for a tag', (v) => v.plant.vehicle === 'connected' && v.chargePoint.systemState !== 'idle');
  await c.sim('/tag', { id: KNOWN });
  // A phone's minute may still hold the reader: the tag is read at its end.
  let view = await until(c, 'the transaction', (v) => v.chargePoint.transaction !== undefined, 70_000);
  session.transactionId = view.chargePoint.transaction!.transactionId;
  const startWh = view.plant.energyWh;
  sessions.push(session);
  await c.sim('/charge');
  c.sample();
  const [from, fromWritten] = [performance.now(), c.written()];
  await sleep(o.chargeS * 1000);
  c.sample();
  const measured = { ms: performance.now() - from, written: c.written() - fromWritten };
  await c.sim('/pause');
  view = await until(c, 'the contactor open', (v) => !v.plant.contactorClosed);
  session.deliveredWh = view.plant.energyWh - startWh;
  await c.sim('/tag', { id: KNOWN });
  await until(c, 'the transaction to end', (v) => v.chargePoint.transaction === undefined);
  await c.sim('/unplug');
  await until(c, 'idle', (v) => v.chargePoint.systemState === 'idle');
  return measured;
}

/** Growth from 10 % to 100 % of the samples' span: the mean of the samples around each point (±5 % of the span). */
function memoryGrowth(samples: MemorySample[]): { rss: number; anon: number } {
  if (samples.length < 2) return { rss: NaN, anon: NaN };
  const from = samples[0]!.at;
  const span = samples.at(-1)!.at - from;
  const around = (fraction: number, key: 'rss' | 'anon') => {
    const near = samples.filter((s) => Math.abs(s.at - from - fraction * span) <= 0.05 * span);
    return near.reduce((a, s) => a + s[key], 0) / near.length;
  };
  return { rss: around(1, 'rss') - around(0.1, 'rss'), anon: around(1, 'anon') - around(0.1, 'anon') };
}

const root = await mkdtemp(join(tmpdir(), 'cc-soak-'));
let ok = false;
try {
  ok = await soak(options(process.argv.slice(2)), root);
} catch (err) {
  console.error(err);
} finally {
  await Promise.all([...children].map((child) => stopProcess(child)));
  await rm(root, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
