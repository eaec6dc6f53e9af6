import { localClock } from '../time-zone.js';

/**
 * The charging schedule (setting ChargingSchedule): weekly windows in the controller's time zone,
 * `Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00`. A window whose end is not after its start runs past midnight into the
 * next day (Friday 22:00-06:00 allows Saturday until 06:00). Pure: the time and the time zone come in.
 */

const DAYS = ['Su', 'Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa'] as const;
const MINUTES_PER_DAY = 1440;
const MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY;

/** A window as minutes of the week (Sunday 00:00 = 0); `end` may pass the week's end. */
interface Window {
  start: number;
  end: number;
}

export type Schedule = Window[];

const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The windows of a setting's text; null for an empty text (no schedule: always allowed). Throws on a malformed text. */
export function parseSchedule(text: string): Schedule | null {
  if (text.trim() === '') return null;
  const windows: Window[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*(\w\w)(?:-(\w\w))?\s+(\d\d:\d\d)-(\d\d:\d\d)\s*$/.exec(part);
    const first = m ? DAYS.indexOf(m[1] as (typeof DAYS)[number]) : -1;
    const last = m?.[2] !== undefined ? DAYS.indexOf(m[2] as (typeof DAYS)[number]) : first;
    if (!m || first < 0 || last < 0) throw new Error(`not a schedule window: ${part.trim()}`);
    const from = minutes(m[3]!);
    let to = minutes(m[4]!);
    if (to <= from) to += MINUTES_PER_DAY;
    // Day ranges wrap over the week: Sa-Mo is Saturday, Sunday, Monday.
    for (let d = first, n = 0; n < 7; d = (d + 1) % 7, n++) {
      windows.push({ start: d * MINUTES_PER_DAY + from, end: d * MINUTES_PER_DAY + to });
      if (d === last) break;
    }
  }
  return windows;
}

/** Weekday (0 Sunday) and minute of the day of `at` in `timeZone` (undefined: the process's). */
export function localMinuteOfWeek(at: number, timeZone?: string): number {
  const local = localClock(at, timeZone);
  return local.getUTCDay() * MINUTES_PER_DAY + local.getUTCHours() * 60 + local.getUTCMinutes();
}

const inWindow = (w: Window, minute: number): boolean =>
  (minute >= w.start && minute < w.end) || (w.end > MINUTES_PER_WEEK && minute + MINUTES_PER_WEEK < w.end);

/** Whether the schedule allows charging at `at`. */
export function scheduleAllows(schedule: Schedule, at: number, timeZone?: string): boolean {
  const minute = localMinuteOfWeek(at, timeZone);
  return schedule.some((w) => inWindow(w, minute));
}

/** Minutes until the schedule next allows charging (0: now); null without any window. */
export function minutesUntilAllowed(schedule: Schedule, at: number, timeZone?: string): number | null {
  if (schedule.length === 0) return null;
  const minute = localMinuteOfWeek(at, timeZone);
  if (schedule.some((w) => inWindow(w, minute))) return 0;
  return Math.min(...schedule.map((w) => (w.start - minute + MINUTES_PER_WEEK) % MINUTES_PER_WEEK));
}
