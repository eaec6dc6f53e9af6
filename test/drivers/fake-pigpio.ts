import { EventEmitter } from 'node:events';
import type { GpioOptions, Pigpio } from '../../drivers/gpio/pigpio.js';

/**
 * A fake of the pigpio module: records what drivers do to each pin and lets tests drive the inputs. `initial` gives
 * the level a pin reads when it is opened (default 0).
 */
export function fakePigpio(initial: Record<number, 0 | 1> = {}) {
  const pins = new Map<number, FakeGpio>();
  const calls: string[] = [];

  class FakeGpio extends EventEmitter {
    static readonly INPUT = 0;
    static readonly OUTPUT = 1;
    static readonly PUD_OFF = 0;
    static readonly PUD_DOWN = 1;
    static readonly PUD_UP = 2;

    level = 0;
    /** Every level written with digitalWrite, in order. */
    writes: number[] = [];
    hardwarePwm: { frequency: number; dutyCycle: number } | null = null;
    softPwm: number | null = null;
    glitchUs: number | null = null;
    alerts: boolean;

    constructor(
      readonly gpio: number,
      readonly options: GpioOptions = {},
    ) {
      super();
      if (pins.has(gpio)) throw new Error(`fake pigpio: GPIO ${gpio} opened twice`);
      pins.set(gpio, this);
      this.alerts = options.alert === true;
      this.level = initial[gpio] ?? 0;
    }
    digitalRead() {
      return this.level;
    }
    digitalWrite(level: number) {
      this.level = level;
      this.hardwarePwm = null; // as pigpio: a write switches PWM off
      this.softPwm = null;
      this.writes.push(level);
      return this;
    }
    hardwarePwmWrite(frequency: number, dutyCycle: number) {
      if (!Number.isInteger(frequency) || !Number.isInteger(dutyCycle) || dutyCycle < 0 || dutyCycle > 1_000_000)
        throw new Error('pigpio: bad hardware PWM arguments');
      this.hardwarePwm = { frequency, dutyCycle };
      return this;
    }
    pwmWrite(dutyCycle: number) {
      if (!Number.isInteger(dutyCycle) || dutyCycle < 0 || dutyCycle > 255) throw new Error('pigpio: bad PWM duty');
      this.softPwm = dutyCycle;
      this.hardwarePwm = null;
      return this;
    }
    glitchFilter(steady: number) {
      this.glitchUs = steady;
      return this;
    }
    disableAlert() {
      this.alerts = false;
      return this;
    }
    /** Test side: the input changes to `level`; an alert is emitted when alerts are on. */
    input(level: 0 | 1) {
      if (this.level === level) return;
      this.level = level;
      if (this.alerts) this.emit('alert', level, 0);
    }
  }

  const module: Pigpio = {
    Gpio: FakeGpio,
    initialize: () => calls.push('initialize'),
    terminate: () => calls.push('terminate'),
    configureInterfaces: (mask: number) => calls.push(`configureInterfaces(${mask})`),
    DISABLE_FIFO_IF: 1,
    DISABLE_SOCK_IF: 2,
  };
  const pin = (gpio: number): FakeGpio => {
    const p = pins.get(gpio);
    if (!p) throw new Error(`GPIO ${gpio} was not opened`);
    return p;
  };
  return { module, pins, pin, calls };
}
