import type { LedPattern } from '../types.js';

export const LED_COLORS = ['off', 'green', 'blue', 'yellow', 'red', 'white'] as const satisfies readonly LedPattern['color'][];
export const LED_MODES = ['steady', 'slow-blink', 'fast-blink', 'pulse'] as const satisfies readonly LedPattern['mode'][];

/** Which of the red, green and blue LEDs make each colour. */
export const LED_RGB: Record<LedPattern['color'], readonly [boolean, boolean, boolean]> = {
  off: [false, false, false],
  green: [false, true, false],
  blue: [false, false, true],
  yellow: [true, true, false],
  red: [true, false, false],
  white: [true, true, true],
};

/** Half period (on time = off time) of the blink modes in ms: slow 1 Hz, fast 4 Hz. */
export const BLINK_HALF_PERIOD_MS = { 'slow-blink': 500, 'fast-blink': 125 } as const;
/** Period of the `pulse` mode (brightness rising and falling) in ms, and the step of its software PWM. */
export const PULSE_PERIOD_MS = 2000;
export const PULSE_STEP_MS = 50;

export const LEDS_OFF: LedPattern = { color: 'off', mode: 'steady' };

export function checkLedPattern(pattern: LedPattern): void {
  if (!(LED_COLORS as readonly string[]).includes(pattern?.color))
    throw new RangeError(`LED colour must be one of ${LED_COLORS.join(', ')} (got ${pattern?.color})`);
  if (!(LED_MODES as readonly string[]).includes(pattern.mode)) throw new RangeError(`LED mode must be one of ${LED_MODES.join(', ')} (got ${pattern.mode})`);
}
