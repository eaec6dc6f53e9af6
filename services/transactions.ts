import { and, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, sql, type SQL } from 'drizzle-orm';
import { nextPageTurn, type Database, type WriteTx } from '../db/client.js';
import { transactionDays, transactions } from '../db/schema.js';
import type { TransactionRecord } from './core/protocol.js';
import { notFound } from './errors.js';
import { addCurvePoint, pruneCurves, readCurve, type CurvePoint } from './transaction-curve.js';

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
  /** Extension (billing): the meter's register at the start and at the end (Wh); consumption is their difference. */
  meterStartWh: number;
  meterStopWh: number;
  /** Extension (billing): why it ended, as OCPP names it (EVDisconnected, Local, Remote, Reboot, PowerLoss, …). */
  stopReason?: string;
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

/** How a transaction ended, for the work done in the same write (the OCPP queue). */
export interface TransactionEnd {
  id: string;
  tagId: string | null;
  meterStartWh: number;
  meterStopWh: number;
  /** UTC ms. */
  at: number;
  reason: string;
}

/**
 * Work done inside the same write as a transaction's start and end, so that it is committed with them or not at all
 * (the OCPP queue: a completed transaction's messages to the central system are never lost to a power cut).
 */
export interface TransactionHooks {
  started(tx: WriteTx, record: TransactionRecord): Promise<void>;
  stopped(tx: WriteTx, end: TransactionEnd): Promise<void>;
  /** After such a write committed (the queue may send what was added). */
  committed?(): void;
}

/** Readings at most this far from the start or the end cover it (the meter is read every second). */
export const METERING_TOLERANCE_MS = 1_000;
/** Completed transactions read from the database at a time while a list is sent. */
export const LIST_PAGE_ROWS = 250;
const DAY_MS = 86_400_000;

/** An ISO 8601 UTC timestamp with milliseconds (as Date.prototype.toISOString writes it) of a UTC-ms column. */
const isoOf = (ms: SQL) => sql`strftime('%Y-%m-%dT%H:%M:%S', ${ms} / 1000, 'unixepoch') || '.' || printf('%03d', ${ms} % 1000) || 'Z'`;
/** `,"name":<JSON of value>`, or nothing when the value is null (optional members are left out). */
const optional = (name: string, value: SQL) => sql`CASE WHEN ${value} IS NULL THEN '' ELSE ${`,"${name}":`} || json_quote(${value}) END`;

const ENDED = sql`coalesce(${transactions.endedAt}, ${transactions.startedAt})`;
const TOLERANCE = sql.raw(String(METERING_TOLERANCE_MS));
const GAP_AT_START = sql`${transactions.meterStartAt} - ${transactions.startedAt} > ${TOLERANCE}`;
const GAP_AT_END = sql`${ENDED} - ${transactions.meterLastAt} > ${TOLERANCE}`;
const interval = (from: SQL, to: SQL) => sql`'{"from":"' || ${isoOf(from)} || '","to":"' || ${isoOf(to)} || '"}'`;

/**
 * The JSON text of a completed transaction (CompletedTransactionDetails, spec 2.9, with the `unmetered` extension),
 * written by SQLite: a list of any length is sent as the database writes it, without an object per transaction.
 */
const COMPLETED_JSON = sql<string>`'{"transactionId":' || json_quote(${transactions.id})
  || ${optional('backendTransactionId', sql`${transactions.backendTransactionId}`)}
  || ${optional('tagId', sql`${transactions.tagId}`)}
  || ${optional('userId', sql`${transactions.userId}`)}
  || ',"startTransaction":"' || ${isoOf(sql`${transactions.startedAt}`)} || '","endTransaction":"' || ${isoOf(ENDED)} || '"'
  || ',"consumption":' || (${transactions.meterLastWh} - ${transactions.meterStartWh}) || ',"maxPower":' || ${transactions.maxPowerW}
  || ',"meterStartWh":' || ${transactions.meterStartWh} || ',"meterStopWh":' || ${transactions.meterLastWh}
  || ${optional('stopReason', sql`${transactions.stopReason}`)}
  || CASE
       WHEN ${transactions.meterStartAt} IS NULL OR ${transactions.meterLastAt} IS NULL
         THEN ',"unmetered":[' || ${interval(sql`${transactions.startedAt}`, ENDED)} || ']'
       WHEN ${GAP_AT_START} OR ${GAP_AT_END}
         THEN ',"unmetered":[' || CASE WHEN ${GAP_AT_START} THEN ${interval(sql`${transactions.startedAt}`, sql`${transactions.meterStartAt}`)} ELSE '' END
           || CASE WHEN ${GAP_AT_START} AND ${GAP_AT_END} THEN ',' ELSE '' END
           || CASE WHEN ${GAP_AT_END} THEN ${interval(sql`${transactions.meterLastAt}`, ENDED)} ELSE '' END || ']'
       ELSE ''
     END
  || '}'`;

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

