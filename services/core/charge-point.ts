import type { ChargePointHardware } from '../../drivers/types.js';
import { stateMeta, type ChargeEvent, type StopReason, type TagAcceptance, type TagRefusal, type Authorization } from '../../machines/charge-cycle.js';
import type { ChargeCycleActor } from '../../machines/core.js';
import type { Clock } from './clock.js';
import { HMI_PATTERNS, hmiState } from './hmi.js';
import { createMetering } from './metering.js';
import { createOutputs } from './outputs.js';
import { createPhaseSwitching } from './phase-switching.js';
import type { PhaseSwitchMode } from './phase-switch-mode.js';
import type { PhaseCount } from '../../machines/phase-switch.js';
import type { GridReading, Reaction, ReportedEvent, TransactionRecord } from './protocol.js';
import { createGridInputs } from './grid-inputs.js';
import { createSafetyMonitor } from './safety.js';
import { createStateView } from './state-view.js';
import { createSupervision, PILOT_DEBOUNCE_MS } from './supervision.js';
import type { CoreLog } from './log.js';

export type { CoreLog } from './log.js';

export interface ChargePointDeps {
  hardware: ChargePointHardware;
  /** The core's clock: timers and the time of readings (a manual clock in tests). */
  clock: Clock;
  /** Wall-clock time for transaction timestamps. */
  now: () => number;
  log: CoreLog;
  /** CP debounce (the PilotDebounce setting; PILOT_DEBOUNCE_MS by default). */
  pilotDebounceMs?: number;
  /** The phases wired to the connector (setting Phases; 3 by default). */
  wiredPhases?: PhaseCount;
  /** How the phase count is chosen (setting PhaseSwitchMode; `auto` by default). */
  phaseSwitchMode?: PhaseSwitchMode;
  /** A transaction effect for the main thread to persist, in order. */
  transaction(event: 'start' | 'checkpoint' | 'stop', record: TransactionRecord, at: number, reason?: StopReason | 'Reboot'): void;
  /** A safety reaction measured at the outputs (ms). */
  reaction(reaction: Reaction, ms: number): void;
  /** An event for people (a tag's outcome), posted to the main thread's event log. */
  report(event: ReportedEvent): void;
  /** Something the state shows changed. */
  changed(): void;
  /** A reading of the energy inputs on this hardware (grid-inputs.ts), for the main thread. */
  gridReading?(reading: GridReading): void;
}

/**
 * The charge point in the core: connects the charge-cycle actor to the devices it commands, through its parts:
 * - inputs (supervision.ts): debounced CP levels (from the reading's own time), meter, temperature and contactor
 *   feedback supervision (faults and warnings);
 * - outputs (outputs.ts): PWM, contactor and cable lock follow the charge cycle's state tags, in a safe order, at
 *   once (nothing here waits for the main thread); the LEDs show its HMI state;
 * - effects the machine names: transaction start/stop and checkpoints (metering.ts: metered here, persisted by the
 *   main thread), buzzer feedback; the safety reactions are measured at the outputs (safety.ts);
 * - the state the main thread shows (state-view.ts).
 * It holds no charging rule of its own: those are in machines/charge-cycle.ts.
 */
