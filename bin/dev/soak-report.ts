/**
 * The soak's plan and report (bin/dev/soak.ts): how the sessions and kills are shared out over the walls, and the
 * figures per wall and in total.
 */
import type { Row } from './bench-tools.js';
import type { MemorySample } from './soak-controller.js';
import type { Reconciliation } from './soak-reconcile.js';
import type { SoakWall, Steps } from './soak-wall.js';

/** Kills on a single wall fall on sessions of the first part of its run; the rest and the idle phase are one process. */
const KILL_SHARE = 0.7;

/**
 * Sessions shared out evenly; the kills over walls 1… (wall 0 is one process from start to end, for its memory), at
 * random sessions of each. A single wall is killed in its first 70 % only.
 */
export function spread(sessions: number, kills: number, walls: number, random: () => number): Array<{ sessions: number; killAt: Set<number> }> {
  const plan = Array.from({ length: walls }, (_, i) => ({
    sessions: Math.floor(sessions / walls) + (i < sessions % walls ? 1 : 0),
    killAt: new Set<number>(),
  }));
  const killed = walls === 1 ? [0] : plan.map((_, i) => i).slice(1);
  killed.forEach((wall, k) => {
    const count = Math.floor(kills / killed.length) + (k < kills % killed.length ? 1 : 0);
    const range = Math.floor(plan[wall]!.sessions * (walls === 1 ? KILL_SHARE : 1));
    if (count > range) throw new Error(`${count} kills for wall ${wall}, which has ${range} sessions to kill in`);
    while (plan[wall]!.killAt.size < count) plan[wall]!.killAt.add(Math.floor(random() * range));
  });
  return plan;
}

/** Growth from 10 % to 100 % of the samples' span: the mean of the samples around each point (±5 % of the span). */
export function memoryGrowth(samples: MemorySample[]): { rss: number; anon: number } {
  if (samples.length < 2) return { rss: NaN, anon: NaN };
  const from = samples[0]!.at;
  const span = samples.at(-1)!.at - from;
  const around = (fraction: number, key: 'rss' | 'anon') => {
    const near = samples.filter((s) => Math.abs(s.at - from - fraction * span) <= 0.05 * span);
    return near.reduce((a, s) => a + s[key], 0) / near.length;
  };
  return { rss: around(1, 'rss') - around(0.1, 'rss'), anon: around(1, 'anon') - around(0.1, 'anon') };
}

export interface WallFigures {
  wall: SoakWall;
  result: Reconciliation;
  dbBytes: number;
  walBytes: number;
  db: { events: number; eventBytes: number };
  writtenSessions: number;
  idleWritten: number;
}

const mb = (v: number) => `${v.toFixed(1)} MB`;
const perHour = (bytes: number, ms: number) => `${((bytes / 1e6) * (3_600_000 / ms)).toFixed(2)} MB/h`;
const max = (samples: MemorySample[], key: 'rss' | 'anon') => Math.max(...samples.map((s) => s[key]));

export function wallRows(figures: WallFigures[], sessionsMs: number): Row[] {
  return figures.map(({ wall: w, result, dbBytes, walBytes }) => {
    const count = w.sessions.length;
    const killed = w.sessions.filter((s) => s.killed).length;
    return {
      figure: `wall ${w.index}${w.index === 0 ? ' (never killed)' : ''}`,
      measured:
        `${count} sessions, ${killed} kills, ${w.errors} errors, ${w.unplanned} own ends; ` +
        `${(w.sessionsMs / Math.max(1, count) / 1000).toFixed(2)} s/session; ` +
        `RSS/anon max ${mb(max(w.c.samples, 'rss'))}/${mb(max(w.c.samples, 'anon'))}; db/WAL ${mb(dbBytes / 1e6)}/${mb(walBytes / 1e6)}`,
      target: 'reconciled',
      pass: result.failures.length === 0 && sessionsMs > 0,
    };
  });
}

