import { describe, expect, test } from 'vitest';
import { POWER_CUT_DELAY_MS } from '../../machines/charge-cycle.js';
import type { Reaction } from '../../services/core/protocol.js';
import { createSafetyMonitor } from '../../services/core/safety.js';

/**
 * The safety monitor alone (services/core/safety.ts): which reaction an opening of the contactor reports, measured
 * from which reading. test/core/metrics.test.ts measures the same through the running core and /metrics.
 */
function monitor() {
  const reports: Array<[Reaction, number]> = [];
  const m = createSafetyMonitor((reaction, ms) => reports.push([reaction, ms]));
  /** The contactor closed at `at` with the PWM on (charging). */
  const charging = (at = 0) => {
    m.pwm(true, at);
    m.contactor(true, at);
  };
  return { m, reports, charging };
}

describe('safety monitor', () => {
  test('C→B, C→A, E, F and D without ventilation under load: measured from the reading to the opening', () => {
    const cases: Array<[Parameters<ReturnType<typeof createSafetyMonitor>['pilot']>, Reaction]> = [
      [['b', 100, false], 'contactor_open_on_pause'],
      [['a', 100, false], 'contactor_open_on_unplug'],
      [['e', 100, false], 'fault_open'],
      [['f', 100, true], 'fault_open'],
      [['d', 100, false], 'fault_open'],
    ];
    for (const [reading, reaction] of cases) {
      const { m, reports, charging } = monitor();
      charging();
      m.pilot(...reading);
      m.contactor(false, 140);
      expect(reports).toEqual([[reaction, 40]]);
    }
  });

  test('C and D with ventilation ask for nothing; a glitch back to C before the opening cancels the reason', () => {
    for (const [level, ventilation] of [
      ['c', false],
      ['d', true],
    ] as const) {
      const { m, reports, charging } = monitor();
      charging();
      m.pilot(level, 100, ventilation);
      m.contactor(false, 200);
      expect(reports).toEqual([]);
    }
    const { m, reports, charging } = monitor();
    charging();
    m.pilot('b', 100, false);
    m.pilot('c', 110, false);
    m.contactor(false, 200);
    expect(reports).toEqual([]);
  });

  test('the earliest reason counts: a later reading does not move it, an earlier fault wins', () => {
    const { m, reports, charging } = monitor();
    charging();
    m.pilot('b', 100, false);
    m.pilot('a', 120, false);
    m.contactor(false, 150);
    expect(reports).toEqual([['contactor_open_on_pause', 50]]);

    const second = monitor();
    second.charging();
    second.m.fault(90);
    second.m.fault(95);
    second.m.pilot('b', 100, false);
    second.m.contactor(false, 140);
    expect(second.reports).toEqual([['fault_open', 50]]);

    const third = monitor();
    third.charging();
    third.m.pilot('b', 100, false);
    third.m.fault(120);
    third.m.contactor(false, 140);
    expect(third.reports).toEqual([['contactor_open_on_pause', 40]]);
  });

  test('readings and faults while the contactor is open ask for nothing', () => {
    const { m, reports } = monitor();
    m.pilot('b', 10, false);
    m.fault(10);
    m.pwm(true, 10);
    m.pwm(false, 15);
    m.contactor(true, 20);
    m.contactor(false, 30);
    expect(reports).toEqual([]);
  });

  test('power cut: measured from the 6 s deadline after the PWM went off under load; not before the deadline', () => {
    const { m, reports, charging } = monitor();
    charging();
    m.pwm(false, 1000);
    m.contactor(false, 1000 + POWER_CUT_DELAY_MS + 5);
    expect(reports).toEqual([['power_cut', 5]]);

    const early = monitor();
    early.charging();
    early.m.pwm(false, 1000);
    early.m.contactor(false, 1000 + POWER_CUT_DELAY_MS - 1); // the EV left C in time: no reason yet
    expect(early.reports).toEqual([]);

    const exact = monitor();
    exact.charging();
    exact.m.pwm(false, 1000);
    exact.m.contactor(false, 1000 + POWER_CUT_DELAY_MS);
    expect(exact.reports).toEqual([['power_cut', 0]]);
  });

  test('the PWM back on cancels the power cut; the PWM off while open or already off sets none', () => {
    const { m, reports, charging } = monitor();
    charging();
    m.pwm(false, 1000);
    m.pwm(true, 2000);
    m.contactor(false, 10_000);
    expect(reports).toEqual([]);

    const never = monitor();
    never.m.contactor(true, 0); // closed before the PWM was ever on
    never.m.pwm(false, 10);
    never.m.contactor(false, 10_000);
    expect(never.reports).toEqual([]);

    const off = monitor();
    off.m.pwm(false, 0); // the PWM was never on
    off.m.contactor(true, 0);
    off.m.pwm(false, 10);
    off.m.contactor(false, 10_000);
    expect(off.reports).toEqual([]);
  });

  test('a repeated command changes nothing; after an opening the reasons start afresh', () => {
    const { m, reports, charging } = monitor();
    charging();
    m.pilot('b', 10, false);
    m.contactor(true, 20); // already closed: the reason stays
    m.contactor(false, 50);
    m.contactor(false, 60); // already open: nothing reported twice
    expect(reports).toEqual([['contactor_open_on_pause', 40]]);
    charging(100);
    m.contactor(false, 200);
    expect(reports).toEqual([['contactor_open_on_pause', 40]]);
  });
});
