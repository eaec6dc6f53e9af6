import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, sql } from 'drizzle-orm';
import type { Database, WriteTx } from '../../db/client.js';
import { ocppQueue, transactions } from '../../db/schema.js';
import type { TransactionRecord } from '../core/protocol.js';
import type { TransactionEnd, TransactionHooks } from '../transactions.js';
import type { MeterValue } from './meter-values.js';

export type QueuedAction = (typeof ocppQueue.$inferSelect)['action'];
export type QueuedMessage = typeof ocppQueue.$inferSelect;
/** The queued messages of OCPP 1.6 (a 2.0.1 charging station queues TransactionEvents in the same table). */
export const OCPP16_QUEUED: readonly QueuedAction[] = ['StartTransaction', 'StopTransaction', 'MeterValues'];

/** An idTag (OCPP: at most 20 characters) for a transaction: its tag, or this one for free charging. */
export const FREE_CHARGING_ID_TAG = 'FreeCharging';
export const idTagOf = (tagId: string | null | undefined): string => (tagId ?? FREE_CHARGING_ID_TAG).slice(0, 20);

/** The energy register at a transaction's start or end, as transactionData. */
const registerValue = (wh: number, timestamp: string, context: 'Transaction.Begin' | 'Transaction.End'): MeterValue => ({
  timestamp,
  sampledValue: [{ value: String(wh), context, measurand: 'Energy.Active.Import.Register', unit: 'Wh', location: 'Outlet' }],
});

/**
 * The OCPP offline queue: transaction-related messages (StartTransaction, StopTransaction, transaction MeterValues)
 * are written to the database before they are sent, in the same write as the transaction's start or end, and
 * deleted in the same write that records the central system's answer. They are sent one at a time in order; a
 * StopTransaction or MeterValues gets the central system's transaction id when it is sent, so it waits for its
 * StartTransaction's answer. A restart (kill -9 included) loses none and keeps the order.
 */
