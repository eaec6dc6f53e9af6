import { randomUUID } from 'node:crypto';
import { dutyForCurrent } from '../drivers/control-pilot/pwm.js';
import type { Hardware, MeterReading, TagTechnology } from '../drivers/types.js';
import {
  allowedCurrentA,
  pilotFault,
  stateMeta,
  type Authorization,
  type BlockingFault,
  type ChargeCycleSnapshot,
  type ChargeSettings,
  type PilotLevel,
  type StopReason,
} from '../machines/charge-cycle.js';
import type { ChargeCycleActor, PairingActor } from '../machines/controller.js';
import type { ActiveTransactionDetails, ChargePoint, Message, SystemState } from './charge-point.js';
import type { Clock } from './controller.js';
import { internal } from './errors.js';
import { HMI_PATTERNS, hmiState, type HmiState } from './hmi.js';
import type { Logger } from './logger.js';
import { MESSAGES, type MessageCause } from './messages.js';
import type { Transactions } from './transactions.js';
import type { Whitelist, WhitelistEntry } from './whitelist.js';

/** A CP level must stay this long before the charge cycle acts on it (real cars glitch B→A→B). */
export const PILOT_DEBOUNCE_MS = 40;
/** Meter, temperature and contactor feedback are read at this interval. */
export const POLL_INTERVAL_MS = 1_000;
/** The active transaction is written to the database at least this often (and on every state change). */
export const CHECKPOINT_INTERVAL_MS = 10_000;
/** Time the contactor's auxiliary contact gets to follow a command before a mismatch is a fault. */
export const CONTACTOR_SETTLE_MS = 200;
/** `Reading card` is shown at least this long for an RFID read. */
export const READING_DISPLAY_MS = 1_500;
export const TEMPERATURE_WARNING_C = 60;
export const TEMPERATURE_LIMIT_C = 80;
export const TEMPERATURE_RESUME_C = 75;

interface ActiveTransaction {
  id: string;
  tagId?: string;
  userId?: string;
  /** Wall-clock start (UTC ms). */
  startedAt: number;
  meterStartWh: number | null;
  maxPowerW: number;
  /** Actor-clock time of the last checkpoint. */
  checkpointedAt: number;
}

export interface ChargingDeps {
  hardware: Hardware;
  transactions: Transactions;
  whitelist: Whitelist;
  clock: Clock;
  /** Wall-clock time for stored timestamps. */
  now: () => number;
  logger: Logger;
  /** CP debounce (the PilotDebounce setting; PILOT_DEBOUNCE_MS by default). */
  pilotDebounceMs?: number;
}

/**
 * Connects the charge-cycle and pairing actors to the hardware and the database:
 * - inputs: debounced CP levels, tags (checked against the whitelist, routed to pairing while it is on), meter,
 *   temperature and contactor feedback supervision (faults and warnings);
 * - outputs: PWM, contactor, cable lock and LEDs follow the charge cycle's state tags, in a safe order;
 * - effects the machines name: transaction start/stop (persisted, checkpointed), buzzer feedback.
 * It holds no charging rule of its own: those are in machines/charge-cycle.ts and machines/pairing.ts.
 */