/**
 * Adds the transactions `where` selects, just completed, to their days' sums, then brings the running totals of
 * those days and every later one up to date (in the same write as the completion). A transaction completes after
 * it started, so the days from its start day on are few: the day before a completion, today, rarely more.
 */
async function addToDays(tx: WriteTx, where: SQL): Promise<void> {
  const day = sql.raw(`started_at / ${DAY_MS}`);
  await tx.run(sql`
    INSERT INTO ${transactionDays} (day, count, duration_ms, consumption_wh)
    SELECT ${day}, count(*), sum(ended_at - started_at), sum(meter_last_wh - meter_start_wh)
    FROM ${transactions} WHERE ${where} GROUP BY 1
    ON CONFLICT (day) DO UPDATE SET count = count + excluded.count, duration_ms = duration_ms + excluded.duration_ms,
      consumption_wh = consumption_wh + excluded.consumption_wh`);
  await tx.run(sql`
    WITH first(day) AS (SELECT min(${day}) FROM ${transactions} WHERE ${where}),
    before AS (SELECT total_count AS c, total_duration_ms AS d, total_consumption_wh AS w FROM ${transactionDays}
               WHERE day < (SELECT day FROM first) ORDER BY day DESC LIMIT 1),
    base AS (SELECT coalesce((SELECT c FROM before), 0) AS c, coalesce((SELECT d FROM before), 0) AS d, coalesce((SELECT w FROM before), 0) AS w),
    running AS (SELECT day, sum(count) OVER w AS c, sum(duration_ms) OVER w AS d, sum(consumption_wh) OVER w AS w
                FROM ${transactionDays} WHERE day >= (SELECT day FROM first) WINDOW w AS (ORDER BY day))
    UPDATE ${transactionDays} SET total_count = base.c + running.c, total_duration_ms = base.d + running.d,
      total_consumption_wh = base.w + running.w
    FROM running, base WHERE running.day = ${transactionDays}.day`);
}

/**
 * Charging transactions. The charge-point core begins one, checkpoints it (meter registers, max power) at a bounded
 * interval and on every state change, and finishes it; the API reads completed ones.
 */
