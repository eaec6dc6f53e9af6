import { afterEach, describe, expect, test, vi } from 'vitest';
import { createRpiBuzzer } from '../../drivers/buzzer/rpi.js';
import { createRpiCableLock } from '../../drivers/cable-lock/rpi.js';
import { createRpiContactor } from '../../drivers/contactor/rpi.js';
import { createRpiControlPilot, levelFromComparators } from '../../drivers/control-pilot/rpi.js';
import { dutyForCurrent } from '../../drivers/control-pilot/pwm.js';
import { createRpiLeds } from '../../drivers/leds/rpi.js';
import { initializePigpio } from '../../drivers/gpio/pigpio.js';
import { DEFAULT_RPI_PINS } from '../../drivers/pins.js';
import { createRpiHardware } from '../../drivers/rpi.js';
import type { PilotLevel } from '../../drivers/types.js';
import { fakePigpio } from './fake-pigpio.js';

afterEach(() => {
  vi.useRealTimers();
});

const LEVEL_PINS = [5, 6, 13, 19, 26] as const;

/** Sets the five comparator inputs (>10.5, >7.5, >4.5, >1.5, <-10 V). */
function comparators(fake: ReturnType<typeof fakePigpio>, bits: string) {
  LEVEL_PINS.forEach((pin, i) => fake.pin(pin).input(bits[i] === '1' ? 1 : 0));
}

describe('control pilot (pigpio)', () => {
  test.each<[string, PilotLevel]>([
    ['11110', 'a'],
    ['01110', 'b'],
    ['00110', 'c'],
    ['00010', 'd'],
    ['00000', 'e'],
    ['00001', 'f'],
    // impossible combinations (broken comparator or wiring) read as E
    ['10000', 'e'],
    ['11010', 'e'],
    ['01010', 'e'],
    ['11111', 'e'],
    ['00011', 'e'],
  ])('comparators %s → %s', (bits, level) => {
    expect(levelFromComparators([...bits].map((b) => b === '1'))).toBe(level);
  });

  test('reports each level change from the input alerts, once per change', () => {
    const f = fakePigpio();
    const pilot = createRpiControlPilot(f.module, { pwmPin: 18, levelPins: LEVEL_PINS });
    expect(pilot.level()).toBe('e'); // all inputs low
    for (const pin of LEVEL_PINS) {
      expect(f.pin(pin).options).toMatchObject({ mode: 0, pullUpDown: 1, alert: true });
      expect(f.pin(pin).glitchUs).toBe(1000);
    }
    const seen: PilotLevel[] = [];
    pilot.onLevel((level) => seen.push(level));
    comparators(f, '11110'); // set in order >10.5 first: 10000, 11000, 11100 read as E (no change), then A
    expect(pilot.level()).toBe('a');
    comparators(f, '01110');
    comparators(f, '00110');
    comparators(f, '00110'); // no change, no report
    comparators(f, '00000'); // 00010 (D) on the way
    comparators(f, '00001');
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(pilot.level()).toBe('f');
  });

  test('the level at start is read from the inputs', () => {
    expect(createRpiControlPilot(fakePigpio({ 6: 1, 13: 1, 19: 1 }).module, { pwmPin: 18, levelPins: LEVEL_PINS }).level()).toBe('b');
    expect(createRpiControlPilot(fakePigpio({ 26: 1 }).module, { pwmPin: 18, levelPins: LEVEL_PINS }).level()).toBe('f');
    // The pins are taken in the configured order.
    expect(createRpiControlPilot(fakePigpio({ 2: 1, 3: 1, 4: 1, 7: 1 }).module, { pwmPin: 12, levelPins: [2, 3, 4, 7, 8] }).level()).toBe('a');
  });

  test('PWM: 1 kHz hardware PWM with duty × 10000; no PWM = constant high (+12 V)', () => {
    const f = fakePigpio();
    const pilot = createRpiControlPilot(f.module, { pwmPin: 18, levelPins: LEVEL_PINS });
    const pwm = f.pin(18);
    expect(pwm.options.mode).toBe(1);
    expect(pwm.level).toBe(1); // starts with +12 V, no PWM
    expect(pwm.hardwarePwm).toBeNull();
    pilot.setDuty(dutyForCurrent(16));
    expect(pwm.hardwarePwm).toEqual({ frequency: 1000, dutyCycle: 266_667 });
    expect(pilot.duty()).toBeCloseTo(26.667, 3);
    pilot.setDuty(10);
    expect(pwm.hardwarePwm).toEqual({ frequency: 1000, dutyCycle: 100_000 });
    expect(() => pilot.setDuty(100)).toThrow(RangeError);
    expect(pwm.hardwarePwm).toEqual({ frequency: 1000, dutyCycle: 100_000 });
    pilot.setDuty(null);
    expect(pwm.hardwarePwm).toBeNull();
    expect(pwm.level).toBe(1);
    expect(pilot.duty()).toBeNull();
  });

  test('close(): PWM off (+12 V), alerts off, no more reports', () => {
    const f = fakePigpio();
    const pilot = createRpiControlPilot(f.module, { pwmPin: 18, levelPins: LEVEL_PINS });
    pilot.setDuty(50);
    const seen: PilotLevel[] = [];
    pilot.onLevel((level) => seen.push(level));
    pilot.close();
    expect(f.pin(18).hardwarePwm).toBeNull();
    expect(f.pin(18).level).toBe(1);
    comparators(f, '11110');
    expect(seen).toEqual([]);
    expect(LEVEL_PINS.every((pin) => !f.pin(pin).alerts)).toBe(true);
  });

  test('pins are validated', () => {
    expect(() => createRpiControlPilot(fakePigpio().module, { pwmPin: 28, levelPins: LEVEL_PINS })).toThrow(RangeError);
    expect(() => createRpiControlPilot(fakePigpio().module, { pwmPin: 18, levelPins: [1, 2, 3, 4] as never })).toThrow(/five/);
  });
});

