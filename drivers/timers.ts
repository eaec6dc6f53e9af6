import type { Timers } from './types.js';

/**
 * The real-time timers. `now()` is monotonic: the process's start on the wall clock plus the time elapsed since,
 * so it reads as a date but never jumps when the system clock is set (NTP correcting a Raspberry Pi that booted
 * without a real-time clock, by hours or days). Durations measured with it (timeouts, debounces, ages of readings)
 * stay true; wall-clock times (stored and shown) come from the controller's wall clock (services/core/clock.ts).
 */
export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  // Whole milliseconds, as Date.now() gives: times go into records and messages that take integers.
  now: () => Math.floor(performance.timeOrigin + performance.now()),
};
