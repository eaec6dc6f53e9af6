import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { energyDays, energyToday } from '../../db/schema.js';
import type { Logger } from '../logger.js';
import { localDay, TODAY_SAVE_INTERVAL_MS, todaySaveDue, type TodayEnergy, type TodaySaved } from './today.js';

/** The one row of `energy_today`. */
const ROW_ID = 1;

/** Today's energy by origin kept across a restart, and each day's in the history (docs/energy.md, Reporting). */
export interface TodayStore {
  /** What was written last, when it is of today's local day at the start; null: the day starts at zero. */
  restored: TodayEnergy | null;
  /** After each step of the allocator loop, with the running transaction: writes when `todaySaveDue` says so. */
  record(today: TodayEnergy, transactionId: string | null): void;
  /** Writes what is not written yet (the controller stops) and waits for the write in flight. */
  flush(): Promise<void>;
}

export interface TodayStoreDeps {
  database: Database;
  /** Wall-clock time (UTC ms), as the allocator loop's steps. */
  now: () => number;
  /** The controller's time zone as it is now (the TimeZone setting; undefined: the process's). */
  timeZone?: (() => string) | undefined;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Opens the store: reads the row, keeps it when it is of the local day now. Writes are few (an SD card wears):
 * only energy not yet written, at a transaction's end, at a day change, at most every TODAY_SAVE_INTERVAL_MS while
 * charging, and at the controller's stop; never while idle. One write at a time; a failed one is logged and retried
 * at the next due time.
 */
export async function openTodayStore(deps: TodayStoreDeps): Promise<TodayStore> {
  const { database, now, timeZone, logger } = deps;
  const [row] = await database.db.select().from(energyToday).where(eq(energyToday.id, ROW_ID));
  const day = localDay(now(), timeZone?.());
  let saved: TodaySaved | null = row ? { day: row.day, solarWh: row.solarWh, gridWh: row.gridWh, at: row.savedAt } : null;
  // `at` 0: the restored figures have no previous step, so the first step after the start adds nothing for the gap.
  const restored = row && row.day === day ? { day, solarWh: row.solarWh, gridWh: row.gridWh, at: 0 } : null;
  let latest: TodayEnergy | null = null;
  let previousTransaction: string | null = null;
  let endPending = false;
  let writing: Promise<void> | null = null;
  let retryAt = 0;

  const write = (today: TodayEnergy, at: number): Promise<void> => {
    const values = { day: today.day, solarWh: today.solarWh, gridWh: today.gridWh, savedAt: at };
    // The day's row of the history (energy_days) in the same write: its figures are the day's so far.
    const ofDay = { solarWh: today.solarWh, gridWh: today.gridWh };
    return database
      .write(async (tx) => {
        await tx
          .insert(energyToday)
          .values({ id: ROW_ID, ...values })
          .onConflictDoUpdate({ target: energyToday.id, set: values });
        await tx
          .insert(energyDays)
          .values({ day: today.day, ...ofDay })
          .onConflictDoUpdate({ target: energyDays.day, set: ofDay });
      })
      .then(
        () => {
          saved = { day: values.day, solarWh: values.solarWh, gridWh: values.gridWh, at };
          endPending = false;
        },
        (err: unknown) => {
          // Retried after the interval, not at every step.
          retryAt = at + TODAY_SAVE_INTERVAL_MS;
          logger.warn({ err: String(err) }, "energy: today's energy could not be written");
        },
      )
      .finally(() => (writing = null));
  };

  return {
    restored,
    record(today, transactionId) {
      latest = today;
      if (previousTransaction !== null && transactionId !== previousTransaction) endPending = true;
      previousTransaction = transactionId;
      const at = now();
      if (writing || at < retryAt || !todaySaveDue(today, saved, endPending, at)) return;
      writing = write(today, at);
    },
    async flush() {
      if (writing) await writing;
      if (latest && todaySaveDue(latest, saved, true, now())) await (writing = write(latest, now()));
    },
  };
}
