import type { Outbox } from '../outbox.js';
import type { IncomingCalls201 } from './calls.js';

/**
 * E14 GetTransactionStatus: whether TransactionEvents still wait in the offline queue (of the transaction asked
 * about, or of any), and whether that transaction is still going on. A transaction id the station does not know is
 * not going on and has nothing queued. `ongoing(id)`: the 2.0.1 transaction `id` is open (it may have started before
 * the charge cycle's or go on after it: TxStartPoint, TxStopPoint).
 */
export function transactionStatusCalls201(outbox: Pick<Outbox, 'holds'>, ongoing: (transactionId: string) => boolean): IncomingCalls201 {
  return {
    GetTransactionStatus: async ({ transactionId }) => {
      const messagesInQueue = await outbox.holds(['TransactionEvent'], transactionId);
      if (transactionId === undefined) return { messagesInQueue };
      return { ongoingIndicator: ongoing(transactionId), messagesInQueue };
    },
  };
}
