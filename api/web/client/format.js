// Numbers, dates and durations in the page's language.
import { lang, LANGUAGES } from './i18n.js';

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

export const dateTime = (iso) => new Intl.DateTimeFormat(locale(), { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));
/** A time of day (hh:mm:ss) from epoch milliseconds. */
export const clockTime = (ms) => new Intl.DateTimeFormat(locale(), { timeStyle: 'medium' }).format(new Date(ms));
export const date = (iso) => new Intl.DateTimeFormat(locale(), { dateStyle: 'medium' }).format(new Date(iso));

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
