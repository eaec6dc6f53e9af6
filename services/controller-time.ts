import { execFile } from 'node:child_process';
import type { Settings } from './settings/index.js';
import { offsetOf, timeZoneOf } from './time-zone.js';

/** How long an answer of the system's time service is reused (it costs a process). */
const NTP_CACHE_MS = 60_000;

/** Whether the system clock is synchronised by NTP (systemd's `timedatectl`); null where that cannot be told. */
export function systemNtpSynchronized(): Promise<boolean | null> {
  return new Promise((resolve) => {
    execFile('timedatectl', ['show', '-p', 'NTPSynchronized', '--value'], { timeout: 2000 }, (err, stdout) => {
      const answer = err ? '' : stdout.trim();
      resolve(answer === 'yes' ? true : answer === 'no' ? false : null);
    });
  });
}

export interface ControllerTimeView {
  /** The controller's wall clock (UTC). */
  time: string;
  timeZone: string;
  /** The offset of `time` in the zone (`+01:00`). */
  offset: string;
  /** Who set the clock last: the OCPP central system (it differed by over 2 s), else the system (NTP or not). */
  source: 'ocpp' | 'system';
  /** The system clock synchronised by NTP: true, false, or null (not known here). */
  ntpSynchronized: boolean | null;
  /** When the central system last set the clock (UTC), or null. */
  centralSetAt: string | null;
}

/**
 * The controller's time as people read it: the wall clock, the time zone in use (the TimeZone setting, else
 * `systemZone`: the operating system's, or a test's stand-in for it) and where the time comes from.
 */
export function createControllerTime(deps: {
  now: () => number;
  settings: Pick<Settings, 'get'>;
  systemZone?: string | undefined;
  ntpSynchronized?: () => Promise<boolean | null>;
}) {
  const ntp = deps.ntpSynchronized ?? systemNtpSynchronized;
  let centralSetAt: number | null = null;
  let cached: { at: number; value: boolean | null } | null = null;
  const timeZone = () => timeZoneOf(deps.settings.get('TimeZone'), deps.systemZone);
  return {
    timeZone,
    /** The OCPP central system has just set the clock. */
    setByCentralSystem(): void {
      centralSetAt = deps.now();
    },
    async read(): Promise<ControllerTimeView> {
      if (!cached || Math.abs(Date.now() - cached.at) > NTP_CACHE_MS) cached = { at: Date.now(), value: await ntp() };
      const at = deps.now();
      const zone = timeZone();
      return {
        time: new Date(at).toISOString(),
        timeZone: zone,
        offset: offsetOf(at, zone),
        source: centralSetAt === null ? 'system' : 'ocpp',
        ntpSynchronized: cached.value,
        centralSetAt: centralSetAt === null ? null : new Date(centralSetAt).toISOString(),
      };
    },
  };
}

export type ControllerTime = ReturnType<typeof createControllerTime>;
