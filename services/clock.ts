import type { Timers } from '../drivers/types.js';

/** Time for the actors: their timers and the current time in milliseconds (a manual clock in tests). */
export type Clock = Timers;

export { realTimers as realClock } from '../drivers/timers.js';
