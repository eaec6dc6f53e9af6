import type { SystemState } from '../core/system-state.js';
import type { CoreState } from '../core/protocol.js';
import type { EnergyStatus } from '../energy/contracts.js';
import {
  ENERGY_MEASURED_TOPICS,
  ENERGY_NUMERIC_TOPICS,
  ENERGY_STATE_TOPICS,
  energyMeasuredValues,
  energyStateValues,
  nestLimits,
  type EnergyGoals,
} from './energy-topics.js';
import { NO_VALUE, numberOr } from './payload.js';

/**
 * What the charger publishes, computed from the core's latest state (the same the API shows): single-value topics
 * below the base topic, in two groups, and one JSON state topic (docs/mqtt.md).
 * - states: published at once when they change;
 * - meter values: published at most once per interval (machines/mqtt.ts), as they change every second.
 * `None` stands for "no value" (Home Assistant shows it as unknown); the JSON state has `null` instead.
 */

/** Topic (below the base topic) → payload. */
export type Values = Record<string, string>;

export interface PublishedInput {
  /** /v1/system_state as the API shows it (the transaction's duration as of now). */
  system: SystemState;
  core: CoreState;
  chargingEnabled: boolean;
  maxCurrentA: number;
  /** The load limit from MQTT now (A), null when none applies. */
  loadLimitA: number | null;
  loadLimitState: 'off' | 'fallback' | 'fresh';
  /** The tag id and user id may be published (MqttPublishTagIds). */
  publishTagIds: boolean;
  /** The running charge is paused by a user (services/charge-control.ts). */
  paused: boolean;
  /** The OCPP central system accepted the charge point and the link is up. */
  backendConnected: boolean;
  /** The energy of the last session that ended since the controller started (Wh), null: none yet. */
  lastSessionWh: number | null;
  /** When the controller started (ms since the epoch). */
  startedAt: number;
  /** The controller's IPv4 address on the network, null: none. */
  ipAddress: string | null;
  /** Energy management's report (services/energy/contracts.ts); null: not running. */
  energy: EnergyStatus | null;
  /** The schedule and session goals (settings), published with energy management. */
  goals: EnergyGoals;
}

/** The states: systemState and the other spec state names, transaction active, messages, control values. */
export function stateValues(input: PublishedInput): Values {
  const { system } = input;
  const values: Values = {
    systemState: system.systemState,
    connectionState: system.connectionState,
    authState: system.authState,
    ocppState: system.ocppState,
    type2State: system.type2State,
    transactionActive: system.transaction ? '1' : '0',
    messages: JSON.stringify(input.core.messages.map(({ severity, errorCode, message }) => ({ severity, errorCode, message }))),
    chargingEnabled: input.chargingEnabled ? '1' : '0',
    maxCurrent: String(input.maxCurrentA),
    loadLimit: input.loadLimitA === null ? NO_VALUE : String(input.loadLimitA),
    loadLimitState: input.loadLimitState,
    // The current the PWM offers the vehicle, after every limit (0: none offered).
    offeredCurrent: String(input.core.outputs.pwmA ?? 0),
    pluggedIn: flag(system.type2State === 'b' || system.type2State === 'c' || system.type2State === 'd'),
    charging: flag(system.systemState === 'charging'),
    problem: flag(system.systemState === 'error' || input.core.messages.some((m) => m.severity === 'ERROR')),
    cableLocked: flag(input.core.outputs.cableLocked),
    paused: flag(input.paused),
    transactionStart: system.transaction?.transactionStart ?? NO_VALUE,
    lastSessionEnergy: numberOr(input.lastSessionWh),
    backendConnected: flag(input.backendConnected),
    startedAt: new Date(input.startedAt).toISOString(),
    ipAddress: input.ipAddress ?? NO_VALUE,
    ...energyStateValues(input.energy, input.goals),
  };
  if (input.publishTagIds) {
    values.tagId = system.transaction?.tagId ?? NO_VALUE;
    values.userId = system.transaction?.userId ?? NO_VALUE;
  }
  return values;
}

