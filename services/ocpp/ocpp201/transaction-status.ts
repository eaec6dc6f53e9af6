import type { OcppContext } from '../context.js';
import type { Outbox } from '../outbox.js';
import type { IncomingCalls201 } from './calls.js';

/**
 * E14 GetTransactionStatus: whether TransactionEvents still wait in the offline queue (of the transaction asked
 * about, or of any), and whether that transaction is still going on. A transaction id the station does not know is
 * not going on and has nothing queued.
 */
export function transactionStatusCalls201(ctx: OcppContext, outbox: Pick<Outbox, 'holds'>): IncomingCalls201 {
  return {
    GetTransactionStatus: async ({ transactionId }) => {
      const messagesInQueue = await outbox.holds(['TransactionEvent'], transactionId);
      if (transactionId === undefined) return { messagesInQueue };
      const ongoingIndicator = ctx.charging.coreState()?.transaction?.transactionId === transactionId;
      return { ongoingIndicator, messagesInQueue };
    },
  };
}
