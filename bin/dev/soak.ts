/**
 * The soak: `npm run soak [-- --sessions N --kills K --walls W --seed S --idle SECONDS --charge SECONDS]`
 * (docs/performance.md, "Soak").
 *
 * W walls (bin/dev/soak-wall.ts) side by side, each a controller as `npm start` runs it on its own data directory,
 * OCPP to the one development central system (its own charge point identity) and MQTT to the one aedes broker (its
 * own base topic), both in this process. The sessions are shared out over the walls, each wall driving its own one
 * after the other through the simulator's routes, drawn from the seed: known, unknown (refused, then a known tag) and
 * remote-started tags; EV pauses, the meter offline for a while, a recoverable fault, one or three phases, fast or
 * solar mode; stopped by the tag, by the central system or by unplugging. Meanwhile the central system drops each
 * wall's connection at random, the broker restarts, a reader keeps reading the API of each wall in turn, each wall's
 * phone sends NFC requests, and the controllers of walls 1… are SIGKILLed while charging (the kills spread over them)
 * and restarted. Wall 0 is never killed: one process from start to end, whose memory growth is measured. Then wall 0
 * charges once for `--charge` seconds, and the idle phase: nothing happens, the links stay up, the disk writes are
 * counted.
 *
 * Prints per wall and in total the reconciliation (bin/dev/soak-reconcile.ts), memory and disk figures; exits 1 when
 * a reconciliation check fails (or the soak itself fails).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../drivers/seeded-random.js';
import { children, printTable, stopProcess } from './bench-tools.js';
import { DB_FILE, databaseFigures, fileSize, integrityOfCopy } from './soak-controller.js';
import { mergeRecords, reconcile, type SoakRecord, type StoredTransaction } from './soak-reconcile.js';
import { spread, totalRows, wallRows, type WallFigures } from './soak-report.js';
import { sleep, SoakWall } from './soak-wall.js';
import { startSoakBroker, startSoakCsms } from './soak-world.js';

export interface Options {
  sessions: number;
  kills: number;
  walls: number;
  seed: number;
  idleS: number;
  /** One long charge at the end, for the writes per real charging hour. */
  chargeS: number;
}

const KEYS: Record<string, keyof Options> = {
  '--sessions': 'sessions',
  '--kills': 'kills',
  '--walls': 'walls',
  '--seed': 'seed',
  '--idle': 'idleS',
  '--charge': 'chargeS',
};

function options(argv: string[]): Options {
  const o: Options = { sessions: 10_000, kills: 50, walls: 10, seed: 1, idleS: 120, chargeS: 120 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    const key = KEYS[argv[i]!];
    if (!key || !Number.isInteger(value) || value < 0)
      throw new Error(`usage: npm run soak -- [${Object.keys(KEYS).join(' N] [')} N] (got ${argv[i]} ${argv[i + 1]})`);
    o[key] = value;
  }
  if (o.walls < 1) throw new Error('at least one wall');
  return o;
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

/** Two at a time: starting every controller at once would starve the machine's two cores. */
async function pairwise<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 2) await Promise.all(items.slice(i, i + 2).map(work));
}

