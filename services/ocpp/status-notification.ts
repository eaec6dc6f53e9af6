import type { Availability } from './availability.js';
import type { OcppContext } from './context.js';
import { statusesOf } from './status.js';

/** StatusNotification of the connectors: what changed, in the order it happened. */
export function createStatusNotifications(ctx: OcppContext, availability: Pick<Availability, 'inoperativeScheduled'>) {
  const lastSent = new Map<number, string>();
  let chain: Promise<void> = Promise.resolve();

  async function sendNow(force: boolean, connectorId: number | undefined): Promise<void> {
    const state = ctx.charging.coreState();
    if (!state || !ctx.isAccepted()) return;
    for (const status of statusesOf(state, availability.inoperativeScheduled(), ctx.charging.held())) {
      if (connectorId !== undefined && status.connectorId !== connectorId) continue;
      const key = JSON.stringify(status);
      if (!force && lastSent.get(status.connectorId) === key) continue;
      lastSent.set(status.connectorId, key);
      try {
        await ctx.call('StatusNotification', { ...status, timestamp: ctx.csmsTime(ctx.now()) });
      } catch (err) {
        lastSent.delete(status.connectorId);
        ctx.logger.warn({ error: (err as Error).message }, 'OCPP: StatusNotification failed');
      }
    }
  }

  return {
    /**
     * Sends the statuses that changed (`force`: those of `connectorId`, or both), one sender at a time so they arrive
     * in the order they happened.
     */
    send(force = false, connectorId?: number): Promise<void> {
      chain = chain.then(() => sendNow(force, connectorId));
      return chain;
    },
    /** A new connection: the central system gets every status again. */
    forget(): void {
      lastSent.clear();
    },
  };
}

export type StatusNotifications = ReturnType<typeof createStatusNotifications>;
