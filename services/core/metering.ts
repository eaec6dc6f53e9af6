import { randomUUID } from 'node:crypto';
import type { ChargePointHardware, MeterReading } from '../../drivers/types.js';
import type { Authorization, StopReason } from '../../machines/charge-cycle.js';
import type { Clock } from './clock.js';
import type { TransactionRecord } from './protocol.js';

/** The active transaction is checkpointed at least this often (and on every state change). */
export const CHECKPOINT_INTERVAL_MS = 10_000;

export interface MeteringDeps {
  hardware: Pick<ChargePointHardware, 'meter'>;
  clock: Clock;
  /** Wall-clock time for transaction timestamps. */
  now: () => number;
  log: { warn(fields: object, msg: string): void; error(fields: object, msg: string): void };
  /** A transaction effect for the main thread to persist, in order. */
  transaction(event: 'start' | 'checkpoint' | 'stop', record: TransactionRecord, at: number, reason?: StopReason | 'Reboot'): void;
  /** Something the state shows changed. */
  changed(): void;
  /** Work in flight, for `settled()` and the graceful stop. */
  track<T>(p: Promise<T>): Promise<T>;
}

/**
 * Metering in the core: the meter's readings and the active transaction's record (its start register, last register,
 * maximum power), with the transaction effects (start, checkpoints, stop) posted to the main thread in order, each
 * after a fresh meter reading.
 */
export function createMetering(deps: MeteringDeps) {
  const { hardware, clock, now, log, track } = deps;
  let lastReading: MeterReading | null = null;
  let meterAnswering = true;
  let active: TransactionRecord | null = null;
  /** Clock time of the active transaction's last checkpoint. */
  let checkpointedAt = 0;
  /** The clock's time at each transaction's start. */
  const startClock = new WeakMap<TransactionRecord, number>();
  /**
   * A time within `tx`: its start on the wall clock plus the time elapsed since on the monotonic clock. A transaction
   * keeps the time base it started with, so a wall clock set while it runs (NTP, the central system's time) never
   * makes it longer, shorter or negative; the next transaction starts on the corrected clock.
   */
  const timeOf = (tx: TransactionRecord): number => tx.startedAt + (clock.now() - startClock.get(tx)!);
  /**
   * When the last transaction ended (its time base): the next one starts no earlier, so a wall clock set back while
   * or between them never makes transactions overlap or list out of order (times hold at that end until the clock
   * passes it; durations stay true).
   */
  let lastEndedAt = -Infinity;

  // Transaction effects run in order (a checkpoint never overtakes its start), each after a fresh meter reading.
  let queue: Promise<void> = Promise.resolve();
  // The `what` strings below only name an effect in the log line of one that failed: neither readMeter (it catches)
  // nor posting the record throws, so no test can reach that line (marked StringLiteral equivalents at each call).
  const enqueue = (what: string, work: () => Promise<void>): void => {
    // Stryker disable next-line ArrowFunction,ObjectLiteral,StringLiteral: that log line of a failed effect cannot be reached (above)
    queue = queue.then(work).catch((err: unknown) => log.error({ err: String(err) }, `${what} failed`));
    void track(queue); // the queue ends in the catch above
  };

  /**
   * Reads the meter; the reading counts for `tx` (the transaction active when it answers, unless one is named). A
   * transaction counts only energy read after its start: its first reading is its start register.
   */
  async function readMeter(tx?: TransactionRecord): Promise<MeterReading | null> {
    try {
      const r = await hardware.meter.read();
      lastReading = r;
      meterAnswering = true;
      const counted = tx ?? active;
      if (counted) {
        const at = timeOf(counted);
        if (counted.meterStartWh === null) {
          counted.meterStartWh = Math.round(r.energyWh);
          counted.meterStartAt = at;
        }
        counted.meterLastWh = Math.round(r.energyWh);
        counted.meterLastAt = at;
        counted.maxPowerW = Math.max(counted.maxPowerW, Math.round(r.powerW));
      }
      deps.changed();
      return r;
    } catch {
      if (meterAnswering) log.warn({}, 'the energy meter does not answer');
      meterAnswering = false;
      deps.changed();
      return null;
    }
  }

  /** The record as it stands, for a message (a copy: later readings do not change what was sent). */
  const snapshotOf = (tx: TransactionRecord): TransactionRecord => ({ ...tx });

  function checkpoint(): void {
    const tx = active;
    if (!tx) return;
    checkpointedAt = clock.now();
    // Stryker disable next-line StringLiteral: only in the log line of a failed effect, which cannot happen (see enqueue)
    enqueue('transaction checkpoint', async () => {
      await readMeter(tx);
      deps.transaction('checkpoint', snapshotOf(tx), timeOf(tx));
    });
  }

  function startTransaction(auth: Authorization): void {
    const tx: TransactionRecord = {
      id: randomUUID(),
      startedAt: Math.max(now(), lastEndedAt),
      meterStartWh: null,
      meterStartAt: null,
      meterLastWh: null,
      meterLastAt: null,
      maxPowerW: 0,
    };
    // an undefined tagId is no tag everywhere the record goes (valibot optional, a null column, state() checks it)
    // Stryker disable next-line ConditionalExpression: see above
    if (auth.tagId !== undefined) tx.tagId = auth.tagId;
    // Stryker disable next-line ConditionalExpression: the same for userId
    if (auth.userId !== undefined) tx.userId = auth.userId;
    active = tx;
    checkpointedAt = clock.now();
    startClock.set(tx, checkpointedAt);
    deps.changed();
    // The start register is a reading taken now, never an older one (energy before the start is not the
    // transaction's); while the meter does not answer, its first answer is.
    // Stryker disable next-line StringLiteral: only in the log line of a failed effect, which cannot happen (see enqueue)
    enqueue('transaction start', async () => {
      await readMeter(tx);
      deps.transaction('start', snapshotOf(tx), tx.startedAt);
    });
  }

  function finish(reason: StopReason | 'Reboot'): void {
    const tx = active;
    if (!tx) return;
    active = null;
    deps.changed();
    const endedAt = timeOf(tx);
    lastEndedAt = endedAt;
    // Stryker disable next-line StringLiteral: only in the log line of a failed effect, which cannot happen (see enqueue)
    enqueue('transaction stop', async () => {
      await readMeter(tx);
      deps.transaction('stop', snapshotOf(tx), endedAt, reason);
    });
  }

  return {
    readMeter,
    startTransaction,
    finish,
    /** On every change of the charge cycle's state. */
    checkpoint,
    /** At each poll: a checkpoint when the last one is CHECKPOINT_INTERVAL_MS old. */
    checkpointIfDue(): void {
      if (active && clock.now() - checkpointedAt >= CHECKPOINT_INTERVAL_MS) checkpoint();
    },
    /** Graceful stop: completes the running transaction (stop reason Reboot) and waits for the effects. */
    async stop(): Promise<void> {
      finish('Reboot');
      await queue;
    },
    lastReading: () => lastReading,
    meterAnswering: () => meterAnswering,
    active: () => active,
  };
}

export type Metering = ReturnType<typeof createMetering>;
