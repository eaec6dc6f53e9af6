/**
 * Today's energy into the vehicle by where it came from (Wh, the local day): each step's charging energy split by
 * the share the solar surplus covered (surplus / charging power, 0..1); the rest came from the grid. Kept in memory:
 * a restart starts the day's figures again (they are shown, never billed). Pure: time and the day's key come in.
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
export const localDay = (at: number, timeZone?: string): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

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