export function createOutbox(database: Database, now: () => number) {
  const { db } = database;
  const iso = (ms: number) => new Date(ms).toISOString();

  const insert = (tx: WriteTx | Database['db'], action: QueuedAction, transactionId: string, payload: object) =>
    tx.insert(ocppQueue).values({ action, transactionId, payload: JSON.stringify(payload), createdAt: now() });

  /** Whether a StartTransaction of `transactionId` was queued (and may still be) or answered. */
  async function startKnown(tx: WriteTx, transactionId: string): Promise<boolean> {
    const [row] = await tx
      .select({ n: sql<number>`count(*)` })
      .from(ocppQueue)
      .where(sql`${ocppQueue.transactionId} = ${transactionId} AND ${ocppQueue.action} = 'StartTransaction'`);
    if (Number(row?.n ?? 0) > 0) return true;
    const [t] = await tx.select({ id: transactions.backendTransactionId }).from(transactions).where(eq(transactions.id, transactionId));
    return t?.id != null;
  }

  /** The hooks that queue StartTransaction and StopTransaction in the same write as the transaction. */
  const hooks = (
    enabled: () => boolean,
    stopTxnData: () => readonly string[],
    reservation: (tx: WriteTx) => Promise<number | undefined>,
  ): TransactionHooks => ({
    async started(tx: WriteTx, record: TransactionRecord) {
      if (!enabled()) return;
      const reservationId = await reservation(tx);
      await insert(tx, 'StartTransaction', record.id, {
        connectorId: 1,
        idTag: idTagOf(record.tagId),
        meterStart: record.meterStartWh ?? 0,
        ...(reservationId !== undefined ? { reservationId } : {}),
        timestamp: iso(record.startedAt),
      });
    },
    async stopped(tx: WriteTx, end: TransactionEnd) {
      // Only a transaction the central system knows of (or will) is stopped there.
      if (!(await startKnown(tx, end.id))) return;
      const [started] = await tx.select({ at: transactions.startedAt }).from(transactions).where(eq(transactions.id, end.id));
      await insert(tx, 'StopTransaction', end.id, {
        idTag: idTagOf(end.tagId),
        meterStop: end.meterStopWh,
        timestamp: iso(end.at),
        reason: end.reason,
        // StopTxnSampledData: the register at the start and the end (the readings a transaction keeps).
        ...(stopTxnData().includes('Energy.Active.Import.Register')
          ? {
              transactionData: [
                registerValue(end.meterStartWh, iso(started?.at ?? end.at), 'Transaction.Begin'),
                registerValue(end.meterStopWh, iso(end.at), 'Transaction.End'),
              ],
            }
          : {}),
      });
    },
  });

  /**
   * A reading's register becomes the transaction's last reading in the same write (when later than its checkpoint): a
   * transaction a power loss interrupts is completed with the last reading committed or sent, never an earlier one
   * than the central system got.
   */
  async function keepLastReading(tx: WriteTx, transactionId: string, values: readonly MeterValue[]): Promise<void> {
    for (const value of values) {
      const register = value.sampledValue.find((s) => s.measurand === 'Energy.Active.Import.Register');
      const at = Date.parse(value.timestamp);
      if (!register || !Number.isFinite(at)) continue;
      const wh = Math.round(Number(register.value));
      await tx
        .update(transactions)
        .set({ meterLastWh: wh, meterLastAt: at, checkpointedAt: at })
        .where(
          and(
            eq(transactions.id, transactionId),
            isNull(transactions.endedAt),
            isNotNull(transactions.meterStartAt), // energy before the meter's first answer is not counted
            lt(transactions.checkpointedAt, at),
            lte(transactions.meterLastWh, wh),
          ),
        );
    }
  }

  return {
    hooks,

    /** Queues the meter values of a running transaction (keepLastReading in the same write). */
    async meterValues(transactionId: string, values: MeterValue[]): Promise<void> {
      await database.write(async (tx) => {
        await insert(tx, 'MeterValues', transactionId, { connectorId: 1, meterValue: values });
        await keepLastReading(tx, transactionId, values);
      });
    },

    /** Queues a message in a write of the caller's (the 2.0.1 charging station's TransactionEvents). */
    enqueue: (tx: WriteTx, action: QueuedAction, transactionId: string, payload: object) => insert(tx, action, transactionId, payload),
    keepLastReading,

    /** The first message in the queue (of `actions`: those of the version spoken). */
    async head(actions?: readonly QueuedAction[]): Promise<QueuedMessage | undefined> {
      const [row] = await db
        .select()
        .from(ocppQueue)
        .where(actions ? inArray(ocppQueue.action, [...actions]) : undefined)
        .orderBy(asc(ocppQueue.seq))
        .limit(1);
      return row;
    },

    /** Whether messages of `actions` wait in the queue (of one transaction, when given). */
    async holds(actions: readonly QueuedAction[], transactionId?: string): Promise<boolean> {
      const ofAction = inArray(ocppQueue.action, [...actions]);
      const [row] = await db
        .select({ seq: ocppQueue.seq })
        .from(ocppQueue)
        .where(transactionId === undefined ? ofAction : and(ofAction, eq(ocppQueue.transactionId, transactionId)))
        .limit(1);
      return row !== undefined;
    },

    async size(): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)` }).from(ocppQueue);
      return Number(row?.n ?? 0);
    },

    /** The central system's id of a local transaction, when its StartTransaction was answered. */
    async backendIdOf(transactionId: string): Promise<string | undefined> {
      const [row] = await db.select({ id: transactions.backendTransactionId }).from(transactions).where(eq(transactions.id, transactionId));
      return row?.id ?? undefined;
    },

    /** The message was answered: it leaves the queue; a StartTransaction's id is kept with its transaction (one write). */
    async answered(message: QueuedMessage, backendTransactionId?: string): Promise<void> {
      await database.write(async (tx) => {
        await tx.delete(ocppQueue).where(eq(ocppQueue.seq, message.seq));
        if (backendTransactionId !== undefined) {
          await tx.update(transactions).set({ backendTransactionId }).where(eq(transactions.id, message.transactionId));
        }
      });
    },

    /** The message was refused: tried again not before `notBefore`. */
    async refused(message: QueuedMessage, notBefore: number): Promise<void> {
      await database.write((tx) =>
        tx
          .update(ocppQueue)
          .set({ attempts: message.attempts + 1, notBefore })
          .where(eq(ocppQueue.seq, message.seq)),
      );
    },

    /** The message is given up (attempts exhausted, or its transaction never got an id). */
    async drop(message: QueuedMessage): Promise<void> {
      await database.write((tx) => tx.delete(ocppQueue).where(eq(ocppQueue.seq, message.seq)));
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
