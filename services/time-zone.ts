import { readFileSync, readlinkSync } from 'node:fs';
import { parseTzif, tzifOffset } from './tzif.js';

/**
 * The controller's time zone (the TimeZone setting, services/time-zone-settings.ts): what an IANA name is, the zone
 * in use, and a moment's offset in it. One zone for the days of the energy history, schedules, departures, the web
 * interface's times and its exports. Every local date and time is the UTC reading of `at + offset`.
 *
 * Offsets come from the system's TZif files (services/tzif.ts), not Intl: the first Intl date format of a process
 * opens Node's ICU locale data, 6.3 MB of memory the controller would keep from its first second (docs/performance.md).
 */

/** Where the operating system keeps its zone files. */
export const ZONEINFO = '/usr/share/zoneinfo';

/**
 * An IANA zone name, checked before it names a file: letters, digits, `_+-` parts joined by `/`; no `.`, no leading
 * `/`. Not the `right/` files: their times count leap seconds, which the controller's clock (POSIX time) does not.
 */
export const isZoneName = (name: string): boolean => name.length <= 64 && /^[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)*$/.test(name) && !name.startsWith('right/');

/** Zones kept read (a zone each; the least recently read dropped first). */
export const ZONES_KEPT = 16;

/** The offset (seconds east of UTC) of a UTC second in one zone. */
type OffsetAt = (t: number) => number;

/** The zone file of `name` under `directory`, parsed; null where there is none or it is no TZif file. */
function readZoneFile(directory: string, name: string): OffsetAt | null {
  if (!isZoneName(name)) return null;
  try {
    const zone = parseTzif(readFileSync(`${directory}/${name}`));
    return (t) => tzifOffset(zone, t);
  } catch {
    return null;
  }
}

/**
 * The offsets of `name` as Intl reads them (throws RangeError for a name it does not know). The fallback for a zone
 * without a readable TZif file (no tzdata installed, or a name only ICU knows, such as a differently cased one): what
 * worked with Intl keeps working, at the cost of the ICU data for that process. The formatter is made once per zone:
 * each holds about 20 kB of ICU memory outside V8's heap.
 */
export function intlOffsets(name: string): OffsetAt {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    ...{ year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' },
  });
  return (t) => {
    const p: Record<string, number> = {};
    for (const { type, value } of format.formatToParts(t * 1000)) p[type] = Number(value);
    return (Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000 - t) | 0;
  };
}

/** The offsets of zones read from the TZif files under `directory` (a test's own directory; else the system's). */
export function createZoneOffsets(directory: string = ZONEINFO) {
  const kept = new Map<string, OffsetAt>();
  const offsetsOf = (name: string): OffsetAt => {
    let offsets = kept.get(name);
    if (!offsets) {
      offsets = readZoneFile(directory, name) ?? intlOffsets(name);
      kept.set(name, offsets);
      if (kept.size > ZONES_KEPT) kept.delete(kept.keys().next().value!);
    }
    return offsets;
  };
  return {
    /** The offset from UTC (ms) of `at` in zone `name`; throws RangeError for a zone neither a file nor Intl knows. */
    offsetMs: (at: number, name: string): number => offsetsOf(name)(Math.floor(at / 1000)) * 1000,
    /** Whether `name` is a zone: a TZif file, else a name Intl knows. */
    knows(name: string): boolean {
      if (!isZoneName(name)) return false;
      try {
        offsetsOf(name);
        return true;
      } catch {
        return false;
      }
    },
    /** How many zones are kept now (tests). */
    kept: (): number => kept.size,
  };
}

const zones = createZoneOffsets();

/** True for a time zone name this controller can read times in (a zone file, else Intl's ICU data). */
export const isTimeZone = (name: string): boolean => zones.knows(name);

/** The zone named by a path into the zone files (`/usr/share/zoneinfo/Europe/Berlin`, `../posix/Europe/Berlin`). */
function zoneOfPath(path: string): string | null {
  const i = path.lastIndexOf('zoneinfo/');
  const name = i < 0 ? '' : path.slice(i + 'zoneinfo/'.length).replace(/^(?:posix|right)\//, '');
  return isZoneName(name) ? name : null;
}

/**
 * The operating system's zone: TZ (a name, `:name` or a path to a zone file), else the zone /etc/localtime links to,
 * else /etc/timezone, else UTC; each only if it is a zone (`isTimeZone`), so the energy manager's every step does not
 * meet a name it cannot read. A TZ that names no zone (a POSIX rule such as `CET-1CEST`) is left to Intl, as the C
 * library would read it.
 */
function systemZoneOf(tz: string | undefined): string {
  if (tz !== undefined) {
    const name = tz.startsWith(':') ? tz.slice(1) : tz;
    const zone = name.startsWith('/') ? zoneOfPath(name) : name;
    if (zone !== null && zones.knows(zone)) return zone;
    return new Intl.DateTimeFormat().resolvedOptions().timeZone;
  }
  try {
    const zone = zoneOfPath(readlinkSync('/etc/localtime'));
    if (zone !== null && zones.knows(zone)) return zone;
  } catch {
    // Not a link (a copied file names no zone): /etc/timezone may.
  }
  try {
    const zone = readFileSync('/etc/timezone', 'utf8').trim();
    if (zones.knows(zone)) return zone;
  } catch {
    // None: UTC, as the C library assumes.
  }
  return 'UTC';
}

/** The operating system's time zone as the process sees it (TZ, else /etc/localtime); read again when TZ changes. */
export function systemTimeZone(): string {
  const tz = process.env.TZ;
  if (!system || system.tz !== tz) system = { tz, zone: systemZoneOf(tz) };
  return system.zone;
}
let system: { tz: string | undefined; zone: string } | undefined;

/** The zone in use: the setting, or where it is empty the system's (`system`: a test's stand-in for it). */
export const timeZoneOf = (setting: string, system: string = systemTimeZone()): string => (setting !== '' ? setting : system);

/** `at` moved by its offset in `timeZone` (undefined: the process's): its UTC getters read the local date and time. */
export const localClock = (at: number, timeZone?: string): Date => new Date(at + zones.offsetMs(at, timeZone ?? systemTimeZone()));

/** The offset from UTC of `at` in `timeZone`, as ISO 8601 writes it (`+01:00`, `-03:30`, `+00:00`; seconds dropped). */
export function offsetOf(at: number, timeZone: string): string {
  const minutes = Math.trunc(zones.offsetMs(at, timeZone) / 60_000);
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
