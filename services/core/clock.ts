import type { Timers } from '../../drivers/types.js';

/** Time for the actors: their timers and the current time in milliseconds (a manual clock in tests). */
export type Clock = Timers;

export { realTimers as realClock } from '../../drivers/timers.js';

/**
 * The controller's wall clock (UTC ms for stored and shown times): a base clock (the system's, or a test's manual
 * one) plus an offset, so that it can follow a time source the installation trusts more than the board's own clock
 * (the OCPP central system's `currentTime`; a Raspberry Pi has no battery-backed clock).
 */
export function createWallClock(base: () => number = Date.now) {
  let offsetMs = 0;
  return {
    now: () => base() + offsetMs,
    offset: () => offsetMs,
    /** From now on the wall clock reads `base() + ms`. */
    setOffset(ms: number): void {
      offsetMs = ms;
    },
    /** The offset that makes the wall clock read `trustedMs` now. */
    offsetTo: (trustedMs: number) => trustedMs - base(),
  };
}

export type WallClock = ReturnType<typeof createWallClock>;