describe('contactor and cable lock (pigpio)', () => {
  test('contactor: relay output starts open, follows the command; no feedback without a pin', () => {
    const f = fakePigpio();
    const contactor = createRpiContactor(f.module, { pin: 17 });
    expect(f.pin(17).options.mode).toBe(1);
    expect(f.pin(17).writes).toEqual([0]);
    contactor.set(true);
    expect(f.pin(17).level).toBe(1);
    expect(contactor.commanded()).toBe(true);
    expect(contactor.feedback()).toBeUndefined();
    contactor.set(false);
    expect(f.pin(17).writes).toEqual([0, 1, 0]);
    contactor.set(true);
    contactor.close();
    expect(f.pin(17).level).toBe(0);
    expect(contactor.commanded()).toBe(false);
  });

  test('contactor feedback reads the auxiliary contact input, independent of the command', () => {
    const f = fakePigpio();
    const contactor = createRpiContactor(f.module, { pin: 17, feedbackPin: 4 });
    expect(f.pin(4).options).toMatchObject({ mode: 0, pullUpDown: 1 });
    expect(contactor.feedback()).toBe(false);
    contactor.set(true);
    expect(contactor.feedback()).toBe(false); // not yet closed
    f.pin(4).input(1);
    expect(contactor.feedback()).toBe(true);
    contactor.set(false);
    expect(contactor.feedback()).toBe(true); // welded
  });

  test('cable lock: output follows the command, feedback switch input', () => {
    const f = fakePigpio();
    const lock = createRpiCableLock(f.module, { pin: 27, feedbackPin: 16 });
    expect(f.pin(27).level).toBe(0);
    lock.set(true);
    expect(f.pin(27).level).toBe(1);
    expect(lock.commanded()).toBe(true);
    expect(lock.locked()).toBe(false);
    f.pin(16).input(1);
    expect(lock.locked()).toBe(true);
    lock.set(false);
    expect(f.pin(27).writes).toEqual([0, 1, 0]);
    expect(createRpiCableLock(fakePigpio().module, { pin: 27 }).locked()).toBeUndefined();
  });
});

