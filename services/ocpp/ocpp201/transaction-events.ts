import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { WriteTx } from '../../../db/client.js';
import { ocppState } from '../../../db/schema.js';
import type { TransactionRecord } from '../../core/protocol.js';
import type { TransactionEnd, TransactionHooks } from '../../transactions.js';
import type { OcppContext } from '../context.js';
import type { MeterValue, SampleContext } from '../meter-values.js';
import type { MeterValueSink } from '../metering.js';
import type { Outbox } from '../outbox.js';
import { NO_AUTHORIZATION, rfidToken } from './authorize.js';
import { CONNECTOR_ID, EVSE_ID } from './calls.js';
import { toMeterValue201 } from './meter-value.js';
import { endsWithCore, loadOpenTransaction, saveOpenTransaction, startsWithCore, type Transaction201 } from './transaction-points.js';

/** 1.6 stop reasons (the charge cycle's) → 2.0.1 stoppedReason and the triggerReason of the Ended event. */
const ENDED: Record<string, { stoppedReason: string; triggerReason: string }> = {
  EVDisconnected: { stoppedReason: 'EVDisconnected', triggerReason: 'EVCommunicationLost' },
  Local: { stoppedReason: 'Local', triggerReason: 'StopAuthorized' },
  Remote: { stoppedReason: 'Remote', triggerReason: 'RemoteStop' },
  HardReset: { stoppedReason: 'ImmediateReset', triggerReason: 'ResetCommand' },
  SoftReset: { stoppedReason: 'ImmediateReset', triggerReason: 'ResetCommand' },
  UnlockCommand: { stoppedReason: 'Other', triggerReason: 'UnlockCommand' },
  DeAuthorized: { stoppedReason: 'DeAuthorized', triggerReason: 'Deauthorized' },
  PowerLoss: { stoppedReason: 'PowerLoss', triggerReason: 'AbnormalCondition' },
  Reboot: { stoppedReason: 'Reboot', triggerReason: 'AbnormalCondition' },
  EmergencyStop: { stoppedReason: 'EmergencyStop', triggerReason: 'AbnormalCondition' },
  Timeout: { stoppedReason: 'Timeout', triggerReason: 'EVConnectTimeout' },
};
const ENDED_OTHER = { stoppedReason: 'Other', triggerReason: 'AbnormalCondition' };

/** spec 2.13 ocppState of a running transaction → 2.0.1 ChargingStateEnumType. */
const CHARGING_STATE: Record<string, string> = { charging: 'Charging', suspendedev: 'SuspendedEV', suspendedevse: 'SuspendedEVSE' };
const chargingStateOf = (ocpp: string) => CHARGING_STATE[ocpp] ?? 'EVConnected';

/** The sample context of a value → the triggerReason of its Updated event. */
const SAMPLE_TRIGGER: Record<SampleContext, string> = { 'Sample.Periodic': 'MeterValuePeriodic', 'Sample.Clock': 'MeterValueClock', Trigger: 'Trigger' };

/** What the core's state says of the cable and the authorization (a connector error keeps the last known cable). */
interface Seen {
  connected: boolean;
  authorized: boolean;
}

/** The idToken of a remote start. */
type RemoteStart = { idToken: { idToken: string; type: string }; remoteStartId: number };

/**
 * E01–E07 TransactionEvent: Started at the start point, Updated on a charging state change and for meter values,
 * Ended at the stop point (TxStartPoint, TxStopPoint: transaction-points.ts); each queued in the offline queue
 * (outbox.ts) in the write that records the transaction's start or end, the point reached or the reading, so the
 * order holds over a power loss. seqNo counts per transaction from 0 (kept in the database); `offline` marks an event
 * that happened while the CSMS could not be reached.
 *
 * The 2.0.1 transaction open now (`open`) is kept in the database with the charge cycle's transaction running in it:
 * at the default PowerPathClosed both are one (the charge cycle's id); a start point before it (EVConnected: the
 * cable; Authorized: a tag before the cable) opens one with the station's own id, which the charge cycle's
 * transaction joins (Updated Authorized or CablePluggedIn); a stop point after it (EVConnected) keeps it open after a
 * deauthorization until the cable is unplugged. Every decision is taken inside the write that queues its event, in
 * the one order of the database's writes.
 */
