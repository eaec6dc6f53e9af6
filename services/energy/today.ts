import { localClock } from '../time-zone.js';

/**
 * Today's energy into the vehicle by where it came from (Wh, the local day): each step's charging energy split by
 * the share the solar surplus covered (surplus / charging power, 0..1); the rest came from the grid. They are shown,
 * never billed; today-store.ts writes them (when `todaySaveDue`) so a restart keeps the day's figures. Pure: time and
 * the day's key come in.
 */

export interface TodayEnergy {
  /** The local day the figures belong to (YYYY-MM-DD). */
  day: string;
  solarWh: number;
  gridWh: number;
  /** The time of the last step (ms). */
  at: number;
}

/** Steps further apart than this (a stalled loop) add nothing: the power in between is unknown. */
const MAX_STEP_MS = 10_000;

/** The local day of `at` in `timeZone` (undefined: the process's). */
export const localDay = (at: number, timeZone?: string): string => localClock(at, timeZone).toISOString().slice(0, 10);

/** The figures after a step at `at` with the charging power (W) and the surplus (W; null: unknown, counted as grid). */
export function addStep(today: TodayEnergy | null, at: number, chargingW: number, surplusW: number | null, timeZone?: string): TodayEnergy {
  const day = localDay(at, timeZone);
  const base = today && today.day === day ? today : { day, solarWh: 0, gridWh: 0, at };
  const dt = today ? at - today.at : 0;
  if (dt <= 0 || dt > MAX_STEP_MS || chargingW <= 0) return { ...base, at };
  const wh = (chargingW * dt) / 3_600_000;
  const share = surplusW === null ? 0 : Math.min(1, Math.max(0, surplusW / chargingW));
  return { day, solarWh: base.solarWh + wh * share, gridWh: base.gridWh + wh * (1 - share), at };
}

/**
 * While charging, today's figures are written at most this often (ms): an SD card is worn by writes, and what a
 * power cut loses is at most these minutes of shown (never billed) energy.
 */
export const TODAY_SAVE_INTERVAL_MS = 5 * 60_000;

/** What was last written: its figures and when (ms of the same clock as the steps). */
export interface TodaySaved {
  day: string;
  solarWh: number;
  gridWh: number;
  at: number;
}

/**
 * Whether today's figures are to be written now: only when they hold energy not yet written (so never while idle: an
 * idle day adds nothing, and a day with nothing written restores as zero), and then at a transaction's end, at a day
 * change, or when the last write is `TODAY_SAVE_INTERVAL_MS` old.
 */
export function todaySaveDue(today: TodayEnergy, saved: TodaySaved | null, transactionEnded: boolean, at: number): boolean {
  const sameDay = saved !== null && saved.day === today.day;
  const unsaved = sameDay ? today.solarWh !== saved.solarWh || today.gridWh !== saved.gridWh : today.solarWh + today.gridWh > 0;
  if (!unsaved) return false;
  return transactionEnded || !sameDay || at - saved.at >= TODAY_SAVE_INTERVAL_MS;
}
