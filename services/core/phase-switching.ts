import type { StateValue } from 'xstate';
import type { ChargePointHardware } from '../../drivers/types.js';
import type { PhaseCount, PhaseSwitchEvent, PhaseSwitchSnapshot } from '../../machines/phase-switch.js';
import type { CoreLog } from './log.js';
import type { PhaseSwitchMode } from './phase-switch-mode.js';

/** The phases as the core reports them (CoreState `phases`). */
export interface PhaseState {
  /** The phases the charge point supplies now (the phase contactor's feedback, else its command; the wiring without one). */
  actual: PhaseCount;
  /** The phases wired to the connector (setting Phases). */
  wired: PhaseCount;
  /** A phase contactor is installed on a 3-phase supply and the mode lets it move. */
  switchable: boolean;
  /** A switch sequence runs (the charge point offers 0 A). */
  switching: boolean;
  /** Switches (and failed attempts) in this session. */
  switches: number;
}

export interface PhaseSwitchingDeps {
  hardware: Pick<ChargePointHardware, 'contactor' | 'phaseContactor'>;
  wired: PhaseCount;
  mode: PhaseSwitchMode;
  log: CoreLog;
  /** The EV's current now (A, highest line; 0 without a reading). */
  drawA(): number;
  /** The running transaction's id (a new one is a new session for the count of switches), null without one. */
  transactionId(): string | null;
  /** The current limit the charge cycle gets (LOAD_LIMIT): the main thread's, or 0 during a switch. */
  limit(amps: number | null): void;
  /** The charge cycle opens the main contactor now (OPEN_CONTACTOR; taken only while it pauses under load). */
  openMainContactor(): void;
  changed(): void;
}

/**
 * The 1-/3-phase switch in the core (docs/energy.md, "Phase switching"): runs machines/phase-switch.ts on the phase
 * contactor, feeds it the EV's draw and the main contactor's feedback, turns its `pause` tag into a limit of 0 A for
 * the charge cycle (the PWM goes off; the transaction goes on), and guards the phase contactor with an interlock of
 * its own: it never moves while the main contactor is commanded or reported closed, whatever the machine says. Off
 * (nothing ever moves) without a phase contactor or on a 1-phase supply.
 */
export function createPhaseSwitching(deps: PhaseSwitchingDeps) {
  const { hardware, wired, log } = deps;
  const contactor = wired === 3 ? hardware.phaseContactor : undefined;
  let mode = deps.mode;
  let wanted: PhaseCount | null = null;
  let mainLimit: number | null = null;
  let pausing = false;
  let actor: { send(event: PhaseSwitchEvent): void; getSnapshot(): PhaseSwitchSnapshot } | undefined;
  const fed: { drawA: number; closed: boolean; transactionId: string | null } = { drawA: Number.NaN, closed: false, transactionId: null };

  /** The main contactor is open: commanded open, and its auxiliary contact (if any) agrees. */
  const mainOpen = () => !hardware.contactor.commanded() && hardware.contactor.feedback() !== true;
  const mainClosed = () => hardware.contactor.feedback() ?? hardware.contactor.commanded();

  /** The phase count the mode and the allocator ask for. */
  const target = (): PhaseCount => (mode === 'force1' ? 1 : mode === 'auto' ? (wanted ?? 3) : 3);

  /** Moves the phase contactor, only with the main contactor open (the interlock). */
  function setContactor(phases: PhaseCount): void {
    // Stryker disable next-line ConditionalExpression: unreachable without a contactor (initialPhases returns before; the machine gets no WANT)
    if (!contactor) return;
    if (!mainOpen()) {
      log.error({ phases }, 'phase switch: interlock: the phase contactor stays, the main contactor is not open');
      return;
    }
    contactor.set(phases === 3);
  }

  const applyLimit = () => deps.limit(pausing ? 0 : mainLimit);

  function setPausing(on: boolean): void {
    if (on === pausing) return;
    pausing = on;
    applyLimit();
    deps.changed();
  }

  function sendWant(): void {
    if (actor && contactor) actor.send({ type: 'WANT', phases: target() });
  }

  return {
    /** The phase count to start with (the phase contactor is set to it before the charge cycle runs). */
    initialPhases(): PhaseCount {
      if (!contactor) return wired;
      const phases = mode === 'force1' ? 1 : 3;
      setContactor(phases);
      return phases;
    },

    /** The effects machines/phase-switch.ts names. */
    actions: {
      openMainContactor: () => {
        // The pause first (it is already on unless the EV drew nothing): the PWM is off before anything moves.
        setPausing(true);
        deps.openMainContactor();
      },
      setPhaseContactor: (_: unknown, { phases }: { phases: PhaseCount }) => setContactor(phases),
      switchFailed: () => log.warn({}, 'phase switch failed: the main contactor did not open in time; the phases stay'),
    },

    attach(a: NonNullable<typeof actor> & { subscribe(next: (s: PhaseSwitchSnapshot) => void): unknown }): void {
      actor = a;
      a.subscribe((s) => {
        setPausing(s.hasTag('pause'));
        deps.changed();
      });
      sendWant();
    },

    /** The main thread's current limit (A; null: none). */
    setLimit(amps: number | null): void {
      mainLimit = amps;
      applyLimit();
    },

    /** The mode (setting) and the allocator's preferred phase count (null: none, three phases). */
    configure(next: { mode?: PhaseSwitchMode | undefined; wanted?: PhaseCount | null | undefined }): void {
      if (next.mode !== undefined) mode = next.mode;
      if (next.wanted !== undefined) wanted = next.wanted;
      sendWant();
    },

    /** The EV's draw and the main contactor's state, after every change the core sees (only what changed is sent). */
    feed(): void {
      if (!actor || !contactor) return;
      const drawA = deps.drawA();
      const closed = mainClosed();
      const transactionId = deps.transactionId();
      // Recorded before sending: the events may come back here (a pause changes the outputs, which feed again).
      const was = { ...fed };
      Object.assign(fed, { drawA, closed, transactionId });
      if (drawA !== was.drawA) actor.send({ type: 'DRAW', amps: drawA });
      if (closed !== was.closed) actor.send({ type: 'CONTACTOR', closed });
      if (transactionId !== null && transactionId !== was.transactionId) actor.send({ type: 'SESSION' });
    },

    /** The phase switch actor's state, for the inspector (its context shows nothing). */
    snapshot(): { status: string; value: StateValue } | null {
      const snap = actor?.getSnapshot();
      return snap ? { status: (snap as { status: string }).status, value: snap.value } : null;
    },

    state(): PhaseState {
      const switching = actor?.getSnapshot().hasTag('pause') ?? false;
      if (!contactor) return { actual: wired, wired, switchable: false, switching: false, switches: 0 };
      const closed = contactor.feedback() ?? contactor.commanded();
      return { actual: closed ? 3 : 1, wired, switchable: mode !== 'never', switching, switches: actor?.getSnapshot().context.switches ?? 0 };
    },
  };
}

export type PhaseSwitching = ReturnType<typeof createPhaseSwitching>;
