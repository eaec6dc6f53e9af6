/**
 * The control pilot's current encoding (IEC 61851-1, table A.7/A.8): the 1 kHz PWM duty cycle with which the EVSE
 * announces the maximum current the EV may draw. This is the pilot's signalling protocol, not a charging rule.
 *
 * | duty            | current                |
 * |-----------------|------------------------|
 * | < 8 %           | none (3-7 %: digital communication only) |
 * | 8 % .. < 10 %   | 6 A                    |
 * | 10 % .. 85 %    | duty × 0.6 A           |
 * | > 85 % .. 96 %  | (duty − 64) × 2.5 A    |
 * | > 96 % .. 97 %  | 80 A                   |
 * | > 97 %          | none                   |
 */

/** Lowest and highest current the duty encoding can announce, in A. */
export const MIN_PWM_CURRENT_A = 6;
export const MAX_PWM_CURRENT_A = 80;

/** Duty cycle in percent (not rounded) announcing `amps`: amps / 0.6 for 6..51 A, amps / 2.5 + 64 above 51 A up to 80 A. */
export function dutyForCurrent(amps: number): number {
  if (!Number.isFinite(amps) || amps < MIN_PWM_CURRENT_A || amps > MAX_PWM_CURRENT_A) {
    throw new RangeError(`no PWM duty cycle announces ${amps} A: the control pilot encodes 6 to 80 A`);
  }
  return amps <= 51 ? amps / 0.6 : amps / 2.5 + 64;
}

/**
 * The current in A (rounded to 0.01 A, as an EV measures the duty with finite precision) that a duty cycle in percent
 * announces; `null` when it announces no valid current (< 8 % or > 97 %, or not a number).
 */
export function currentForDuty(duty: number | null): number | null {
  if (duty === null || !Number.isFinite(duty) || duty < 8 || duty > 97) return null;
  let amps: number;
  if (duty < 10) amps = 6;
  else if (duty <= 85) amps = duty * 0.6;
  else if (duty <= 96) amps = (duty - 64) * 2.5;
  else amps = 80;
  return Math.round(amps * 100) / 100;
}

/** Checks a duty cycle given to `ControlPilot.setDuty`: `null` or 0 < percent < 100. */
export function checkDuty(percent: number | null): void {
  if (percent === null) return;
  if (typeof percent !== 'number' || !Number.isFinite(percent) || percent <= 0 || percent >= 100) {
    throw new RangeError(`PWM duty cycle must be above 0 and below 100 percent, or null for no PWM (got ${percent})`);
  }
}
