import { MIN_CHARGE_CURRENT_A } from '../../machines/charge-cycle.js';
import { ampsToWatts, type Phases } from './allocator.js';
import { localMinuteOfWeek } from './schedule.js';

/**
 * What the user asks of one session (docs/energy.md, "Schedule and session limits"). Pure: the session's figures
 * and the time come in.
 * - Session limits: a session that charged `SessionEnergyLimit` kWh or ran `SessionDurationLimit` minutes is paused
 *   (0 A, reason `session`) until the vehicle is unplugged; its transaction goes on, so the user still ends it.
 * - Departure: the energy still missing by the departure time, at the current the other limits allow, needs a time;
 *   when the time left is no more than that plus `DEPARTURE_MARGIN_MIN`, the mode is overridden to Fast (solar first
 *   until then, the grid for what the sun cannot give in time).
 */

/** The margin before the departure (min): charging may slow down (the vehicle's taper, other limits). */
export const DEPARTURE_MARGIN_MIN = 30;

export interface SessionFigures {
  /** Energy charged in the session (Wh). */
  consumptionWh: number;
  /** When it started (UTC ms). */
  startedAt: number;
}

export interface SessionLimits {
  energyKWh: number;
  durationMin: number;
}

/** Which session limit is reached, if any. */
export function sessionLimitReached(session: SessionFigures, limits: SessionLimits, now: number): 'energy' | 'duration' | null {
  if (limits.energyKWh > 0 && session.consumptionWh >= limits.energyKWh * 1000) return 'energy';
  if (limits.durationMin > 0 && now - session.startedAt >= limits.durationMin * 60_000) return 'duration';
  return null;
}

/** Minutes from `now` to the next `hhmm` (local, in `timeZone`); 0..1439. */
export function minutesUntil(hhmm: string, now: number, timeZone?: string): number {
  const target = Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const current = localMinuteOfWeek(now, timeZone) % 1440;
  return (target - current + 1440) % 1440;
}

export interface Departure {
  time: string;
  energyKWh: number;
}

/**
 * Whether the departure target needs the grid now: the energy missing at `allowedA` (the lowest limit but solar,
 * at least 6 A) on `phases` takes at least the time left less the margin. False when off or reached.
 */
export function departureUrgent(departure: Departure, session: SessionFigures, allowedA: number, phases: Phases, now: number, timeZone?: string): boolean {
  if (departure.time === '' || departure.energyKWh <= 0) return false;
  const missingWh = departure.energyKWh * 1000 - session.consumptionWh;
  if (missingWh <= 0) return false;
  const watts = ampsToWatts(Math.max(MIN_CHARGE_CURRENT_A, allowedA), phases);
  const neededMin = (missingWh / watts) * 60;
  return minutesUntil(departure.time, now, timeZone) <= neededMin + DEPARTURE_MARGIN_MIN;
}
