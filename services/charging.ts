import type { SimState } from '../drivers/index.js';
import type { TagTechnology, Timers } from '../drivers/types.js';
import type { AuthorizationSource, ChargeSettings, CommandedStopReason } from '../machines/charge-cycle.js';
import type { PairingActor } from '../machines/main-thread.js';
import type { ChargePoint, Message, SystemState } from './core/system-state.js';
import type { CoreLink } from './core-link.js';
import type { CoreState, FromCore, SimCommand } from './core/protocol.js';
import { internal, invalid } from './errors.js';
import type { EventLog } from './events.js';
import type { HmiState } from './core/hmi.js';
import type { PhaseSwitchMode } from './core/phase-switch-mode.js';
import type { Logger } from './logger.js';
import type { Transactions } from './transactions.js';
import { createTransactionWriter, type TransactionEffect } from './transaction-writer.js';
import type { Whitelist, WhitelistEntry } from './whitelist.js';
import { createLimitInputs } from './energy/limit-inputs.js';

export interface ChargingDeps {
  transactions: Transactions;
  whitelist: Whitelist;
  /** Wall-clock time (transaction durations). */
  now: () => number;
  /** The controller's timers (the retry of writes the full disk refused). */
  timers: Timers;
  logger: Logger;
  /** The event log: tags' outcomes, transactions, faults. */
  events: Pick<EventLog, 'record'>;
}

/**
 * A reservation holding the connector (OCPP ReserveNow, services/ocpp/reservation.ts): until a transaction starts,
 * only the tags it `accepts` may authorize, and no charge starts without a tag.
 */
export interface ConnectorHold {
  accepts(uid: string): Promise<boolean>;
}

/** The connector status shown while a reservation holds it: `reserved` in place of `available` (no vehicle, no tag). */
export const heldOcppState = (ocpp: SystemState['ocppState'], held: boolean): SystemState['ocppState'] => (held && ocpp === 'available' ? 'reserved' : ocpp);

/** OCPP 1.6's statuses of a connector in use, which OCPP 2.0.1 calls Occupied. */
const IN_USE: ReadonlySet<SystemState['ocppState']> = new Set(['preparing', 'charging', 'suspendedev', 'suspendedevse', 'finishing']);
/** ocppState as the OCPP version spoken names it: under 2.0.1 a connector in use is `occupied`. */
export const versionOcppState = (ocpp: SystemState['ocppState'], occupiedModel: boolean): SystemState['ocppState'] =>
  occupiedModel && IN_USE.has(ocpp) ? 'occupied' : ocpp;

/** `Reading card` is shown at least this long for an RFID read. */
export const READING_DISPLAY_MS = 1_500;

/**
 * The main thread's side of the charge point: what the API, NFC and the settings need of the charge-point core
 * (services/core/), which runs the charge cycle in its own thread.
 * - reads: the core's latest state (spec 2.13, 2.14, the HMI), sent by the core after every change;
 * - inputs: tags read by the RFID/NFC reader, checked against the whitelist here (routed to pairing while it is
 *   on), settings and load limits, `Reading card`: sent to the core, never awaited on its safety path;
 * - effects: the core's transaction start, checkpoints and stop, persisted here in order.
 * It holds no charging rule: those are in machines/charge-cycle.ts, run by the core.
 */