async function soak(o: Options, root: string): Promise<boolean> {
  const random = seededRandom(o.seed);
  const between = (a: number, b: number) => a + random() * (b - a);
  const csms = await startSoakCsms();
  const broker = await startSoakBroker();
  const walls = Array.from({ length: o.walls }, (_, i) => new SoakWall(i, SoakWall.dir(root, i), csms, broker, o.seed));
  const plan = spread(o.sessions, o.kills, o.walls, random);
  await pairwise(walls, (w) => w.setUp());
  const started = performance.now();
  const sampler = setInterval(() => walls.forEach((w) => w.c.sample()), 1000);

  // Chaos and the reader.
  const drops = walls.map((w) =>
    every(
      () => between(5_000, 40_000),
      () => w.point.drop(),
    ),
  );
  const brokerRestarts = every(
    () => between(20_000, 90_000),
    () => broker.restart(between(500, 5_000)),
  );
  let turn = 0;
  const reader = every(
    () => 100,
    async () => {
      const c = walls[turn++ % walls.length]!.c;
      if (!c.pid) return;
      for (const path of ['/v1/system_state', '/v1/transactions/summary', '/v1/messages']) {
        const res = await c.api('GET', path);
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      }
    },
  );

  // The sessions.
  let done = 0;
  const progress = () => {
    if (++done % 200 === 0) {
      const kills = walls.reduce((a, w) => a + w.sessions.filter((s) => s.killed).length, 0);
      process.stdout.write(`${done} sessions, ${kills} kills, ${((performance.now() - started) / 60_000).toFixed(1)} min\n`);
    }
  };
  // A wall that fails stops the others before the soak ends: none may start a controller after the clean-up.
  const runs = await Promise.allSettled(
    walls.map((w, i) =>
      w.run(plan[i]!.sessions, plan[i]!.killAt, progress).catch((err: unknown) => {
        walls.forEach((other) => other.abort());
        throw err;
      }),
    ),
  );
  const failed = runs.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const sessionsMs = performance.now() - started;
  const writtenSessions = walls.map((w) => w.c.written());

  // The end: links up, the readers stopped (an idle charger is not read 10 times a second), the queues sent.
  await Promise.all([...drops.map((d) => d.stop()), brokerRestarts.stop(), reader.stop()]);
  const longCharge = o.chargeS > 0 ? await walls[0]!.chargeLong(o.chargeS) : undefined;
  const queueEnd = performance.now() + 120_000;
  const sent = () => walls.every((w) => w.point.stops.length >= w.sessions.filter((s) => s.transactionId !== null).length);
  while (!sent() && performance.now() < queueEnd) await sleep(200);

  // The idle phase: links up, nothing happening.
  walls.forEach((w) => w.c.sample());
  const idleFrom = walls.map((w) => w.c.written());
  await sleep(o.idleS * 1000);
  walls.forEach((w) => w.c.sample());
  const idleWritten = walls.map((w, i) => w.c.written() - idleFrom[i]!);
  clearInterval(sampler);

  const records: SoakRecord[] = [];
  const figures: WallFigures[] = [];
  for (const [i, w] of walls.entries()) {
    const transactions = (await w.c.api('GET', '/v1/transactions')).json as StoredTransaction[];
    const dbBytes = fileSize(join(w.dataDir, DB_FILE));
    const walBytes = fileSize(join(w.dataDir, `${DB_FILE}-wal`));
    await w.c.stop();
    await w.observer.end();
    const db = await databaseFigures(w.dataDir);
    w.integrity.push(await integrityOfCopy(w.dataDir));
    const record: SoakRecord = {
      sessions: w.sessions,
      transactions,
      starts: w.point.starts,
      stops: w.point.stops,
      mqttWh: w.observer.energy,
      openTransactions: db.open,
      queued: db.queued,
      integrity: w.integrity,
    };
    records.push(record);
    figures.push({ wall: w, result: reconcile(record), dbBytes, walBytes, db, writtenSessions: writtenSessions[i]!, idleWritten: idleWritten[i]! });
  }
  await broker.stop();
  await csms.csms.close();

  console.log(`\nsoak: ${o.sessions} sessions, ${o.kills} kills, ${o.walls} walls, seed ${o.seed}; node ${process.version}\n`);
  console.log('per wall:');
  printTable(wallRows(figures, sessionsMs));
  const total = reconcile(mergeRecords(records));
  console.log('\nin total:');
  printTable(
    totalRows({
      o,
      figures,
      total,
      sessionsMs,
      drops: drops.reduce((a, d) => a + d.counts().count, 0),
      brokerRestarts: broker.restarts(),
      invalidFrames: csms.csms.invalid.length,
      reader: reader.counts(),
      longCharge,
    }),
  );
  const failures = [...total.failures];
  for (const f of figures) {
    const nfc = f.wall.phone.counts();
    // The spec's NFC minute and the phone's answers are checks like the reconciliation's.
    if (nfc.checksFailed > 0) failures.push(`wall ${f.wall.index}: ${nfc.checksFailed} tags presented in a phone's minute were read in it or not after it`);
    if (nfc.failed > 0) failures.push(`wall ${f.wall.index}: ${nfc.failed} NFC requests got no 200 answer`);
    for (const why of f.result.failures) failures.push(`wall ${f.wall.index}: ${why}`);
  }
  if (failures.length > 0) {
    console.log('\nreconciliation FAILED:');
    for (const f of failures.slice(0, 100)) console.log(`- ${f}`);
  } else console.log('\nreconciliation: every check passed, per wall and in total');
  return failures.length === 0;
}

const root = await mkdtemp(join(tmpdir(), 'cc-soak-'));
// Stopped by hand (Ctrl-C, SIGTERM): the controllers stopped and the data directories removed as at the end.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void Promise.all([...children].map((child) => stopProcess(child)))
      .then(() => rm(root, { recursive: true, force: true }))
      .finally(() => process.exit(1));
  });
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
