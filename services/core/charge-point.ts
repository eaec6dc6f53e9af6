import { randomUUID } from 'node:crypto';
import { currentForDuty, dutyForCurrent } from '../../drivers/control-pilot/pwm.js';
import type { ChargePointHardware, MeterReading } from '../../drivers/types.js';
import {
  allowedCurrentA,
  pilotFault,
  stateMeta,
  type Authorization,
  type BlockingFault,
  type ChargeCycleSnapshot,
  type PilotLevel,
  type StopReason,
  type ChargeEvent,
  type TagAcceptance,
  type TagRefusal,
} from '../../machines/charge-cycle.js';
import type { ChargeCycleActor } from '../../machines/core.js';
import type { Clock } from './clock.js';
import { HMI_PATTERNS, hmiState } from './hmi.js';
import type { Message } from './system-state.js';
import { MESSAGES, type MessageCause } from './messages.js';
import type { CoreState, Reaction, ReportedEvent, TransactionRecord } from './protocol.js';
import { createSafetyMonitor } from './safety.js';

/** A CP level must stay this long before the charge cycle acts on it (real cars glitch B→A→B). */
export const PILOT_DEBOUNCE_MS = 40;
/** Meter, temperature and contactor feedback are read at this interval. */
export const POLL_INTERVAL_MS = 1_000;
/** The active transaction is checkpointed at least this often (and on every state change). */
export const CHECKPOINT_INTERVAL_MS = 10_000;
/** Time the contactor's auxiliary contact gets to follow a command before a mismatch is a fault. */
export const CONTACTOR_SETTLE_MS = 200;
export const TEMPERATURE_WARNING_C = 60;
export const TEMPERATURE_LIMIT_C = 80;
export const TEMPERATURE_RESUME_C = 75;

