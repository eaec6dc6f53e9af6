import { describe, expect, test } from 'vitest';
import { minutesUntilAllowed, parseSchedule, scheduleAllows } from '../../services/energy/schedule.js';
import { departureUrgent, minutesUntil, sessionLimitReached } from '../../services/energy/session-goals.js';
import { smooth, SMOOTHING_DEFAULTS } from '../../services/energy/smoothing.js';
import { addStep } from '../../services/energy/today.js';

/** The allocator loop's pure parts: surplus smoothing, the weekly schedule, session goals, today's energy. */

const at = (iso: string) => Date.parse(iso);

describe('surplus smoothing: fast attack, slow decay', () => {
  test('a rise is followed within seconds, a fall slowly; the first sample and one after a gap are taken as is', () => {
    let s = smooth(null, 0, 0);
    expect(s.value).toBe(0);
    for (let t = 1000; t <= 5000; t += 1000) s = smooth(s, 5000, t);
    expect(s.value).toBeGreaterThan(5000 * 0.9); // 5 s: above 90 % (τ 2 s)
    let f = { value: 5000, at: 0 };
    for (let t = 1000; t <= 5000; t += 1000) f = smooth(f, 0, t);
    expect(f.value).toBeGreaterThan(5000 * 0.7); // 5 s of a cloud: still above 70 % (τ 20 s)
    expect(smooth({ value: 5000, at: 0 }, 100, 120_000).value).toBe(100);
    expect(smooth({ value: 5000, at: 10_000 }, 100, 5_000).value).toBe(100);
  });
  test('never overshoots the sample', () => {
    let s = { value: 0, at: 0 };
    for (let t = 1; t < 100; t++) {
      s = smooth(s, 1000, t * 1000, SMOOTHING_DEFAULTS);
      expect(s.value).toBeLessThanOrEqual(1000);
    }
  });
});

describe('weekly schedule', () => {
  // 2026-06-01 is a Monday.
  test('windows, day ranges and windows past midnight', () => {
    const s = parseSchedule('Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00')!;
    expect(scheduleAllows(s, at('2026-06-01T21:59:00Z'), 'UTC')).toBe(false);
    expect(scheduleAllows(s, at('2026-06-01T22:00:00Z'), 'UTC')).toBe(true);
    expect(scheduleAllows(s, at('2026-06-02T05:59:00Z'), 'UTC')).toBe(true);
    expect(scheduleAllows(s, at('2026-06-02T06:00:00Z'), 'UTC')).toBe(false);
    expect(scheduleAllows(s, at('2026-06-06T12:00:00Z'), 'UTC')).toBe(true); // Saturday
    expect(scheduleAllows(s, at('2026-06-07T23:59:00Z'), 'UTC')).toBe(true); // Sunday night
    expect(scheduleAllows(s, at('2026-06-01T03:00:00Z'), 'UTC')).toBe(false); // Monday early: Sunday's window ended at 24:00
    expect(scheduleAllows(s, at('2026-06-06T03:00:00Z'), 'UTC')).toBe(true); // Saturday early: Friday's window
    expect(minutesUntilAllowed(s, at('2026-06-01T21:00:00Z'), 'UTC')).toBe(60);
    expect(parseSchedule('')).toBeNull();
    expect(() => parseSchedule('Xx 10:00-11:00')).toThrow();
  });
  test("the controller's time zone", () => {
    const s = parseSchedule('Mo 22:00-23:00')!;
    // 20:30 UTC is 22:30 in Berlin (summer time).
    expect(scheduleAllows(s, at('2026-06-01T20:30:00Z'), 'Europe/Berlin')).toBe(true);
    expect(scheduleAllows(s, at('2026-06-01T20:30:00Z'), 'UTC')).toBe(false);
  });
  test('a Friday window past midnight reaches into Saturday; Sunday into Monday across the week', () => {
    const s = parseSchedule('Su 23:00-01:00')!;
    expect(scheduleAllows(s, at('2026-06-01T00:30:00Z'), 'UTC')).toBe(true);
    expect(scheduleAllows(s, at('2026-06-01T01:30:00Z'), 'UTC')).toBe(false);
  });
});

describe('session goals', () => {
  test('session limits: energy and duration', () => {
    const session = { consumptionWh: 9_999, startedAt: 0 };
    expect(sessionLimitReached(session, { energyKWh: 10, durationMin: 0 }, 0)).toBeNull();
    expect(sessionLimitReached({ ...session, consumptionWh: 10_000 }, { energyKWh: 10, durationMin: 0 }, 0)).toBe('energy');
    expect(sessionLimitReached(session, { energyKWh: 0, durationMin: 60 }, 3_599_999)).toBeNull();
    expect(sessionLimitReached(session, { energyKWh: 0, durationMin: 60 }, 3_600_000)).toBe('duration');
    expect(sessionLimitReached(session, { energyKWh: 0, durationMin: 0 }, 1e12)).toBeNull();
  });
  test('departure: urgent when the missing energy at the allowed current needs the time left (with a 30 min margin)', () => {
    const now = at('2026-06-01T20:00:00Z');
    expect(minutesUntil('07:00', now, 'UTC')).toBe(660);
    const session = { consumptionWh: 0, startedAt: now };
    // 11 kW (16 A, 3 phases): 10 kWh take 54.3 min; 11 h left: not urgent.
    expect(departureUrgent({ time: '07:00', energyKWh: 10 }, session, 16, 3, now, 'UTC')).toBe(false);
    // 80 kWh take 7.2 h at 11 kW: with 7 h left, urgent.
    expect(departureUrgent({ time: '03:00', energyKWh: 80 }, session, 16, 3, now, 'UTC')).toBe(true);
    // At 6 A on one phase (1.38 kW), 10 kWh take 7.2 h.
    expect(departureUrgent({ time: '03:00', energyKWh: 10 }, session, 6, 1, now, 'UTC')).toBe(true);
    expect(departureUrgent({ time: '03:00', energyKWh: 10 }, { ...session, consumptionWh: 10_000 }, 6, 1, now, 'UTC')).toBe(false);
    expect(departureUrgent({ time: '', energyKWh: 10 }, session, 6, 1, now, 'UTC')).toBe(false);
    expect(departureUrgent({ time: '03:00', energyKWh: 0 }, session, 6, 1, now, 'UTC')).toBe(false);
  });
});

describe("today's energy", () => {
  test('split by the surplus share; a new local day starts at zero; a gap adds nothing', () => {
    let t = addStep(null, at('2026-06-01T12:00:00Z'), 0, null, 'UTC');
    t = addStep(t, at('2026-06-01T12:00:01Z'), 3600, 2700, 'UTC'); // 1 Wh, three quarters solar
    expect(t.solarWh).toBeCloseTo(0.75);
    expect(t.gridWh).toBeCloseTo(0.25);
    t = addStep(t, at('2026-06-01T12:00:02Z'), 3600, 9000, 'UTC'); // the surplus covers it all
    expect(t.solarWh).toBeCloseTo(1.75);
    t = addStep(t, at('2026-06-01T12:10:00Z'), 3600, null, 'UTC'); // a stalled loop: nothing
    expect(t.solarWh + t.gridWh).toBeCloseTo(2);
    t = addStep(t, at('2026-06-02T00:00:00Z'), 3600, null, 'UTC');
    expect(t).toMatchObject({ day: '2026-06-02', solarWh: 0, gridWh: 0 });
  });
});
