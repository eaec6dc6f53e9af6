import { setImmediate as nextTurn } from 'node:timers/promises';
import { and, asc, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Database, WriteTx } from '../db/client.js';
import { transactionDays, transactions } from '../db/schema.js';
import type { TransactionRecord } from './core/protocol.js';
import { notFound } from './errors.js';

/** CompletedTransactionDetails (spec 2.9), with this project's `unmetered` extension. */
export interface CompletedTransaction {
  transactionId: string;
  backendTransactionId?: string;
  tagId?: string;
  userId?: string;
  startTransaction: string;
  endTransaction: string;
  consumption: number;
  maxPower: number;
  /**
   * Extension: the parts of the transaction no meter reading covers (the meter did not answer at its start or at its
   * end); their energy is not in `consumption`. Present only when there are such parts.
   */
  unmetered?: { from: string; to: string }[];
}

/** CompletedTransactionsSummary (spec 2.10). */
export interface TransactionsSummary {
  transactionCount: number;
  totalDuration: number;
  totalConsumption: number;
}

/** A range over transaction start times, inclusive, in UTC milliseconds. */
export interface TimeRange {
  from?: number;
  to?: number;
}

/** Readings at most this far from the start or the end cover it (the meter is read every second). */
export const METERING_TOLERANCE_MS = 1_000;
/** Completed transactions read from the database at a time while a list is sent. */
export const LIST_PAGE_ROWS = 500;
const DAY_MS = 86_400_000;

type Row = typeof transactions.$inferSelect;

const iso = (ms: number) => new Date(ms).toISOString();