export function createTransactions(database: Database, now: () => number = Date.now) {
  const { db } = database;
  let hooks: TransactionHooks | undefined;

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

  /** The running totals of every day up to and including `day` (zero before the first). */
  const totalsUpTo = async (day: number) => {
    if (day < Number.MIN_SAFE_INTEGER) return { count: 0, durationMs: 0, consumption: 0 };
    const [row] = await db
      .select({ count: transactionDays.totalCount, durationMs: transactionDays.totalDurationMs, consumption: transactionDays.totalConsumptionWh })
      .from(transactionDays)
      .where(lte(transactionDays.day, day))
      .orderBy(desc(transactionDays.day))
      .limit(1);
    return row ?? { count: 0, durationMs: 0, consumption: 0 };
  };

  /**
   * The completed transactions of the range as JSON, oldest first (then in the order they were recorded), a page at
   * a time: each page is the JSON texts of up to `pageRows` transactions joined by commas, written by SQLite in one
   * row (keyset on start time and rowid, the index's own order). Memory stays bounded whatever the history, and the
   * event loop is free between pages.
   */
  async function* pagesCompleted(range: TimeRange = {}, pageRows = LIST_PAGE_ROWS): AsyncGenerator<string> {
    let after: { startedAt: number; rowid: number } | undefined;
    for (;;) {
      const where = and(completedIn(range), after ? sql`(${transactions.startedAt}, ${transactions}.rowid) > (${after.startedAt}, ${after.rowid})` : undefined);
      const [page] = await db.all<{ json: string | null; rows: number; lastStart: number | null; lastRowid: number | null }>(sql`
        WITH page AS (
          SELECT ${COMPLETED_JSON} AS json, ${transactions.startedAt} AS s, ${transactions}.rowid AS r FROM ${transactions}
          WHERE ${where} ORDER BY s, r LIMIT ${pageRows})
        SELECT (SELECT group_concat(json, ',' ORDER BY s, r) FROM page) AS json, (SELECT count(*) FROM page) AS rows,
          (SELECT s FROM page ORDER BY s DESC, r DESC LIMIT 1) AS lastStart, (SELECT r FROM page ORDER BY s DESC, r DESC LIMIT 1) AS lastRowid`);
      if (!page || page.rows === 0 || page.json === null) return;
      yield page.json;
      if (page.rows < pageRows) return;
      after = { startedAt: Number(page.lastStart), rowid: Number(page.lastRowid) };
      await nextPageTurn();
    }
  }

  return {
    pagesCompleted,

    /** Work to do in the same write as every start and end from now on (the OCPP queue). */
    setHooks(h: TransactionHooks | undefined): void {
      hooks = h;
    },

    /** The completed transactions of the range, oldest first, all at once (tests, small ranges). */
    async listCompleted(range: TimeRange = {}): Promise<CompletedTransaction[]> {
      const all: CompletedTransaction[] = [];
      for await (const page of pagesCompleted(range)) all.push(...(JSON.parse(`[${page}]`) as CompletedTransaction[]));
      return all;
    },

    /**
     * Count, duration and energy of the completed transactions of the range: whole UTC days from the running totals
     * of the per-day sums (two lookups), the partial days at the range's edges row by row, so the answer takes the
     * same short time at any history.
     */
    async summary(range: TimeRange = {}): Promise<TransactionsSummary> {
      // Whole days inside the range: [firstDay, lastDay]; everything else in the range is summed row by row.
      const firstDay = range.from === undefined ? Number.MIN_SAFE_INTEGER : Math.ceil(range.from / DAY_MS);
      const lastDay = range.to === undefined ? Number.MAX_SAFE_INTEGER : Math.floor((range.to + 1) / DAY_MS) - 1;
      let count = 0;
      let durationMs = 0;
      let consumption = 0;
      if (firstDay <= lastDay) {
        const [upTo, before] = await Promise.all([totalsUpTo(lastDay), totalsUpTo(firstDay - 1)]);
        count += upTo.count - before.count;
        durationMs += upTo.durationMs - before.durationMs;
        consumption += upTo.consumption - before.consumption;
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

    /** The energy curve of transaction `id` (running or completed), oldest first; null when there is no such transaction. */
    async curve(id: string): Promise<CurvePoint[] | null> {
      const [found] = await database.db.select({ id: transactions.id }).from(transactions).where(eq(transactions.id, id));
      return found ? readCurve(database.db, id) : null;
    },

    /** Persists a transaction the core started (its registers may still be unknown). */
    async begin(record: TransactionRecord): Promise<void> {
      await database.write(async (tx) => {
        await tx.insert(transactions).values({
          id: record.id,
          tagId: record.tagId ?? null,
          userId: record.userId ?? null,
          startedAt: record.startedAt,
          ...metering(record),
          checkpointedAt: record.startedAt,
        });
        await addCurvePoint(tx, record);
        await hooks?.started(tx, record);
      });
      hooks?.committed?.();
    },

    /**
     * At start: completes every transaction a power loss left active, with its last checkpoint (meter register, max
     * power, time) and stop reason PowerLoss. Returns how many were closed.
     */
    async closeInterrupted(): Promise<number> {
      return database
        .write(async (tx) => {
          const closed = await tx
            .update(transactions)
            .set({ endedAt: transactions.checkpointedAt, stopReason: 'PowerLoss' })
            .where(isNull(transactions.endedAt))
            .returning({
              id: transactions.id,
              tagId: transactions.tagId,
              meterStartWh: transactions.meterStartWh,
              meterLastWh: transactions.meterLastWh,
              at: transactions.endedAt,
            });
          if (closed.length > 0)
            await addToDays(
              tx,
              inArray(
                transactions.id,
                closed.map((c) => c.id),
              ),
            );
          for (const c of closed) {
            await hooks?.stopped(tx, {
              id: c.id,
              tagId: c.tagId,
              meterStartWh: c.meterStartWh,
              meterStopWh: c.meterLastWh,
              at: c.at ?? now(),
              reason: 'PowerLoss',
            });
          }
          return closed.length;
        })
        .finally(() => hooks?.committed?.());
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
        await addCurvePoint(tx, record);
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
        await addCurvePoint(tx, record);
        await pruneCurves(tx);
        const m = metering(record);
        await hooks?.stopped(tx, {
          id: record.id,
          tagId: record.tagId ?? null,
          meterStartWh: m.meterStartWh,
          meterStopWh: m.meterLastWh,
          at,
          reason: end.reason,
        });
      });
      hooks?.committed?.();
    },
  };
}

export type Transactions = ReturnType<typeof createTransactions>;
