import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, gte, isNotNull, isNull, lte, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { transactions } from '../db/schema.js';
import { notFound } from './errors.js';

/** CompletedTransactionDetails (spec 2.9). */
export interface CompletedTransaction {
  transactionId: string;
  backendTransactionId?: string;
  tagId?: string;
  userId?: string;
  startTransaction: string;
  endTransaction: string;
  consumption: number;
  maxPower: number;
}

/** CompletedTransactionsSummary (spec 2.10). */
export interface TransactionsSummary {
  transactionCount: number;
  totalDuration: number;
  totalConsumption: number;
}

/** The persisted state of the active transaction. */
export interface ActiveTransactionRecord {
  transactionId: string;
  backendTransactionId?: string;
  tagId?: string;
  userId?: string;
  startedAt: number;
  meterStartWh: number;
  meterLastWh: number;
  maxPowerW: number;
}

/** A range over transaction start times, inclusive, in UTC milliseconds. */
export interface TimeRange {
  from?: number;
  to?: number;
}

type Row = typeof transactions.$inferSelect;

function toCompleted(row: Row): CompletedTransaction {
  const t: CompletedTransaction = {
    transactionId: row.id,
    startTransaction: new Date(row.startedAt).toISOString(),
    endTransaction: new Date(row.endedAt ?? row.startedAt).toISOString(),
    consumption: row.meterLastWh - row.meterStartWh,
    maxPower: row.maxPowerW,
  };
  if (row.backendTransactionId !== null) t.backendTransactionId = row.backendTransactionId;
  if (row.tagId !== null) t.tagId = row.tagId;
  if (row.userId !== null) t.userId = row.userId;
  return t;
}

/** Completed transactions whose start lies in the range: served by the partial index on started_at. */
export function completedIn(range: TimeRange): SQL | undefined {
  return and(
    isNotNull(transactions.endedAt),
    range.from !== undefined ? gte(transactions.startedAt, range.from) : undefined,
    range.to !== undefined ? lte(transactions.startedAt, range.to) : undefined,
  );
}

/**
 * Charging transactions. The charge cycle begins one, checkpoints it (meter register, max power) at a bounded
 * interval and on every state change, and finishes it; the API reads completed ones.
 */
export function createTransactions(database: Database, now: () => number = Date.now) {
  const { db } = database;
  return {
    async listCompleted(range: TimeRange = {}): Promise<CompletedTransaction[]> {
      const rows = await db.select().from(transactions).where(completedIn(range)).orderBy(asc(transactions.startedAt));
      return rows.map(toCompleted);
    },

    async summary(range: TimeRange = {}): Promise<TransactionsSummary> {
      const [row] = await db
        .select({
          transactionCount: count(),
          totalDurationMs: sql<number | null>`sum(${transactions.endedAt} - ${transactions.startedAt})`,
          totalConsumption: sql<number | null>`sum(${transactions.meterLastWh} - ${transactions.meterStartWh})`,
        })
        .from(transactions)
        .where(completedIn(range));
      return {
        transactionCount: row?.transactionCount ?? 0,
        totalDuration: Math.round(Number(row?.totalDurationMs ?? 0) / 1000),
        totalConsumption: Number(row?.totalConsumption ?? 0),
      };
    },

    async begin(start: { id?: string; tagId?: string; userId?: string; meterWh: number; at?: number }): Promise<ActiveTransactionRecord> {
      const at = start.at ?? now();
      const id = start.id ?? randomUUID();
      await database.write((tx) =>
        tx.insert(transactions).values({
          id,
          tagId: start.tagId ?? null,
          userId: start.userId ?? null,
          startedAt: at,
          meterStartWh: start.meterWh,
          meterLastWh: start.meterWh,
          maxPowerW: 0,
          checkpointedAt: at,
        }),
      );
      const record: ActiveTransactionRecord = { transactionId: id, startedAt: at, meterStartWh: start.meterWh, meterLastWh: start.meterWh, maxPowerW: 0 };
      if (start.tagId !== undefined) record.tagId = start.tagId;
      if (start.userId !== undefined) record.userId = start.userId;
      return record;
    },

    /**
     * At start: completes every transaction a power loss left active, with its last checkpoint (meter register, max
     * power, time) and stop reason PowerLoss. Returns how many were closed.
     */
    async closeInterrupted(): Promise<number> {
      return database.write(async (tx) => {
        const closed = await tx
          .update(transactions)
          .set({ endedAt: transactions.checkpointedAt, stopReason: 'PowerLoss' })
          .where(isNull(transactions.endedAt))
          .returning({ id: transactions.id });
        return closed.length;
      });
    },

    /** Persists the meter register and max power of the active transaction. */
    async checkpoint(transactionId: string, meterWh: number, maxPowerW: number): Promise<void> {
      await database.write(async (tx) => {
        const updated = await tx
          .update(transactions)
          .set({ meterLastWh: meterWh, maxPowerW, checkpointedAt: now() })
          .where(and(eq(transactions.id, transactionId), isNull(transactions.endedAt)))
          .returning({ id: transactions.id });
        if (updated.length === 0) throw notFound(`No active transaction ${transactionId}`);
      });
    },

    /** Completes the active transaction with the final meter register. */
    async finish(transactionId: string, end: { meterWh: number; maxPowerW: number; reason: string; at?: number }): Promise<void> {
      const at = end.at ?? now();
      await database.write(async (tx) => {
        const updated = await tx
          .update(transactions)
          .set({ endedAt: at, meterLastWh: end.meterWh, maxPowerW: end.maxPowerW, stopReason: end.reason, checkpointedAt: at })
          .where(and(eq(transactions.id, transactionId), isNull(transactions.endedAt)))
          .returning({ id: transactions.id });
        if (updated.length === 0) throw notFound(`No active transaction ${transactionId}`);
      });
    },
  };
}

export type Transactions = ReturnType<typeof createTransactions>;
