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
};
const ENDED_OTHER = { stoppedReason: 'Other', triggerReason: 'AbnormalCondition' };

/** spec 2.13 ocppState of a running transaction → 2.0.1 ChargingStateEnumType. */
const CHARGING_STATE: Record<string, string> = { charging: 'Charging', suspendedev: 'SuspendedEV', suspendedevse: 'SuspendedEVSE' };
const chargingStateOf = (ocpp: string) => CHARGING_STATE[ocpp] ?? 'EVConnected';

/** The sample context of a value → the triggerReason of its Updated event. */
const SAMPLE_TRIGGER: Record<SampleContext, string> = { 'Sample.Periodic': 'MeterValuePeriodic', 'Sample.Clock': 'MeterValueClock', Trigger: 'Trigger' };

/**
 * The transaction point of this charge cycle (TxCtrlr TxStartPoint and TxStopPoint, read-only in the device model):
 * a transaction starts when the vehicle is connected and authorized (PowerPathClosed, the spec's "EVConnected AND
 * Authorized") and ends when either is lost; the 2.0.1 transaction is the charge cycle's.
 */
export const TX_POINT = 'PowerPathClosed';

/**
 * E01–E07 TransactionEvent: Started at the start point, Updated on a charging state change and for meter values,
 * Ended at the stop point; each queued in the offline queue (outbox.ts) in the write that records the transaction's
 * start or end or the reading, so the order holds over a power loss. seqNo counts per transaction from 0 (kept in
 * the database); `offline` marks an event that happened while the CSMS could not be reached.
 */
export function createTransactionEvents(ctx: OcppContext, outbox: Outbox, pump: () => void) {
  const { database, logger } = ctx;
  /** The RequestStartTransaction being carried out: its transaction is a remote start. */
  let remoteStart: { idToken: { idToken: string; type: string }; remoteStartId: number } | undefined;
  /** The charging state last reported of the running transaction. */
  let chargingState: { transactionId: string; state: string } | undefined;

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

  async function queue(tx: WriteTx, transactionId: string, event: Record<string, unknown>): Promise<void> {
    const seqNo = await nextSeqNo(tx, transactionId);
    await outbox.enqueue(tx, 'TransactionEvent', transactionId, { ...event, seqNo, ...offline() });
  }

  /** `reservation`: the id of the reservation the transaction uses, ended in its write (reservation.ts). */
  const hooks = (enabled: () => boolean, reservation?: (tx: WriteTx) => Promise<number | undefined>): TransactionHooks => ({
    async started(tx: WriteTx, record: TransactionRecord) {
      if (!enabled()) return;
      const reservationId = await reservation?.(tx);
      const remote = remoteStart && record.tagId === remoteStart.idToken.idToken ? remoteStart : undefined;
      remoteStart = undefined;
      await queue(tx, record.id, {
        eventType: 'Started',
        timestamp: ctx.csmsTime(record.startedAt),
        triggerReason: remote ? 'RemoteStart' : record.tagId ? 'Authorized' : 'CablePluggedIn',
        transactionInfo: { transactionId: record.id, chargingState: 'EVConnected', ...(remote ? { remoteStartId: remote.remoteStartId } : {}) },
        evse,
        idToken: remote ? remote.idToken : record.tagId ? rfidToken(record.tagId) : NO_AUTHORIZATION,
        ...(reservationId !== undefined ? { reservationId } : {}),
        ...register(record.meterStartWh, record.startedAt, 'Transaction.Begin'),
      });
      chargingState = { transactionId: record.id, state: 'EVConnected' };
    },
    async stopped(tx: WriteTx, end: TransactionEnd) {
      // Only a transaction whose Started was queued ends at the CSMS (1.6's are ended by outbox.ts).
      const [known] = await tx
        .select()
        .from(ocppState)
        .where(eq(ocppState.key, seqKey(end.id)));
      if (!known) return;
      const { stoppedReason, triggerReason } = ENDED[end.reason] ?? ENDED_OTHER;
      await queue(tx, end.id, {
        eventType: 'Ended',
        timestamp: ctx.csmsTime(end.at),
        triggerReason,
        transactionInfo: { transactionId: end.id, chargingState: 'Idle', stoppedReason },
        ...(end.reason === 'Local' && end.tagId ? { idToken: rfidToken(end.tagId) } : {}),
        ...register(end.meterStopWh, end.at, 'Transaction.End'),
      });
      await tx.delete(ocppState).where(eq(ocppState.key, seqKey(end.id)));
      if (chargingState?.transactionId === end.id) chargingState = undefined;
    },
  });

  /** Queues an Updated event of a running transaction (meter values: their reading kept in the same write). */
  async function updated(transactionId: string, triggerReason: string, more: { chargingState?: string; meterValue?: MeterValue }): Promise<void> {
    await database.write(async (tx) => {
      const [known] = await tx
        .select()
        .from(ocppState)
        .where(eq(ocppState.key, seqKey(transactionId)));
      if (!known) return;
      await queue(tx, transactionId, {
        eventType: 'Updated',
        timestamp: ctx.csmsTime(ctx.now()),
        triggerReason,
        transactionInfo: { transactionId, ...(more.chargingState ? { chargingState: more.chargingState } : {}) },
        evse,
        ...(more.meterValue ? meterValueOf(more.meterValue) : {}),
      });
      if (more.meterValue) await outbox.keepLastReading(tx, transactionId, [more.meterValue]);
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
    /** A RequestStartTransaction was accepted: the transaction its idToken starts is a remote start. */
    expectRemoteStart(idToken: { idToken: string; type: string }, remoteStartId: number): void {
      remoteStart = { idToken, remoteStartId };
    },
    /** The core's state changed: a running transaction's charging state change is an Updated event. */
    coreStateChanged(): void {
      const state = ctx.charging.coreState();
      const transaction = state?.transaction;
      if (!state || !transaction || chargingState?.transactionId !== transaction.transactionId) return;
      const now = chargingStateOf(state.system.ocppState);
      if (now === chargingState.state) return;
      chargingState = { transactionId: transaction.transactionId, state: now };
      ctx.track(updated(transaction.transactionId, 'ChargingStateChanged', { chargingState: now }));
    },
    /** TriggerMessage TransactionEvent: an Updated event of the running transaction (false: none runs). */
    trigger(): boolean {
      const transaction = ctx.charging.coreState()?.transaction;
      if (!transaction) return false;
      ctx.track(updated(transaction.transactionId, 'Trigger', {}));
      return true;
    },
  };
}

export type TransactionEvents = ReturnType<typeof createTransactionEvents>;
