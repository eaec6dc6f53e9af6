import type { ChargePointHardware } from '../../drivers/types.js';
import type { BlockingFault, PilotLevel } from '../../machines/charge-cycle.js';
import type { ChargeCycleActor } from '../../machines/core.js';
import type { Clock } from './clock.js';
import type { Metering } from './metering.js';
import type { SafetyMonitor } from './safety.js';

/** A CP level must stay this long before the charge cycle acts on it (real cars glitch B→A→B). */
export const PILOT_DEBOUNCE_MS = 40;
/** Meter, temperature and contactor feedback are read at this interval. */
export const POLL_INTERVAL_MS = 1_000;
/** Time the contactor's auxiliary contact gets to follow a command before a mismatch is a fault. */
export const CONTACTOR_SETTLE_MS = 200;
export const TEMPERATURE_WARNING_C = 60;
export const TEMPERATURE_LIMIT_C = 80;
export const TEMPERATURE_RESUME_C = 75;

export interface SupervisionDeps {
  hardware: ChargePointHardware;
  clock: Clock;
  /** The charge-cycle actor the inputs and faults go to. */
  cycle: () => ChargeCycleActor;
  safety: SafetyMonitor;
  metering: Pick<Metering, 'readMeter' | 'checkpointIfDue'>;
  /** CP debounce (the PilotDebounce setting; PILOT_DEBOUNCE_MS by default). */
  debounceMs: number;
  /** Something the state shows changed. */
  changed(): void;
  /** Work in flight, for `settled()` and the graceful stop. */
  track<T>(p: Promise<T>): Promise<T>;
}

/**
 * The charge point's inputs and their supervision: CP levels debounced from the reading's own time, the poll loop
 * (meter, temperature, contactor feedback), the contactor's auxiliary contact compared with its command after its
 * settle time, and the faults (overtemperature, contactor welded or not closing) raised and cleared in the charge cycle.
 */
export function createSupervision(deps: SupervisionDeps) {
  const { hardware, clock, cycle, safety, metering, debounceMs, track } = deps;
  let temperatureC: number | null = null;
  let temperatureAnswering = true;
  let pilotTimer: unknown;
  let pollTimer: unknown;
  let contactorTimer: unknown;
  /** From a contactor command until its settle time has passed: the auxiliary contact may still be moving. */
  let contactorSettling = false;
  let stopped = false;
  const reportedFaults = new Set<BlockingFault>();

  function setFault(fault: BlockingFault, isActive: boolean): void {
    if (reportedFaults.has(fault) === isActive) return;
    if (isActive) reportedFaults.add(fault);
    else reportedFaults.delete(fault);
    // a fault clears only while the contactor is open (every active fault opens it), and safety.ts forgets a reason recorded while open at the next
    // closing
    // Stryker disable next-line ConditionalExpression: see above
    if (isActive) safety.fault(clock.now());
    // Reported (and logged) as the messages it raises and clears: see messageEvents.
    cycle().send({ type: 'FAULT', fault, active: isActive });
  }

  /** Compares the contactor's auxiliary contact with the command. */
  function superviseContactor(): void {
    const feedback = hardware.contactor.feedback();
    if (feedback === undefined) return;
    const commanded = hardware.contactor.commanded();
    setFault('contactor-welded', !commanded && feedback);
    if (commanded && !feedback) setFault('contactor-not-closing', true);
  }

  async function superviseTemperature(): Promise<void> {
    try {
      temperatureC = await hardware.temperature.read();
      temperatureAnswering = true;
      deps.changed();
      const over = reportedFaults.has('overtemperature');
      setFault('overtemperature', over ? temperatureC >= TEMPERATURE_RESUME_C : temperatureC >= TEMPERATURE_LIMIT_C);
    } catch {
      temperatureAnswering = false;
      temperatureC = null;
      deps.changed();
    }
  }

  async function poll(): Promise<void> {
    await metering.readMeter();
    await superviseTemperature();
    if (stopped) return;
    // Not within a command's settle time (a poll just after it would see a contact still moving as a fault).
    if (!contactorSettling) superviseContactor();
    metering.checkpointIfDue();
    pollTimer = clock.setTimeout(() => void track(poll()), POLL_INTERVAL_MS);
  }

  function onPilotLevel(level: PilotLevel, at = clock.now()): void {
    safety.pilot(level, at, cycle().getSnapshot().context.settings.ventilationAvailable);
    clock.clearTimeout(pilotTimer);
    // The debounce runs from the reading's own time, so a late report does not add its lateness.
    pilotTimer = clock.setTimeout(
      () => {
        if (hardware.pilot.level() !== level || cycle().getSnapshot().context.pilot === level) return;
        cycle().send({ type: 'PILOT', level });
        // That fault is latched until the vehicle leaves; cleared after the charge cycle learnt it left, so clearing it
        // cannot send the charge cycle on towards a vehicle no longer there (a transaction, the contactor closing).
        if (level === 'a') setFault('contactor-not-closing', false);
      },
      Math.max(0, at + debounceMs - clock.now()),
    );
  }

  return {
    poll,
    onPilotLevel,

    /** The contactor was commanded to change: its auxiliary contact is checked once its settle time has passed. */
    contactorCommanded(): void {
      clock.clearTimeout(contactorTimer);
      contactorSettling = true;
      contactorTimer = clock.setTimeout(() => {
        contactorSettling = false;
        superviseContactor();
      }, CONTACTOR_SETTLE_MS);
    },

    /** Graceful stop: no more polls or debounce and settle checks (a poll in flight ends after its readings). */
    stop(): void {
      stopped = true;
      for (const t of [pilotTimer, pollTimer, contactorTimer]) clock.clearTimeout(t);
    },

    temperatureC: () => temperatureC,
    temperatureAnswering: () => temperatureAnswering,
    overtemperature: () => reportedFaults.has('overtemperature'),
  };
}

export type Supervision = ReturnType<typeof createSupervision>;
