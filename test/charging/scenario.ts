import { afterEach, expect } from 'vitest';
import type { AnyStateNode, InspectionEvent } from 'xstate';
import type { ChargeSettings } from '../../machines/charge-cycle.js';
import { takenKey } from '../../machines/transitions.js';
import type { ChargePointHardware } from '../../drivers/types.js';
import type { ManualClock } from '../clock.js';
import { startHarness, type Harness, type HttpResult } from '../harness.js';

export const KNOWN = '04A1B2C3';
const INSTALLER_PASSWORD = 'installer-secret-1';

/** The catalogue key and value of each charge-cycle setting. */
const SETTING_KEYS: { [K in keyof ChargeSettings]: [string, (v: ChargeSettings[K]) => unknown] } = {
  freeCharging: ['FreeCharging', (v) => (v ? 1 : 0)],
  chargingEnabled: ['ChargingEnabled', (v) => (v ? 1 : 0)],
  ventilationAvailable: ['Ventilation', (v) => (v ? 1 : 0)],
  authTimeoutMs: ['AuthTimeout', (v) => v / 1000],
  maxCurrentA: ['MaxCurrent', (v) => v],
};
export const OTHER = '0A0B0C0D';
export const UNKNOWN = 'DEADBEEF';

/** Transitions taken per machine (`chargeCycle`, `pairing`), keyed as in machines/transitions.ts. */
export const taken = new Map<string, Set<string>>();

function record(event: InspectionEvent): void {
  if (event.type !== '@xstate.microstep') return;
  const id = (event.actorRef as { id?: string }).id ?? '';
  const transitions = (event as unknown as { _transitions: Array<{ source: AnyStateNode; eventType: string; guard?: unknown; target?: AnyStateNode[] }> })
    ._transitions;
  let set = taken.get(id);
  if (!set) taken.set(id, (set = new Set()));
  for (const t of transitions) set.add(takenKey(t));
}

export interface Charger {
  h: Harness;
  userId: string;
  /** An API call with a session; logs in again when the session timed out while the clock moved. */
  api(method: string, path: string, body?: unknown): Promise<HttpResult>;
  state(): Promise<any>;
  /** The simulator's view: plant, charge point, HMI. */
  view(): Promise<any>;
  sim(path: string, body?: unknown): Promise<HttpResult>;
  step(ms?: number): Promise<void>;
  /** Presents a tag and lets the read, the whitelist look-up and the machine's reaction complete. */
  tag(id: string): Promise<void>;
  /** A simulator control followed by the CP debounce. */
  act(path: 'plug' | 'unplug' | 'charge' | 'pause'): Promise<void>;
  /** Changes settings through PATCH /v1/settings (as an installer). */
  settings(s: Partial<ChargeSettings>): Promise<void>;
  beeps(): Promise<number>;
}

/** A controller on simulated hardware with a whitelist (KNOWN and OTHER, KNOWN owned by a user); transitions recorded. */
export async function startCharger(
  opts: {
    dataDir?: string;
    env?: Record<string, string>;
    inspect?: (e: InspectionEvent) => void;
    chargePoint?: (hardware: ChargePointHardware, clock: ManualClock) => ChargePointHardware;
    /** Further harness options (a clock, the restart hook, OCPP frames). */
    harness?: Parameters<typeof startHarness>[0];
    /** Add the users and whitelist entries (default: on a fresh data directory). */
    whitelist?: boolean;
  } = {},
): Promise<Charger> {
  const h = await startHarness({
    ...opts.harness,
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.chargePoint ? { chargePoint: opts.chargePoint } : {}),
    inspect: (e) => {
      record(e);
      opts.inspect?.(e);
    },
  });
  // An installer may change every charging setting (Ventilation included).
  await h.controller.accounts.set('installer', 'installer', INSTALLER_PASSWORD);
  const login = () => h.login('installer', INSTALLER_PASSWORD);
  let session = await login();
  const api = async (method: string, path: string, body?: unknown) => {
    let res = await h.http(method, path, { session, body });
    if (res.status === 401) {
      session = await login();
      res = await h.http(method, path, { session, body });
    }
    return res;
  };
  let userId = '';
  if (opts.whitelist ?? !opts.dataDir) {
    userId = (await api('POST', '/v1/users', { userName: 'Alice' })).json.userId;
    const added = await api('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: KNOWN, userid: userId, tagType: 'RFID' }, { id: OTHER }] });
    if (added.status !== 200) throw new Error(`whitelist setup failed: ${added.text}`);
  }
  const step = (ms?: number) => h.step(ms);
  return {
    h,
    userId,
    api,
    state: async () => (await api('GET', '/v1/system_state')).json,
    view: async () => (await h.http('GET', '/sim')).json,
    sim: (path, body) => h.sim(path, body),
    step,
    async tag(id) {
      await h.sim('tag', { id });
      await step(0);
    },
    async act(path) {
      await h.sim(path);
      await step(50);
    },
    async settings(s) {
      const params = Object.entries(s).map(([name, value]) => {
        const [key, toValue] = SETTING_KEYS[name as keyof ChargeSettings];
        return { key, value: toValue(value as never) };
      });
      const res = await api('PATCH', '/v1/settings', { params });
      if (res.status !== 200) throw new Error(`settings refused: ${res.text}`);
      await step(0);
    },
    beeps: async () => (await h.http('GET', '/sim')).json.plant.beeps,
  };
}

/**
 * The chargers of a test file, each stopped after its test: `start` starts one as startCharger does, `keep` takes one
 * started otherwise (an OCPP charger), `stopped` forgets one the test stopped itself.
 */
export function useChargers() {
  let open: Charger[] = [];
  afterEach(async () => {
    const stopping = open;
    open = [];
    await Promise.all(stopping.map((c) => c.h.stop()));
  });
  const keep = <C extends Charger>(c: C): C => (open.push(c), c);
  return {
    start: async (opts?: Parameters<typeof startCharger>[0]): Promise<Charger> => keep(await startCharger(opts)),
    keep,
    stopped(c: Charger): void {
      open = open.filter((o) => o !== c);
    },
  };
}

/** Plugged in, authorized by KNOWN, the EV asking to charge (whatever the charger then does). */
export async function askToCharge(c: Charger): Promise<void> {
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
}

/** As askToCharge, and checked: charging, the contactor closed. */
export async function charging(c: Charger): Promise<void> {
  await askToCharge(c);
  expect((await c.state()).systemState).toBe('charging');
  expect((await c.view()).plant.contactorClosed).toBe(true);
}

/** The error codes of the messages shown now (GET /v1/messages). */
export const codes = async (c: Charger): Promise<string[]> => (await c.api('GET', '/v1/messages')).json.messages.map((m: any) => m.errorCode);
export const systemState = async (c: Charger): Promise<string> => (await c.state()).systemState;