export function createChargingService(deps: ChargingDeps) {
  const { transactions, whitelist, now, logger } = deps;
  /** The FLLEnabled setting: off, no tag is found in the local whitelist (pairing still reports known tags). */
  let localWhitelist = true;
  let core: CoreLink | undefined;
  let pairing: PairingActor | undefined;
  let latest: CoreState | undefined;
  /** Bumped with every state from the core, so polling clients get a cached answer. */
  let version = 0;
  /** Decides tags the local whitelist does not know (the OCPP backend: its list, cache, Authorize); none: unknown. */
  let authorizer: ((uid: string) => Promise<boolean>) | undefined;
  /** The central system's transaction id of each running transaction (shown in spec 2.13's transaction). */
  const backendIds = new Map<string, string>();
  /** The reservation holding the connector, if any. */
  let hold: ConnectorHold | undefined;
  /** The central system speaks OCPP 2.0.1: ocppState shows its statuses. */
  let occupiedModel = false;
  /** A tag refused because a reservation holds the connector: the core reports it as unknown; the event log says why. */
  let refusedForHold: string | undefined;
  /** Current limits set by the central system, MQTT, the simulator and the user's pause: inputs of the allocator loop. */
  const limits = createLimitInputs();
  const watchers = new Set<() => void>();
  /** Why no new charge may start although charging is enabled (refuseNewCharges), shown among the messages. */
  let refusal: Message | undefined;
  /** The refusal reached the core (no transaction ran): ChargingEnabled goes to it as off from then on. */
  let refusalApplied = false;

  const writer = createTransactionWriter({ transactions, events: deps.events, logger, timers: deps.timers });
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  const linked = (): CoreLink => {
    if (!core) throw new Error('charging service not attached');
    return core;
  };
  const state = (): CoreState => {
    if (!latest) throw new Error('the charge-point core has not sent its state yet');
    return latest;
  };

  async function onTag(uid: string, technology: TagTechnology): Promise<void> {
    linked().send({ type: 'reading', on: true, forMs: READING_DISPLAY_MS });
    const toPairing = pairing?.getSnapshot().matches('on') ?? false;
    const entry = toPairing || localWhitelist ? await whitelist.find(uid) : undefined;
    if (toPairing) pairing!.send({ type: 'TAG', id: uid, tagType: technology, known: entry !== undefined });
    else {
      // The session's own tag stops its transaction whoever knows it: no need to ask the backend.
      const sessionTag = latest?.chargeCycle.context.authorization?.tagId;
      const heldFromTag = hold !== undefined && !latest?.transaction && !(await hold.accepts(uid));
      refusedForHold = heldFromTag ? (entry?.id ?? uid) : undefined;
      const known = !heldFromTag && (entry !== undefined || (authorizer !== undefined && uid !== sessionTag && (await authorizer(uid))));
      const message = { type: 'tag' as const, id: entry?.id ?? uid, known };
      linked().send(entry?.userid !== undefined ? { ...message, userId: entry.userid } : message);
    }
  }

  /** The state as /v1/system_state shows it, computed afresh only when something in it changed. */
  let cached: { version: number; second: number; state: SystemState } | undefined;
  /** The running transaction's start on the monotonic clock: its wall-clock start less the time elapsed when first seen. */
  let clockStart: { id: string; at: number } | undefined;
  /** How long the running transaction has run: measured on the monotonic clock, so setting the wall clock changes nothing. */
  const elapsedMs = (transaction: { transactionId: string; startedAt: number }): number => {
    if (clockStart?.id !== transaction.transactionId) {
      clockStart = { id: transaction.transactionId, at: deps.timers.now() - Math.max(0, now() - transaction.startedAt) };
    }
    return deps.timers.now() - clockStart.at;
  };

  const chargePoint: ChargePoint = {
    state(): SystemState {
      const { system, transaction } = state();
      // The duration's whole second (it turns at the transaction's start time within a second, not at the clock's).
      const second = transaction ? Math.floor(elapsedMs(transaction) / 1000) : -1;
      if (cached && cached.version === version && cached.second === second) return cached.state;
      const shown: SystemState = { ...system, ocppState: versionOcppState(heldOcppState(system.ocppState, hold !== undefined), occupiedModel) };
      if (transaction) {
        const { startedAt, ...details } = transaction;
        const backendId = backendIds.get(details.transactionId);
        shown.transaction = {
          transactionId: details.transactionId,
          ...(backendId !== undefined ? { backendTransactionId: backendId } : {}),
          ...(details.userId !== undefined ? { userId: details.userId } : {}),
          transactionStart: new Date(startedAt).toISOString(),
          transactionDuration: second,
          ...(details.tagId !== undefined ? { tagId: details.tagId } : {}),
          consumption: details.consumption,
          power: details.power,
          maxPower: details.maxPower,
          OCPPMeterCurrent: details.OCPPMeterCurrent,
        };
      }
      cached = { version, second, state: shown };
      return shown;
    },
    messages: () => (refusal ? [...state().messages, refusal] : state().messages),
  };

  /** Once no transaction runs, the refusal makes the charge point unavailable, as ChargingEnabled off does. */
  function applyRefusal(): void {
    if (!refusal || refusalApplied || !latest || latest.transaction) return;
    refusalApplied = true;
    linked().send({ type: 'settings', settings: { chargingEnabled: false } });
  }

  function notifyWatchers(): void {
    for (const watcher of watchers) {
      try {
        watcher();
      } catch (err) {
        logger.error({ err }, 'a watcher of the charge point failed');
      }
    }
  }

  return {
    chargePoint,

    /** How long the running transaction has run (ms, monotonic: setting the wall clock changes nothing); null: none. */
    transactionElapsedMs(): number | null {
      const transaction = latest?.transaction;
      return transaction ? elapsedMs(transaction) : null;
    },

    /** The core's latest state (the inspector shows its charge-cycle actor). */
    coreState: (): CoreState | undefined => latest,

    /** Whether pairing mode is on (tags go to pairing, not to the charge cycle). */
    pairingOn: (): boolean => pairing?.getSnapshot().matches('on') ?? false,

    /** The effects the pairing actor names (pairingMachine.provide({ actions })): the buzzer is the core's. */
    pairingActions: {
      beep: (_: unknown, { count }: { count: number }) => linked().send({ type: 'beep', count, ms: 150 }),
    },

    /** Connects the core and the pairing actor; tags are read from `reader` from now on. */
    attach(parts: { core: CoreLink; pairing: PairingActor }): void {
      core = parts.core;
      pairing = parts.pairing;
    },

    /** A tag the reader read (RFID card, or NFC tag). */
    tagRead(uid: string, technology: TagTechnology): void {
      void track(onTag(uid, technology));
    },

    /** The core's state after a change. */
    onState(next: CoreState): void {
      latest = next;
      version++;
      if (next.transaction) elapsedMs(next.transaction); // anchored when it first shows, before any clock change
      for (const id of backendIds.keys()) if (next.transaction?.transactionId !== id) backendIds.delete(id);
      applyRefusal();
      notifyWatchers();
    },

    /** Calls `watcher` after every state from the core (MQTT publishes from it; OCPP sends status and meter values). */
    watch(watcher: () => void): void {
      watchers.add(watcher);
    },

    /** Tags the local whitelist does not know are decided by `decide` (the OCPP backend), or refused without one. */
    setAuthorizer(decide: ((uid: string) => Promise<boolean>) | undefined): void {
      authorizer = decide;
    },

    /** A reservation holds the connector from now on (undefined: none); the state shown and the watchers follow. */
    setHold(next: ConnectorHold | undefined): void {
      hold = next;
      version++;
      if (latest) notifyWatchers();
    },
    /** Whether a reservation holds the connector. */
    held: (): boolean => hold !== undefined,
    /** The OCPP version spoken is 2.0.1 (true) or 1.6: ocppState shows `occupied` for a connector in use under 2.0.1. */
    setOccupiedModel(on: boolean): void {
      if (occupiedModel === on) return;
      occupiedModel = on;
      version++;
      if (latest) notifyWatchers();
    },

    /** The central system's id of the running transaction `transactionId`. */
    setBackendTransactionId(transactionId: string, backendId: string): void {
      if (latest?.transaction?.transactionId === transactionId) {
        backendIds.set(transactionId, backendId);
        version++;
      }
    },

    /** An authorization from the central system (RemoteStartTransaction): the tag as if presented and known. */
    authorizeRemotely(idTag: string): void {
      linked().send({ type: 'tag', id: idTag, known: true });
    },

    /** An authorization without a tag (a user's start, services/charge-control.ts): a session as a tag would start it. */
    authorizeWithoutTag(source: AuthorizationSource): void {
      linked().send({ type: 'authorize', source });
    },

    /** Stops the running transaction (the central system); nothing happens without one. */
    stopTransaction(reason: CommandedStopReason): void {
      linked().send({ type: 'stopTransaction', reason });
    },
    /** A transaction effect of the core, to persist. */
    onTransaction: (effect: TransactionEffect) => writer.write(effect),

    /**
     * An event the core reports (a tag's outcome, a fault), for the event log. A tag the core refused as unknown
     * was held off by a reservation, or not looked up while the local whitelist is off (FLLEnabled): that is the
     * reason then.
     */
    onReported({ event, at }: Extract<FromCore, { type: 'event' }>): void {
      if (event.kind === 'tag_refused' && event.reason === 'unknown' && event.tagId === refusedForHold)
        deps.events.record({ ...event, reason: 'reserved' }, at);
      else if (event.kind === 'tag_refused' && event.reason === 'unknown' && !localWhitelist) deps.events.record({ ...event, reason: 'whitelist-off' }, at);
      else deps.events.record(event, at);
    },

    /** Settings changes take effect at once (the settings catalogue calls this). */
    applySettings(settings: Partial<ChargeSettings>): void {
      linked().send({ type: 'settings', settings: refusalApplied ? { ...settings, chargingEnabled: false } : settings });
    },

    /**
     * From now on no new charge starts (an installed update waits for the running charge to end: bin/update-switch.ts,
     * docs/field-service.md#a-charge-running). The running transaction goes on; once none runs, the charge point is
     * unavailable exactly as with ChargingEnabled off (tags refused, OCPP Unavailable), until this process ends,
     * without changing the stored setting. `why` is shown among the messages. Asking again changes nothing.
     */
    refuseNewCharges(why: Message): void {
      if (refusal) return;
      refusal = why;
      version++;
      applyRefusal();
      if (latest) notifyWatchers();
    },
    /** Why no new charge starts although charging is enabled (refuseNewCharges); undefined: none refused. */
    newChargesRefused: (): Message | undefined => refusal,

    setLocalWhitelist(enabled: boolean): void {
      localWhitelist = enabled;
    },

    /**
     * The current limits of the central system, MQTT, the simulator and the user's pause (services/energy/
     * limit-inputs.ts): inputs of the allocator loop, which composes them with every other limit.
     */
    limits,

    /**
     * The current the allocator loop offers (A per phase; 0: pause), the core's load limit: the one path to it
     * (null: none, the core's own limits only; the model-based tests of the core drive it so).
     */
    offerCurrent(amps: number | null): void {
      linked().send({ type: 'loadLimit', amps });
    },

    /**
     * 1-/3-phase switching: the mode (setting PhaseSwitchMode) and the phase count the allocator prefers (null: none);
     * the core runs the switch sequence (services/core/phase-switching.ts). Read back in coreState().phases.
     */
    setPhaseSwitch(next: { mode?: PhaseSwitchMode; wanted?: 1 | 3 | null }): void {
      linked().send({ type: 'phases', ...next });
    },

    /** NFC: `Reading card` while the link lasts. */
    setReading(on: boolean): void {
      linked().send({ type: 'reading', on });
    },
    hmi: (): HmiState => state().hmi,

    /** A simulator control, run by the core's plant; a control that makes no sense now is a 400 with its reason. */
    async simulate(command: SimCommand): Promise<SimState> {
      const reply = await linked().request({ type: 'sim', command });
      if (!reply.ok) throw invalid(reply.error ?? 'the simulator refused the control');
      return reply.plant as SimState;
    },

    /** Pairing mode (spec 4.5): only when the charge point is idle, else the spec's 500 with the reason. */
    enablePairing(): void {
      const { system } = state();
      const idle = system.systemState === 'idle' && system.authState !== 'authorized_for_charging';
      pairing!.send({ type: 'ENABLE', chargePointIdle: idle });
      if (pairing!.getSnapshot().context.lastEnable !== 'enabled') {
        const why = system.systemState === 'idle' ? 'an authorization is waiting for a vehicle' : `the charge point is in state ${system.systemState}`;
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

    /**
     * Resolves when every tag look-up, the core's own work (readings, effects) and the persistence of what it sent
     * have finished (tests; the manual clock).
     */
    async settled(): Promise<void> {
      do {
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        await linked().request({ type: 'sync' });
        await writer.settled();
      } while (inFlight.size > 0);
    },

    /** Transaction effects held while the disk is full (services/transaction-writer.ts). */
    heldEffects: () => writer.held(),

    /**
     * Graceful stop: the core completes the running transaction (stop reason Reboot) and puts its outputs into
     * their safe state; what it sent is persisted.
     */
    async stop(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await core?.close();
      await writer.close();
    },
  };
}

export type ChargingService = ReturnType<typeof createChargingService>;