/** Where the core's log lines go (the main thread's logger, through a message). */
export interface CoreLog {
  debug(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

export interface ChargePointDeps {
  hardware: ChargePointHardware;
  /** The core's clock: timers and the time of readings (a manual clock in tests). */
  clock: Clock;
  /** Wall-clock time for transaction timestamps. */
  now: () => number;
  log: CoreLog;
  /** CP debounce (the PilotDebounce setting; PILOT_DEBOUNCE_MS by default). */
  pilotDebounceMs?: number;
  /** A transaction effect for the main thread to persist, in order. */
  transaction(event: 'start' | 'checkpoint' | 'stop', record: TransactionRecord, at: number, reason?: StopReason | 'Reboot'): void;
  /** A safety reaction measured at the outputs (ms). */
  reaction(reaction: Reaction, ms: number): void;
  /** An event for people (a tag's outcome), posted to the main thread's event log. */
  report(event: ReportedEvent): void;
  /** Something the state shows changed. */
  changed(): void;
}

/**
 * The charge point in the core: connects the charge-cycle actor to the devices it commands.
 * - inputs: debounced CP levels (from the reading's own time), meter, temperature and contactor feedback
 *   supervision (faults and warnings);
 * - outputs: PWM, contactor, cable lock and LEDs follow the charge cycle's state tags, in a safe order, at once
 *   (nothing here waits for the main thread);
 * - effects the machine names: transaction start/stop and checkpoints (metered here, persisted by the main thread),
 *   buzzer feedback; the safety reactions are measured at the outputs.
 * It holds no charging rule of its own: those are in machines/charge-cycle.ts.
 */
export function createChargePoint(deps: ChargePointDeps) {
  const { hardware, clock, now, log } = deps;
  const debounceMs = deps.pilotDebounceMs ?? PILOT_DEBOUNCE_MS;
  let chargeCycle: ChargeCycleActor | undefined;

  let lastReading: MeterReading | null = null;
  let meterAnswering = true;
  let temperatureC: number | null = null;
  let temperatureAnswering = true;
  let active: TransactionRecord | null = null;
  /** Clock time of the active transaction's last checkpoint. */
  let checkpointedAt = 0;
  let reading = false;
  let readingTimer: unknown;
  let pilotTimer: unknown;
  let pollTimer: unknown;
  let contactorTimer: unknown;
  /** From a contactor command until its settle time has passed: the auxiliary contact may still be moving. */
  let contactorSettling = false;
  let stopped = false;
  const reportedFaults = new Set<BlockingFault>();
  const unsubscribers: Array<() => void> = [];
  const safety = createSafetyMonitor(deps.reaction);

  // Transaction effects run in order (a checkpoint never overtakes its start), each after a fresh meter reading.
  let queue: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };
  // The `what` strings below only name an effect in the log line of one that failed: neither readMeter (it catches)
  // nor posting the record throws, so no test can reach that line (marked StringLiteral equivalents at each call).
  const enqueue = (what: string, work: () => Promise<void>): void => {
    // Stryker disable next-line ArrowFunction,ObjectLiteral,StringLiteral: that log line of a failed effect cannot be reached (above)
    queue = queue.then(work).catch((err: unknown) => log.error({ err: String(err) }, `${what} failed`));
    track(queue);
  };

  const cycle = (): ChargeCycleActor => {
    // Stryker disable next-line StringLiteral: run.ts attaches the charge cycle right after creating the charge point, before any input or state can ask for it
    if (!chargeCycle) throw new Error('charge point not attached');
    return chargeCycle;
  };

  /**
   * Reads the meter; the reading counts for `tx` (the transaction active when it answers, unless one is named). A
   * transaction counts only energy read after its start: its first reading is its start register.
   */
  async function readMeter(tx?: TransactionRecord): Promise<MeterReading | null> {
    try {
      const r = await hardware.meter.read();
      const at = now();
      lastReading = r;
      meterAnswering = true;
      const counted = tx ?? active;
      if (counted) {
        if (counted.meterStartWh === null) {
          counted.meterStartWh = Math.round(r.energyWh);
          counted.meterStartAt = at;
        }
        counted.meterLastWh = Math.round(r.energyWh);
        counted.meterLastAt = at;
        counted.maxPowerW = Math.max(counted.maxPowerW, Math.round(r.powerW));
      }
      deps.changed();
      return r;
    } catch {
      if (meterAnswering) log.warn({}, 'the energy meter does not answer');
      meterAnswering = false;
      deps.changed();
      return null;
    }
  }

  function setFault(fault: BlockingFault, isActive: boolean): void {
    if (reportedFaults.has(fault) === isActive) return;
    if (isActive) reportedFaults.add(fault);
    else reportedFaults.delete(fault);
    // Stryker disable next-line ConditionalExpression: a fault clears only while the contactor is open (every active fault opens it), and safety.ts forgets a reason recorded while open at the next closing
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

  /** The record as it stands, for a message (a copy: later readings do not change what was sent). */
  const snapshotOf = (tx: TransactionRecord): TransactionRecord => ({ ...tx });

  function checkpoint(): void {
    const tx = active;
    if (!tx) return;
    checkpointedAt = clock.now();
    // Stryker disable next-line StringLiteral: only in the log line of a failed effect, which cannot happen (see enqueue)
    enqueue('transaction checkpoint', async () => {
      await readMeter(tx);
      deps.transaction('checkpoint', snapshotOf(tx), now());
    });
  }

  async function poll(): Promise<void> {
    await readMeter();
    await superviseTemperature();
    if (stopped) return;
    // Not within a command's settle time (a poll just after it would see a contact still moving as a fault).
    if (!contactorSettling) superviseContactor();
    if (active && clock.now() - checkpointedAt >= CHECKPOINT_INTERVAL_MS) checkpoint();
    pollTimer = clock.setTimeout(() => void track(poll()), POLL_INTERVAL_MS);
  }

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
    if (changedContactor) {
      clock.clearTimeout(contactorTimer);
      contactorSettling = true;
      contactorTimer = clock.setTimeout(() => {
        contactorSettling = false;
        superviseContactor();
      }, CONTACTOR_SETTLE_MS);
    }
  }

  /** Outputs to their safe state at once (contactor open, PWM off, cable unlocked), whatever the machine says. */
  function safeOutputs(): void {
    const at = clock.now();
    hardware.contactor.set(false);
    safety.contactor(false, at);
    hardware.pilot.setDuty(null);
    // Stryker disable next-line BooleanLiteral: its PWM state only matters at a later opening, and none is told after this (stop() removed every input first, a failed charge cycle sends no snapshot, mainLost ends the process)
    safety.pwm(false, at);
    hardware.cableLock.set(false);
  }

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

  function onPilotLevel(level: PilotLevel, at = clock.now()): void {
    safety.pilot(level, at, cycle().getSnapshot().context.settings.ventilationAvailable);
    clock.clearTimeout(pilotTimer);
    // The debounce runs from the reading's own time, so a late report does not add its lateness.
    pilotTimer = clock.setTimeout(() => {
      if (hardware.pilot.level() !== level || cycle().getSnapshot().context.pilot === level) return;
      cycle().send({ type: 'PILOT', level });
      // That fault is latched until the vehicle leaves; cleared after the charge cycle learnt it left, so clearing it
      // cannot send the charge cycle on towards a vehicle no longer there (a transaction, the contactor closing).
      if (level === 'a') setFault('contactor-not-closing', false);
    }, Math.max(0, at + debounceMs - clock.now()));
  }

  const chargeActions = {
    startTransaction: (_: unknown, auth: Authorization) => {
      const tx: TransactionRecord = {
        id: randomUUID(),
        startedAt: now(),
        meterStartWh: null,
        meterStartAt: null,
        meterLastWh: null,
        meterLastAt: null,
        maxPowerW: 0,
      };
      // Stryker disable next-line ConditionalExpression: an undefined tagId is no tag everywhere the record goes (valibot optional, a null column, state() checks it)
      if (auth.tagId !== undefined) tx.tagId = auth.tagId;
      // Stryker disable next-line ConditionalExpression: the same for userId
      if (auth.userId !== undefined) tx.userId = auth.userId;
      active = tx;
      checkpointedAt = clock.now();
      deps.changed();
      // The start register is a reading taken now, never an older one (energy before the start is not the
      // transaction's); while the meter does not answer, its first answer is.
      // Stryker disable next-line StringLiteral: only in the log line of a failed effect, which cannot happen (see enqueue)
      enqueue('transaction start', async () => {
        await readMeter(tx);
        deps.transaction('start', snapshotOf(tx), tx.startedAt);
      });
    },
    stopTransaction: (_: unknown, { reason }: { reason: StopReason }) => finish(reason),
    acceptTag: ({ event }: { event: ChargeEvent }, { outcome }: { outcome: TagAcceptance }) => {
      hardware.buzzer.beep(1, 150);
      if (event.type !== 'TAG') return;
      deps.report(event.userId !== undefined ? { kind: 'tag_accepted', tagId: event.id, userId: event.userId, outcome } : { kind: 'tag_accepted', tagId: event.id, outcome });
    },
    refuseTag: ({ event }: { event: ChargeEvent }, { reason }: { reason: TagRefusal }) => {
      hardware.buzzer.beep(1, 800);
      if (event.type === 'TAG') deps.report({ kind: 'tag_refused', tagId: event.id, reason });
    },
    reportTag: (_: unknown, { id }: { id: string }) => deps.report({ kind: 'tag_ignored', tagId: id }),
  };

  function finish(reason: StopReason | 'Reboot'): void {
    const tx = active;
    if (!tx) return;
    active = null;
    deps.changed();
    const endedAt = now();
    // Stryker disable next-line StringLiteral: only in the log line of a failed effect, which cannot happen (see enqueue)
    enqueue('transaction stop', async () => {
      await readMeter(tx);
      deps.transaction('stop', snapshotOf(tx), endedAt, reason);
    });
  }

  function messageCauses(): MessageCause[] {
    const causes: MessageCause[] = [];
    const ctx = cycle().getSnapshot().context;
    const cp = pilotFault(ctx);
    if (cp) causes.push(cp);
    for (const f of ctx.faults) causes.push(f);
    if (!reportedFaults.has('overtemperature') && temperatureC !== null && temperatureC >= TEMPERATURE_WARNING_C) causes.push('high-temperature');
    if (!temperatureAnswering) causes.push('temperature-sensor');
    if (!meterAnswering) causes.push('meter');
    return causes;
  }

  /** What the outputs are commanded to now. */
  const outputs = () => ({ contactorClosed: hardware.contactor.commanded(), pwmDuty: hardware.pilot.duty(), cableLocked: hardware.cableLock.commanded() });

  /** The state the main thread shows (spec 2.13, 2.14, the HMI, the outputs, the actor for the inspector). */
  function state(): CoreState {
    const snapshot = cycle().getSnapshot();
    const meta = stateMeta(snapshot);
    const { pilot } = snapshot.context;
    const system: CoreState['system'] = {
      ...meta,
      connectionState:
        pilot === 'a'
          ? 'no_vehicle_connected'
          : pilotFault(snapshot.context) !== null && pilot !== 'd'
            ? 'vehicle_connector_error'
            : snapshot.hasTag('contactor')
              ? 'vehicle_charging_type2'
              : 'vehicle_connected_type2',
      type2State: pilot === 'f' ? 'e' : pilot,
    };
    if (temperatureC !== null) system.ambientTemp = Math.round(temperatureC * 10) / 10;
    const meter: CoreState['meter'] =
      meterAnswering && lastReading
        ? { energyWh: Math.max(0, Math.round(lastReading.energyWh)), powerW: Math.round(lastReading.powerW), currentsA: lastReading.currentsA.map((a) => Math.round(a * 100) / 100), ...(lastReading.voltagesV ? { voltagesV: lastReading.voltagesV.map((x) => Math.round(x * 10) / 10) } : {}) }
        : null;
    let transaction: CoreState['transaction'] = null;
    if (active) {
      const tx = active;
      transaction = {
        transactionId: tx.id,
        startedAt: tx.startedAt,
        consumption: tx.meterStartWh !== null && tx.meterLastWh !== null ? Math.max(0, tx.meterLastWh - tx.meterStartWh) : 0,
        power: meter ? meter.powerW : 0,
        maxPower: tx.maxPowerW,
        OCPPMeterCurrent: { L1: -1 },
      };
      // Stryker disable next-line ConditionalExpression: an undefined tagId is none wherever the state goes (valibot optional, JSON drops it, the readers use ??); the killed false variant ignored with it
      if (tx.tagId !== undefined) transaction.tagId = tx.tagId;
      // Stryker disable next-line ConditionalExpression: the same for userId
      if (tx.userId !== undefined) transaction.userId = tx.userId;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: every meter reads one current per phase, 1 or 3 (drivers/types.ts, the sim, the SDM630), never none; the killed false and <= variants ignored with them
      if (meter && meter.currentsA.length > 0) {
        const [l1, l2, l3] = meter.currentsA;
        transaction.OCPPMeterCurrent = { L1: l1! };
        // Stryker disable next-line ConditionalExpression,LogicalOperator: a meter reads 1 or 3 currents, so both or neither are there; L2 and L3 as undefined are absent wherever the state goes (valibot optional, JSON, the dashboard's ??); the killed false variant ignored with them
        if (l2 !== undefined && l3 !== undefined) Object.assign(transaction.OCPPMeterCurrent, { L2: l2, L3: l3 });
      }
    }
    const { pwmDuty, ...commanded } = outputs();
    return {
      system,
      transaction,
      messages: messageCauses().map((c) => ({ ...MESSAGES[c] })),
      meter,
      hmi: currentHmi(),
      outputs: { ...commanded, pwmA: currentForDuty(pwmDuty) },
      chargeCycle: { status: snapshot.status, value: snapshot.value, context: snapshot.context },
    };
  }

  return {
    chargeActions,
    state,
    setReading,

    /** Buzzer feedback another actor names (pairing). */
    beep(count: number, ms: number): void {
      hardware.buzzer.beep(count, ms);
    },

    /** Starts supervision once the actor runs: subscriptions, the first outputs and the poll loop. */
    attach(actor: ChargeCycleActor): void {
      chargeCycle = actor;
      let lastValue = JSON.stringify(actor.getSnapshot().value);
      applyOutputs(actor.getSnapshot());
      showHmi();
      const sub = actor.subscribe({
        next: (snapshot) => {
          applyOutputs(snapshot);
          showHmi();
          deps.changed();
          const value = JSON.stringify(snapshot.value);
          if (value !== lastValue) {
            lastValue = value;
            checkpoint();
          }
        },
        // A failed charge cycle (an effect that threw: a device driver) decides nothing any more: outputs safe.
        error: (err) => {
          safeOutputs();
          log.error({ err: String(err) }, 'charge cycle failed');
        },
      });
      unsubscribers.push(() => sub.unsubscribe());
      unsubscribers.push(hardware.pilot.onLevel(onPilotLevel));
      void track(poll());
    },

    /** Resolves when every started read and transaction effect has finished. */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    safeOutputs,

    outputs,

    /**
     * Graceful stop: outputs go to their safe state, the running transaction is completed (stop reason Reboot),
     * timers stop.
     */
    async stop(): Promise<void> {
      // Stryker disable next-line ConditionalExpression: its one caller (run.ts) calls it once (stopping ??=); the killed true variant ignored with it
      if (stopped) return;
      stopped = true;
      for (const u of unsubscribers) u();
      for (const t of [pilotTimer, pollTimer, contactorTimer, readingTimer]) clock.clearTimeout(t);
      safeOutputs();
      finish('Reboot');
      await queue;
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

export type ChargePoint = ReturnType<typeof createChargePoint>;

/**
 * The messages (faults and warnings) raised and cleared between one state sent and the next, as events: compares
 * each state's messages with the previous one's by error code. A message raised and cleared between two states (one
 * turn of the event loop) was never shown and is not reported.
 */
export function createMessageWatch() {
  let shown = new Map<string, Message>();
  return (messages: readonly Message[]): ReportedEvent[] => {
    const now = new Map(messages.map((m) => [m.errorCode, m]));
    const changes: ReportedEvent[] = [];
    for (const [code, m] of now) if (!shown.has(code)) changes.push({ kind: 'fault_raised', code, severity: m.severity });
    for (const [code, m] of shown) if (!now.has(code)) changes.push({ kind: 'fault_cleared', code, severity: m.severity });
    shown = now;
    return changes;
  };
}
