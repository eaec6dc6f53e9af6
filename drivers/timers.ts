import type { Timers } from './types.js';

/** The real-time timers, for devices not given the controller's clock. */
export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};