export function createChargePoint(deps: ChargePointDeps) {
  const { hardware, clock, now, log } = deps;
  let chargeCycle: ChargeCycleActor | undefined;
  let reading = false;
  let readingTimer: unknown;
  let stopped = false;
  const unsubscribers: Array<() => void> = [];
  const safety = createSafetyMonitor(deps.reaction);

  // Readings, polls and transaction effects in flight, for settled() and the graceful stop.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  const cycle = (): ChargeCycleActor => {
    // Stryker disable next-line StringLiteral: run.ts attaches the charge cycle right after creating the charge point, before any input or state can ask for it
    if (!chargeCycle) throw new Error('charge point not attached');
    return chargeCycle;
  };

  // What the core sees change also reaches the phase switch (the EV's draw, the main contactor, a new session).
  const changed = () => {
    phases.feed();
    deps.changed();
  };
  const metering = createMetering({ hardware, clock, now, log, transaction: deps.transaction, changed, track });
  const grid = createGridInputs({ hardware, log, track, post: (reading) => deps.gridReading?.(reading) });
  const supervision = createSupervision({
    hardware,
    clock,
    cycle,
    safety,
    // The grid meter's turn on the bus comes right after each periodic read of the charging meter.
    metering: {
      readMeter: async (tx) => {
        const reading = await metering.readMeter(tx);
        grid.afterMeterRead();
        return reading;
      },
      checkpointIfDue: metering.checkpointIfDue,
    },
    debounceMs: deps.pilotDebounceMs ?? PILOT_DEBOUNCE_MS,
    changed,
    track,
  });
  const outputs = createOutputs({ hardware, clock, safety, contactorCommanded: supervision.contactorCommanded });
  const phases = createPhaseSwitching({
    hardware,
    wired: deps.wiredPhases ?? 3,
    mode: deps.phaseSwitchMode ?? 'auto',
    log,
    drawA: () => Math.max(0, ...(metering.lastReading()?.currentsA ?? [])),
    transactionId: () => metering.active()?.id ?? null,
    limit: (amps) => cycle().send({ type: 'LOAD_LIMIT', amps }),
    openMainContactor: () => cycle().send({ type: 'OPEN_CONTACTOR' }),
    changed: deps.changed,
  });

  const currentHmi = () => hmiState(stateMeta(cycle().getSnapshot()), reading);
  function showHmi(): void {
    hardware.leds.show(HMI_PATTERNS[currentHmi()]);
  }

  /** Shows `Reading card` (an RFID read: for `forMs`; the NFC link: while it lasts). */
  function setReading(on: boolean, forMs?: number): void {
    clock.clearTimeout(readingTimer);
    reading = on;
    if (on && forMs !== undefined) readingTimer = clock.setTimeout(() => setReading(false), forMs);
    showHmi();
    deps.changed();
  }

  const view = createStateView({ cycle, metering, supervision, outputs: outputs.outputs, hmi: currentHmi, phases: phases.state, phaseSwitch: phases.snapshot });

  const chargeActions = {
    startTransaction: (_: unknown, auth: Authorization) => metering.startTransaction(auth),
    stopTransaction: (_: unknown, { reason }: { reason: StopReason }) => metering.finish(reason),
    acceptTag: ({ event }: { event: ChargeEvent }, { outcome }: { outcome: TagAcceptance }) => {
      hardware.buzzer.beep(1, 150);
      if (event.type !== 'TAG') return;
      deps.report(
        event.userId !== undefined
          ? { kind: 'tag_accepted', tagId: event.id, userId: event.userId, outcome }
          : { kind: 'tag_accepted', tagId: event.id, outcome },
      );
    },
    refuseTag: ({ event }: { event: ChargeEvent }, { reason }: { reason: TagRefusal }) => {
      hardware.buzzer.beep(1, 800);
      if (event.type === 'TAG') deps.report({ kind: 'tag_refused', tagId: event.id, reason });
    },
    reportTag: (_: unknown, { id }: { id: string }) => deps.report({ kind: 'tag_ignored', tagId: id }),
  };

  return {
    chargeActions,
    /** The 1-/3-phase switch: its effects, limits, mode and wish (phase-switching.ts). */
    phases,
    /** The grid meter and the ripple-control contact on this hardware (grid-inputs.ts). */
    grid,
    state: view.state,
    setReading,

    /** Buzzer feedback another actor names (pairing). */
    beep(count: number, ms: number): void {
      hardware.buzzer.beep(count, ms);
    },

    /** Starts supervision once the actor runs: subscriptions, the first outputs and the poll loop. */
    attach(actor: ChargeCycleActor): void {
      chargeCycle = actor;
      let lastValue = JSON.stringify(actor.getSnapshot().value);
      outputs.applyOutputs(actor.getSnapshot());
      showHmi();
      const sub = actor.subscribe({
        next: (snapshot) => {
          outputs.applyOutputs(snapshot);
          showHmi();
          changed();
          const value = JSON.stringify(snapshot.value);
          if (value !== lastValue) {
            lastValue = value;
            metering.checkpoint();
          }
        },
        // A failed charge cycle (an effect that threw: a device driver) decides nothing any more: outputs safe.
        error: (err) => {
          outputs.safeOutputs();
          log.error({ err: String(err) }, 'charge cycle failed');
        },
      });
      unsubscribers.push(() => sub.unsubscribe());
      unsubscribers.push(hardware.pilot.onLevel(supervision.onPilotLevel));
      void track(supervision.poll());
    },

    /** Resolves when every started read and transaction effect has finished. */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    safeOutputs: outputs.safeOutputs,

    outputs: outputs.outputs,

    /**
     * Graceful stop: outputs go to their safe state, the running transaction is completed (stop reason Reboot),
     * timers stop.
     */
    async stop(): Promise<void> {
      // Stryker disable next-line ConditionalExpression: its one caller (run.ts) calls it once (stopping ??=); the killed true variant ignored with it
      if (stopped) return;
      stopped = true;
      for (const u of unsubscribers) u();
      supervision.stop();
      grid.stop();
      clock.clearTimeout(readingTimer);
      outputs.safeOutputs();
      await metering.stop();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

export type ChargePoint = ReturnType<typeof createChargePoint>;
