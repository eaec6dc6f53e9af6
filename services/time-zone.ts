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

/** The operating system's time zone as the process sees it (TZ, else /etc/localtime). */
export const systemTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The zone in use: the setting, or where it is empty the system's (`system`: a test's stand-in for it). */
export const timeZoneOf = (setting: string, system: string = systemTimeZone()): string => (setting !== '' ? setting : system);

/** The offset from UTC of `at` in `timeZone`, as ISO 8601 writes it (`+01:00`, `-03:30`, `+00:00`). */
export function offsetOf(at: number, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
  const m = /^GMT([+-]\d{2}:\d{2})$/.exec(name ?? '');
  return m ? m[1]! : '+00:00';
}
