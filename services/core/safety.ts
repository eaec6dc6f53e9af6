import { POWER_CUT_DELAY_MS, type PilotLevel } from '../../machines/charge-cycle.js';
import type { Reaction } from './protocol.js';

/**
 * Measures the charge cycle's safety reactions at the outputs, apart from the machine that decides them: from the
 * moment the hardware's reading changed (the simulated plant's own timestamp; the driver's time otherwise) to the
 * moment the contactor was commanded open.
 *
 * - `contactor_open_on_pause`: the EV left C for B under load (IEC 61851-1: open within 100 ms);
 * - `contactor_open_on_unplug`: the vehicle went to A under load;
 * - `fault_open`: a CP fault level (E, F, D without ventilation) or a supervision fault (overtemperature, a
 *   contactor that does not close) under load;
 * - `power_cut`: the PWM stopped while the EV stayed in C: how late the contactor opened after the 6 s deadline.
 *
 * Each is measured from the earliest reason that asked for the contactor to open. A CP reading that goes back to C
 * before the contactor opened (a glitch shorter than the debounce) asked for nothing.
 */
export function createSafetyMonitor(report: (reaction: Reaction, ms: number) => void) {
  let contactorClosed = false;
  let pwmOn = false;
  /** Reasons to open while the contactor is closed, each since when. */
  let pilotReason: { reaction: Reaction; since: number } | null = null;
  let faultSince: number | null = null;
  let powerCutDue: number | null = null;

  return {
    /** A raw CP reading at time `at` (before the debounce). */
    pilot(level: PilotLevel, at: number, ventilationAvailable: boolean): void {
      // Stryker disable next-line ConditionalExpression: a reason recorded while open would be forgotten at the next closing anyway.
      if (!contactorClosed) return;
      const reaction: Reaction | null =
        level === 'a'
          ? 'contactor_open_on_unplug'
          : level === 'b'
            ? 'contactor_open_on_pause'
            : level === 'e' || level === 'f' || (level === 'd' && !ventilationAvailable)
              ? 'fault_open'
              : null;
      if (reaction === null) pilotReason = null;
      else if (!pilotReason) pilotReason = { reaction, since: at };
    },
    /** A supervision fault found at time `at` (a reading of the temperature or of the contactor's feedback). */
    fault(at: number): void {
      // Stryker disable next-line ConditionalExpression: a reason recorded while open would be forgotten at the next closing anyway.
      if (contactorClosed) faultSince ??= at;
    },
    /** The PWM was switched on or off at time `at`. */
    pwm(on: boolean, at: number): void {
      if (pwmOn && !on && contactorClosed) powerCutDue = at + POWER_CUT_DELAY_MS;
      if (on) powerCutDue = null;
      pwmOn = on;
    },
    /** The contactor was commanded at time `at`. */
    contactor(closed: boolean, at: number): void {
      if (closed === contactorClosed) return;
      contactorClosed = closed;
      // Stryker disable next-line ConditionalExpression: at a closing there is no reason to report (reasons are recorded only while closed).
      if (!closed) {
        const reasons: { reaction: Reaction; since: number }[] = [];
        if (pilotReason) reasons.push(pilotReason);
        if (faultSince !== null) reasons.push({ reaction: 'fault_open', since: faultSince });
        if (powerCutDue !== null) reasons.push({ reaction: 'power_cut', since: powerCutDue });
        const first = reasons.filter((r) => r.since <= at).sort((a, b) => a.since - b.since)[0];
        if (first) report(first.reaction, at - first.since);
      }
      pilotReason = null;
      faultSince = null;
      powerCutDue = null;
    },
  };
}

export type SafetyMonitor = ReturnType<typeof createSafetyMonitor>;
