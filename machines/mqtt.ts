import { assign, enqueueActions, setup, type SnapshotFrom } from 'xstate';
import { exponentialBackoff } from './backoff.js';

/**
 * The MQTT link (docs/mqtt.md): the connection to the broker with reconnects and backoff, the pace of the meter
 * values, and the load limit received over MQTT with its fallback. It runs on the main thread beside the API,
 * never on the charge point's safety path: the core does not wait for anything here, it only gets a load limit.
 *
 * - `connection`: `disabled` (MQTT off or no broker URL), `connecting` (one attempt, with the Last Will `offline` on
 *   `<base>/status`), `connected` (status `online`, commands subscribed, the whole state published, Home Assistant
 *   discovery announced or withdrawn), `waiting` (after a failed attempt or a lost connection: the next attempt after
 *   a backoff of 1 s, doubling up to 60 s; a successful connection resets it). A change of the connection settings
 *   starts a new attempt at once; MQTT turned off withdraws the discovery and says `offline` first.
 * - `meter`: meter values (power, energy, currents, temperature, duration) are published at most once per interval:
 *   the first at once, later ones at the end of the interval (only when something changed meanwhile).
 * - `loadLimit`: `off` (load management over MQTT off: no limit from here), `fallback` (no fresh limit: the fallback
 *   current applies; also after a start, until the first limit), `fresh` (the latest limit applies until it is older
 *   than the refresh time, then `fallback`). So a stale limit never keeps the charger at full power.
 *
 * Effects are provided from outside (services/mqtt/): `open`, `close`, `drop`, `goOnline`, `announce`, `withdraw`,
 * `publishMeter`, `applyLimit`, `applyFallback`, `clearLimit`.
 */

export const BACKOFF_FIRST_MS = 1_000;
export const BACKOFF_MAX_MS = 60_000;
/** Failures are counted up to this many (the backoff stops growing at BACKOFF_MAX_MS): the context stays bounded. */
export const MAX_COUNTED_FAILURES = 7;

/** The wait before the next attempt after `failures` failed attempts or lost connections in a row. */
export const backoffMs = (failures: number): number => exponentialBackoff(failures, BACKOFF_FIRST_MS, BACKOFF_MAX_MS);

export interface LoadLimitConfig {
  /** A limit older than this is stale. */
  timeoutMs: number;
  /** The limit while none is fresh (A; below 6 A charging pauses). */
  fallbackA: number;
}

export interface MqttContext {
  /** Failed attempts and lost connections since the last successful connection (at most MAX_COUNTED_FAILURES). */
  failures: number;
  /** Home Assistant discovery on. */
  discovery: boolean;
  /** Meter values at most this often. */
  intervalMs: number;
  /** Meter values changed since the last were published (published at the end of the interval). */
  meterPending: boolean;
  loadLimit: LoadLimitConfig;
  /** The latest load limit received (A). */
  limitA: number | null;
}

export type MqttEvent =
  /** The connection settings (as they are now): connect when MQTT is on with a broker URL. */
  | { type: 'CONFIGURE'; connect: boolean }
  /** The broker accepted the connection (CONNACK). */
  | { type: 'CONNECTED' }
  /** The attempt failed (refused, unreachable, timed out). */
  | { type: 'CONNECT_FAILED' }
  /** The connection was lost. */
  | { type: 'CONNECTION_LOST' }
  /** Home Assistant discovery is on or off, or what it announces changed (the settings). */
  | { type: 'DISCOVERY'; on: boolean }
  /** Home Assistant came online (`<prefix>/status`): announce again. */
  | { type: 'HA_ONLINE' }
  /** The meter publish interval. */
  | { type: 'INTERVAL'; ms: number }
  /** Meter values changed. */
  | { type: 'METER' }
  /** Load management over MQTT on or off, and its refresh time and fallback. */
  | ({ type: 'LOAD_MANAGEMENT'; on: boolean } & LoadLimitConfig)
  /** A load limit command, already validated (A). */
  | { type: 'LIMIT'; amps: number };