describe('buzzer and LEDs (pigpio)', () => {
  test('beep(count, ms): count pulses of ms with pauses of ms', () => {
    vi.useFakeTimers();
    const f = fakePigpio();
    const buzzer = createRpiBuzzer(f.module, { pin: 22 });
    const out = f.pin(22);
    buzzer.beep(2, 150);
    expect(out.level).toBe(1);
    vi.advanceTimersByTime(149);
    expect(out.level).toBe(1);
    vi.advanceTimersByTime(1);
    expect(out.level).toBe(0);
    vi.advanceTimersByTime(150);
    expect(out.level).toBe(1);
    vi.advanceTimersByTime(150);
    expect(out.level).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(out.writes).toEqual([0, 0, 1, 0, 1, 0]); // off at start, off before the sequence, then the pulses
  });

  test('default beep length is 100 ms; a new beep replaces the running one; close() silences', () => {
    vi.useFakeTimers();
    const f = fakePigpio();
    const buzzer = createRpiBuzzer(f.module, { pin: 22 });
    const out = f.pin(22);
    buzzer.beep(3);
    vi.advanceTimersByTime(100);
    expect(out.level).toBe(0);
    buzzer.beep(1, 500);
    expect(out.level).toBe(1);
    vi.advanceTimersByTime(499);
    expect(out.level).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(out.writes).toEqual([0, 0, 1, 0, 0, 1, 0]);
    buzzer.beep(5);
    buzzer.close();
    vi.advanceTimersByTime(10_000);
    expect(out.level).toBe(0);
    expect(out.writes.at(-1)).toBe(0);
    expect(out.writes.slice(-3)).toEqual([0, 1, 0]);
    expect(() => buzzer.beep(0)).toThrow(RangeError);
  });

  test('LED colours on the R, G, B outputs', () => {
    const f = fakePigpio();
    const leds = createRpiLeds(f.module, { pins: [23, 24, 25] });
    const rgb = () => [23, 24, 25].map((pin) => f.pin(pin).level).join('');
    expect(rgb()).toBe('000');
    const expected = { green: '010', blue: '001', yellow: '110', red: '100', white: '111', off: '000' } as const;
    for (const [color, bits] of Object.entries(expected)) {
      leds.show({ color: color as keyof typeof expected, mode: 'steady' });
      expect(rgb()).toBe(bits);
    }
    leds.show({ color: 'red', mode: 'steady' });
    expect(leds.current()).toEqual({ color: 'red', mode: 'steady' });
    expect(() => leds.show({ color: 'pink', mode: 'steady' } as never)).toThrow(RangeError);
    expect(leds.current()).toEqual({ color: 'red', mode: 'steady' });
  });

  test('blink modes toggle at 1 Hz (slow) and 4 Hz (fast); a new pattern stops the old timer', () => {
    vi.useFakeTimers();
    const f = fakePigpio();
    const leds = createRpiLeds(f.module, { pins: [23, 24, 25] });
    const rgb = () => [23, 24, 25].map((pin) => f.pin(pin).level).join('');
    leds.show({ color: 'yellow', mode: 'slow-blink' });
    expect(rgb()).toBe('110');
    vi.advanceTimersByTime(499);
    expect(rgb()).toBe('110');
    vi.advanceTimersByTime(1);
    expect(rgb()).toBe('000');
    vi.advanceTimersByTime(500);
    expect(rgb()).toBe('110');
    leds.show({ color: 'blue', mode: 'fast-blink' });
    expect(rgb()).toBe('001');
    vi.advanceTimersByTime(125);
    expect(rgb()).toBe('000');
    vi.advanceTimersByTime(125);
    expect(rgb()).toBe('001');
    leds.show({ color: 'green', mode: 'steady' });
    vi.advanceTimersByTime(5000);
    expect(rgb()).toBe('010');
  });

  test('pulse ramps the brightness with software PWM', () => {
    vi.useFakeTimers();
    const f = fakePigpio();
    const leds = createRpiLeds(f.module, { pins: [23, 24, 25] });
    leds.show({ color: 'green', mode: 'pulse' });
    const samples: number[] = [];
    for (let i = 0; i < 40; i++) {
      samples.push(f.pin(24).softPwm ?? -1);
      vi.advanceTimersByTime(50);
    }
    expect(samples[0]).toBe(0);
    expect(samples[20]).toBe(255); // half the 2 s period: full brightness
    expect(Math.max(...samples)).toBe(255);
    expect(samples.slice(0, 21)).toEqual([...samples.slice(0, 21)].sort((a, b) => a - b));
    expect([f.pin(23).softPwm, f.pin(25).softPwm]).toEqual([0, 0]); // red and blue stay dark
    leds.close();
    vi.advanceTimersByTime(1000);
    expect([23, 24, 25].map((pin) => f.pin(pin).level)).toEqual([0, 0, 0]);
    expect(f.pin(24).softPwm).toBeNull();
  });
});

