import { isStorageFull } from '../db/storage.js';
import type { Timers } from '../drivers/types.js';
import type { FromCore } from './core/protocol.js';
import type { ControllerEvent, EventLog } from './events.js';
import type { Logger } from './logger.js';
import type { Transactions } from './transactions.js';

export type TransactionEffect = Extract<FromCore, { type: 'transaction' }>;

/** While the disk is full, the effects waiting to be written are tried again this often (ms). */
export const STORAGE_RETRY_MS = 10_000;

/**
 * The core's transaction effects (start, checkpoints, stop), written to the database in the order the core sent
 * them: a checkpoint never overtakes its start, a stop never its checkpoints. A write the full disk refuses is held,
 * with every effect after it, and tried again every STORAGE_RETRY_MS until there is room: charging goes on, and a
 * transaction completed meanwhile is stored (with its OCPP messages, queued in the same writes) when space returns.
 * Other failures are logged and the effect dropped (retrying them could not succeed). Held effects live in memory:
 * a power cut while the disk is full loses what the disk could not take (the last stored checkpoint completes the
 * transaction at the next start, as after any power loss).
 */
export function createTransactionWriter(deps: { transactions: Transactions; events: Pick<EventLog, 'record'>; logger: Logger; timers: Timers }) {
  const { transactions, logger, timers } = deps;
  /** Effects not written yet, oldest first (the first may be being written). */
  const waiting: TransactionEffect[] = [];
  /**
   * The newest checkpoint of each transaction whose checkpoint waits: a newer one replaces it (its figures include
   * the older ones'), so a slow or full disk never makes the queue grow, however often the charge cycle changes.
   */
  const latestCheckpoint = new Map<string, TransactionEffect>();
  let writing: Promise<void> | undefined;
  let retry: unknown;
  let closed = false;

  async function store(effect: TransactionEffect): Promise<void> {
    const { record } = effect;
    if (effect.event === 'start') return transactions.begin(record);
    if (effect.event === 'stop') return transactions.finish(record, { reason: effect.reason ?? 'Other', at: effect.at });
    const latest = latestCheckpoint.get(record.id);
    if (!latest) return; // a later stop carries its figures
    latestCheckpoint.delete(record.id);
    try {
      await transactions.checkpoint(latest.record);
    } catch (err) {
      if (!latestCheckpoint.has(record.id)) latestCheckpoint.set(record.id, latest); // tried again, unless a newer came
      throw err;
    }
  }

  /** Writes what waits, in order; stops at a full disk and tries again later. */
  function drain(): void {
    if (writing || retry !== undefined || closed) return;
    writing = (async () => {
      while (waiting.length > 0) {
        const effect = waiting[0]!;
        try {
          await store(effect);
        } catch (err) {
          if (isStorageFull(err)) {
            retry = timers.setTimeout(() => {
              retry = undefined;
              drain();
            }, STORAGE_RETRY_MS);
            return;
          }
          logger.error({ err }, `transaction ${effect.event} failed`);
        }
        waiting.shift();
      }
    })().finally(() => {
      writing = undefined;
    });
  }

  return {
    /** An effect of the core, to be written after every earlier one. */
    write(effect: TransactionEffect): void {
      const { record, at } = effect;
      if (effect.event === 'start') {
        const started: ControllerEvent = { kind: 'transaction_started', transactionId: record.id };
        if (record.tagId !== undefined) started.tagId = record.tagId;
        if (record.userId !== undefined) started.userId = record.userId;
        deps.events.record(started, at);
      } else if (effect.event === 'stop') {
        const consumptionWh = record.meterStartWh !== null && record.meterLastWh !== null ? Math.max(0, record.meterLastWh - record.meterStartWh) : 0;
        deps.events.record({ kind: 'transaction_stopped', transactionId: record.id, reason: effect.reason ?? 'Other', consumptionWh }, at);
      }
      if (effect.event === 'checkpoint') {
        const queued = latestCheckpoint.has(record.id);
        latestCheckpoint.set(record.id, effect);
        if (queued) return;
      }
      // The stop carries the final figures: a checkpoint still waiting before it has nothing left to add.
      if (effect.event === 'stop') latestCheckpoint.delete(record.id);
      waiting.push(effect);
      drain();
    },
    /** Effects written or held for want of space: nothing is being written. */
    async settled(): Promise<void> {
      while (writing) await writing;
    },
    /** How many effects wait for the disk to have room. */
    held: () => (retry === undefined ? 0 : waiting.length),
    /** Writes what can be written now (the stop); what the full disk still refuses is lost, and that is logged. */
    async close(): Promise<void> {
      if (retry !== undefined) {
        timers.clearTimeout(retry);
        retry = undefined;
        drain();
      }
      await this.settled();
      if (retry !== undefined) timers.clearTimeout(retry);
      closed = true;
      if (waiting.length > 0) logger.error({ effects: waiting.length }, 'transaction effects not stored at stop: the disk is full');
    },
  };
}

export type TransactionWriter = ReturnType<typeof createTransactionWriter>;
