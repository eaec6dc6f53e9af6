import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { settings as settingsTable } from '../../db/schema.js';
import { startCsms, type Csms, type CsmsOptions } from '../../bin/dev/central-system.js';
import type { SettingValue } from '../../services/settings/catalogue.js';
import { startCharger, type Charger } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH, type startHarness } from '../harness.js';

/** Writes settings into a data directory's database before a controller starts on it (reboot settings included). */
export async function writeSettings(dataDir: string, values: Record<string, SettingValue>): Promise<void> {
  const database = await openDatabase(`file:${join(dataDir, 'controller.db')}`);
  await database.write(async (tx) => {
    for (const [key, value] of Object.entries(values)) {
      const json = JSON.stringify(value);
      await tx
        .insert(settingsTable)
        .values({ key, value: json, updatedAt: 0 })
        .onConflictDoUpdate({ target: settingsTable.key, set: { value: json } });
    }
  });
  await database.close();
}

/**
 * Waits until `done` holds, letting real I/O (the sockets to the central system) and the controller's work run; the
 * manual clock does not move. Fails after `ms` of real time.
 */
export async function until<T>(c: Pick<Charger, 'step'>, done: () => T | Promise<T>, what = 'condition', ms = 5000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    await c.step(0);
    const value = await done();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

export interface OcppCharger extends Charger {
  csms: Csms;
  clock: ManualClock;
  /** Waits until the backend link is online (BootNotification accepted) and its first work is done. */
  online(): Promise<void>;
  /** The backend link's state value. */
  link(): unknown;
}

/** The settings of a charge point connected to `csms`. */
export const ocppSettings = (csms: Pick<Csms, 'url'>, more: Record<string, SettingValue> = {}): Record<string, SettingValue> => ({
  OcppEnabled: 1,
  OcppUrl: csms.url,
  OcppChargeBoxId: 'CP-TEST',
  // Pings only where a test is about them: a long step of the manual clock would outrun the real pong.
  OcppWebSocketPingInterval: 0,
  ...more,
});

/**
 * A controller on simulated hardware with the manual clock, connected to a strict OCPP central system on 127.0.0.1
 * (whose clock is the same manual clock). The whitelist of test/charging/scenario.ts (KNOWN, OTHER) is added.
 */
export async function startOcppCharger(
  opts: {
    settings?: Record<string, SettingValue>;
    csms?: Csms;
    csmsOptions?: CsmsOptions;
    dataDir?: string;
    clock?: ManualClock;
    harness?: Parameters<typeof startHarness>[0];
    whitelist?: boolean;
    /** Further options of test/charging/scenario.ts's startCharger (inspection, broken devices). */
    charger?: Omit<Parameters<typeof startCharger>[0] & object, 'dataDir' | 'harness' | 'whitelist'>;
  } = {},
): Promise<OcppCharger> {
  const clock = opts.clock ?? new ManualClock(TEST_EPOCH);
  const csms = opts.csms ?? (await startCsms({ now: () => clock.now(), ...opts.csmsOptions }));
  const fresh = !opts.dataDir;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'cc-ocpp-')));
  await writeSettings(dataDir, ocppSettings(csms, opts.settings));
  const c = await startCharger({ ...opts.charger, dataDir, whitelist: opts.whitelist ?? fresh, harness: { clock, ...opts.harness } });
  const charger: OcppCharger = {
    ...c,
    csms,
    clock,
    link: () => c.h.controller.backend.state(),
    async online() {
      await until(c, () => c.h.controller.backend.online(), 'the backend link to be accepted');
      await c.step(0);
    },
  };
  return charger;
}

/** Every frame both ways passed the second validator. */
export function expectValidFrames(csms: Csms): void {
  expect(csms.invalid).toEqual([]);
}

/** The actions of the charge point's calls, in order (`Heartbeat` left out unless asked for). */
export function actions(csms: Csms, { heartbeats = false } = {}): string[] {
  return csms.frames
    .filter((f) => f.direction === 'in' && f.message[0] === 2 && (heartbeats || f.message[2] !== 'Heartbeat'))
    .map((f) => f.message[2] as string);
}

/**
 * For a test file: `charger()` starts an OCPP charger; after each test every frame must have passed the second
 * validator, and the chargers, their central systems and those `alsoClose` was given are stopped.
 */
export function useOcppChargers() {
  const started: OcppCharger[] = [];
  const others: Csms[] = [];
  afterEach(async () => {
    for (const c of started.splice(0)) {
      expectValidFrames(c.csms);
      await c.h.stop();
      await c.csms.close();
    }
    for (const csms of others.splice(0)) await csms.close();
  });
  return {
    async charger(opts: Parameters<typeof startOcppCharger>[0] = {}): Promise<OcppCharger> {
      const c = await startOcppCharger(opts);
      started.push(c);
      return c;
    },
    alsoClose: (csms: Csms) => void others.push(csms),
  };
}

/** A central system on `clock` whose BootNotification answer gives `interval` seconds (0: none). */
export async function csmsGivingInterval(clock: ManualClock, interval: number): Promise<Csms> {
  const csms = await startCsms({ now: () => clock.now() });
  csms.answer('BootNotification', () => ({ status: 'Accepted', currentTime: new Date(clock.now()).toISOString(), interval }));
  return csms;
}

/** Two heartbeats `seconds` apart, counted from now (the link just online): none a second before each, one at it. */
export async function expectHeartbeatsEvery(c: Pick<Charger, 'step'>, csms: Csms, seconds: number): Promise<void> {
  const beats = () => csms.calls('Heartbeat').length;
  const before = beats();
  for (const n of [1, 2]) {
    await c.step(seconds * 1000 - 1000);
    expect(beats()).toBe(before + n - 1);
    await c.step(1000);
    await until(c, () => beats() === before + n, `heartbeat ${n} after ${seconds} s`);
  }
}
