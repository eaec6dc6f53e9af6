import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { backendLinkMachine, BOOT_RETRY_MS, backoffMs, type BackendLinkEvent, type BackendLinkSnapshot } from '../../machines/backend-link.js';
import { startCsms, type Csms } from '../../bin/dev/central-system.js';
import { startCharger, type Charger } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { ocppSettings, until, writeSettings } from '../ocpp/support.js';
import { chosenBreak, CoverageRecorder, planPaths, timerNeverFires, writeReport } from './model.js';

/**
 * Model-based tests of the backend link (machines/backend-link.ts): paths generated from the machine, executed
 * against a controller connected to a strict central system on 127.0.0.1 whose every decision the executor makes
 * when the model says: a connection attempt is admitted (SOCKET.OPENED) or refused with 503 (SOCKET.FAILED), a
 * BootNotification answered Accepted, Pending or Rejected with an interval, or with a CALLERROR (BOOT.FAILED), the
 * connection dropped (SOCKET.CLOSED), BootNotification triggered (BOOT.TRIGGERED: TriggerMessage while pending),
 * the heartbeat interval changed (PATCH /v1/settings OcppHeartbeatInterval), the controller started (START) and
 * stopped (STOP). Delays run on the manual clock. After every step the link's real state must be the model's.
 */

const INITIAL_HEARTBEAT_MS = 300_000;
const initialContext = (s: BackendLinkSnapshot) =>
  s.context.attempts === 0 && s.context.bootRetryMs === BOOT_RETRY_MS && s.context.heartbeatMs === INITIAL_HEARTBEAT_MS;

function modelEvents(s: BackendLinkSnapshot): BackendLinkEvent[] {
  const events: BackendLinkEvent[] = [];
  const { attempts, heartbeatMs } = s.context;
  // START only where a fresh controller starts as the model is (a restart begins with the initial context).
  if (s.matches('disconnected')) {
    if (initialContext(s)) events.push({ type: 'START' });
    return events;
  }
  events.push({ type: 'STOP' });
  if (s.matches('connecting')) {
    events.push({ type: 'SOCKET.OPENED' });
    if (attempts < 2) events.push({ type: 'SOCKET.FAILED' });
  }
  if (s.matches('backoff')) events.push({ type: 'xstate.after.backoff.backendLink.backoff' } as never);
  if (s.matches('connected')) {
    if (attempts < 2) events.push({ type: 'SOCKET.CLOSED' });
    events.push({ type: 'HEARTBEAT.INTERVAL', seconds: heartbeatMs === 60_000 ? 300 : 60 });
  }
  if (s.matches({ connected: 'booting' })) {
    events.push(
      { type: 'BOOT.ACCEPTED', intervalS: 0 },
      { type: 'BOOT.ACCEPTED', intervalS: 120 },
      { type: 'BOOT.PENDING', intervalS: 30 },
      { type: 'BOOT.REJECTED', intervalS: 30 },
      { type: 'BOOT.FAILED' },
    );
  }
  if (s.matches({ connected: 'pending' })) {
    events.push({ type: 'BOOT.TRIGGERED' }, { type: 'xstate.after.bootRetry.backendLink.connected.pending' } as never);
  }
  if (s.matches({ connected: 'rejected' })) events.push({ type: 'xstate.after.bootRetry.backendLink.connected.rejected' } as never);
  if (s.matches({ connected: 'accepted' })) events.push({ type: 'xstate.after.heartbeat.backendLink.connected.accepted.beating' } as never);
  return events;
}

const { paths } = planPaths(backendLinkMachine, { events: modelEvents, input: { heartbeatMs: INITIAL_HEARTBEAT_MS } });
const coverage = new CoverageRecorder();

/** Deliberately broken timers (MBT_BREAK), to show the suite catches real faults. */
const BREAKS: Record<string, (clock: ManualClock) => void> = {
  'backoff-timer-never-fires': (clock) => timerNeverFires(clock, backoffMs(1)),
  'boot-retry-timer-never-fires': (clock) => timerNeverFires(clock, 30_000),
  'heartbeat-timer-never-fires': (clock) => timerNeverFires(clock, INITIAL_HEARTBEAT_MS),
};
const broken = chosenBreak(BREAKS);

/** A decision the central system waits for. */
interface Gate<T> {
  waiting: Array<(value: T) => void>;
}
const take = async <T>(c: Charger, gate: Gate<T>, what: string) => (await until(c, () => gate.waiting.shift(), what))!;

interface World {
  clock: ManualClock;
  csms: Csms;
  dataDir: string;
  admit: Gate<boolean>;
  boot: Gate<{ status: string; interval: number } | 'error'>;
  c?: Charger;
}

async function startWorld(): Promise<World> {
  const clock = new ManualClock(TEST_EPOCH);
  if (broken) BREAKS[broken]!(clock);
  const admit: Gate<boolean> = { waiting: [] };
  const boot: World['boot'] = { waiting: [] };
  const csms = await startCsms({ now: () => clock.now(), admit: () => new Promise((resolve) => admit.waiting.push(resolve)) });
  csms.answer('BootNotification', async () => {
    const answer = await new Promise<{ status: string; interval: number } | 'error'>((resolve) => boot.waiting.push(resolve));
    if (answer === 'error') throw new Error('boot refused');
    return { ...answer, currentTime: new Date(clock.now()).toISOString() };
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'cc-mbt-link-'));
  await writeSettings(dataDir, ocppSettings(csms));
  return { clock, csms, dataDir, admit, boot };
}

