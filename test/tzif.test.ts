import { readdirSync, readFileSync, statSync } from 'node:fs';
import { expect } from 'vitest';
import { parsePosixRule, posixOffset } from '../services/posix-tz.js';
import { parseTzif, tzifOffset, type TzifZone } from '../services/tzif.js';
import { intlOffsets, ZONEINFO } from '../services/time-zone.js';
import { testWithZoneFiles as test, ZONE_FILES_PRESENT } from './zone-files.js';

/**
 * The offsets read from the TZif files (services/tzif.ts, services/posix-tz.ts) against Intl's, an independent
 * implementation with its own copy of the IANA data, across every zone under Europe/, America/, Australia/, Asia/ and
 * a few odd ones: at each transition to the second in past years (the table) and in 2040 and 2100 (the footer's rule
 * only), and on a grid over whole years.
 */

const zonesUnder = (dir: string): string[] =>
  readdirSync(`${ZONEINFO}/${dir}`).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(`${ZONEINFO}/${path}`).isDirectory() ? zonesUnder(path) : [path];
  });
const ZONES = ZONE_FILES_PRESENT
  ? [
      ...['Europe', 'America', 'Australia', 'Asia'].flatMap(zonesUnder),
      ...['Pacific/Chatham', 'Africa/Casablanca', 'Africa/Cairo', 'Pacific/Apia', 'Atlantic/Azores', 'Antarctica/Troll', 'EST5EDT', 'Etc/GMT+12'],
    ]
  : [];

/**
 * The table is compared from 1990: before, this system's tzdata and Node's ICU data (2025b, 2025c) differ in a few
 * zones' history (Baja California's 1970s, the WET and EET links).
 */
const SINCE = Date.UTC(1990, 0, 1) / 1000;

const yearStart = (y: number) => Date.UTC(y, 0, 1) / 1000;

/** The seconds in [from, to) at which Intl's offset changes, found by a daily scan and halving to the second. */
function intlTransitions(intl: (t: number) => number, from: number, to: number): number[] {
  const found: number[] = [];
  let before = intl(from);
  for (let t = from; t < to; t += 86_400) {
    const next = Math.min(t + 86_400, to);
    const after = intl(next);
    let [lo, hi] = [t, next];
    while (after !== before && hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (intl(mid) === before) lo = mid;
      else hi = mid;
    }
    if (after !== before) found.push(hi);
    before = after;
  }
  return found;
}

const read = (zone: string): TzifZone => parseTzif(readFileSync(`${ZONEINFO}/${zone}`));

test('every zone compared is a version 2+ file with a footer rule', () => {
  expect(ZONES.length).toBeGreaterThan(350);
  for (const zone of ZONES) expect(read(zone).footer, zone).toBeDefined();
  expect(read('Europe/Berlin').footer).toEqual(parsePosixRule('CET-1CEST,M3.5.0,M10.5.0/3'));
});

/** The instants where ours and Intl's differ (`zone ISO ours intl`), at most 20. */
function mismatches(): { check: (zone: string, ours: TzifZone, intl: (t: number) => number, at: number) => void; found: string[] } {
  const found: string[] = [];
  return {
    found,
    check(zone, ours, intl, at) {
      const [a, b] = [tzifOffset(ours, at), intl(at)];
      if (a !== b && found.length < 20) found.push(`${zone} ${new Date(at * 1000).toISOString()} ${a} ${b}`);
    },
  };
}

/** Each zone read from its file, beside Intl's reader of it. */
function eachZone(zones: readonly string[], visit: (zone: string, ours: TzifZone, intl: (t: number) => number) => void): void {
  for (const zone of zones) visit(zone, read(zone), intlOffsets(zone));
}

test('offsets agree with Intl at every transition since 1990 of the table, to the second', () => {
  const { check, found } = mismatches();
  let compared = 0;
  eachZone(ZONES, (zone, ours, intl) => {
    for (const t of ours.transitions) {
      if (t < SINCE || t > yearStart(2037)) continue;
      for (const at of [t - 1, t]) check(zone, ours, intl, at);
      compared++;
    }
  });
  expect(found).toEqual([]);
  expect(compared).toBeGreaterThan(10_000);
});

test('offsets agree with Intl at the transitions of 2026, 2040 and 2100 (the footer rule) and over those years', () => {
  const { check, found } = mismatches();
  let transitions = 0;
  eachZone(ZONES, (zone, ours, intl) => {
    for (const year of [2026, 2040, 2100]) {
      for (const t of intlTransitions(intl, yearStart(year), yearStart(year + 1))) {
        for (const at of [t - 1, t]) check(zone, ours, intl, at);
        transitions++;
      }
      // A grid not aligned to hours, so every hour of the day is met in turn.
      for (let t = yearStart(year); t < yearStart(year + 1); t += 25 * 3600 + 13 * 60) check(zone, ours, intl, t);
    }
  });
  expect(found).toEqual([]);
  // Most European, American and Australian zones change their clocks twice a year; Casablanca's Ramadan changes.
  expect(transitions).toBeGreaterThan(600);
});

