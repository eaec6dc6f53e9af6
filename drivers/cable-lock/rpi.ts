import type { CableLock } from '../types.js';
import type { Pigpio } from '../gpio/pigpio.js';
import { createSwitchedOutput } from '../gpio/switched-output.js';

export interface RpiCableLockOptions {
  /** BCM GPIO driving the lock actuator's driver stage (high = locked). */
  pin: number;
  /** BCM GPIO of the lock's feedback switch (high = locked, pulled down); none when the lock has no feedback. */
  feedbackPin?: number | undefined;
}

export type RpiCableLock = CableLock & { close(): void };

/**
 * The socket's cable lock on a Raspberry Pi: one output whose level the actuator driver holds (high = locked; a
 * motor lock's driver turns the level into a timed pulse in the right direction) and an optional feedback input.
 * Starts unlocked. `close()` leaves the lock as it is: the contactor is opened separately, and pulling a locked
 * cable is what the lock is there to prevent.
 */
export function createRpiCableLock(pigpio: Pigpio, options: RpiCableLockOptions): RpiCableLock {
  const actuator = createSwitchedOutput(pigpio, options, 'cable lock');
  return { set: actuator.set, commanded: actuator.commanded, locked: actuator.feedback, close() {} };
}
