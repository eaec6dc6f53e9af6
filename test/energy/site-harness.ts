import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { SiteLinkParams, SiteLinkState } from '../../services/energy/site-link.js';
import { SITE_DEFAULTS } from '../../services/energy/site-share.js';
import { startProxy, type Proxy } from '../mqtt/broker.js';

/**
 * The site tests' harness (docs/energy.md, "Site"): chargers of one site, each reaching the broker through its own
 * TCP proxy (its network: partitioned at will), and a log of what their simulated EVs draw, from which the time the
 * site spent above its limit is measured. A charger here is a process running the site link and a simulated plant
 * (test/fixtures/site-charger.mjs); once the allocator loop runs in the controller, `SiteCharger` can be a whole
 * controller (test/processes.ts's `launch`, site settings through PATCH /v1/settings, draws from its meter).
 */

/**
 * The defaults scaled down about tenfold so a test runs in seconds; the rules between them hold as with the defaults
 * (site-link.ts): a partitioned charger notices (≤ noticeMs + a step) and its EV follows before its peers learn of it
 * (the will, 1.5 × keepalive) and raise (raiseDelayMs later); peers reserve its share until it paused.
 */
export const SCALED: SiteLinkParams = {
  site: { ...SITE_DEFAULTS, silentMs: 1_200, lostMs: 3_000, reserveMs: 4_000, raiseDelayMs: 1_000, meterMaxAgeMs: 1_500 },
  membership: { joinMs: 500, reserveMs: 4_000 },
  stepMs: 200,
  heartbeatMs: 400,
  keepaliveS: 1,
  noticeMs: 1_000,
  connectTimeoutMs: 1_000,
  reconnectMs: 300,
};
/** The simulated EV's reaction time (ms). */
export const LAG_MS = 300;

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'site-charger.mjs');

export interface SiteChargerOptions {
  id: string;
  site: string;
  limitA: [number, number, number];
  installed: number;
  demandA: number;
  priority?: number;
}

export interface SiteCharger {
  id: string;
  proxy: Proxy;
  child: ChildProcess;
  send(message: object): void;
  state(): Promise<SiteLinkState>;
  /** Stops charging, leaves the site, exits. */
  leave(): Promise<void>;
  /** kill -9: the process and its EV's current are gone at once. */
  kill(): Promise<void>;
  /** What it logged (shown when a test fails). */
  stderr(): string;
}

/** Starts a charger process reaching `brokerPort` through a proxy of its own; its draws go to `log`. */
export async function startSiteCharger(brokerPort: number, o: SiteChargerOptions, log: DrawLog): Promise<SiteCharger> {
  const proxy = await startProxy(brokerPort);
  const config = { ...o, url: proxy.url, params: SCALED, lagMs: LAG_MS };
  const child = fork(FIXTURE, [JSON.stringify(config)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv: ['--max-semi-space-size=2'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiters = new Set<(m: Record<string, unknown>) => void>();
  child.on('message', (m: Record<string, unknown>) => {
    if (typeof m.draw === 'number') log.draw(o.id, m.draw, m.t as number);
    for (const w of waiters) w(m);
  });
  const next = (key: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${o.id}: no ${key} message; its log:\n${stderr}`)), 10_000);
      const w = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        waiters.delete(w);
        clearTimeout(timer);
        resolve(m);
      };
      waiters.add(w);
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await next('started');
  return {
    id: o.id,
    proxy,
    child,
    send: (message) => child.connected && child.send(message),
    async state() {
      const answer = next('state');
      child.send({ state: true });
      return (await answer).state as SiteLinkState;
    },
    async leave() {
      const left = next('left');
      child.send({ leave: true });
      await left;
      await exited;
      await proxy.close();
    },
    async kill() {
      child.kill('SIGKILL');
      log.draw(o.id, 0, Date.now());
      await exited;
      await proxy.close();
    },
    stderr: () => stderr,
  };
}

export interface Overshoot {
  start: number;
  end: number;
  /** The highest current above the limit (A). */
  peakA: number;
  /** The current above the limit over the time (A·s). */
  ampSeconds: number;
}

/**
 * What every EV draws over time (the same on each line: three-phase chargers), with the house load, as a series of
 * changes; the periods the sum spent above the limit.
 */
export class DrawLog {
  private changes: { t: number; key: string; amps: number }[] = [];
  private latest = new Map<string, number>();

  draw(id: string, amps: number, t: number): void {
    this.changes.push({ t, key: id, amps });
    this.latest.set(id, amps);
  }

  house(amps: number, t = Date.now()): void {
    this.draw('house', amps, t);
  }

  /** The grid connection point's current now (house and EVs). */
  total(): number {
    return [...this.latest.values()].reduce((a, b) => a + b, 0);
  }

  current(id: string): number {
    return this.latest.get(id) ?? 0;
  }

  /** What `id` drew at or after `from` (ms), in order: a short dip that a poll of `current` can miss is kept here. */
  drawsSince(id: string, from: number): number[] {
    return this.changes.filter((c) => c.key === id && c.t >= from).map((c) => c.amps);
  }

  /** The periods above `limitA` between `from` and `to` (ms). */
  overshoots(limitA: number, from = 0, to = Date.now()): Overshoot[] {
    const sorted = [...this.changes].sort((a, b) => a.t - b.t);
    const level = new Map<string, number>();
    const out: Overshoot[] = [];
    let open: Overshoot | undefined;
    const sum = () => [...level.values()].reduce((a, b) => a + b, 0);
    let lastT = from;
    const close = (t: number) => {
      if (!open) return;
      open.end = t;
      out.push(open);
      open = undefined;
    };
    for (const c of sorted) {
      if (c.t > to) break;
      const t = Math.max(c.t, from);
      const above = sum() - limitA;
      if (open && t > lastT) open.ampSeconds += (above * (t - lastT)) / 1000;
      level.set(c.key, c.amps);
      lastT = t;
      if (c.t < from) continue;
      const now = sum() - limitA;
      if (now > 0.05) {
        open ??= { start: t, end: t, peakA: 0, ampSeconds: 0 };
        open.peakA = Math.max(open.peakA, now);
      } else close(t);
    }
    if (open) {
      open.ampSeconds += ((sum() - limitA) * (to - lastT)) / 1000;
      close(to);
    }
    return out;
  }
}

/** Polls `cond` every 50 ms; fails after `timeoutMs` with `what` and `detail()`. */
export async function until(what: string, cond: () => boolean, timeoutMs = 15_000, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}${detail() ? `: ${detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