export const mqttMachine = setup({
  types: { context: {} as MqttContext, events: {} as MqttEvent },
  actions: {
    /** Opens a connection with the current settings (ending the previous one first). */
    open: () => {},
    /** Ends the connection: says `offline` on the status topic first when connected. */
    close: () => {},
    /** Forgets a broken connection. */
    drop: () => {},
    /** Status `online`, commands and Home Assistant's status subscribed, the whole state published. */
    goOnline: () => {},
    /** Home Assistant discovery: the configuration of every entity (retained); entities no longer offered withdrawn. */
    announce: () => {},
    /** Home Assistant discovery withdrawn: an empty retained message for every entity. */
    withdraw: () => {},
    /** Discovery's configuration as the setting says: announced when on, withdrawn when off (on every connection). */
    announceOrWithdraw: enqueueActions(({ context, enqueue }) => enqueue(context.discovery ? 'announce' : 'withdraw')),
    publishMeter: () => {},
    /** The load limit `context.limitA` to the charge point. */
    applyLimit: () => {},
    /** The fallback current as the load limit. */
    applyFallback: () => {},
    /** No load limit from MQTT any more. */
    clearLimit: () => {},
    countFailure: assign({ failures: ({ context }) => Math.min(MAX_COUNTED_FAILURES, context.failures + 1) }),
    resetFailures: assign({ failures: 0 }),
    setDiscovery: assign({ discovery: ({ context, event }) => (event.type === 'DISCOVERY' ? event.on : context.discovery) }),
    setInterval: assign({ intervalMs: ({ context, event }) => (event.type === 'INTERVAL' ? event.ms : context.intervalMs) }),
    markPending: assign({ meterPending: true }),
    clearPending: assign({ meterPending: false }),
    storeLimit: assign({ limitA: ({ context, event }) => (event.type === 'LIMIT' ? event.amps : context.limitA) }),
    configureLoad: assign({
      loadLimit: ({ context, event }) => (event.type === 'LOAD_MANAGEMENT' ? { timeoutMs: event.timeoutMs, fallbackA: event.fallbackA } : context.loadLimit),
    }),
    forgetLimit: assign({ limitA: null }),
  },
  guards: {
    connectRequested: ({ event }) => event.type === 'CONFIGURE' && event.connect,
    discoveryOn: ({ context }) => context.discovery,
    discoveryRequested: ({ event }) => event.type === 'DISCOVERY' && event.on,
    meterPending: ({ context }) => context.meterPending,
    loadManagementRequested: ({ event }) => event.type === 'LOAD_MANAGEMENT' && event.on,
  },
  delays: {
    backoff: ({ context }) => backoffMs(context.failures),
    interval: ({ context }) => context.intervalMs,
    limitTimeout: ({ context }) => context.loadLimit.timeoutMs,
  },
}).createMachine({
  id: 'mqtt',
  type: 'parallel',
  context: { failures: 0, discovery: false, intervalMs: 10_000, meterPending: false, loadLimit: { timeoutMs: 60_000, fallbackA: 6 }, limitA: null },
  states: {
    connection: {
      initial: 'disabled',
      on: { DISCOVERY: { actions: 'setDiscovery' } },
      states: {
        disabled: {
          entry: 'close',
          on: { CONFIGURE: { guard: 'connectRequested', target: 'connecting', actions: 'resetFailures' } },
        },
        connecting: {
          entry: 'open',
          on: {
            CONFIGURE: [{ guard: 'connectRequested', target: 'connecting', reenter: true, actions: 'resetFailures' }, { target: 'disabled' }],
            CONNECTED: { target: 'connected', actions: ['resetFailures', 'goOnline', 'announceOrWithdraw'] },
            CONNECT_FAILED: { target: 'waiting', actions: 'countFailure' },
          },
        },
        connected: {
          on: {
            CONFIGURE: [
              { guard: 'connectRequested', target: 'connecting', actions: 'resetFailures' },
              { target: 'disabled', actions: 'withdraw' },
            ],
            CONNECTION_LOST: { target: 'waiting', actions: 'countFailure' },
            HA_ONLINE: { guard: 'discoveryOn', actions: 'announce' },
            DISCOVERY: [{ guard: 'discoveryRequested', actions: ['setDiscovery', 'announce'] }, { actions: ['setDiscovery', 'withdraw'] }],
          },
        },
        waiting: {
          entry: 'drop',
          after: { backoff: 'connecting' },
          on: { CONFIGURE: [{ guard: 'connectRequested', target: 'connecting', actions: 'resetFailures' }, { target: 'disabled' }] },
        },
      },
    },
    meter: {
      initial: 'ready',
      on: { INTERVAL: { actions: 'setInterval' } },
      states: {
        ready: { on: { METER: { target: 'holding', actions: 'publishMeter' } } },
        holding: {
          after: {
            interval: [{ guard: 'meterPending', target: 'holding', reenter: true, actions: ['clearPending', 'publishMeter'] }, { target: 'ready' }],
          },
          on: {
            METER: { actions: 'markPending' },
            // A new interval takes effect at once: it runs from now.
            INTERVAL: { target: 'holding', reenter: true, actions: 'setInterval' },
          },
        },
      },
    },
    loadLimit: {
      initial: 'off',
      states: {
        off: { on: { LOAD_MANAGEMENT: { guard: 'loadManagementRequested', target: 'fallback', actions: 'configureLoad' } } },
        fallback: {
          entry: 'applyFallback',
          on: {
            LIMIT: { target: 'fresh', actions: 'storeLimit' },
            LOAD_MANAGEMENT: [
              { guard: 'loadManagementRequested', target: 'fallback', reenter: true, actions: 'configureLoad' },
              { target: 'off', actions: ['forgetLimit', 'clearLimit'] },
            ],
          },
        },
        fresh: {
          entry: 'applyLimit',
          after: { limitTimeout: 'fallback' },
          on: {
            LIMIT: { target: 'fresh', reenter: true, actions: 'storeLimit' },
            LOAD_MANAGEMENT: [
              { guard: 'loadManagementRequested', actions: 'configureLoad' },
              { target: 'off', actions: ['forgetLimit', 'clearLimit'] },
            ],
          },
        },
      },
    },
  },
});

export type MqttSnapshot = SnapshotFrom<typeof mqttMachine>;
