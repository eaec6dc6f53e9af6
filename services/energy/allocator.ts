import { MIN_CHARGE_CURRENT_A } from '../../machines/charge-cycle.js';
import { NOMINAL_VOLTAGE } from '../ocpp/smart-charging.js';

/**
 * The allocator (docs/energy.md): from every source that may limit the charge point it computes, about once a
 * second, the current per phase and the phase count to offer, and says why. Pure: no I/O, no clock (time is
 * `input.now`), the previous result comes in as input.
 *
 * Rules, each proved by test/energy/allocator.test.ts:
 * - the lowest limit wins, and the result names it (`reason`) and lists every limit (`limits`);
 * - never below 6 A while charging (IEC 61851-1: no valid PWM below 6 A): below that the result is 0 A, a pause;
 * - a timed input (grid meter, grid operator's heartbeat, site share) older than its maximum age, or missing, is
 *   replaced by its documented safe value (`ENERGY_DEFAULTS`);
 * - the current rises by at most `rampUpA` per step (from a pause: to 6 A first); it falls at once, because a
 *   limit is never exceeded to smooth a fall.
 */

export type Phases = 1 | 3;
export type SolarMode = 'fast' | 'solar' | 'minSolar';

/** Every source that may limit the current, in the order a tie is reported (the most specific first). */
export const LIMIT_SOURCES = [
  'pause',
  'session',
  'schedule',
  'gridOperator',
  'solar',
  'site',
  'ocpp',
  'mqtt',
  'supply',
  'maxCurrent',
  'cable',
  'hardware',
] as const;
export type LimitSource = (typeof LIMIT_SOURCES)[number];

/** How a source's limit was found: `off` (not configured, limits nothing), `fresh`, or `safe` (stale or missing: its safe value). */
export type LimitStatus = 'off' | 'fresh' | 'safe';

/** A value from outside with the time it was measured or received (UTC ms). */
export interface Timed<T> {
  value: T;
  at: number;
}

/** A value per line of the supply: L1, L2, L3. */
export type PerLine = readonly [number, number, number];

export interface AllocatorInput {
  /** The time of this step (UTC ms). */
  now: number;
  /** Phase count the contactors connect now, the wired phases, and whether a phase switch is installed. */
  phases: { actual: Phases; wired: Phases; switchable: boolean; forced: Phases | null };
  /** The hardware's rating (A), and the cable's (A, from the PP resistor; null for a fixed cable). */
  hardware: { ratedA: number; cableA: number | null };
  /** The MaxCurrent setting (A). */
  maxCurrentA: number;
  /** PhaseCurrentLimits: the supply's limits on L1, L2, L3 (A). One phase is charged on L1. */
  supplyA: PerLine;
  /** The central system's composite limit (A per phase; services/ocpp/smart-charging.ts), its numberPhases; null: no profile. */
  ocpp: { amps: number | null; numberPhases?: Phases } | null;
  /** The MQTT load limit as machines/mqtt.ts applies it (its refresh time and fallback already resolved); null: off. */
  mqttA: number | null;
  /** Grid-operator limit (W; null: unlimited) with its last heartbeat; null: not configured. */
  gridOperator: Timed<number | null> | null;
  /** This charger's site share (A per line, site-share.ts) and when it was computed; null: not on a site. */
  site: Timed<PerLine> | null;
  /** Solar: the mode, the smoothed surplus available to the EV (W: export plus the EV's own draw), the start/stop gate (machines/solar.ts). */
  solar: { mode: SolarMode; surplusW: Timed<number> | null; run: boolean };
  /** The schedule allows charging now; null: no schedule. */
  schedule: { allowed: boolean } | null;
  /** The user's limit of the running charge (services/charge-control.ts; A): 0 paused, else the chosen current; null: none. */
  userLimitA?: number | null;
  /** A session limit (energy, duration; services/energy/session-goals.ts) is reached: 0 A. */
  sessionLimit?: boolean;
  /** The previous step's result; null at the first step. */
  previous: { currentA: number; phases: Phases } | null;
}

/** Parameters with their defaults; docs/energy.md gives the reasoning. */
export interface EnergyParams {
  /** The most the offered current rises per step (A). */
  rampUpA: number;
  /** Surplus older than this is stale (ms). */
  surplusMaxAgeMs: number;
  /** The grid operator's heartbeat older than this: failsafe (ms). */
  gridOperatorMaxAgeMs: number;
  /** The grid operator's failsafe limit (W), the German §14a rule. */
  gridOperatorFailsafeW: number;
  /** A site share older than this is stale (ms). */
  siteMaxAgeMs: number;
  /** The share per line while the site share is stale (A). */
  siteSafeA: number;
  /** Power above the three-phase minimum needed before three phases are preferred (W). */
  phaseHysteresisW: number;
}

