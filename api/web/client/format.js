// Numbers, dates and durations in the page's language; times in the controller's time zone (clock.js sets it).
import { signal } from '@preact/signals';
import { lang, LANGUAGES } from './i18n.js';

/** The controller's time zone (IANA, from GET /v1/time); undefined until known: the browser's. */
export const displayZone = signal(undefined);

const locale = () => (LANGUAGES.find((l) => l.key === lang.value) || LANGUAGES[0]).locale;

export const number = (value, digits = 0) => new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);

export const kW = (watts) => `${number(watts / 1000, 2)} kW`;
export const kWh = (wattHours) => `${number(wattHours / 1000, 2)} kWh`;
export const amps = (a) => `${number(a, 1)} A`;
export const celsius = (c) => `${number(c, 1)} °C`;

/** Seconds as h:mm:ss. */
export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `${hh}:${mm}:${ss}`;
}

const zoned = (options) => new Intl.DateTimeFormat(locale(), { ...options, timeZone: displayZone.value });
export const dateTime = (iso) => zoned({ dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));
/** A time of day (hh:mm:ss) from epoch milliseconds. */
export const clockTime = (ms) => zoned({ timeStyle: 'medium' }).format(new Date(ms));
export const date = (iso) => zoned({ dateStyle: 'medium' }).format(new Date(iso));
/** A time in UTC, as a person reads it (`… UTC`): where the API says UTC (the ControllerTime_custom setting). */
export const utcDateTime = (iso) =>
  `${new Intl.DateTimeFormat(locale(), { dateStyle: 'short', timeStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso))} UTC`;

/** The offset from UTC of `ms` in the controller's zone, as ISO 8601 writes it (`+01:00`). */
export function offsetOf(ms) {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: displayZone.value, timeZoneName: 'longOffset' }).formatToParts(new Date(ms));
  const m = /GMT([+-]\d{2}:\d{2})/.exec((name.find((p) => p.type === 'timeZoneName') || {}).value || '');
  return m ? m[1] : '+00:00';
}
const offsetMs = (ms) => {
  const o = offsetOf(ms);
  const [h, m] = o.slice(1).split(':').map(Number);
  return (o[0] === '-' ? -1 : 1) * (h * 60 + m) * 60_000;
};

/** `ms` as an ISO 8601 local time of the controller's zone with its offset (`2026-06-01T10:00:00+02:00`). */
export function isoLocal(ms) {
  const local = new Date(ms + offsetMs(ms)).toISOString().slice(0, 19);
  return `${local}${offsetOf(ms)}`;
}

/** The moment a wall time of the controller's zone names (`2026-06-01`, hour…), as epoch ms. */
export function zonedMs(y, mo, d, h = 0, mi = 0, s = 0, ms = 0) {
  const wall = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const first = wall - offsetMs(wall);
  // Across a change of offset (summer time) the offset at the moment itself counts.
  return wall - offsetMs(first);
}

/**
 * Rows as CSV (RFC 4180: comma, CRLF, quotes doubled). A text cell that a spreadsheet would run as a formula
 * (starting with =, +, -, @, tab or CR) gets a leading apostrophe, since tag ids and names come from outside.
 */
export function toCsv(rows) {
  const cell = (v) => {
    if (v === undefined || v === null) return '';
    let text = String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