/** The topics of the tag id and user id (published only when allowed, cleared when no longer allowed). */
export const TAG_TOPICS = ['tagId', 'userId'] as const;

/** Every topic that may hold a retained value (cleared when retain is off): the single values and the JSON state. */
/** The meter values' topics (all numbers), published at most once per interval. */
const METER_TOPICS = [
  'power',
  'meterEnergy',
  'sessionEnergy',
  'currentL1',
  'currentL2',
  'currentL3',
  'voltageL1',
  'voltageL2',
  'voltageL3',
  'temperature',
  'transactionDuration',
] as const;

export const RETAINABLE_TOPICS: readonly string[] = [
  ...['systemState', 'connectionState', 'authState', 'ocppState', 'type2State', 'transactionActive', 'messages'],
  ...['chargingEnabled', 'maxCurrent', 'loadLimit', 'loadLimitState', ...TAG_TOPICS],
  ...['offeredCurrent', 'pluggedIn', 'charging', 'problem', 'cableLocked', 'paused', 'transactionStart', 'lastSessionEnergy'],
  ...['backendConnected', 'startedAt', 'ipAddress'],
  ...METER_TOPICS,
  ...ENERGY_STATE_TOPICS,
  ...ENERGY_MEASURED_TOPICS,
  'state',
];

const flag = (on: boolean): string => (on ? '1' : '0');

/**
 * The meter values: power, energies, currents and voltages per phase, temperature, transaction duration; and energy
 * management's measured values (limits, inputs, today's energy).
 */
export function meterValues(input: Pick<PublishedInput, 'system' | 'core' | 'energy'>): Values {
  const { system, core } = input;
  const meter = core.meter;
  return {
    power: numberOr(meter?.powerW),
    meterEnergy: numberOr(meter?.energyWh),
    sessionEnergy: String(system.transaction?.consumption ?? 0),
    currentL1: numberOr(meter?.currentsA[0]),
    currentL2: numberOr(meter?.currentsA[1]),
    currentL3: numberOr(meter?.currentsA[2]),
    voltageL1: numberOr(meter?.voltagesV?.[0]),
    voltageL2: numberOr(meter?.voltagesV?.[1]),
    voltageL3: numberOr(meter?.voltagesV?.[2]),
    temperature: numberOr(system.ambientTemp),
    transactionDuration: String(system.transaction?.transactionDuration ?? 0),
    ...energyMeasuredValues(input.energy),
  };
}

/** A single-value payload as a JSON value (numbers as numbers, `None` as null). */
function jsonValue(topic: string, payload: string): unknown {
  if (payload === NO_VALUE) return null;
  if (topic === 'messages') return JSON.parse(payload) as unknown;
  if (FLAGS.has(topic)) return payload === '1';
  return NUMERIC.has(topic) ? Number(payload) : payload;
}

/** The topics whose payload is `1` or `0` (booleans in the JSON state). */
const FLAGS: ReadonlySet<string> = new Set([
  'transactionActive',
  'chargingEnabled',
  'pluggedIn',
  'charging',
  'problem',
  'cableLocked',
  'paused',
  'backendConnected',
]);
/** The topics whose payload is a number. */
const NUMERIC: ReadonlySet<string> = new Set(['maxCurrent', 'loadLimit', 'offeredCurrent', 'lastSessionEnergy', ...METER_TOPICS, ...ENERGY_NUMERIC_TOPICS]);

/**
 * The JSON state topic: every single value in one object (the meter values as last published, so they too change
 * at most once per interval), plus the transaction's id and start.
 */
export function jsonState(states: Values, meter: Values, system: SystemState): string {
  const out: Record<string, unknown> = {};
  for (const [topic, payload] of Object.entries({ ...states, ...meter })) out[topic] = jsonValue(topic, payload);
  nestLimits(out);
  out.transaction = system.transaction ? { transactionId: system.transaction.transactionId, transactionStart: system.transaction.transactionStart } : null;
  return JSON.stringify(out);
}
