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

/** The main contactor on a Raspberry Pi: a relay output, open at start, and an optional auxiliary contact input. */
export function createRpiContactor(pigpio: Pigpio, options: RpiContactorOptions): RpiContactor {
  const coil = createSwitchedOutput(pigpio, options, 'contactor');
  return { ...coil, close: () => coil.set(false) };
}
