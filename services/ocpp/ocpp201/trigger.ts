import type { OcppContext } from '../context.js';
import type { Triggers } from '../trigger.js';
import { EVSE_ID, type IncomingCalls201 } from './calls.js';

/**
 * F06 TriggerMessage: BootNotification (only while not yet accepted, F06.FR.17), Heartbeat, StatusNotification,
 * MeterValues and TransactionEvent (an Updated event of the running transaction), each sent after the answer.
 */
export function triggerCalls201(ctx: OcppContext, send: Triggers & { transactionEvent(): boolean; bootTriggered(): void }): IncomingCalls201 {
  function trigger(message: string, evseId: number | undefined): string {
    if (evseId !== undefined && evseId !== EVSE_ID) return 'Rejected';
    switch (message) {
      case 'BootNotification':
        if (ctx.isAccepted()) return 'Rejected';
        send.bootTriggered();
        ctx.later(() => (ctx.isPending() ? ctx.sendLink({ type: 'BOOT.TRIGGERED' }) : send.boot()));
        return 'Accepted';
      case 'Heartbeat':
        ctx.later(send.heartbeat);
        return 'Accepted';
      case 'StatusNotification':
        ctx.later(() => send.status(undefined));
        return 'Accepted';
      case 'MeterValues':
        ctx.later(() => send.meterValues('Trigger'));
        return 'Accepted';
      case 'TransactionEvent':
        return send.transactionEvent() ? 'Accepted' : 'Rejected';
      default:
        return 'NotImplemented';
    }
  }
  return { TriggerMessage: (p) => ({ status: trigger(p.requestedMessage, p.evse?.id) }) };
}
