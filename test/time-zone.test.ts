import { copyFileSync, mkdirSync, mkdtempSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { localMinuteOfWeek } from '../services/energy/schedule.js';
import { localDay } from '../services/energy/today.js';
import { createZoneOffsets, isTimeZone, offsetOf, systemTimeZone, ZONES_KEPT } from '../services/time-zone.js';
import { testWithZoneFiles as test } from './zone-files.js';

/**
 * Local dates and times are read from the system's TZif files (services/time-zone.ts), not Intl: the first Intl date
 * format of a process opens Node's ICU locale data (6.3 MB kept). Intl stays the fallback for a zone without a file.
 * test/tzif.test.ts compares the offsets with Intl's across zones and years.
 */

const Original = Intl.DateTimeFormat;
/** Intl.DateTimeFormat objects made since the test began (with or without `new`). */
let made = 0;
beforeEach(() => {
  made = 0;
  Intl.DateTimeFormat = new Proxy(Original, {
    construct(target, args: ConstructorParameters<typeof Original>) {
      made++;
      return Reflect.construct(target, args) as object;
    },
    apply(target, self, args: ConstructorParameters<typeof Original>) {
      made++;
      return Reflect.apply(target, self, args) as Intl.DateTimeFormat;
    },
  });
});
afterEach(() => {
  Intl.DateTimeFormat = Original;
});

/** 2026-03-28 23:30 UTC, a Saturday: Sunday 00:30 in Berlin (UTC+1 until the clocks change at 01:00 UTC). */
const AT = Date.UTC(2026, 2, 28, 23, 30);
const HOUR = 3_600_000;

test('the local day, minute of the week and offset are read from the zone files, without any Intl format', () => {
  for (let i = 0; i < 1000; i++) {
    expect(localDay(AT + i, 'Europe/Berlin')).toBe('2026-03-29');
    expect(localMinuteOfWeek(AT + i, 'Europe/Berlin')).toBe(30);
    expect(offsetOf(AT + i, 'Europe/Berlin')).toBe('+01:00');
    expect(localDay(AT + i, 'America/New_York')).toBe('2026-03-28');
    systemTimeZone();
  }
  // 01:00 UTC: 03:00 summer time, Sunday.
  expect(offsetOf(AT + 1.5 * HOUR, 'Europe/Berlin')).toBe('+02:00');
  expect(localMinuteOfWeek(AT + 1.5 * HOUR, 'Europe/Berlin')).toBe(3 * 60);
  expect(offsetOf(AT + 1.5 * HOUR - 1, 'Europe/Berlin')).toBe('+01:00');
  expect(offsetOf(AT, 'UTC')).toBe('+00:00');
  expect(offsetOf(AT, 'America/St_Johns')).toBe('-02:30');
  expect(offsetOf(AT, 'Asia/Kathmandu')).toBe('+05:45');
  expect(localMinuteOfWeek(AT, 'America/St_Johns')).toBe(6 * 1440 + 21 * 60);
  expect(made).toBe(0);
});

test('the zones kept are bounded: the least recently read is dropped first', () => {
  const zones = createZoneOffsets();
  const names = ['Europe/Berlin', 'Asia/Tokyo', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Africa/Casablanca'];
  const many = [...names, ...names.map((n) => `posix/${n}`), 'Asia/Kolkata', 'Asia/Shanghai', 'Europe/London', 'America/Denver', 'Europe/Paris', 'Asia/Dubai'];
  for (const name of many) zones.offsetMs(AT, name);
  expect(zones.kept()).toBe(ZONES_KEPT);
  expect(zones.offsetMs(AT, 'Asia/Tokyo')).toBe(9 * HOUR);
  expect(zones.kept()).toBe(ZONES_KEPT);
  expect(made).toBe(0);
});

test('the system zone follows TZ when it changes (a name, :name or a path to a zone file)', () => {
  const tz = process.env.TZ;
  try {
    process.env.TZ = 'Asia/Tokyo';
    expect(systemTimeZone()).toBe('Asia/Tokyo');
    expect(localDay(AT)).toBe('2026-03-29');
    process.env.TZ = 'America/New_York';
    expect(systemTimeZone()).toBe('America/New_York');
    expect(localDay(AT)).toBe('2026-03-28');
    process.env.TZ = ':Europe/Berlin';
    expect(systemTimeZone()).toBe('Europe/Berlin');
    process.env.TZ = ':/usr/share/zoneinfo/Asia/Kathmandu';
    expect(systemTimeZone()).toBe('Asia/Kathmandu');
    // Without TZ: the zone /etc/localtime links to (here a link into the zone files), read without Intl.
    delete process.env.TZ;
    const link = readlinkSync('/etc/localtime');
    expect(systemTimeZone()).toBe(link.slice(link.lastIndexOf('zoneinfo/') + 'zoneinfo/'.length));
    expect(made).toBe(0);
  } finally {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  }
});

test('a zone name is checked before it names a file: no way out of the zone directory', () => {
  const root = mkdtempSync(join(tmpdir(), 'tzif-'));
  const directory = join(root, 'zoneinfo');
  mkdirSync(join(directory, 'Europe'), { recursive: true });
  copyFileSync('/usr/share/zoneinfo/Europe/Berlin', join(directory, 'Europe/Berlin'));
  // A zone file beside the directory (+05:45 all year): reaching it would show that a path left the directory.
  copyFileSync('/usr/share/zoneinfo/Asia/Kathmandu', join(root, 'Evil'));
  const zones = createZoneOffsets(directory);
  expect(zones.offsetMs(AT, 'Europe/Berlin')).toBe(HOUR);
  for (const name of ['../Evil', 'Europe/../../Evil', `${root}/Evil`, '/Evil', './Europe/Berlin', 'Europe//Berlin', 'Europe/Berlin/', '']) {
    expect(zones.knows(name), name).toBe(false);
    expect(() => zones.offsetMs(AT, name), name).toThrow(RangeError);
  }
  expect(isTimeZone('../../../../etc/passwd')).toBe(false);
});

test('a zone without a readable zone file is read with Intl, as before the zone files', () => {
  const directory = mkdtempSync(join(tmpdir(), 'tzif-'));
  mkdirSync(join(directory, 'Europe'));
  writeFileSync(join(directory, 'Europe/Paris'), 'not a zone file');
  // A file read from the directory given: Kathmandu's offsets under Berlin's name.
  copyFileSync('/usr/share/zoneinfo/Asia/Kathmandu', join(directory, 'Europe/Berlin'));
  const zones = createZoneOffsets(directory);
  expect(zones.offsetMs(AT, 'Europe/Berlin')).toBe(5.75 * HOUR);
  expect(made).toBe(0);
  for (const at of [AT, AT + 1.5 * HOUR - 1000, AT + 1.5 * HOUR, Date.UTC(2026, 9, 25, 0, 59, 59), Date.UTC(2026, 9, 25, 1)]) {
    const summer = at >= AT + 1.5 * HOUR && at < Date.UTC(2026, 9, 25, 1);
    expect(zones.offsetMs(at, 'Europe/Paris')).toBe(summer ? 2 * HOUR : HOUR);
    expect(zones.offsetMs(at, 'America/New_York')).toBe(at >= Date.UTC(2026, 2, 8, 7) && at < Date.UTC(2026, 10, 1, 6) ? -4 * HOUR : -5 * HOUR);
  }
  expect(made).toBe(2);
  expect(zones.knows('Nowhere/Town')).toBe(false);
});

test('the TimeZone setting accepts the names the controller can read times in, and they then work', () => {
  expect(isTimeZone('Europe/Berlin')).toBe(true);
  expect(isTimeZone('Etc/GMT-14')).toBe(true);
  expect(isTimeZone('UTC')).toBe(true);
  expect(made).toBe(0);
  // right/: leap seconds counted in the times, which the clock does not count.
  for (const name of ['Europe', 'Nowhere/Town', 'leapseconds', 'Europe/Berlin.', 'zone.tab', 'right/Europe/Berlin']) expect(isTimeZone(name), name).toBe(false);
  // Intl knows names in any case; the zone file is found only as spelt, so such a name is read with Intl.
  expect(isTimeZone('europe/berlin')).toBe(true);
  expect(offsetOf(AT, 'europe/berlin')).toBe('+01:00');
  expect(offsetOf(AT + 1.5 * HOUR, 'europe/berlin')).toBe('+02:00');
  expect(offsetOf(AT, 'Etc/GMT-14')).toBe('+14:00');
});