function toCompleted(row: Row): CompletedTransaction {
  const endedAt = row.endedAt ?? row.startedAt;
  const t: CompletedTransaction = {
    transactionId: row.id,
    startTransaction: iso(row.startedAt),
    endTransaction: iso(endedAt),
    consumption: row.meterLastWh - row.meterStartWh,
    maxPower: row.maxPowerW,
  };
  if (row.backendTransactionId !== null) t.backendTransactionId = row.backendTransactionId;
  if (row.tagId !== null) t.tagId = row.tagId;
  if (row.userId !== null) t.userId = row.userId;
  const unmetered: { from: string; to: string }[] = [];
  if (row.meterStartAt === null || row.meterLastAt === null) unmetered.push({ from: iso(row.startedAt), to: iso(endedAt) });
  else {
    if (row.meterStartAt - row.startedAt > METERING_TOLERANCE_MS) unmetered.push({ from: iso(row.startedAt), to: iso(row.meterStartAt) });
    if (endedAt - row.meterLastAt > METERING_TOLERANCE_MS) unmetered.push({ from: iso(row.meterLastAt), to: iso(endedAt) });
  }
  if (unmetered.length > 0) t.unmetered = unmetered;
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

/** The metering columns of a record (registers 0 while the meter has not answered since the start). */
function metering(record: TransactionRecord) {
  return {
    meterStartWh: record.meterStartWh ?? 0,
    meterStartAt: record.meterStartAt,
    meterLastWh: record.meterLastWh ?? record.meterStartWh ?? 0,
    meterLastAt: record.meterLastAt,
    maxPowerW: record.maxPowerW,
  };
}

/** Adds the transactions `where` selects, just completed, to their days' sums (in the same write as the completion). */
async function addToDays(tx: WriteTx, where: SQL): Promise<void> {
  await tx.run(sql`
    INSERT INTO ${transactionDays} (day, count, duration_ms, consumption_wh)
    SELECT started_at / ${sql.raw(String(DAY_MS))}, count(*), sum(ended_at - started_at), sum(meter_last_wh - meter_start_wh)
    FROM ${transactions} WHERE ${where} GROUP BY 1
    ON CONFLICT (day) DO UPDATE SET count = count + excluded.count, duration_ms = duration_ms + excluded.duration_ms,
      consumption_wh = consumption_wh + excluded.consumption_wh`);
}

/**
 * Charging transactions. The charge-point core begins one, checkpoints it (meter registers, max power) at a bounded
 * interval and on every state change, and finishes it; the API reads completed ones.
 */
export function createTransactions(database: Database, now: () => number = Date.now) {
  const { db } = database;

  /** Sums of the completed transactions matching `where`, row by row (the partial days at a range's edges). */
  const sumRows = async (where: SQL | undefined) => {
    const [row] = await db
      .select({
        count: sql<number>`count(*)`,
        durationMs: sql<number | null>`sum(${transactions.endedAt} - ${transactions.startedAt})`,
        consumption: sql<number | null>`sum(${transactions.meterLastWh} - ${transactions.meterStartWh})`,
      })
      .from(transactions)
      .where(and(isNotNull(transactions.endedAt), where));
    return { count: Number(row?.count ?? 0), durationMs: Number(row?.durationMs ?? 0), consumption: Number(row?.consumption ?? 0) };
  };

  /**
   * The completed transactions of the range, oldest first (then in the order they were recorded), a page at a time
   * (keyset on start time and rowid, the index's own order): memory stays bounded whatever the history, and the event
   * loop is free between pages.
   */
  async function* pagesCompleted(range: TimeRange = {}, pageRows = LIST_PAGE_ROWS): AsyncGenerator<CompletedTransaction[]> {
    const rowid = sql<number>`${transactions}.rowid`;
    let after: { startedAt: number; rowid: number } | undefined;
    for (;;) {
      const rows = await db
        .select({ row: transactions, rowid })
        .from(transactions)
        .where(
          and(
            completedIn(range),
            after ? or(gt(transactions.startedAt, after.startedAt), and(eq(transactions.startedAt, after.startedAt), sql`${rowid} > ${after.rowid}`)) : undefined,
          ),
        )
        .orderBy(asc(transactions.startedAt), asc(rowid))
        .limit(pageRows);
      if (rows.length === 0) return;
      yield rows.map((r) => toCompleted(r.row));
      if (rows.length < pageRows) return;
      const last = rows[rows.length - 1]!;
      after = { startedAt: last.row.startedAt, rowid: last.rowid };
      await nextTurn();
    }
  }

  return {
    pagesCompleted,

    /** The completed transactions of the range, oldest first, all at once (tests, small ranges). */
    async listCompleted(range: TimeRange = {}): Promise<CompletedTransaction[]> {
      const all: CompletedTransaction[] = [];
      for await (const page of pagesCompleted(range)) all.push(...page);
      return all;
    },

    /**
     * Count, duration and energy of the completed transactions of the range: whole UTC days from the per-day sums,
     * the partial days at the range's edges row by row, so the answer takes the same short time at any history.
     */
    async summary(range: TimeRange = {}): Promise<TransactionsSummary> {
      // Whole days inside the range: [firstDay, lastDay]; everything else in the range is summed row by row.
      const firstDay = range.from === undefined ? Number.MIN_SAFE_INTEGER : Math.ceil(range.from / DAY_MS);
      const lastDay = range.to === undefined ? Number.MAX_SAFE_INTEGER : Math.floor((range.to + 1) / DAY_MS) - 1;
      let count = 0;
      let durationMs = 0;
      let consumption = 0;
      if (firstDay <= lastDay) {
        const [days] = await db
          .select({
            count: sql<number | null>`sum(${transactionDays.count})`,
            durationMs: sql<number | null>`sum(${transactionDays.durationMs})`,
            consumption: sql<number | null>`sum(${transactionDays.consumptionWh})`,
          })
          .from(transactionDays)
          .where(and(gte(transactionDays.day, firstDay), lte(transactionDays.day, lastDay)));
        count += Number(days?.count ?? 0);
        durationMs += Number(days?.durationMs ?? 0);
        consumption += Number(days?.consumption ?? 0);
        const edges = [
          range.from !== undefined ? and(gte(transactions.startedAt, range.from), lt(transactions.startedAt, firstDay * DAY_MS)) : undefined,
          range.to !== undefined ? and(gte(transactions.startedAt, (lastDay + 1) * DAY_MS), lte(transactions.startedAt, range.to)) : undefined,
        ].filter((e): e is SQL => e !== undefined);
        for (const edge of edges) {
          const part = await sumRows(edge);
          count += part.count;
          durationMs += part.durationMs;
          consumption += part.consumption;
        }
      } else {
        // The range lies within one day: its transactions row by row.
        const part = await sumRows(completedIn(range));
        count = part.count;
        durationMs = part.durationMs;
        consumption = part.consumption;
      }
      return { transactionCount: count, totalDuration: Math.round(durationMs / 1000), totalConsumption: consumption };
    },

    /** Persists a transaction the core started (its registers may still be unknown). */
    async begin(record: TransactionRecord): Promise<void> {
      await database.write((tx) =>
        tx.insert(transactions).values({
          id: record.id,
          tagId: record.tagId ?? null,
          userId: record.userId ?? null,
          startedAt: record.startedAt,
          ...metering(record),
          checkpointedAt: record.startedAt,
        }),
      );
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
        if (closed.length > 0) await addToDays(tx, inArray(transactions.id, closed.map((c) => c.id)));
        return closed.length;
      });
    },

    /** Persists the meter registers and max power of the active transaction. */
    async checkpoint(record: TransactionRecord): Promise<void> {
      await database.write(async (tx) => {
        const updated = await tx
          .update(transactions)
          .set({ ...metering(record), checkpointedAt: now() })
          .where(and(eq(transactions.id, record.id), isNull(transactions.endedAt)))
          .returning({ id: transactions.id });
        if (updated.length === 0) throw notFound(`No active transaction ${record.id}`);
      });
    },

    /** Completes the active transaction with its final registers, in one write with its day's sums. */
    async finish(record: TransactionRecord, end: { reason: string; at?: number }): Promise<void> {
      const at = end.at ?? now();
      await database.write(async (tx) => {
        const updated = await tx
          .update(transactions)
          .set({ endedAt: at, ...metering(record), stopReason: end.reason, checkpointedAt: at })
          .where(and(eq(transactions.id, record.id), isNull(transactions.endedAt)))
          .returning({ id: transactions.id });
        if (updated.length === 0) throw notFound(`No active transaction ${record.id}`);
        await addToDays(tx, eq(transactions.id, record.id));
      });
    },
  };
}

export type Transactions = ReturnType<typeof createTransactions>;