/** Executes one model event through the real interfaces. */
async function execute(w: World, before: BackendLinkSnapshot, event: BackendLinkEvent): Promise<void> {
  const type = event.type as string;
  const c = w.c;
  if (type.startsWith('xstate.after.')) {
    const ms = type.includes('.backoff.')
      ? backoffMs(before.context.attempts)
      : type.includes('bootRetry')
        ? before.context.bootRetryMs
        : before.context.heartbeatMs;
    const beats = w.csms.calls('Heartbeat').length;
    await c!.step(ms);
    if (type.includes('heartbeat')) await until(c!, () => w.csms.calls('Heartbeat').length === beats + 1, 'a heartbeat');
    return;
  }
  switch (event.type) {
    case 'START':
      w.c = await startCharger({ dataDir: w.dataDir, whitelist: false, inspect: coverage.inspect, harness: { clock: w.clock } });
      return;
    case 'STOP':
      for (const gate of [w.admit.waiting, w.boot.waiting]) gate.splice(0).forEach((release: (v: never) => void) => release(false as never));
      await c!.h.stop({ keepData: true });
      w.c = undefined;
      return;
    case 'SOCKET.OPENED':
    case 'SOCKET.FAILED':
      (await take(c!, w.admit, 'a connection attempt'))(event.type === 'SOCKET.OPENED');
      return;
    case 'BOOT.ACCEPTED':
    case 'BOOT.PENDING':
    case 'BOOT.REJECTED':
      (await take(c!, w.boot, 'a BootNotification'))({ status: event.type.slice(5, 6) + event.type.slice(6).toLowerCase(), interval: event.intervalS });
      return;
    case 'BOOT.FAILED':
      (await take(c!, w.boot, 'a BootNotification'))('error');
      return;
    case 'BOOT.TRIGGERED':
      expect(await w.csms.call('TriggerMessage', { requestedMessage: 'BootNotification' })).toEqual({ status: 'Accepted' });
      return;
    case 'SOCKET.CLOSED':
      // An unanswered BootNotification goes with the connection.
      w.boot.waiting.splice(0).forEach((release) => release('error'));
      await w.csms.drop();
      return;
    case 'HEARTBEAT.INTERVAL': {
      const res = await c!.api('PATCH', '/v1/settings', { params: [{ key: 'OcppHeartbeatInterval', value: event.seconds }] });
      expect(res.status).toBe(200);
      return;
    }
  }
}

const describeEvent = (e: BackendLinkEvent) =>
  (e.type as string).startsWith('xstate.after.')
    ? `after ${(e.type as string).split('.')[2]}`
    : 'intervalS' in e
      ? `${e.type}(${e.intervalS})`
      : 'seconds' in e
        ? `${e.type}(${e.seconds})`
        : e.type;

describe(`backend link, ${paths.length} generated paths${broken ? ` against broken: ${broken}` : ''}`, () => {
  it.each(
    paths.map(
      (p) =>
        [
          p.steps
            .slice(1)
            .map((s) => describeEvent(s.event as BackendLinkEvent))
            .join(' → ') || '(initial)',
          p,
        ] as const,
    ),
  )('%s', async (_name, path) => {
    const w = await startWorld();
    try {
      let model = path.steps[0]!.state as BackendLinkSnapshot;
      for (const [i, step] of path.steps.slice(1).entries()) {
        const event = step.event as BackendLinkEvent;
        const [next] = transition(backendLinkMachine, model, event);
        await execute(w, model, event);
        model = next;
        const at = `step ${i + 1}: ${describeEvent(event)}`;
        if (w.c) {
          const want = JSON.stringify(model.value);
          await until(w.c, () => JSON.stringify(w.c!.h.controller.backend.state()) === want, `${at}: the link in ${want}`).catch(() => undefined);
          expect({ at, state: w.c.h.controller.backend.state() }).toEqual({ at, state: model.value });
        }
      }
      expect(w.csms.invalid).toEqual([]);
      // Nothing but BootNotification before it was accepted.
      const first = w.csms.frames.findIndex((f) => f.direction === 'in' && f.message[0] === 2 && f.message[2] !== 'BootNotification');
      if (first >= 0)
        expect(w.csms.frames.slice(0, first).every((f) => f.message[0] !== 2 || f.message[2] === 'BootNotification' || f.direction === 'out')).toBe(true);
    } finally {
      for (const gate of [w.admit.waiting, w.boot.waiting]) gate.splice(0).forEach((release: (v: never) => void) => release(false as never));
      await w.c?.h.stop();
      await w.csms.close();
      await rm(w.dataDir, { recursive: true, force: true });
    }
  });
});

afterAll(() => {
  if (broken) return;
  const report = coverage.report('backendLink', backendLinkMachine, paths.length);
  writeReport(report);
  expect(report.states.missing, 'backend-link states no path reached').toEqual([]);
  expect(report.transitions.missing, 'backend-link transitions no path took').toEqual([]);
});
