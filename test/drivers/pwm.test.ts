import { describe, expect, test } from 'vitest';
import { checkDuty, currentForDuty, dutyForCurrent } from '../../drivers/control-pilot/pwm.js';

describe('control pilot duty encoding (IEC 61851-1)', () => {
  test.each([
    [6, 10],
    [10, 16.7],
    [16, 26.7],
    [20, 33.3],
    [32, 53.3],
    [40, 66.7],
    [51, 85],
    [60, 88],
    [63, 89.2],
    [80, 96],
  ])('%d A is announced with %d %% duty', (amps, duty) => {
    expect(dutyForCurrent(amps)).toBeCloseTo(duty, 1);
    expect(currentForDuty(dutyForCurrent(amps))).toBe(amps);
  });

  test('the two formulas: amps / 0.6 up to 51 A, amps / 2.5 + 64 above', () => {
    expect(dutyForCurrent(16)).toBe(16 / 0.6);
    expect(dutyForCurrent(51)).toBe(85);
    expect(dutyForCurrent(52)).toBe(52 / 2.5 + 64);
    expect(dutyForCurrent(80)).toBe(96);
  });

  test.each([5.99, 0, -6, 80.01, 100, Number.NaN, Number.POSITIVE_INFINITY])('%d A has no duty cycle (RangeError)', (amps) => {
    expect(() => dutyForCurrent(amps)).toThrow(RangeError);
  });

  test.each([
    [10, 6],
    [26.7, 16.02],
    [53.3, 31.98],
    [50, 30],
    [85, 51],
    [90, 65],
    [96, 80],
    [8, 6],
    [9.99, 6],
    [96.5, 80],
    [97, 80],
  ])('%d %% duty announces %d A', (duty, amps) => {
    expect(currentForDuty(duty)).toBe(amps);
  });

  test.each([null, 0, 5, 7.99, 97.01, 100, Number.NaN])('duty %s announces no current', (duty) => {
    expect(currentForDuty(duty)).toBeNull();
  });

  test('setDuty argument check: 0 < duty < 100 or null', () => {
    expect(() => checkDuty(null)).not.toThrow();
    expect(() => checkDuty(50)).not.toThrow();
    expect(() => checkDuty(99.9)).not.toThrow();
    for (const bad of [0, 100, -5, 120, Number.NaN]) expect(() => checkDuty(bad)).toThrow(RangeError);
  });
});