test('the odd zones agree with Intl every hour of 2026 and 2100', () => {
  const { check, found } = mismatches();
  const odd = ['Pacific/Chatham', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Africa/Casablanca', 'America/Sao_Paulo'];
  eachZone(odd, (zone, ours, intl) => {
    for (const year of [2026, 2100]) {
      for (let t = yearStart(year) + 1800; t < yearStart(year + 1); t += 3600) check(zone, ours, intl, t);
    }
  });
  expect(found).toEqual([]);
});

test('the footer rule forms: Mm.w.d, Jn, n, change times past a day and before midnight', () => {
  const at = (iso: string) => Date.parse(iso) / 1000;
  const offset = (rule: string, iso: string) => posixOffset(parsePosixRule(rule), at(iso)) / 3600;
  // Jn never counts 29 February: J60 is 1 March in every year. n counts it: 59 is 29 February in a leap year.
  expect(offset('AAA0BBB,J60/0,J300/0', '2028-02-29T23:59:59Z')).toBe(0);
  expect(offset('AAA0BBB,J60/0,J300/0', '2028-03-01T00:00:00Z')).toBe(1);
  expect(offset('AAA0BBB,59/0,300/0', '2028-02-28T23:59:59Z')).toBe(0);
  expect(offset('AAA0BBB,59/0,300/0', '2028-02-29T00:00:00Z')).toBe(1);
  expect(offset('AAA0BBB,59/0,300/0', '2027-03-01T00:00:00Z')).toBe(1);
  expect(offset('AAA0BBB,59/0,300/0', '2027-02-28T23:59:59Z')).toBe(0);
  // RFC 8536's daylight time all year: from 1 January 00:00 to 31 December 25:00 daylight time (= next 1 January 00:00).
  for (const iso of ['2030-01-01T00:00:00Z', '2030-01-01T04:59:59Z', '2030-01-01T05:00:00Z', '2030-07-01T00:00:00Z', '2030-12-31T23:59:59Z'])
    expect(offset('EST5EDT,0/0,J365/25', iso), iso).toBe(-4);
  // Greenland's rule: daylight time from -1:00 on the last Sunday of March (Saturday 23:00, 01:00 UTC).
  const nuuk = '<-02>2<-01>,M3.5.0/-1,M10.5.0/0';
  expect(offset(nuuk, '2030-03-31T00:59:59Z')).toBe(-2);
  expect(offset(nuuk, '2030-03-31T01:00:00Z')).toBe(-1);
  expect(offset(nuuk, '2030-10-27T00:59:59Z')).toBe(-1);
  expect(offset(nuuk, '2030-10-27T01:00:00Z')).toBe(-2);
  // Israel's change at 26:00 on the fourth Thursday of March (the Friday 02:00).
  expect(offset('IST-2IDT,M3.4.4/26,M10.5.0', '2030-03-28T23:59:59Z')).toBe(2);
  expect(offset('IST-2IDT,M3.4.4/26,M10.5.0', '2030-03-29T00:00:00Z')).toBe(3);
  // Week 5 is the last such weekday: the last Sunday of February 2030 is the 24th (no fifth).
  expect(offset('AAA0BBB,M2.5.0/0,M11.1.0/0', '2030-02-23T23:59:59Z')).toBe(0);
  expect(offset('AAA0BBB,M2.5.0/0,M11.1.0/0', '2030-02-24T00:00:00Z')).toBe(1);
  // Southern: daylight time over the new year.
  expect(offset('<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45', '2030-01-15T00:00:00Z')).toBe(13.75);
  expect(offset('<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45', '2030-06-15T00:00:00Z')).toBe(12.75);
  // DST named without an offset is an hour ahead; without a rule, the US rule.
  expect(offset('EST5EDT', '2030-07-01T00:00:00Z')).toBe(-4);
  expect(offset('EST5EDT', '2030-12-01T00:00:00Z')).toBe(-5);
  expect(offset('<+0545>-5:45', '2030-07-01T00:00:00Z')).toBe(5.75);
  for (const bad of ['', 'CET', 'CET-1CEST,M3.5.0', 'CET-1CEST,M13.5.0,M10.5.0', 'CET-1CEST,M3.5.0,M10.5.0/168', 'CE-1', 'CET-1CEST,J0,J300', 'CET-1 '])
    expect(() => parsePosixRule(bad), bad).toThrow(/not a POSIX TZ rule/);
});

test('a file that is no TZif file, or is cut short, is refused', () => {
  const berlin = readFileSync(`${ZONEINFO}/Europe/Berlin`);
  for (const data of [Buffer.from('not a zone file'), berlin.subarray(0, 100), berlin.subarray(0, berlin.length - 5), Buffer.alloc(0)])
    expect(() => parseTzif(data)).toThrow(/not a TZif file|not a POSIX TZ rule/);
  // A version 1 file: the 32-bit block alone, its last type holding after the last transition.
  const v1 = Buffer.from(berlin);
  v1[4] = 0;
  const zone = parseTzif(v1);
  expect(zone.footer).toBeUndefined();
  const july2040 = Date.UTC(2040, 6, 1) / 1000;
  expect(tzifOffset(zone, july2040)).toBe(zone.transitions.length > 0 ? 3600 : zone.offsets[0]);
  expect(tzifOffset(read('Europe/Berlin'), july2040)).toBe(7200);
});
