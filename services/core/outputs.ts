import { dutyForCurrent } from '../../drivers/control-pilot/pwm.js';
import type { ChargePointHardware } from '../../drivers/types.js';
import { allowedCurrentA, type ChargeCycleSnapshot } from '../../machines/charge-cycle.js';
import type { Clock } from './clock.js';
import type { SafetyMonitor } from './safety.js';

export interface OutputsDeps {
  hardware: Pick<ChargePointHardware, 'contactor' | 'pilot' | 'cableLock'>;
  clock: Clock;
  /** Told of every contactor and PWM command, to measure the safety reactions. */
  safety: SafetyMonitor;
  /** The contactor was commanded to change (its auxiliary contact gets its settle time). */
  contactorCommanded(): void;
}

/**
 * The charge point's safety outputs: PWM, contactor and cable lock follow the charge cycle's state tags at once
 * (nothing here waits for the main thread), in a safe order, and go to their safe state whatever the machine says
 * when nothing decides any more. The rules that set the tags are in machines/charge-cycle.ts.
 */
export function createOutputs(deps: OutputsDeps) {
  const { hardware, clock, safety } = deps;

  /** Drives the outputs from the charge cycle's tags: opening before closing, the lock before the contactor. */
  function applyOutputs(snapshot: ChargeCycleSnapshot): void {
    const contactor = snapshot.hasTag('contactor');
    const locked = snapshot.hasTag('locked') || contactor;
    const duty = snapshot.hasTag('pwm') ? dutyForCurrent(Math.min(allowedCurrentA(snapshot.context), 80)) : null;
    const changedContactor = hardware.contactor.commanded() !== contactor;
    const at = clock.now();
    if (!contactor && hardware.contactor.commanded()) {
      hardware.contactor.set(false);
      safety.contactor(false, at);
    }
    if (hardware.pilot.duty() !== duty) {
      hardware.pilot.setDuty(duty);
      safety.pwm(duty !== null, at);
    }
    if (locked && !hardware.cableLock.commanded()) hardware.cableLock.set(true);
    if (contactor && !hardware.contactor.commanded()) {
      hardware.contactor.set(true);
      safety.contactor(true, at);
    }
    if (!locked && hardware.cableLock.commanded()) hardware.cableLock.set(false);
    if (changedContactor) deps.contactorCommanded();
  }

  /** Outputs to their safe state at once (contactor open, PWM off, cable unlocked), whatever the machine says. */
  function safeOutputs(): void {
    const at = clock.now();
    hardware.contactor.set(false);
    safety.contactor(false, at);
    hardware.pilot.setDuty(null);
    // its PWM state only matters at a later opening, and none is told after this (stop() removed every input first, a failed charge cycle sends no
    // snapshot, mainLost ends the process)
    // Stryker disable next-line BooleanLiteral: see above
    safety.pwm(false, at);
    hardware.cableLock.set(false);
  }

  /** What the outputs are commanded to now. */
  const outputs = () => ({ contactorClosed: hardware.contactor.commanded(), pwmDuty: hardware.pilot.duty(), cableLocked: hardware.cableLock.commanded() });

  return { applyOutputs, safeOutputs, outputs };
}

export type Outputs = ReturnType<typeof createOutputs>;
