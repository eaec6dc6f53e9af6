import type { IncomingCalls, OcppContext } from './context.js';
import type { SampleContext } from './meter-values.js';

/** What TriggerMessage can ask for, each sent after the answer. */
export interface Triggers {
  boot(): Promise<void>;
  heartbeat(): Promise<void>;
  status(connectorId: number | undefined): Promise<void>;
  meterValues(context: SampleContext): Promise<void>;
}

/**
 * Sends a message TriggerMessage asked for, after the answer: Accepted, or NotImplemented for one the charge point
 * does not send. Both versions answer through it; their own rules (which target, when a boot may be asked for) come
 * first.
 */
export function sendTriggered(ctx: OcppContext, send: Triggers, message: string, connectorId: number | undefined): 'Accepted' | 'NotImplemented' {
  switch (message) {
    case 'BootNotification':
      ctx.later(() => (ctx.isPending() ? ctx.sendLink({ type: 'BOOT.TRIGGERED' }) : send.boot()));
      return 'Accepted';
    case 'Heartbeat':
      ctx.later(send.heartbeat);
      return 'Accepted';
    case 'StatusNotification':
      ctx.later(() => send.status(connectorId));
      return 'Accepted';
    case 'MeterValues':
      ctx.later(() => send.meterValues('Trigger'));
      return 'Accepted';
    default:
      return 'NotImplemented';
  }
}

/** TriggerMessage (Remote Trigger profile). */
export function triggerCalls(ctx: OcppContext, send: Triggers): IncomingCalls {
  function trigger(message: string, connectorId: number | undefined): string {
    if (connectorId !== undefined && connectorId !== 0 && connectorId !== 1) return 'Rejected';
    return sendTriggered(ctx, send, message, connectorId);
  }
  return { TriggerMessage: (p) => ({ status: trigger(p.requestedMessage, p.connectorId) }) };
}
