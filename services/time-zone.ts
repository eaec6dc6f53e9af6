/**
 * The controller's time zone (the TimeZone setting, services/time-zone-settings.ts): what an IANA name is, the zone
 * in use, and a moment's offset in it. One zone for the days of the energy history, schedules, departures, the web
 * interface's times and its exports.
 */

/** True for a time zone name this runtime knows (Intl, with the ICU data Node carries). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The operating system's time zone as the process sees it (TZ, else /etc/localtime); read again when TZ changes. */
export function systemTimeZone(): string {
  const tz = process.env.TZ;
  if (!system || system.tz !== tz) system = { tz, zone: new Intl.DateTimeFormat().resolvedOptions().timeZone };
  return system.zone;
}
let system: { tz: string | undefined; zone: string } | undefined;

/**
 * The formats the controller reads local dates and times with: `day` YYYY-MM-DD, `minuteOfWeek` weekday, hour and
 * minute (24 h), `offset` the zone's offset from UTC (`GMT+01:00`).
 */
const FORMATS = {
  day: ['en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }],
  minuteOfWeek: ['en-GB', { weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }],
  offset: ['en-US', { timeZoneName: 'longOffset' }],
} as const satisfies Record<string, readonly [string, Intl.DateTimeFormatOptions]>;
export type LocalFormat = keyof typeof FORMATS;

/** Formatters kept (a format in a zone each; the least recently made dropped first). */
export const ZONE_FORMATTERS_KEPT = 16;
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The formatter of `format` in `timeZone` (undefined: the process's), made once and kept. Each Intl.DateTimeFormat
 * holds about 20 kB of ICU memory outside V8's heap, which V8 does not count: made for every call (the energy
 * manager's every step, each row of the energy history), they piled up between full collections, 0.5 MB a second
 * in the safety bench (docs/performance.md).
 */
export function zoneFormatter(format: LocalFormat, timeZone?: string): Intl.DateTimeFormat {
  const key = `${format} ${timeZone ?? ''}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    const [locale, options] = FORMATS[format];
    formatter = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    formatters.set(key, formatter);
    if (formatters.size > ZONE_FORMATTERS_KEPT) formatters.delete(formatters.keys().next().value!);
  }
  return formatter;
}

/** How many formatters are kept now (tests). */
export const zoneFormattersKept = (): number => formatters.size;

/** The zone in use: the setting, or where it is empty the system's (`system`: a test's stand-in for it). */
export const timeZoneOf = (setting: string, system: string = systemTimeZone()): string => (setting !== '' ? setting : system);

/** The offset from UTC of `at` in `timeZone`, as ISO 8601 writes it (`+01:00`, `-03:30`, `+00:00`). */
export function offsetOf(at: number, timeZone: string): string {
  const name = zoneFormatter('offset', timeZone)
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /^GMT([+-]\d{2}:\d{2})$/.exec(name ?? '');
  return m ? m[1]! : '+00:00';
}