export const ENERGY_DEFAULTS: EnergyParams = {
  rampUpA: 2,
  surplusMaxAgeMs: 60_000,
  gridOperatorMaxAgeMs: 300_000,
  gridOperatorFailsafeW: 4_200,
  siteMaxAgeMs: 10_000,
  siteSafeA: 0,
  phaseHysteresisW: 200,
};

export interface LimitReport {
  source: LimitSource;
  /** The limit in A per phase at the allocation's phase count; null when it limits nothing. */
  amps: number | null;
  status: LimitStatus;
}

export interface Allocation {
  /** The current to offer per phase (A): 0 (pause) or at least 6. */
  currentA: number;
  /** The phase count it is offered on (the contactors' now). */
  phases: Phases;
  /** The current per line (A): currentA on the phases in use (one phase: L1), 0 elsewhere. */
  perLineA: PerLine;
  /** The lowest limit before the ramp (A per phase); below 6: a pause. */
  targetA: number;
  /** Why: the source whose limit is lowest, or `ramp` while the ramp holds the current below it. */
  reason: LimitSource | 'ramp';
  /** Every source's limit. */
  limits: LimitReport[];
  /** The phase count the limits prefer (the phase switch acts on it, with its own hold times). */
  preferredPhases: Phases;
}

/** Watts to amperes per phase at the nominal voltage. */
export const wattsToAmps = (watts: number, phases: Phases): number => watts / (NOMINAL_VOLTAGE * phases);
/** The power of `amps` per phase on `phases` phases at the nominal voltage (W). */
export const ampsToWatts = (amps: number, phases: Phases): number => amps * NOMINAL_VOLTAGE * phases;

/** The lowest value of a per-line limit over the lines `phases` phases use (one phase: L1). */
const onLines = (perLine: PerLine, phases: Phases): number => (phases === 1 ? perLine[0] : Math.min(...perLine));

const fresh = <T>(input: Timed<T> | null, now: number, maxAgeMs: number): input is Timed<T> => input !== null && now - input.at <= maxAgeMs && input.at <= now;

/** Every source's limit for `phases` phases. */
export function limitsFor(input: AllocatorInput, phases: Phases, params: EnergyParams = ENERGY_DEFAULTS): LimitReport[] {
  const { now } = input;
  const report = (source: LimitSource, amps: number | null, status: LimitStatus): LimitReport => ({ source, amps, status });
  const out: LimitReport[] = [];

  out.push(report('pause', input.userLimitA ?? null, input.userLimitA === undefined ? 'off' : 'fresh'));
  out.push(report('session', input.sessionLimit ? 0 : null, input.sessionLimit === undefined ? 'off' : 'fresh'));

  out.push(report('schedule', input.schedule === null || input.schedule.allowed ? null : 0, input.schedule === null ? 'off' : 'fresh'));

  const op = input.gridOperator;
  if (op === null) out.push(report('gridOperator', null, 'off'));
  else if (fresh(op, now, params.gridOperatorMaxAgeMs)) out.push(report('gridOperator', op.value === null ? null : wattsToAmps(op.value, phases), 'fresh'));
  else out.push(report('gridOperator', wattsToAmps(params.gridOperatorFailsafeW, phases), 'safe'));

  out.push(solarLimit(input, phases, params));

  const site = input.site;
  if (site === null) out.push(report('site', null, 'off'));
  else if (fresh(site, now, params.siteMaxAgeMs)) out.push(report('site', onLines(site.value, phases), 'fresh'));
  else out.push(report('site', params.siteSafeA, 'safe'));

  out.push(report('ocpp', input.ocpp?.amps ?? null, input.ocpp === null ? 'off' : 'fresh'));
  out.push(report('mqtt', input.mqttA, input.mqttA === null ? 'off' : 'fresh'));
  out.push(report('supply', onLines(input.supplyA, phases), 'fresh'));
  out.push(report('maxCurrent', input.maxCurrentA, 'fresh'));
  out.push(report('cable', input.hardware.cableA, input.hardware.cableA === null ? 'off' : 'fresh'));
  out.push(report('hardware', input.hardware.ratedA, 'fresh'));
  return out;
}

/**
 * Solar: Fast limits nothing; Min + Solar offers at least 6 A (from the grid) plus the surplus; Solar offers the
 * surplus while the start/stop logic runs (at least 6 A: its stop delay rides out a dip at the minimum) and nothing
 * while it pauses. A stale or missing surplus counts as none: Solar pauses, Min + Solar keeps 6 A.
 */
