import { afterEach, beforeEach, expect, test } from 'vitest';
import { localMinuteOfWeek } from '../services/energy/schedule.js';
import { localDay } from '../services/energy/today.js';
import { offsetOf, systemTimeZone, ZONE_FORMATTERS_KEPT, zoneFormatter, zoneFormattersKept } from '../services/time-zone.js';

/**
 * Local dates and times are read with formatters made once per format and zone (services/time-zone.ts): each
 * Intl.DateTimeFormat holds ICU memory outside V8's heap, and one made per call (the energy manager's every step)
 * grew the controller's memory by 0.5 MB a second under the safety bench.
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

test('the local day, minute of the week and offset, read again and again, make their formatters once', () => {
  for (let i = 0; i < 1000; i++) {
    expect(localDay(AT + i, 'Europe/Berlin')).toBe('2026-03-29');
    expect(localMinuteOfWeek(AT + i, 'Europe/Berlin')).toBe(30);
    expect(offsetOf(AT + i, 'Europe/Berlin')).toBe('+01:00');
    expect(localDay(AT + i, 'America/New_York')).toBe('2026-03-28');
    systemTimeZone();
  }
  // Four formats in their zones and the system zone.
  expect(made).toBeLessThanOrEqual(5);
  expect(offsetOf(AT + 2 * 3_600_000, 'Europe/Berlin')).toBe('+02:00');
  expect(offsetOf(AT, 'UTC')).toBe('+00:00');
});

test('the formatters kept are bounded: the least recently made is dropped first', () => {
  const zones = Intl.supportedValuesOf('timeZone').slice(0, ZONE_FORMATTERS_KEPT + 10);
  const first = zoneFormatter('day', zones[0]);
  expect(zoneFormatter('day', zones[0])).toBe(first);
  for (const zone of zones) zoneFormatter('day', zone);
  expect(zoneFormattersKept()).toBe(ZONE_FORMATTERS_KEPT);
  expect(zoneFormatter('day', zones.at(-1))).toBe(zoneFormatter('day', zones.at(-1)));
  expect(zoneFormatter('day', zones[0])).not.toBe(first);
  expect(zoneFormatter('day', zones[0]).resolvedOptions().timeZone).toBe(first.resolvedOptions().timeZone);
});

test('the system zone follows TZ when it changes', () => {
  const tz = process.env.TZ;
  try {
    process.env.TZ = 'Asia/Tokyo';
    expect(systemTimeZone()).toBe('Asia/Tokyo');
    expect(localDay(AT)).toBe('2026-03-29');
    process.env.TZ = 'America/New_York';
    expect(systemTimeZone()).toBe('America/New_York');
  } finally {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  }
});
