import type { Availability } from '../availability.js';
import type { OcppContext } from '../context.js';
import { statusesOf } from '../status.js';
import { CONNECTOR_ID, EVSE_ID } from './calls.js';

/** OCPP 1.6's connector statuses (status.ts, the one rule from the core's state) as 2.0.1's ConnectorStatusEnumType. */
const STATUS_201: Record<string, string> = {
  Available: 'Available',
  Preparing: 'Occupied',
  Charging: 'Occupied',
  SuspendedEV: 'Occupied',
  SuspendedEVSE: 'Occupied',
  Finishing: 'Occupied',
  Reserved: 'Reserved',
  Unavailable: 'Unavailable',
  Faulted: 'Faulted',
};

/** The 2.0.1 status of the connector (EVSE 1, connector 1) now. */
export function connectorStatus201(ctx: OcppContext, availability: Pick<Availability, 'inoperativeScheduled'>): string | undefined {
  const state = ctx.charging.coreState();
  if (!state) return undefined;
  const [, connector] = statusesOf(state, availability.inoperativeScheduled(), ctx.charging.held());
  return STATUS_201[connector.status] ?? 'Available';
}

/**
 * G01–G04 StatusNotification: the connector's status when it changes, in order. 2.0.1 has no status of the station
 * as a whole (1.6's connector 0) and no error codes in it (faults go in NotifyEvent, not built yet).
 */
export function createStatusNotifications201(ctx: OcppContext, availability: Pick<Availability, 'inoperativeScheduled'>) {
  let lastSent: string | undefined;
  let chain: Promise<void> = Promise.resolve();

  async function sendNow(force: boolean): Promise<void> {
    const status = connectorStatus201(ctx, availability);
    if (!status || !ctx.isAccepted()) return;
    if (!force && lastSent === status) return;
    lastSent = status;
    try {
      await ctx.call('StatusNotification', { timestamp: ctx.csmsTime(ctx.now()), connectorStatus: status, evseId: EVSE_ID, connectorId: CONNECTOR_ID });
    } catch (err) {
      lastSent = undefined;
      ctx.logger.warn({ error: (err as Error).message }, 'OCPP: StatusNotification failed');
    }
  }

  return {
    send(force = false): Promise<void> {
      chain = chain.then(() => sendNow(force));
      return chain;
    },
    forget(): void {
      lastSent = undefined;
    },
  };
}
