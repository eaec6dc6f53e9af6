import type { ControlPilot, PilotLevel, Unsubscribe } from '../types.js';
import { checkPin, type GpioPin, type Pigpio } from '../gpio/pigpio.js';
import { Listeners } from '../listeners.js';
import { checkDuty } from './pwm.js';

/** PWM frequency of the control pilot (IEC 61851-1). */
export const PILOT_PWM_HZ = 1000;

export interface RpiControlPilotOptions {
  /** BCM GPIO driving the ±12 V pilot output stage (high = +12 V), hardware PWM capable (12, 13, 18 or 19). */
  pwmPin: number;
  /**
   * The five comparator inputs, high when the pilot's PWM high level (peak-held by the front end) is
   * [above 10.5 V, above 7.5 V, above 4.5 V, above 1.5 V, below -10 V].
   */
  levelPins: readonly [number, number, number, number, number];
  /** pigpio glitch filter on the comparator inputs in µs (default 1000): shorter changes are not reported. */
  glitchFilterUs?: number;
}

/**
 * The level the comparator bits encode. The four threshold comparators form a thermometer code: A (all four high),
 * B (all but >10.5 V), C, D (only >1.5 V), E (none, 0 V); F (-12 V) when none of them but the <-10 V input is high.
 * Any other combination cannot come from one voltage (broken comparator or wiring) and reads as E (error).
 */
export function levelFromComparators(bits: readonly boolean[]): PilotLevel {
  const [above10, above7, above4, above1, belowMinus10] = bits;
  const thermometer = [above10, above7, above4, above1];
  const highs = thermometer.filter(Boolean).length;
  const consistent = thermometer.every((bit, i) => bit === i >= 4 - highs);
  if (!consistent) return 'e';
  if (highs > 0) return belowMinus10 ? 'e' : (['e', 'd', 'c', 'b', 'a'] as const)[highs]!;
  return belowMinus10 ? 'f' : 'e';
}

export type RpiControlPilot = ControlPilot & { close(): void };

/**
 * Control pilot on a Raspberry Pi: 1 kHz hardware PWM on `pwmPin` (no PWM = constant high, +12 V) and the level from
 * five comparator inputs reported through pigpio alerts.
 */
export function createRpiControlPilot(pigpio: Pigpio, options: RpiControlPilotOptions): RpiControlPilot {
  const { Gpio } = pigpio;
  checkPin(options.pwmPin, 'control pilot PWM');
  if (options.levelPins.length !== 5) throw new RangeError('control pilot: five comparator inputs are needed');
  options.levelPins.forEach((pin) => checkPin(pin, 'control pilot level input'));

  const pwm = new Gpio(options.pwmPin, { mode: Gpio.OUTPUT });
  let duty: number | null = null;
  pwm.digitalWrite(1);

  const inputs: GpioPin[] = options.levelPins.map((pin) => new Gpio(pin, { mode: Gpio.INPUT, pullUpDown: Gpio.PUD_DOWN, alert: true }));
  const bits = inputs.map((input) => input.digitalRead() === 1);
  let level = levelFromComparators(bits);
  const listeners = new Listeners<[PilotLevel]>();

  inputs.forEach((input, i) => {
    input.glitchFilter(options.glitchFilterUs ?? 1000);
    input.on('alert', (value) => {
      bits[i] = value === 1;
      const next = levelFromComparators(bits);
      if (next === level) return;
      level = next;
      listeners.emit(level);
    });
  });

  return {
    level: () => level,
    onLevel: (listener): Unsubscribe => listeners.add(listener),
    setDuty(percent) {
      checkDuty(percent);
      duty = percent;
      if (percent === null) pwm.digitalWrite(1);
      else pwm.hardwarePwmWrite(PILOT_PWM_HZ, Math.round(percent * 10_000));
    },
    duty: () => duty,
    close() {
      duty = null;
      pwm.digitalWrite(1);
      for (const input of inputs) {
        input.removeAllListeners('alert');
        input.disableAlert();
      }
      listeners.clear();
    },
  };
}