export function totalRows(t: {
  o: { sessions: number; idleS: number; chargeS: number };
  figures: WallFigures[];
  total: Reconciliation;
  sessionsMs: number;
  drops: number;
  brokerRestarts: number;
  invalidFrames: number;
  reader: { count: number; failed: number };
  longCharge: { ms: number; written: number } | undefined;
}): Row[] {
  const walls = t.figures.map((f) => f.wall);
  const first = t.figures[0]!;
  // Wall 0's one process, from its start (its set-up's processes before it are left out).
  const lastPid = first.wall.c.samples.at(-1)?.pid;
  const growth = memoryGrowth(first.wall.c.samples.filter((s) => s.pid === lastPid));
  const all = walls.flatMap((w) => w.c.samples);
  const nfc = walls
    .map((w) => w.phone.counts())
    .reduce((a, n) => ({
      visits: a.visits + n.visits,
      requests: a.requests + n.requests,
      failed: a.failed + n.failed,
      checks: a.checks + n.checks,
      checksFailed: a.checksFailed + n.checksFailed,
    }));
  const steps = walls.reduce<Record<string, number>>((a, w) => {
    for (const [k, v] of Object.entries(w.steps as Steps)) a[k] = (a[k] ?? 0) + v;
    return a;
  }, {});
  const sessions = walls.reduce((a, w) => a + w.sessions.length, 0);
  const written = t.figures.reduce((a, f) => a + f.writtenSessions, 0);
  const transactions = walls.reduce((a, w) => a + w.sessions.filter((s) => s.transactionId !== null).length, 0);
  const dbBytes = t.figures.reduce((a, f) => a + f.dbBytes, 0);
  const walBytes = t.figures.reduce((a, f) => a + f.walBytes, 0);
  const wallSeconds = walls.reduce((a, w) => a + w.sessionsMs, 0) / 1000;
  return [
    ...t.total.figures,
    { figure: 'session errors (the soak could not drive a session)', measured: String(walls.reduce((a, w) => a + w.errors, 0)) },
    { figure: "controller ends the soak did not cause (the core's liveness watch; restarted)", measured: String(walls.reduce((a, w) => a + w.unplanned, 0)) },
    { figure: 'central system: connection drops / broker restarts', measured: `${t.drops} / ${t.brokerRestarts}` },
    { figure: 'frames the second OCPP validator refused', measured: String(t.invalidFrames) },
    {
      figure: 'API reads (failed) / NFC requests (failed) in phone visits',
      measured: `${t.reader.count} (${t.reader.failed}) / ${nfc.requests} (${nfc.failed}) in ${nfc.visits}`,
    },
    {
      figure: "tags presented in a phone's minute, read only after it",
      measured: `${nfc.checks - nfc.checksFailed} of ${nfc.checks}`,
      target: 'all',
      pass: nfc.checksFailed === 0,
    },
    {
      figure: 'sessions phase: time / sessions per hour (all walls)',
      measured: `${(t.sessionsMs / 60_000).toFixed(1)} min / ${((sessions * 3_600_000) / t.sessionsMs).toFixed(0)}`,
    },
    { figure: 'wall time per session on a wall (mean)', measured: `${(wallSeconds / Math.max(1, sessions)).toFixed(2)} s` },
    {
      figure: 'of which, per session (ms)',
      measured: Object.entries(steps)
        .map(([k, v]) => `${k} ${(v / Math.max(1, sessions)).toFixed(0)}`)
        .join(', '),
    },
    { figure: 'memory max of any process: RSS / anonymous', measured: `${mb(max(all, 'rss'))} / ${mb(max(all, 'anon'))}` },
    {
      figure: 'memory growth 10 % → 100 %, wall 0 (one process, the whole run; RSS / anonymous)',
      measured: `${mb(growth.rss)} / ${mb(growth.anon)}`,
      target: '<= 5 MB',
      pass: growth.rss <= 5,
    },
    {
      figure: 'database / WAL per 1,000 transactions',
      measured: `${mb((dbBytes / 1e6 / transactions) * 1000)} / ${mb((walBytes / 1e6 / transactions) * 1000)}`,
    },
    {
      figure: 'database / WAL at the end, largest wall',
      measured: `${mb(Math.max(...t.figures.map((f) => f.dbBytes)) / 1e6)} / ${mb(Math.max(...t.figures.map((f) => f.walBytes)) / 1e6)}`,
    },
    { figure: 'event log, wall 0: events / bytes', measured: `${first.db.events} / ${mb(first.db.eventBytes / 1e6)}` },
    { figure: 'written per wall-hour of the sessions phase', measured: perHour(written / walls.length, t.sessionsMs) },
    ...(t.longCharge
      ? [{ figure: `written per charging hour (wall 0, one charge of ${t.o.chargeS} s, links up)`, measured: perHour(t.longCharge.written, t.longCharge.ms) }]
      : []),
    { figure: 'written per session', measured: `${(written / 1e3 / Math.max(1, sessions)).toFixed(0)} kB` },
    ...t.figures.map((f) => ({
      figure: `written per hour idle, wall ${f.wall.index} (${t.o.idleS} s measured)`,
      measured: perHour(f.idleWritten, t.o.idleS * 1000),
      target: '<= 1 MB/h',
      pass: f.idleWritten * (3600 / Math.max(1, t.o.idleS)) <= 1e6,
    })),
  ];
}