function solarLimit(input: AllocatorInput, phases: Phases, params: EnergyParams): LimitReport {
  const { mode, run } = input.solar;
  if (mode === 'fast') return { source: 'solar', amps: null, status: 'off' };
  const surplusA = surplusAmps(input, phases, params);
  const status: LimitStatus = surplusA === null ? 'safe' : 'fresh';
  if (mode === 'minSolar') return { source: 'solar', amps: Math.max(MIN_CHARGE_CURRENT_A, surplusA ?? 0), status };
  return { source: 'solar', amps: run && surplusA !== null ? Math.max(MIN_CHARGE_CURRENT_A, surplusA) : 0, status };
}

/** The surplus in A per phase on `phases` phases (never negative); null when stale or missing. */
function surplusAmps(input: AllocatorInput, phases: Phases, params: EnergyParams): number | null {
  const { surplusW } = input.solar;
  return fresh(surplusW, input.now, params.surplusMaxAgeMs) ? Math.max(0, wattsToAmps(surplusW.value, phases)) : null;
}

/** The lowest limit and its source (ties: the first in LIMIT_SOURCES). */
function lowest(limits: LimitReport[]): { amps: number; source: LimitSource } {
  let best: { amps: number; source: LimitSource } = { amps: Number.POSITIVE_INFINITY, source: 'hardware' };
  for (const l of limits) if (l.amps !== null && l.amps < best.amps) best = { amps: l.amps, source: l.source };
  return best;
}

/** Rounded down to 0.1 A, so rounding never lifts the current over a limit (the epsilon absorbs float error). */
const floorTenth = (amps: number): number => Math.floor(amps * 10 + 1e-9) / 10;

/**
 * The phase count the limits prefer: the wired count without a switch; the forced count; else the central system's
 * numberPhases; else three phases when they allow 6 A (from one phase: with `phaseHysteresisW` more), else one. In
 * Solar and Min + Solar the surplus itself counts (not the 6 A those modes hold while the start/stop logic runs).
 */
export function preferredPhases(input: AllocatorInput, params: EnergyParams = ENERGY_DEFAULTS): Phases {
  const { wired, switchable, forced, actual } = input.phases;
  if (wired === 1 || !switchable) return wired;
  if (forced !== null) return forced;
  if (input.ocpp?.numberPhases !== undefined) return input.ocpp.numberPhases;
  const limits = limitsFor(input, 3, params);
  if (input.solar.mode !== 'fast') limits.find((l) => l.source === 'solar')!.amps = surplusAmps(input, 3, params) ?? 0;
  const three = lowest(limits).amps;
  const margin = actual === 1 ? wattsToAmps(params.phaseHysteresisW, 3) : 0;
  return three >= MIN_CHARGE_CURRENT_A + margin ? 3 : 1;
}

/** One step of the allocator. */
export function allocate(input: AllocatorInput, params: EnergyParams = ENERGY_DEFAULTS): Allocation {
  const phases = input.phases.actual;
  const limits = limitsFor(input, phases, params);
  const low = lowest(limits);
  const targetA = low.amps >= MIN_CHARGE_CURRENT_A ? floorTenth(low.amps) : 0;
  // After a pause or a phase change the current starts again at 6 A; otherwise it rises by the ramp at most.
  const previousA = input.previous && input.previous.phases === phases ? input.previous.currentA : 0;
  const ceiling = previousA < MIN_CHARGE_CURRENT_A ? MIN_CHARGE_CURRENT_A : previousA + params.rampUpA;
  const currentA = Math.min(targetA, floorTenth(ceiling));
  const perLineA: PerLine = phases === 1 ? [currentA, 0, 0] : [currentA, currentA, currentA];
  return {
    currentA,
    phases,
    perLineA,
    targetA,
    reason: currentA < targetA ? 'ramp' : low.source,
    limits,
    preferredPhases: preferredPhases(input, params),
  };
}

const SOURCE_WORDS: Record<LimitSource | 'ramp', string> = {
  pause: 'the user',
  session: 'the session limit',
  schedule: 'the schedule',
  gridOperator: 'the grid operator',
  solar: 'solar surplus',
  site: 'the site share',
  ocpp: 'the central system',
  mqtt: 'the MQTT load limit',
  supply: 'the supply limit',
  maxCurrent: 'the maximum current setting',
  cable: 'the cable',
  hardware: 'the charger hardware',
  ramp: 'the ramp',
};

/** The reason in words, for people: "Limited to 9 A by solar surplus", "Paused by the schedule". */
export function describeAllocation(a: Pick<Allocation, 'currentA' | 'reason'>): string {
  if (a.currentA === 0) return `Paused by ${SOURCE_WORDS[a.reason]}`;
  return `Limited to ${a.currentA} A by ${SOURCE_WORDS[a.reason]}`;
}
