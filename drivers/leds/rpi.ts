import type { LedPattern, Leds } from '../types.js';
import { checkPin, type Pigpio } from '../gpio/pigpio.js';
import { BLINK_HALF_PERIOD_MS, checkLedPattern, LED_RGB, LEDS_OFF, PULSE_PERIOD_MS, PULSE_STEP_MS } from './pattern.js';

export interface RpiLedsOptions {
  /** BCM GPIOs of the red, green and blue LEDs (high = lit). */
  pins: readonly [number, number, number];
}

export type RpiLeds = Leds & { close(): void };

/**
 * Status LEDs on three GPIO outputs (R, G, B). Blinking is timed with a software timer; `pulse` ramps the brightness
 * with pigpio's software PWM (0..255).
 */
export function createRpiLeds(pigpio: Pigpio, options: RpiLedsOptions): RpiLeds {
  const { Gpio } = pigpio;
  options.pins.forEach((pin, i) => checkPin(pin, `LED ${'RGB'[i]}`));
  const outputs = options.pins.map((pin) => new Gpio(pin, { mode: Gpio.OUTPUT }));
  let pattern: LedPattern = LEDS_OFF;
  let timer: NodeJS.Timeout | undefined;

  const write = (lit: boolean) => LED_RGB[pattern.color].forEach((on, i) => outputs[i]!.digitalWrite(lit && on ? 1 : 0));
  const dim = (brightness: number) => LED_RGB[pattern.color].forEach((on, i) => outputs[i]!.pwmWrite(on ? brightness : 0));

  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  const apply = () => {
    stopTimer();
    const { mode } = pattern;
    if (mode === 'steady') {
      write(true);
    } else if (mode === 'pulse') {
      let t = 0;
      const step = () => {
        dim(Math.round((255 * (1 - Math.cos((2 * Math.PI * t) / PULSE_PERIOD_MS))) / 2));
        t = (t + PULSE_STEP_MS) % PULSE_PERIOD_MS;
      };
      step();
      timer = setInterval(step, PULSE_STEP_MS);
    } else {
      let lit = true;
      write(lit);
      timer = setInterval(() => {
        lit = !lit;
        write(lit);
      }, BLINK_HALF_PERIOD_MS[mode]);
    }
  };

  apply();
  return {
    show(next) {
      checkLedPattern(next);
      pattern = { color: next.color, mode: next.mode };
      apply();
    },
    current: () => ({ ...pattern }),
    close() {
      pattern = LEDS_OFF;
      apply();
    },
  };
}
