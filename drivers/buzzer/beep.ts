/** Length of one beep (and of the pause after it) when `Buzzer.beep` is given none, in ms. */
export const DEFAULT_BEEP_MS = 100;

/** Checks the arguments of `Buzzer.beep`: a whole count from 1 to 20, a length from 10 to 5000 ms. */
export function checkBeep(count: number, ms: number): void {
  if (!Number.isInteger(count) || count < 1 || count > 20) throw new RangeError(`beep count must be a whole number from 1 to 20 (got ${count})`);
  if (!Number.isFinite(ms) || ms < 10 || ms > 5000) throw new RangeError(`beep length must be 10 to 5000 ms (got ${ms})`);
}
