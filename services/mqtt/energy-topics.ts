import { LIMIT_SOURCES, type SolarMode } from '../energy/allocator.js';
import type { EnergyStatus } from '../energy/contracts.js';
import type { EnergySettings } from '../energy/settings-of.js';
import { NO_VALUE, numberOr } from './payload.js';

/**
 * Energy management on MQTT (docs/mqtt.md): the allocation as `EnergyStatus` reports it, as single-value topics
 * below the base topic, in the two groups of the other topics (services/mqtt/state.ts):
 * - states (at once): the mode, the offered current, the phase count, the reason (a word and a sentence), the solar
 *   logic's state and each limit's status;
 * - measured (at most once per interval, with the meter values): each limit's amps, the inputs (grid power per line
 *   and total, surplus, grid operator's limit, site share per line) and today's energy from the sun and the grid.
 * - goals (states): the schedule and the session's limits and departure, the settings the goal commands write.
 * Without energy management (no `EnergyControl`) none of them is published.
 */

/** The schedule and session goals as the settings hold them. */
export type EnergyGoals = Pick<EnergySettings, 'schedule' | 'departure' | 'sessionLimits'>;
/** Their topics: text (`None` while empty: off) and numbers (0: off). */
const GOAL_TEXT_TOPICS = ['chargingSchedule', 'departureTime'] as const;
const GOAL_NUMERIC_TOPICS = ['departureEnergy', 'sessionEnergyLimit', 'sessionDurationLimit'] as const;

/** The modes in the words of the API and the command (`fast`, `solar`, `minSolar`). */
export const SOLAR_MODES: readonly SolarMode[] = ['fast', 'solar', 'minSolar'];
/** What `energyReason` may say: a limit's source, or `ramp` (rising towards it). */
export const ENERGY_REASONS: readonly string[] = [...LIMIT_SOURCES, 'ramp'];
export const SOLAR_STATES = ['bypassed', 'paused', 'charging'] as const;

const LINES = ['L1', 'L2', 'L3'] as const;
const limitTopic = (source: string) => `limit/${source}`;
const limitStatusTopic = (source: string) => `limit/${source}/status`;

/** The topics published at once. */
export const ENERGY_STATE_TOPICS: readonly string[] = [
  ...['chargingMode', 'energyCurrent', 'energyPhases', 'energyReason', 'energyDescription', 'solarState'],
  ...LIMIT_SOURCES.map(limitStatusTopic),
  ...GOAL_TEXT_TOPICS,
  ...GOAL_NUMERIC_TOPICS,
];
/** The topics published with the meter values. */
export const ENERGY_MEASURED_TOPICS: readonly string[] = [
  ...LIMIT_SOURCES.map(limitTopic),
  ...['gridPower', ...LINES.map((l) => `gridPower${l}`), 'surplus', 'gridOperatorLimit', ...LINES.map((l) => `siteShare${l}`)],
  ...['solarEnergyToday', 'gridEnergyToday'],
];
/** The topics whose payload is a number (numbers in the JSON state). */
export const ENERGY_NUMERIC_TOPICS: readonly string[] = ['energyCurrent', 'energyPhases', ...GOAL_NUMERIC_TOPICS, ...ENERGY_MEASURED_TOPICS];

/** The topics published at once; empty without energy management. */
export function energyStateValues(status: EnergyStatus | null, goals: EnergyGoals): Record<string, string> {
  if (!status) return {};
  const values: Record<string, string> = {
    chargingMode: status.mode,
    energyCurrent: numberOr(status.currentA, 1),
    energyPhases: String(status.phases),
    energyReason: status.reason,
    energyDescription: status.description,
    solarState: status.solar,
  };
  for (const source of LIMIT_SOURCES) values[limitStatusTopic(source)] = status.limits.find((l) => l.source === source)?.status ?? 'off';
  values.chargingSchedule = goals.schedule || NO_VALUE;
  values.departureTime = goals.departure.time || NO_VALUE;
  values.departureEnergy = String(goals.departure.energyKWh);
  values.sessionEnergyLimit = String(goals.sessionLimits.energyKWh);
  values.sessionDurationLimit = String(goals.sessionLimits.durationMin);
  return values;
}

/** The topics published with the meter values; empty without energy management. */
export function energyMeasuredValues(status: EnergyStatus | null): Record<string, string> {
  if (!status) return {};
  const { inputs, today } = status;
  const values: Record<string, string> = {};
  for (const source of LIMIT_SOURCES) values[limitTopic(source)] = numberOr(status.limits.find((l) => l.source === source)?.amps, 1);
  const grid = inputs.gridPowerW;
  values.gridPower = numberOr(grid ? grid[0] + grid[1] + grid[2] : null, 0);
  LINES.forEach((line, i) => (values[`gridPower${line}`] = numberOr(grid?.[i], 0)));
  values.surplus = numberOr(inputs.surplusW, 0);
  values.gridOperatorLimit = numberOr(inputs.gridOperatorW, 0);
  LINES.forEach((line, i) => (values[`siteShare${line}`] = numberOr(inputs.siteShareA?.[i], 1)));
  values.solarEnergyToday = numberOr(today.solarWh, 0);
  values.gridEnergyToday = numberOr(today.gridWh, 0);
  return values;
}

/**
 * The energy topics in the JSON state: `limit/<source>` and `limit/<source>/status` become
 * `limits: {<source>: {amps, status}}`, the others stay as they are.
 */
export function nestLimits(out: Record<string, unknown>): void {
  const limits: Record<string, { amps: unknown; status: unknown }> = {};
  for (const source of LIMIT_SOURCES) {
    const amps = limitTopic(source);
    const status = limitStatusTopic(source);
    if (!(amps in out) && !(status in out)) continue;
    limits[source] = { amps: out[amps] ?? null, status: out[status] ?? null };
    delete out[amps];
    delete out[status];
  }
  if (Object.keys(limits).length > 0) out.limits = limits;
}
