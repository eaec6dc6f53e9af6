import type { ChargingService } from './charging.js';
import { MIN_CHARGE_CURRENT_A } from '../machines/charge-cycle.js';
import { conflict, invalid } from './errors.js';

/**
 * Stop, pause, resume and the current of the running charge, for every client (MQTT, the web API's /v1/charge): one place for the
 * operations and their refusals (an OperationError `conflict` with the reason in words). It only uses what the
 * charge cycle already has (machines/charge-cycle.ts):
 * - stop: the commanded stop (STOP, reason `Remote`: OCPP 1.6 names a stop at the user's request from an app so),
 *   the same way the central system's RemoteStopTransaction takes; under load the PWM goes off first;
 * - pause: a current limit of its own of 0 A (an input of the allocator loop, services/energy/), so the
 *   cycle pauses as under a load limit below 6 A (`charging_pause`, suspendedEVSE); resume removes that limit. The
 *   pause ends with its transaction: the next one starts unpaused.
 * - current: the user's current for the running charge (6 A to the MaxCurrent setting), the same limit input as the
 *   pause (its amps), so the allocator composes it with every other limit (the lowest wins); a pause holds it, resume
 *   restores it; it ends with its transaction like the pause.
 * - start: an authorization without a tag (AUTHORIZE, source `user`), taken as a whitelisted tag is: plugged in, the
 *   transaction starts; before plug-in it is held for the authorization timeout. The transaction has no tagId; the
 *   central system gets the idTag of a charge without a tag (services/ocpp/outbox.ts FREE_CHARGING_ID_TAG). Refused
 *   while a charge runs or is still stopping, with charging disabled, or during a fault (docs/mqtt.md).
 */

/** The current limit of a pause (A): below the 6 A a PWM can announce. */
const PAUSE_LIMIT_A = 0;

export interface ChargeControlOptions {
  /** The MaxCurrent setting (A): the highest current the user may choose. */
  maxCurrentA: () => number;
}

export function createChargeControl(
  charging: Pick<ChargingService, 'coreState' | 'stopTransaction' | 'limits' | 'watch' | 'authorizeWithoutTag' | 'held' | 'newChargesRefused'>,
  options: ChargeControlOptions = { maxCurrentA: () => Infinity },
) {
  let paused = false;
  /** The user's current for the running charge (A); null: none chosen. */
  let currentA: number | null = null;
  const running = () => charging.coreState()?.transaction != null;

  /** The user's limit input: 0 A while paused, else the chosen current (or none). */
  function apply(): void {
    charging.limits.set('pause', paused ? PAUSE_LIMIT_A : currentA);
  }

  function unpause(): void {
    paused = false;
    apply();
  }

  // A pause and a chosen current belong to their transaction.
  charging.watch(() => {
    if ((paused || currentA !== null) && !running()) {
      paused = false;
      currentA = null;
      apply();
    }
  });

  /** Why no charge can be stopped or paused now. */
  function notRunning(): string {
    const system = charging.coreState()?.system;
    if (!system) return 'No charge is running: the charge point has not started yet';
    if (system.systemState === 'finished') return 'No charge is running: the charge has finished (unplug the vehicle, or present a tag to start a new one)';
    return `No charge is running (state ${system.systemState})`;
  }

  return {
    /** The running charge is paused by a user (pause). */
    paused: (): boolean => paused,

    /** The user's current for the running charge (A), null when none is chosen. */
    current: (): number | null => currentA,

    /** The range of `setCurrent` (A): from the lowest current a PWM can announce to the MaxCurrent setting. */
    range: (): { minA: number; maxA: number } => ({ minA: MIN_CHARGE_CURRENT_A, maxA: options.maxCurrentA() }),

    /**
     * Sets the current of the running charge (A per phase, whole amperes from 6 to MaxCurrent), or with null
     * removes it; every other limit still applies (the lowest wins). While paused it waits for the resume.
     */
    setCurrent(amps: number | null): void {
      if (!running()) throw conflict(notRunning());
      if (amps !== null) {
        const maxA = options.maxCurrentA();
        if (!Number.isInteger(amps) || amps < MIN_CHARGE_CURRENT_A || amps > maxA) {
          throw invalid(`The current must be a whole number of amperes from ${MIN_CHARGE_CURRENT_A} to ${maxA} A (the MaxCurrent setting)`);
        }
      }
      currentA = amps;
      apply();
    },

    /** Starts a charge without a tag: at once with a vehicle connected, else when one is plugged in within the authorization timeout. */
    start(): void {
      const state = charging.coreState();
      if (!state) throw conflict('No charge can start: the charge point has not started yet');
      if (state.transaction) throw conflict('A charge is already running');
      const refused = charging.newChargesRefused();
      if (refused) throw conflict(`No charge can start: ${refused.message}`);
      const { systemState } = state.system;
      if (systemState === 'unavailable') throw conflict('No charge can start: charging is disabled (setting ChargingEnabled)');
      if (systemState === 'error') {
        const faults = state.messages.filter((m) => m.severity === 'ERROR').map((m) => m.message);
        throw conflict(`No charge can start during a fault${faults.length ? `: ${faults.join('; ')}` : ''}`);
      }
      // The session's tag or a stop under load: the contactor opens on C→B or after 6 s; nothing starts before.
      if (state.outputs.contactorClosed) throw conflict('The last charge is still stopping: start again once the contactor has opened');
      if (charging.held()) throw conflict('No charge can start without a tag: the connector is reserved by the central system (OCPP ReserveNow) for its tag');
      charging.authorizeWithoutTag('user');
    },

    /** Stops the running charge (its transaction ends, reason Remote). */
    stop(): void {
      if (!running()) throw conflict(notRunning());
      charging.stopTransaction('Remote');
    },

    /** Pauses the running charge until `resume` (the transaction goes on, the contactor opens). */
    pause(): void {
      if (!running()) throw conflict(notRunning());
      if (paused) throw conflict('The charge is paused already');
      paused = true;
      apply();
    },

    /** Resumes a charge paused by `pause`. */
    resume(): void {
      if (!running()) throw conflict(notRunning());
      if (!paused) {
        const state = charging.coreState()!;
        if (state.system.systemState !== 'charging_pause') throw conflict('The charge is not paused');
        const why = state.outputs.pwmA === null ? 'the allowed current is below 6 A (maximum current or a load limit)' : 'the vehicle paused it';
        throw conflict(`The charge was not paused from here: ${why}`);
      }
      unpause();
    },
  };
}

export type ChargeControl = ReturnType<typeof createChargeControl>;
