import type { IncomingCall, IncomingCalls, OcppContext } from './context.js';
import { CallError, type IncomingCallHandler } from './transport.js';

/** Calls a pending charge point refuses (OCPP 1.6 4.2: the central system may configure it, not start or stop charging). */
const NOT_WHILE_PENDING = new Set(['RemoteStartTransaction', 'RemoteStopTransaction']);

/**
 * The central system's calls, answered from the features' tables (action → handler): only while the boot is
 * accepted or pending; an action no feature answers is NotImplemented. A call that arrives while the
 * BootNotification's answer is still being processed (the central system may send both in one TCP write) waits
 * for it: the answer decides.
 */
export function incomingCallHandler(
  ctx: OcppContext,
  table: { [action: string]: IncomingCall<never> | undefined },
  notWhilePending: ReadonlySet<string> = NOT_WHILE_PENDING,
): IncomingCallHandler {
  const handle: IncomingCallHandler['handle'] = async (action, payload) => {
    if (ctx.isBooting() && ctx.bootAnswer) await ctx.bootAnswer;
    const pending = ctx.isPending();
    if (!ctx.isAccepted() && !pending) throw new CallError('SecurityError', 'the charge point is not accepted by the central system');
    if (pending && notWhilePending.has(action)) return { status: 'Rejected' };
    // ocpp-rpc's strict mode has checked the payload against this action's request schema.
    const answer = Object.hasOwn(table, action) ? (table[action] as IncomingCall<unknown> | undefined) : undefined;
    if (!answer) throw new CallError('NotImplemented', `${action} is not supported by this charge point`);
    return answer(payload);
  };
  return { actions: Object.keys(table), handle };
}

/** DataTransfer: this charge point has no vendor extensions. */
export const DATA_TRANSFER_CALLS: IncomingCalls = { DataTransfer: () => ({ status: 'UnknownVendorId' }) };
