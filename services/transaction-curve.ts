import { asc, eq, sql } from 'drizzle-orm';
import type { Db, WriteTx } from '../db/client.js';
import { transactionCurve } from '../db/schema.js';
import type { TransactionRecord } from './core/protocol.js';

/**
 * A transaction's energy curve kept by the controller, so a chart shows the whole session after a reload and for any
 * recent past one: the energy delivered since the start at the start itself and at each checkpoint the core sends
 * (every 10 s while it runs) and at the stop. Each point is written in the write that stores its checkpoint: no write
 * of its own (SD card wear). The power between two points is their energy over their time (an average, as a
 * billing chart wants it, not a momentary reading).
 */

/**
 * Points kept a transaction: beyond it every second point of the older half is dropped (the first stays), so a long
 * session keeps its newest part at 10 s and its older parts at steps the coarser the older they are.
 */
export const CURVE_POINTS = 360;
/** Curves kept: those of the newest transactions by start (a point takes about 58 bytes on disk: 21 kB a curve at most). */
export const CURVES_KEPT = 1_000;
/** How many transactions past CURVES_KEPT each completion looks at to drop their curves (more than one completes between two). */
const PRUNE_WINDOW = 10;

/** One point of a curve: the energy delivered since the transaction's start at `at` (ms). */
export interface CurvePoint {
  at: number;
  energyWh: number;
}

/** The point a record of the core gives (its last meter reading against its start), or none while a register is unknown. */
export function pointOf(record: TransactionRecord): CurvePoint | null {
  if (record.meterStartWh === null) return null;
  if (record.meterLastWh === null || record.meterLastAt === null) return { at: record.meterStartAt ?? record.startedAt, energyWh: 0 };
  return { at: record.meterLastAt, energyWh: Math.max(0, record.meterLastWh - record.meterStartWh) };
}

/** Adds `record`'s point to its curve (a point at a time already there is replaced), thinning the curve when it is full. */
export async function addCurvePoint(tx: WriteTx, record: TransactionRecord): Promise<void> {
  const point = pointOf(record);
  if (!point) return;
  await tx
    .insert(transactionCurve)
    .values({ transactionId: record.id, ...point })
    .onConflictDoUpdate({ target: [transactionCurve.transactionId, transactionCurve.at], set: { energyWh: point.energyWh } });
  const [counted] = await tx.all<{ n: number }>(sql`SELECT count(*) AS n FROM transaction_curve WHERE transaction_id = ${record.id}`);
  if ((counted?.n ?? 0) <= CURVE_POINTS) return;
  await tx.run(sql`
    DELETE FROM transaction_curve WHERE transaction_id = ${record.id} AND at IN (
      SELECT at FROM (SELECT at, row_number() OVER (ORDER BY at) AS n, count(*) OVER () AS c FROM transaction_curve WHERE transaction_id = ${record.id})
      WHERE n % 2 = 0 AND n <= c / 2)`);
}

/** Drops the curves of the completed transactions just past the newest CURVES_KEPT (at each completion). */
export async function pruneCurves(tx: WriteTx): Promise<void> {
  await tx.run(sql`
    DELETE FROM transaction_curve WHERE transaction_id IN (
      SELECT id FROM transactions WHERE ended_at IS NOT NULL ORDER BY started_at DESC LIMIT ${PRUNE_WINDOW} OFFSET ${CURVES_KEPT})`);
}

/** The curve of transaction `id`, oldest point first (empty when none is kept). */
export async function readCurve(db: Db, id: string): Promise<CurvePoint[]> {
  return db
    .select({ at: transactionCurve.at, energyWh: transactionCurve.energyWh })
    .from(transactionCurve)
    .where(eq(transactionCurve.transactionId, id))
    .orderBy(asc(transactionCurve.at));
}