describe('Raspberry Pi hardware assembly', () => {
  const meter = () => {
    const m = { closed: false, read: async () => ({ energyWh: 1, powerW: 0, currentsA: [0, 0, 0] }), close: async () => void (m.closed = true) };
    return m;
  };

  test('opens every default pin, outputs safe; close() makes them safe and terminates pigpio', async () => {
    const f = fakePigpio();
    const m = meter();
    const hw = createRpiHardware(f.module, { pins: DEFAULT_RPI_PINS, meter: m, temperatureSensorPath: '/nonexistent/temperature' });
    expect([...f.pins.keys()].sort((a, b) => a - b)).toEqual([5, 6, 13, 17, 18, 19, 22, 23, 24, 25, 26, 27]);
    expect(f.pin(17).level).toBe(0);
    expect(f.pin(18).level).toBe(1);
    hw.contactor.set(true);
    hw.pilot.setDuty(50);
    hw.leds.show({ color: 'white', mode: 'steady' });
    expect(hw.contactor.feedback()).toBeUndefined();
    await expect(hw.temperature.read()).rejects.toThrow(/does not answer/);
    expect(await hw.meter.read()).toEqual({ energyWh: 1, powerW: 0, currentsA: [0, 0, 0] });
    await hw.close();
    expect(f.pin(17).level).toBe(0);
    expect(f.pin(18).hardwarePwm).toBeNull();
    expect(f.pin(18).level).toBe(1);
    expect([23, 24, 25].map((pin) => f.pin(pin).level)).toEqual([0, 0, 0]);
    expect(m.closed).toBe(true);
    expect(f.calls).toEqual(['terminate']);
    await hw.close();
    expect(f.calls).toEqual(['terminate']);
  });

  test('pigpio is initialised with its command interfaces off: no TCP port, no /dev/pigpio FIFOs anyone could write', () => {
    const f = fakePigpio();
    initializePigpio(f.module);
    expect(f.calls).toEqual(['configureInterfaces(3)', 'initialize']);
  });

  test('a pin assigned twice is refused before any pin is opened', () => {
    const f = fakePigpio();
    expect(() => createRpiHardware(f.module, { pins: { ...DEFAULT_RPI_PINS, buzzer: 17 }, meter: meter() })).toThrow(
      /GPIO 17 is assigned twice: contactor and buzzer/,
    );
    expect(() => createRpiHardware(f.module, { pins: { ...DEFAULT_RPI_PINS, lockFeedback: 5 }, meter: meter() })).toThrow(/GPIO 5/);
    expect(f.pins.size).toBe(0);
  });

  test('feedback inputs are opened when configured', () => {
    const f = fakePigpio();
    const hw = createRpiHardware(f.module, { pins: { ...DEFAULT_RPI_PINS, contactorFeedback: 20, lockFeedback: 21 }, meter: meter() });
    f.pin(20).input(1);
    expect(hw.contactor.feedback()).toBe(true);
    expect(hw.cableLock.locked()).toBe(false);
  });
});