export function createChargingService(deps: ChargingDeps) {
  const { hardware, transactions, whitelist, clock, now, logger } = deps;
  const debounceMs = deps.pilotDebounceMs ?? PILOT_DEBOUNCE_MS;
  /** The FLLEnabled setting: off, no tag is found in the local whitelist (pairing still reports known tags). */
  let localWhitelist = true;
  let chargeCycle: ChargeCycleActor | undefined;
  let pairing: PairingActor | undefined;

  let lastReading: MeterReading | null = null;
  let meterAnswering = true;
  let temperatureC: number | null = null;
  let temperatureAnswering = true;
  let active: ActiveTransaction | null = null;
  /** Bumped whenever anything /v1/system_state shows changes, so polling clients get a cached answer. */
  let version = 0;
  let reading = false;
  let readingTimer: unknown;
  let pilotTimer: unknown;
  let pollTimer: unknown;
  let contactorTimer: unknown;
  let stopped = false;
  const reportedFaults = new Set<BlockingFault>();
  const unsubscribers: Array<() => void> = [];

  // Database work runs in order (a checkpoint never overtakes the insert of its transaction); failures are logged.
  let queue: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };
  const enqueue = (what: string, work: () => Promise<void>): void => {
    queue = queue.then(work).catch((err: unknown) => logger.error({ err }, `${what} failed`));
    track(queue);
  };

  const cycle = (): ChargeCycleActor => {
    if (!chargeCycle) throw new Error('charging service not attached');
    return chargeCycle;
  };

  async function readMeter(): Promise<MeterReading | null> {
    try {
      lastReading = await hardware.meter.read();
      meterAnswering = true;
      version++;
      if (active) active.maxPowerW = Math.max(active.maxPowerW, Math.round(lastReading.powerW));
      return lastReading;
    } catch {
      meterAnswering = false;
      version++;
      return null;
    }
  }

  function setFault(fault: BlockingFault, isActive: boolean): void {
    if (reportedFaults.has(fault) === isActive) return;
    if (isActive) reportedFaults.add(fault);
    else reportedFaults.delete(fault);
    logger[isActive ? 'warn' : 'info']({ fault }, isActive ? 'fault' : 'fault cleared');
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
      version++;
      const over = reportedFaults.has('overtemperature');
      setFault('overtemperature', over ? temperatureC >= TEMPERATURE_RESUME_C : temperatureC >= TEMPERATURE_LIMIT_C);
    } catch {
      temperatureAnswering = false;
      temperatureC = null;
      version++;
    }
  }

  function checkpoint(): void {
    const tx = active;
    if (!tx) return;
    tx.checkpointedAt = clock.now();
    enqueue('transaction checkpoint', async () => {
      const r = await readMeter();
      const energy = r?.energyWh ?? lastReading?.energyWh;
      if (energy === undefined || tx.meterStartWh === null) return;
      await transactions.checkpoint(tx.id, Math.round(energy), tx.maxPowerW);
    });
  }

  async function poll(): Promise<void> {
    await readMeter();
    await superviseTemperature();
    if (stopped) return;
    superviseContactor();
    if (active && clock.now() - active.checkpointedAt >= CHECKPOINT_INTERVAL_MS) checkpoint();
    pollTimer = clock.setTimeout(() => void track(poll()), POLL_INTERVAL_MS);
  }

  /** Drives the outputs from the charge cycle's tags: opening before closing, the lock before the contactor. */
  function applyOutputs(snapshot: ChargeCycleSnapshot): void {
    const contactor = snapshot.hasTag('contactor');
    const locked = snapshot.hasTag('locked') || contactor;
    const duty = snapshot.hasTag('pwm') ? dutyForCurrent(Math.min(allowedCurrentA(snapshot.context), 80)) : null;
    const changedContactor = hardware.contactor.commanded() !== contactor;
    if (!contactor && hardware.contactor.commanded()) hardware.contactor.set(false);
    if (hardware.pilot.duty() !== duty) hardware.pilot.setDuty(duty);
    if (locked && !hardware.cableLock.commanded()) hardware.cableLock.set(true);
    if (contactor && !hardware.contactor.commanded()) hardware.contactor.set(true);
    if (!locked && hardware.cableLock.commanded()) hardware.cableLock.set(false);
    if (changedContactor) {
      clock.clearTimeout(contactorTimer);
      contactorTimer = clock.setTimeout(superviseContactor, CONTACTOR_SETTLE_MS);
    }
  }

  function currentHmi(): HmiState {
    return hmiState(stateMeta(cycle().getSnapshot()), reading);
  }
  function showHmi(): void {
    hardware.leds.show(HMI_PATTERNS[currentHmi()]);
  }

  /** Shows `Reading card` (an RFID read: for READING_DISPLAY_MS; the NFC link: while it lasts). */
  function setReading(on: boolean, forMs?: number): void {
    clock.clearTimeout(readingTimer);
    reading = on;
    if (on && forMs !== undefined) readingTimer = clock.setTimeout(() => setReading(false), forMs);
    showHmi();
  }

  function onPilotLevel(level: PilotLevel): void {
    clock.clearTimeout(pilotTimer);
    pilotTimer = clock.setTimeout(() => {
      if (stopped || hardware.pilot.level() !== level || cycle().getSnapshot().context.pilot === level) return;
      if (level === 'a') setFault('contactor-not-closing', false); // that fault is latched until the vehicle leaves
      cycle().send({ type: 'PILOT', level });
    }, debounceMs);
  }

  async function onTag(uid: string, technology: TagTechnology): Promise<void> {
    setReading(true, READING_DISPLAY_MS);
    const toPairing = pairing?.getSnapshot().matches('on') ?? false;
    const entry = toPairing || localWhitelist ? await whitelist.find(uid) : undefined;
    if (stopped) return;
    if (toPairing) pairing!.send({ type: 'TAG', id: uid, tagType: technology, known: entry !== undefined });
    else {
      const event = { type: 'TAG' as const, id: entry?.id ?? uid, known: entry !== undefined };
      cycle().send(entry?.userid !== undefined ? { ...event, userId: entry.userid } : event);
    }
  }

  const chargeActions = {
    startTransaction: (_: unknown, auth: Authorization) => {
      const tx: ActiveTransaction = {
        id: randomUUID(),
        startedAt: now(),
        meterStartWh: lastReading?.energyWh ?? null,
        maxPowerW: 0,
        checkpointedAt: clock.now(),
      };
      if (auth.tagId !== undefined) tx.tagId = auth.tagId;
      if (auth.userId !== undefined) tx.userId = auth.userId;
      active = tx;
      version++;
      logger.info({ transactionId: tx.id, freeCharging: auth.tagId === undefined }, 'transaction started');
      enqueue('transaction start', async () => {
        if (tx.meterStartWh === null) tx.meterStartWh = (await readMeter())?.energyWh ?? 0;
        const start: Parameters<Transactions['begin']>[0] = { id: tx.id, meterWh: Math.round(tx.meterStartWh), at: tx.startedAt };
        if (tx.tagId !== undefined) start.tagId = tx.tagId;
        if (tx.userId !== undefined) start.userId = tx.userId;
        await transactions.begin(start);
      });
    },
    stopTransaction: (_: unknown, { reason }: { reason: StopReason }) => finish(reason),
    acceptTag: () => hardware.buzzer.beep(1, 150),
    refuseTag: () => hardware.buzzer.beep(1, 800),
    reportTag: () => logger.info('a known tag other than the session tag was presented during a transaction; ignored'),
  };

  function finish(reason: StopReason | 'Reboot'): void {
    const tx = active;
    if (!tx) return;
    active = null;
    version++;
    const endedAt = now();
    logger.info({ transactionId: tx.id, reason }, 'transaction stopped');
    enqueue('transaction stop', async () => {
      const r = await readMeter();
      const energy = r?.energyWh ?? lastReading?.energyWh ?? tx.meterStartWh ?? 0;
      await transactions.finish(tx.id, { meterWh: Math.round(energy), maxPowerW: tx.maxPowerW, reason, at: endedAt });
    });
  }

  const pairingActions = {
    beep: (_: unknown, { count }: { count: number }) => hardware.buzzer.beep(count, 150),
  };

  function messages(): Message[] {
    const causes: MessageCause[] = [];
    const ctx = cycle().getSnapshot().context;
    const cp = pilotFault(ctx);
    if (cp) causes.push(cp);
    for (const f of ctx.faults) causes.push(f);
    if (!reportedFaults.has('overtemperature') && temperatureC !== null && temperatureC >= TEMPERATURE_WARNING_C) causes.push('high-temperature');
    if (!temperatureAnswering) causes.push('temperature-sensor');
    if (!meterAnswering) causes.push('meter');
    return causes.map((c) => ({ ...MESSAGES[c] }));
  }

  function transactionDetails(tx: ActiveTransaction): ActiveTransactionDetails {
    const details: ActiveTransactionDetails = {
      transactionId: tx.id,
      transactionStart: new Date(tx.startedAt).toISOString(),
      transactionDuration: Math.max(0, Math.floor((now() - tx.startedAt) / 1000)),
      consumption: lastReading && tx.meterStartWh !== null ? Math.max(0, Math.round(lastReading.energyWh) - Math.round(tx.meterStartWh)) : 0,
      power: meterAnswering && lastReading ? Math.round(lastReading.powerW) : 0,
      maxPower: tx.maxPowerW,
      OCPPMeterCurrent: { L1: -1 },
    };
    if (tx.tagId !== undefined) details.tagId = tx.tagId;
    if (tx.userId !== undefined) details.userId = tx.userId;
    if (meterAnswering && lastReading && lastReading.currentsA.length > 0) {
      const [l1, l2, l3] = lastReading.currentsA.map((a) => Math.round(a * 100) / 100);
      details.OCPPMeterCurrent = { L1: l1! };
      if (l2 !== undefined && l3 !== undefined) Object.assign(details.OCPPMeterCurrent, { L2: l2, L3: l3 });
    }
    return details;
  }

  /** The state as /v1/system_state shows it, computed afresh only when something in it changed. */
  let cached: { version: number; second: number; state: SystemState } | undefined;
  const chargePoint: ChargePoint = {
    state(): SystemState {
      const second = active ? Math.floor(now() / 1000) : -1;
      if (cached && cached.version === version && cached.second === second) return cached.state;
      const snapshot = cycle().getSnapshot();
      const meta = stateMeta(snapshot);
      const { pilot } = snapshot.context;
      const state: SystemState = {
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
      if (temperatureC !== null) state.ambientTemp = Math.round(temperatureC * 10) / 10;
      if (active) state.transaction = transactionDetails(active);
      cached = { version, second, state };
      return state;
    },
    messages,
  };

  return {
    chargeActions,
    pairingActions,
    chargePoint,

    /** Starts supervision once the actors run: subscriptions, the first outputs and the poll loop. */
    attach(actors: { chargeCycle: ChargeCycleActor; pairing: PairingActor }): void {
      chargeCycle = actors.chargeCycle;
      pairing = actors.pairing;
      let lastValue = JSON.stringify(chargeCycle.getSnapshot().value);
      applyOutputs(chargeCycle.getSnapshot());
      showHmi();
      const sub = chargeCycle.subscribe({
        next: (snapshot) => {
          version++;
          applyOutputs(snapshot);
          showHmi();
          const value = JSON.stringify(snapshot.value);
          if (value !== lastValue) {
            lastValue = value;
            checkpoint();
          }
        },
        error: (err) => logger.error({ err }, 'charge cycle failed'),
      });
      unsubscribers.push(() => sub.unsubscribe());
      unsubscribers.push(hardware.pilot.onLevel(onPilotLevel));
      unsubscribers.push(hardware.rfid.onTag((uid, technology) => void track(onTag(uid, technology))));
      void track(poll());
    },

    /** Settings changes take effect at once (the settings catalogue calls this). */
    applySettings(settings: Partial<ChargeSettings>): void {
      cycle().send({ type: 'SETTINGS', settings });
    },
    settings(): ChargeSettings {
      return cycle().getSnapshot().context.settings;
    },

    setLocalWhitelist(enabled: boolean): void {
      localWhitelist = enabled;
    },

    /** The current limit from load management (A), null for none. */
    setLoadLimit(amps: number | null): void {
      cycle().send({ type: 'LOAD_LIMIT', amps });
    },

    /** NFC: `Reading card` while the link lasts. */
    setReading(on: boolean): void {
      setReading(on);
    },
    hmi: currentHmi,

    /** Pairing mode (spec 4.5): only when the charge point is idle, else the spec's 500 with the reason. */
    enablePairing(): void {
      const meta = stateMeta(cycle().getSnapshot());
      const idle = meta.systemState === 'idle' && meta.authState !== 'authorized_for_charging';
      pairing!.send({ type: 'ENABLE', chargePointIdle: idle });
      if (pairing!.getSnapshot().context.lastEnable !== 'enabled') {
        const why = meta.systemState === 'idle' ? 'an authorization is waiting for a vehicle' : `the charge point is in state ${meta.systemState}`;
        throw internal(`Pairing mode can only be enabled while the charge point is idle; ${why}`);
      }
    },

    /** The tag read in pairing mode, with its whitelist data when the id is already known. */
    async pairedTag(): Promise<WhitelistEntry> {
      const snapshot = pairing!.getSnapshot();
      const tag = snapshot.context.tag;
      if (!tag) {
        throw internal(
          snapshot.matches('on')
            ? 'Pairing mode is on and no tag has been read yet: present a tag to the reader'
            : 'No tag has been read in pairing mode: enable it with POST /v1/whitelist/pairing and present a tag within 60 seconds',
        );
      }
      const known = await whitelist.find(tag.id);
      return known ? { ...known, tagType: known.tagType ?? tag.tagType } : { id: tag.id, tagType: tag.tagType };
    },

    /** Resolves when every started read, lookup and database write has finished. */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    /**
     * Graceful stop: the running transaction is completed (stop reason Reboot), outputs go to their safe state
     * (contactor open, PWM off, cable unlocked), timers stop.
     */
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      for (const u of unsubscribers) u();
      for (const t of [pilotTimer, pollTimer, contactorTimer, readingTimer]) clock.clearTimeout(t);
      hardware.contactor.set(false);
      hardware.pilot.setDuty(null);
      hardware.cableLock.set(false);
      finish('Reboot');
      await queue;
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

export type ChargingService = ReturnType<typeof createChargingService>;
