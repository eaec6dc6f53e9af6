import { isStorageFull } from '../../db/storage.js';
import { STORAGE_RETRY_MS } from '../transaction-writer.js';
import type { AuthorizationStore, IdTagInfo } from './authorization.js';
import type { OcppContext } from './context.js';
import { OCPP16_QUEUED, type Outbox, type QueuedAction, type QueuedMessage } from './outbox.js';

/** What differs between the versions' queued messages (1.6 here, 2.0.1 in ocpp201/transaction-queue.ts). */
export interface QueueDialect {
  /** The queued actions of this version: others wait for a connection that speaks theirs. */
  actions: readonly QueuedAction[];
  /** The payload to send; undefined: the message is dropped (the dialect logged why). */
  prepare(message: QueuedMessage, payload: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  /** The central system answered: the message leaves the queue, its answer is acted on. */
  answered(message: QueuedMessage, answer: Record<string, unknown>): Promise<void>;
}

/**
 * Sends the offline queue (outbox.ts) while the link is accepted: in order, one message at a time, each removed
 * when answered; a refused one waits TransactionMessageRetryInterval × attempts, and is given up after
 * TransactionMessageAttempts.
 */
export function createQueueSender(ctx: OcppContext, outbox: Outbox, dialect: QueueDialect) {
  const { logger } = ctx;
  let pumping: Promise<void> | undefined;
  let pumpTimer: unknown;
  let pumpAgain = false;
  /**
   * Answers the full disk kept from being recorded, by queue position: applied before the message could be sent
   * again, so the central system never gets a message twice (a second StartTransaction would open a second
   * transaction there).
   */
  const unrecorded = new Map<number, Record<string, unknown>>();

  /** Sends the queued messages in order while accepted (one pump at a time; a new message asks for another round). */
  function pump(): Promise<void> {
    if (pumping) {
      pumpAgain = true;
      return pumping;
    }
    pumping = (async () => {
      do {
        pumpAgain = false;
        try {
          await pumpOnce();
        } catch (err) {
          if (!isStorageFull(err)) throw err;
          // The disk is full (services/storage-watch.ts says so): the queue goes on when writes succeed again.
          ctx.cancel(pumpTimer);
          pumpTimer = ctx.after(STORAGE_RETRY_MS, () => void pump());
          return;
        }
      } while (pumpAgain && ctx.isAccepted());
    })().finally(() => (pumping = undefined));
    return pumping;
  }

  async function pumpOnce(): Promise<void> {
    while (ctx.isAccepted() && !ctx.closed()) {
      const message = await outbox.head(dialect.actions);
      if (!message) return;
      for (const seq of unrecorded.keys()) if (seq < message.seq) unrecorded.delete(seq); // recorded after all
      const kept = unrecorded.get(message.seq);
      if (kept) {
        await dialect.answered(message, kept);
        unrecorded.delete(message.seq);
        continue;
      }
      // notBefore is wall-clock time (it outlives a restart); a wait longer than a refusal can give means the clock
      // was set back since (NTP): the message is due now, not hours later.
      const waitMs = message.notBefore - ctx.now();
      if (waitMs > 0 && waitMs <= ctx.setting('OcppTransactionMessageRetryInterval') * 1000 * message.attempts) {
        ctx.cancel(pumpTimer);
        pumpTimer = ctx.after(waitMs, () => void pump());
        return;
      }
      const payload = await dialect.prepare(message, JSON.parse(message.payload) as Record<string, unknown>);
      if (!payload) {
        await outbox.drop(message);
        continue;
      }
      let answer: Record<string, unknown>;
      try {
        answer = await ctx.call(message.action, payload);
      } catch (err) {
        if (!ctx.isAccepted()) return; // offline: the message waits for the next connection
        await refused(message, (err as Error).message);
        continue;
      }
      try {
        await dialect.answered(message, answer);
      } catch (err) {
        if (isStorageFull(err)) unrecorded.set(message.seq, answer);
        throw err;
      }
    }
  }

  async function refused(message: QueuedMessage, error: string): Promise<void> {
    const attempts = message.attempts + 1;
    if (attempts >= ctx.setting('OcppTransactionMessageAttempts')) {
      logger.error({ action: message.action, attempts, error }, 'OCPP: gave up a transaction message the central system refused');
      await outbox.drop(message);
      return;
    }
    const waitMs = ctx.setting('OcppTransactionMessageRetryInterval') * 1000 * attempts;
    logger.warn(
      { action: message.action, attempts, error, retryInS: waitMs / 1000 },
      'OCPP: the central system refused a transaction message; it is sent again',
    );
    await outbox.refused(message, ctx.now() + waitMs);
  }

  return {
    pump,
    /** Offline: no retry timer runs. */
    pause: () => ctx.cancel(pumpTimer),
    /** Waits until the queue is sent (or `ms` passed on the actor clock). */
    async drain(ms: number): Promise<void> {
      let timedOut = false;
      const timer = ctx.after(ms, () => (timedOut = true));
      while (!timedOut && ctx.isAccepted() && (await outbox.head(dialect.actions)) !== undefined) {
        await pump();
        if ((await outbox.head(dialect.actions)) !== undefined) await new Promise((r) => setTimeout(r, 50));
      }
      ctx.cancel(timer);
    },
  };
}

/**
 * OCPP 1.6's queued messages: a StopTransaction or MeterValues gets the central system's transaction id when it is
 * sent (dropped if its transaction never got one); StartTransaction's answer gives the id and the tag's status.
 */
export function ocpp16Queue(ctx: OcppContext, outbox: Outbox, auth: AuthorizationStore): QueueDialect {
  const { charging, logger } = ctx;
  return {
    actions: OCPP16_QUEUED,
    async prepare(message, payload) {
      if (message.action === 'StartTransaction') return payload;
      const id = await outbox.backendIdOf(message.transactionId);
      if (id === undefined) {
        logger.error(
          { action: message.action, transactionId: message.transactionId },
          'OCPP: dropped a queued message: its transaction never got an id from the central system',
        );
        return undefined;
      }
      return { ...payload, transactionId: Number(id) };
    },
    answered,
  };

  async function answered(message: QueuedMessage, answer: Record<string, unknown>): Promise<void> {
    if (message.action !== 'StartTransaction') return outbox.answered(message);
    const backendId = String(answer.transactionId);
    await outbox.answered(message, backendId);
    charging.setBackendTransactionId(message.transactionId, backendId);
    const info = answer.idTagInfo as IdTagInfo;
    const idTag = String((JSON.parse(message.payload) as { idTag: string }).idTag);
    if (ctx.on('OcppAuthorizationCacheEnabled')) await auth.remember(idTag, info);
    const running = charging.coreState()?.transaction?.transactionId === message.transactionId;
    if (info.status !== 'Accepted' && running && ctx.on('OcppStopTransactionOnInvalidId')) {
      logger.warn({ status: info.status }, "OCPP: the central system did not accept the transaction's tag: stopping it");
      charging.stopTransaction('DeAuthorized');
    }
  }
}

export type QueueSender = ReturnType<typeof createQueueSender>;
