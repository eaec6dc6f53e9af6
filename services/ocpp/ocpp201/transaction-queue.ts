import type { AuthorizationStore } from '../authorization.js';
import type { OcppContext } from '../context.js';
import type { Outbox } from '../outbox.js';
import type { QueueDialect } from '../queue.js';
import { idTagInfoOf, type IdTokenInfo } from './authorize.js';

/**
 * 2.0.1's queued messages: TransactionEvents, sent as queued (the station names its transactions, no id to wait
 * for). An answer's idTokenInfo is kept in the shared cache (tags read here) and, not Accepted for a running
 * transaction, stops it (StopTxOnInvalidId: OcppStopTransactionOnInvalidId). Started answered: the CSMS knows the
 * transaction by the station's id, which the API shows as the charge cycle's transaction's backendTransactionId.
 */
export function ocpp201Queue(ctx: OcppContext, outbox: Outbox, auth: AuthorizationStore, coreOf: (id: string) => string | undefined): QueueDialect {
  const { charging, logger } = ctx;
  return {
    actions: ['TransactionEvent'],
    prepare: async (_message, payload) => payload,
    async answered(message, answer) {
      await outbox.answered(message);
      const event = JSON.parse(message.payload) as { eventType: string; idToken?: { idToken: string; type: string } };
      // The charge cycle's transaction in it (its own id at PowerPathClosed; it may join a transaction started before it).
      const core = coreOf(message.transactionId) ?? message.transactionId;
      if (event.eventType === 'Started' || core !== message.transactionId) charging.setBackendTransactionId(core, message.transactionId);
      const info = answer.idTokenInfo as IdTokenInfo | undefined;
      if (!info || !event.idToken) return;
      if (event.idToken.type === 'ISO14443' && ctx.on('OcppAuthorizationCacheEnabled')) await auth.remember(event.idToken.idToken, idTagInfoOf(info));
      const running = charging.coreState()?.transaction?.transactionId === core;
      if (info.status !== 'Accepted' && running && event.eventType !== 'Ended' && ctx.on('OcppStopTransactionOnInvalidId')) {
        logger.warn({ status: info.status }, "OCPP: the CSMS did not accept the transaction's id token: stopping it");
        charging.stopTransaction('DeAuthorized');
      }
    },
  };
}
