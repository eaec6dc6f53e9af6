import { eq } from 'drizzle-orm';
import { ocppState } from '../../db/schema.js';
import { CENTRAL_SYSTEM } from './configuration.js';
import type { IncomingCalls, OcppContext } from './context.js';

/**
 * ChangeAvailability on `ChargingEnabled`: Inoperative while a transaction runs is Scheduled, kept in the database
 * (across restarts) and takes effect when no transaction runs.
 */
export async function createAvailability(ctx: OcppContext) {
  const { database, settings, charging, logger } = ctx;
  /** The change scheduled for the end of the transaction (as stored). */
  const [row] = await database.db.select().from(ocppState).where(eq(ocppState.key, 'availability'));
  let scheduled: number | undefined = row ? Number(row.value) : undefined;

  async function schedule(value: number | undefined): Promise<void> {
    await database.write(async (tx) => {
      await tx.delete(ocppState).where(eq(ocppState.key, 'availability'));
      if (value !== undefined) await tx.insert(ocppState).values({ key: 'availability', value: String(value) });
    });
    scheduled = value;
  }
  async function set(value: number): Promise<void> {
    if (ctx.setting('ChargingEnabled') !== value) await settings.set(CENTRAL_SYSTEM, [{ key: 'ChargingEnabled', value }]);
  }

  async function change(connectorId: number, value: number): Promise<string> {
    if (connectorId !== 0 && connectorId !== 1) return 'Rejected';
    if (value === 0 && charging.coreState()?.transaction) {
      await schedule(0);
      logger.info({}, 'OCPP: ChangeAvailability Inoperative scheduled for the end of the transaction');
      return 'Scheduled';
    }
    await schedule(undefined);
    await set(value);
    return 'Accepted';
  }

  const calls: IncomingCalls = {
    ChangeAvailability: async (p) => ({ status: await change(p.connectorId, p.type === 'Operative' ? 1 : 0) }),
  };

  return {
    calls,
    /** ChangeAvailability of connector 0 (the whole charge point) or 1; 1: operative. Rejected, Scheduled or Accepted. */
    change,
    /**
     * Inoperative is scheduled (or an installed update refuses new charges: services/charging.ts refuseNewCharges)
     * and no transaction runs any more: the connector is Unavailable from now, before the setting reaches the core
     * (so the central system never sees it Available in between).
     */
    inoperativeScheduled: () => (scheduled === 0 || charging.newChargesRefused() !== undefined) && !charging.coreState()?.transaction,
    /** A change scheduled during a transaction, now that none runs. */
    async applyScheduled(): Promise<void> {
      const value = scheduled;
      if (value === undefined || charging.coreState()?.transaction) return;
      await schedule(undefined);
      logger.info({ chargingEnabled: value }, 'OCPP: the scheduled availability change takes effect');
      await set(value);
    },
  };
}

export type Availability = Awaited<ReturnType<typeof createAvailability>>;