export function createTransactionEvents(
  ctx: OcppContext,
  outbox: Outbox,
  pump: () => void,
  deps: {
    /** TxStartPoint and TxStopPoint now. */
    points: () => { start: string[]; stop: string[] };
    /** A 2.0.1 transaction started or ended (its TxProfiles follow it). */
    changed: (ended: string | undefined, started: string | undefined) => void;
  },
) {
  const { database, logger } = ctx;
  /** The RequestStartTransaction being carried out: its transaction is a remote start. */
  let remoteStart: RemoteStart | undefined;
  /** The charging state last reported of the open transaction. */
  let chargingState: string | undefined;
  let open: Transaction201 | undefined;
  /** TxStartPoint EnergyTransfer alone: the charge cycle's transaction waiting for energy to flow. */
  let awaitingEnergy: { record: TransactionRecord; reservationId: number | undefined; remote: RemoteStart | undefined } | undefined;
  let seen: Seen = { connected: false, authorized: false };

  const seqKey = (transactionId: string) => `seqNo:${transactionId}`;
  /** The next seqNo of the transaction's events (in the write that queues the event). */
  async function nextSeqNo(tx: WriteTx, transactionId: string): Promise<number> {
    const [row] = await tx
      .select()
      .from(ocppState)
      .where(eq(ocppState.key, seqKey(transactionId)));
    const seqNo = row ? Number(row.value) : 0;
    const value = String(seqNo + 1);
    await tx
      .insert(ocppState)
      .values({ key: seqKey(transactionId), value })
      .onConflictDoUpdate({ target: ocppState.key, set: { value } });
    return seqNo;
  }

  /** The `meterValue` member of an event: the reading in 2.0.1's form, when it has anything 2.0.1 carries. */
  const meterValueOf = (value: MeterValue) => {
    const converted = toMeterValue201(value);
    return converted ? { meterValue: [converted] } : {};
  };
  const register = (wh: number | null, at: number, context: 'Transaction.Begin' | 'Transaction.End') =>
    wh === null
      ? {}
      : meterValueOf({
          timestamp: ctx.csmsTime(at),
          sampledValue: [{ value: String(wh), context, measurand: 'Energy.Active.Import.Register', unit: 'Wh', location: 'Outlet' }],
        });
  const offline = () => (ctx.isAccepted() ? {} : { offline: true });
  const evse = { id: EVSE_ID, connectorId: CONNECTOR_ID };
  const connectedNow = () => {
    const connection = ctx.charging.coreState()?.system.connectionState;
    return connection === undefined ? false : connection === 'vehicle_connector_error' ? seen.connected : connection !== 'no_vehicle_connected';
  };
  /** The remote start `tagId` carries out, taken (undefined: none or another tag). */
  const takeRemote = (tagId: string | undefined) => {
    const remote = remoteStart && tagId === remoteStart.idToken.idToken ? remoteStart : undefined;
    remoteStart = undefined;
    return remote;
  };
  const idTokenOf = (remote: RemoteStart | undefined, tagId: string | undefined) => (remote ? remote.idToken : tagId ? rfidToken(tagId) : NO_AUTHORIZATION);

  async function queue(tx: WriteTx, transactionId: string, event: Record<string, unknown>): Promise<void> {
    const seqNo = await nextSeqNo(tx, transactionId);
    await outbox.enqueue(tx, 'TransactionEvent', transactionId, { ...event, seqNo, ...offline() });
  }

  /** Opens the 2.0.1 transaction with its Started event. */
  async function start(tx: WriteTx, transaction: Transaction201, event: Record<string, unknown>, state: string): Promise<void> {
    open = transaction;
    await saveOpenTransaction(tx, open);
    await queue(tx, transaction.id, { eventType: 'Started', ...event });
    chargingState = state;
    deps.changed(undefined, transaction.id);
  }

  /** Ends the open 2.0.1 transaction with its Ended event. */
  async function end(tx: WriteTx, event: { at: number; wh: number | null; reason: string; triggerReason?: string; tagId?: string | null }): Promise<void> {
    if (!open) return;
    const { id } = open;
    const ended = ENDED[event.reason] ?? ENDED_OTHER;
    await queue(tx, id, {
      eventType: 'Ended',
      timestamp: ctx.csmsTime(event.at),
      triggerReason: event.triggerReason ?? ended.triggerReason,
      transactionInfo: { transactionId: id, chargingState: 'Idle', stoppedReason: ended.stoppedReason },
      ...(event.reason === 'Local' && event.tagId ? { idToken: rfidToken(event.tagId) } : {}),
      ...register(event.wh, event.at, 'Transaction.End'),
    });
    await tx.delete(ocppState).where(eq(ocppState.key, seqKey(id)));
    open = undefined;
    chargingState = undefined;
    await saveOpenTransaction(tx, undefined);
    deps.changed(id, undefined);
  }

  /** The charge cycle started its transaction: it starts the 2.0.1 one, joins the open one, or waits for energy. */
  async function coreStarted(tx: WriteTx, record: TransactionRecord, reservationId: number | undefined): Promise<void> {
    const remote = takeRemote(record.tagId);
    const reservation = reservationId !== undefined ? { reservationId } : {};
    if (open && !open.core) {
      // Opened earlier: by the cable (now the authorization) or by a tag (now the cable).
      const byCable = !open.authorized;
      open = { ...open, core: record.id, authorized: true };
      await saveOpenTransaction(tx, open);
      await queue(tx, open.id, {
        eventType: 'Updated',
        timestamp: ctx.csmsTime(record.startedAt),
        triggerReason: !byCable ? 'CablePluggedIn' : remote ? 'RemoteStart' : 'Authorized',
        transactionInfo: { transactionId: open.id, chargingState: 'EVConnected', ...(byCable && remote ? { remoteStartId: remote.remoteStartId } : {}) },
        evse,
        ...(byCable ? { idToken: idTokenOf(remote, record.tagId) } : {}),
        ...reservation,
      });
      chargingState = 'EVConnected';
      return;
    }
    const points = deps.points();
    if (!startsWithCore(points.start)) {
      awaitingEnergy = { record, reservationId, remote };
      return;
    }
    await start(
      tx,
      { id: record.id, startedAt: record.startedAt, core: record.id, authorized: true, beginWh: record.meterStartWh, lastWh: null, stop: points.stop },
      {
        timestamp: ctx.csmsTime(record.startedAt),
        triggerReason: remote ? 'RemoteStart' : record.tagId ? 'Authorized' : 'CablePluggedIn',
        transactionInfo: { transactionId: record.id, chargingState: 'EVConnected', ...(remote ? { remoteStartId: remote.remoteStartId } : {}) },
        evse,
        idToken: idTokenOf(remote, record.tagId),
        ...reservation,
        ...register(record.meterStartWh, record.startedAt, 'Transaction.Begin'),
      },
      'EVConnected',
    );
  }

  /** The charge cycle ended its transaction: the 2.0.1 one ends too, or (stop point EVConnected) waits for the unplug. */
  async function coreStopped(tx: WriteTx, end_: TransactionEnd): Promise<void> {
    if (awaitingEnergy?.record.id === end_.id) {
      awaitingEnergy = undefined;
      return;
    }
    if (!open || open.core !== end_.id) {
      // Started queued by an earlier version, which kept no open transaction: it ends as it did.
      const [known] = await tx
        .select()
        .from(ocppState)
        .where(eq(ocppState.key, seqKey(end_.id)));
      if (known && !open) {
        open = { id: end_.id, startedAt: end_.at, core: end_.id, authorized: true, beginWh: null, lastWh: null, stop: [] };
        await end(tx, { at: end_.at, wh: end_.meterStopWh, reason: end_.reason, tagId: end_.tagId });
      }
      return;
    }
    if (endsWithCore(open.stop, end_.reason, connectedNow())) {
      await end(tx, { at: end_.at, wh: end_.meterStopWh, reason: end_.reason, tagId: end_.tagId });
      return;
    }
    open = { ...open, core: undefined, authorized: false, stopReason: end_.reason, lastWh: end_.meterStopWh };
    await saveOpenTransaction(tx, open);
    await queue(tx, open.id, {
      eventType: 'Updated',
      timestamp: ctx.csmsTime(end_.at),
      triggerReason: (ENDED[end_.reason] ?? ENDED_OTHER).triggerReason,
      transactionInfo: { transactionId: open.id, chargingState: 'EVConnected' },
      evse,
      ...(end_.reason === 'Local' && end_.tagId ? { idToken: rfidToken(end_.tagId) } : {}),
    });
    chargingState = 'EVConnected';
  }

  /** `reservation`: the id of the reservation the transaction uses, ended in its write (reservation.ts). */
  const hooks = (enabled: () => boolean, reservation?: (tx: WriteTx) => Promise<number | undefined>): TransactionHooks => ({
    async started(tx: WriteTx, record: TransactionRecord) {
      if (!enabled()) return;
      await coreStarted(tx, record, await reservation?.(tx));
    },
    async stopped(tx: WriteTx, end: TransactionEnd) {
      await coreStopped(tx, end);
    },
  });

  /**
   * What the core's state shows now, against what it showed: a start point reached without the charge cycle's
   * transaction (the cable, a tag before it, energy flowing), the cable unplugged or the authorization lost while
   * the 2.0.1 transaction has no charge cycle's transaction.
   */
  async function pointReached(tx: WriteTx, now: Seen & { plugged: boolean; unplugged: boolean; authorizedNow: boolean; deauthorized: boolean }): Promise<void> {
    const state = ctx.charging.coreState();
    const at = ctx.now();
    const wh = state?.meter?.energyWh ?? null;
    const core = state?.transaction?.transactionId;
    if (!open) {
      const points = deps.points();
      const waiting = awaitingEnergy;
      if (waiting && core === waiting.record.id && state?.system.ocppState === 'charging') {
        awaitingEnergy = undefined;
        const { record, remote } = waiting;
        await start(
          tx,
          { id: record.id, startedAt: at, core: record.id, authorized: true, beginWh: record.meterStartWh, lastWh: null, stop: points.stop },
          {
            timestamp: ctx.csmsTime(at),
            triggerReason: 'ChargingStateChanged',
            transactionInfo: { transactionId: record.id, chargingState: 'Charging', ...(remote ? { remoteStartId: remote.remoteStartId } : {}) },
            evse,
            idToken: idTokenOf(remote, record.tagId),
            ...(waiting.reservationId !== undefined ? { reservationId: waiting.reservationId } : {}),
            ...register(record.meterStartWh, at, 'Transaction.Begin'),
          },
          'Charging',
        );
        return;
      }
      if (core) return;
      const base = { id: randomUUID(), startedAt: at, beginWh: wh, lastWh: null, stop: points.stop };
      if (now.plugged && points.start.includes('EVConnected')) {
        await start(
          tx,
          { ...base, authorized: false },
          {
            timestamp: ctx.csmsTime(at),
            triggerReason: 'CablePluggedIn',
            transactionInfo: { transactionId: base.id, chargingState: 'EVConnected' },
            evse,
            ...register(wh, at, 'Transaction.Begin'),
          },
          'EVConnected',
        );
      } else if (now.authorizedNow && !now.connected && points.start.includes('Authorized')) {
        const tagId = state?.chargeCycle.context.authorization?.tagId;
        const remote = takeRemote(tagId);
        await start(
          tx,
          { ...base, authorized: true },
          {
            timestamp: ctx.csmsTime(at),
            triggerReason: remote ? 'RemoteStart' : 'Authorized',
            transactionInfo: { transactionId: base.id, chargingState: 'Idle', ...(remote ? { remoteStartId: remote.remoteStartId } : {}) },
            evse,
            idToken: idTokenOf(remote, tagId),
            ...register(wh, at, 'Transaction.Begin'),
          },
          'Idle',
        );
      }
      return;
    }
    if (open.core) return;
    const last = open.lastWh ?? open.beginWh ?? wh;
    if (now.unplugged) {
      // E06 stop point EVConnected: the cable is out; stoppedReason is why charging stopped, if it was stopped before.
      await end(tx, { at, wh: last, reason: open.stopReason ?? 'EVDisconnected', triggerReason: 'EVCommunicationLost' });
    } else if (now.deauthorized && !now.connected) {
      // Authorized before the cable: the authorization expired (EVConnectionTimeOut) or was taken back by its tag.
      const expired = state?.system.authState === 'auth_timeout';
      await end(tx, { at, wh: last, reason: expired ? 'Timeout' : 'Local', triggerReason: expired ? 'EVConnectTimeout' : 'StopAuthorized' });
    }
  }

  /** Queues an Updated event of the open transaction (meter values: their reading kept in the same write). */
  async function updated(coreId: string | undefined, triggerReason: string, more: { chargingState?: string; meterValue?: MeterValue }): Promise<void> {
    await database.write(async (tx) => {
      if (!open || (coreId !== undefined && open.core !== coreId)) return;
      await queue(tx, open.id, {
        eventType: 'Updated',
        timestamp: ctx.csmsTime(ctx.now()),
        triggerReason,
        transactionInfo: { transactionId: open.id, ...(more.chargingState ? { chargingState: more.chargingState } : {}) },
        evse,
        ...(more.meterValue ? meterValueOf(more.meterValue) : {}),
      });
      if (more.meterValue && coreId) await outbox.keepLastReading(tx, coreId, [more.meterValue]);
    });
    pump();
  }

  const meterValues: MeterValueSink = {
    transaction: (transactionId, value, context) => updated(transactionId, SAMPLE_TRIGGER[context], { meterValue: value }),
    idle(value, context) {
      const converted = toMeterValue201(value);
      if (!ctx.isAccepted() || !converted) return;
      ctx.fire(
        ctx
          .call('MeterValues', { evseId: context === 'Sample.Clock' ? 0 : EVSE_ID, meterValue: [converted] })
          .catch((err: Error) => logger.warn({ error: err.message }, 'OCPP: MeterValues failed')),
      );
    },
  };

  return {
    hooks,
    meterValues,
    /**
     * At start, before the charge cycle's transactions left by a power loss are closed: a 2.0.1 transaction left
     * open without one ends now (PowerLoss); one with one ends with it (its `stopped` hook).
     */
    async recover(): Promise<void> {
      open = await loadOpenTransaction(database);
      if (!open || open.core) return;
      const wh = open.lastWh ?? open.beginWh;
      await database.write((tx) => end(tx, { at: ctx.now(), wh, reason: 'PowerLoss' }));
    },
    /** The charge cycle's transaction running in 2.0.1 transaction `id` (undefined: none, or no such transaction open). */
    coreOf: (id: string): string | undefined => (open?.id === id ? open.core : undefined),
    /** The open 2.0.1 transaction, as TxProfiles name it. */
    transaction: () => (open ? { id: open.id, startedAt: open.startedAt } : null),
    /**
     * RequestStopTransaction (F03): the charge cycle's transaction in it is stopped (Remote); without one, the 2.0.1
     * transaction ends now, unless charging was already stopped and it waits for the cable (stop point EVConnected).
     */
    requestStop(id: string): boolean {
      if (open?.id !== id) return false;
      if (open.core) ctx.charging.stopTransaction('Remote');
      else if (!open.stopReason)
        ctx.track(database.write((tx) => end(tx, { at: ctx.now(), wh: open?.lastWh ?? open?.beginWh ?? null, reason: 'Remote' })).then(pump));
      return true;
    },
    /** A RequestStartTransaction was accepted: the transaction its idToken starts is a remote start. */
    expectRemoteStart(idToken: { idToken: string; type: string }, remoteStartId: number): void {
      remoteStart = { idToken, remoteStartId };
    },
    /** The core's state changed: a start or stop point reached, a charging state change (an Updated event). */
    coreStateChanged(): void {
      const state = ctx.charging.coreState();
      if (!state) return;
      const now: Seen = { connected: connectedNow(), authorized: state.system.authState === 'authorized_for_charging' };
      const change = {
        ...now,
        plugged: now.connected && !seen.connected,
        unplugged: !now.connected && seen.connected,
        authorizedNow: now.authorized && !seen.authorized,
        deauthorized: !now.authorized && seen.authorized,
      };
      seen = now;
      const energy = awaitingEnergy !== undefined && state.system.ocppState === 'charging';
      // Only what can open or end a transaction here costs a write (at PowerPathClosed: nothing, the hooks do it).
      const start = deps.points().start;
      const watching = energy || (open !== undefined && !open.core) || start.includes('EVConnected') || start.includes('Authorized');
      if (watching && (change.plugged || change.unplugged || change.authorizedNow || change.deauthorized || energy))
        ctx.track(database.write((tx) => pointReached(tx, change)).then(pump));
      const transaction = state.transaction;
      if (!transaction || !open || open.core !== transaction.transactionId) return;
      const charging = chargingStateOf(state.system.ocppState);
      if (charging === chargingState) return;
      chargingState = charging;
      ctx.track(updated(transaction.transactionId, 'ChargingStateChanged', { chargingState: charging }));
    },
    /** TriggerMessage TransactionEvent: an Updated event of the open transaction (false: none is open). */
    trigger(): boolean {
      if (!open) return false;
      ctx.track(updated(undefined, 'Trigger', {}));
      return true;
    },
  };
}

export type TransactionEvents = ReturnType<typeof createTransactionEvents>;
