import type { Contactor } from '../types.js';
import type { Pigpio } from '../gpio/pigpio.js';
import { createSwitchedOutput } from '../gpio/switched-output.js';

export interface RpiContactorOptions {
  /** BCM GPIO driving the relay coil (high = closed). */
  pin: number;
  /** BCM GPIO of the auxiliary contact (high = closed, pulled down); none when the contactor has no feedback. */
  feedbackPin?: number | undefined;
}

export type RpiContactor = Contactor & { close(): void };

/**
 * A contactor on a Raspberry Pi (the main one, or the phase contactor: `what`): a relay output, open at start, and an
 * optional auxiliary contact input.
 */
export function createRpiContactor(pigpio: Pigpio, options: RpiContactorOptions, what = 'contactor'): RpiContactor {
  const coil = createSwitchedOutput(pigpio, options, what);
  return { ...coil, close: () => coil.set(false) };
}
