import type { Availability } from '../availability.js';
import type { OcppContext } from '../context.js';
import type { QueueSender } from '../queue.js';
import { remoteStartRefusal, restartForCentralSystem } from '../remote-control.js';
import type { Reservations } from '../reservation.js';
import type { BootReasons } from './boot.js';
import type { Security201 } from './security.js';
import type { SmartCharging201 } from './smart-charging.js';
import { CONNECTOR_ID, EVSE_ID, type IncomingCalls201 } from './calls.js';
import type { TransactionEvents } from './transaction-events.js';

/**
 * F01–F05 and B11–B12, G03: the CSMS's commands. RequestStartTransaction authorizes the connector's next
 * transaction (a remote start: its Started event says so); RequestStopTransaction stops the running one by its id;
 * UnlockConnector is refused while a transaction holds the cable; Reset Immediate stops the transaction and
 * restarts, OnIdle waits for the end of a running one (Scheduled); ChangeAvailability as in 1.6 (availability.ts).
 */
export function createRemoteControl201(
  ctx: OcppContext,
  deps: {
    queue: QueueSender;
    availability: Availability;
    events: TransactionEvents;
    boots: BootReasons;
    smart: Pick<SmartCharging201, 'forNextTransaction'>;
    reservations?: Pick<Reservations, 'accepts'> | undefined;
    security: Pick<Security201, 'record'>;
  },
) {
  const { charging, logger } = ctx;
  let resetWhenIdle = false;

  async function reset(kind: 'Immediate' | 'OnIdle'): Promise<string> {
    if (!ctx.restart) return 'Rejected';
    // OnIdle: no transaction, the charge cycle's nor a 2.0.1 one waiting for its stop point (TxStopPoint EVConnected).
    if (kind === 'OnIdle' && (charging.coreState()?.transaction || deps.events.transaction())) {
      resetWhenIdle = true;
      logger.info({}, 'OCPP: Reset OnIdle scheduled for the end of the transaction');
      return 'Scheduled';
    }
    await deps.boots.resetRequested();
    // A04: kept before the restart, sent after it.
    deps.security.record('ResetOrReboot', `Reset ${kind} from the CSMS`);
    return restartForCentralSystem(ctx, deps.queue, kind === 'Immediate' ? 'HardReset' : 'SoftReset') ? 'Accepted' : 'Rejected';
  }

  const calls: IncomingCalls201 = {
    RequestStartTransaction: async (p) => {
      if ((p.evseId !== undefined && p.evseId !== EVSE_ID) || remoteStartRefusal(charging)) return { status: 'Rejected' };
      // H01: a reservation holds the EVSE for its idToken (or group) only.
      if (deps.reservations && !(await deps.reservations.accepts(p.idToken.idToken))) return { status: 'Rejected' };
      // K05: a TxProfile given with the start is checked now and installed when its transaction starts.
      const problem = deps.smart.forNextTransaction(p.chargingProfile);
      if (problem) return { status: 'Rejected', statusInfo: { reasonCode: problem.reasonCode, additionalInfo: problem.message } };
      deps.events.expectRemoteStart({ idToken: p.idToken.idToken, type: p.idToken.type }, p.remoteStartId);
      logger.info({}, 'OCPP: remote start');
      charging.authorizeRemotely(p.idToken.idToken);
      // F01: a transaction already started by the cable (TxStartPoint EVConnected) is the one this start authorizes.
      const open = deps.events.transaction();
      return { status: 'Accepted', ...(open ? { transactionId: open.id } : {}) };
    },
    RequestStopTransaction: (p) => ({ status: deps.events.requestStop(p.transactionId) ? 'Accepted' : 'Rejected' }),
    UnlockConnector: (p) => {
      if (p.evseId !== EVSE_ID || p.connectorId !== CONNECTOR_ID) return { status: 'UnknownConnector' };
      // F05.FR.02: a transaction's cable stays locked; RequestStopTransaction ends the transaction first.
      if (charging.coreState()?.transaction) return { status: 'OngoingAuthorizedTransaction' };
      return { status: 'Unlocked' };
    },
    Reset: async (p) => (p.evseId !== undefined ? { status: 'Rejected' } : { status: await reset(p.type) }),
    ChangeAvailability: async (p) => {
      const connectorId = p.evse === undefined ? 0 : p.evse.id === EVSE_ID && (p.evse.connectorId ?? CONNECTOR_ID) === CONNECTOR_ID ? 1 : undefined;
      if (connectorId === undefined) return { status: 'Rejected' };
      return { status: await deps.availability.change(connectorId, p.operationalStatus === 'Operative' ? 1 : 0) };
    },
    DataTransfer: () => ({ status: 'UnknownVendorId' }),
  };

  return {
    calls,
    /** The charge cycle's or the 2.0.1 transaction ended: a Reset OnIdle takes effect once neither runs (reset()). */
    idle(): void {
      if (!resetWhenIdle) return;
      resetWhenIdle = false;
      ctx.track(reset('OnIdle'));
    },
  };
}
