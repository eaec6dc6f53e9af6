import type { OcppContext } from '../context.js';
import { sendTriggered, type Triggers } from '../trigger.js';
import { EVSE_ID, type IncomingCalls201 } from './calls.js';

/**
 * F06 TriggerMessage: BootNotification (only while not yet accepted, F06.FR.17), Heartbeat, StatusNotification,
 * MeterValues, TransactionEvent (an Updated event of the running transaction), SignChargingStationCertificate
 * (A02: a new key and its SignCertificate), FirmwareStatusNotification and LogStatusNotification (the transfer under
 * way, else Idle), each sent after the answer.
 */
export function triggerCalls201(
  ctx: OcppContext,
  send: Triggers & {
    transactionEvent(): boolean;
    bootTriggered(): void;
    signCertificate(): Promise<unknown>;
    /** FirmwareStatusNotification and LogStatusNotification payloads now (undefined: no updates, no uploads here). */
    firmwareStatus: (() => Record<string, unknown>) | undefined;
    logStatus: (() => Record<string, unknown>) | undefined;
  },
): IncomingCalls201 {
  const status = (action: string, payload: (() => Record<string, unknown>) | undefined) => {
    if (!payload) return 'NotImplemented';
    ctx.later(() => ctx.call(action, payload()));
    return 'Accepted';
  };
  function trigger(message: string, evseId: number | undefined): string {
    if (evseId !== undefined && evseId !== EVSE_ID) return 'Rejected';
    if (message === 'TransactionEvent') return send.transactionEvent() ? 'Accepted' : 'Rejected';
    if (message === 'FirmwareStatusNotification') return status(message, send.firmwareStatus);
    if (message === 'LogStatusNotification') return status(message, send.logStatus);
    if (message === 'SignChargingStationCertificate') {
      ctx.later(send.signCertificate);
      return 'Accepted';
    }
    if (message === 'BootNotification') {
      if (ctx.isAccepted()) return 'Rejected';
      send.bootTriggered();
    }
    return sendTriggered(ctx, send, message, undefined);
  }
  return { TriggerMessage: (p) => ({ status: trigger(p.requestedMessage, p.evse?.id) }) };
}
