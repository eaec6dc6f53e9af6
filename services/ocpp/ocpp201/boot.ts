import { eq } from 'drizzle-orm';
import { ocppState } from '../../../db/schema.js';
import { CHARGE_POINT_MODEL, CHARGE_POINT_VENDOR } from '../boot.js';
import type { OcppContext } from '../context.js';

/** BootReasonEnumType values this station gives. */
export type BootReason = 'PowerUp' | 'RemoteReset' | 'Triggered';

/**
 * The 2.0.1 BootNotification (B01–B04): who the station is and why it booted. A Reset from the CSMS is kept in the
 * database before the restart, so the next boot says RemoteReset (B11/B12), once; otherwise PowerUp. The answer is
 * handled as 1.6's (boot.ts: Accepted, Pending, Rejected move the backend link).
 */
export function createBootReason(ctx: OcppContext) {
  let reason: BootReason | undefined;
  let triggered = false;
  return {
    /** TriggerMessage BootNotification while Pending: the next boot says Triggered. */
    trigger(): void {
      triggered = true;
    },
    async payload(): Promise<Record<string, unknown>> {
      if (reason === undefined) {
        const [row] = await ctx.database.db.select().from(ocppState).where(eq(ocppState.key, 'bootReason'));
        reason = row?.value === 'RemoteReset' ? 'RemoteReset' : 'PowerUp';
        if (row) await ctx.database.write((tx) => tx.delete(ocppState).where(eq(ocppState.key, 'bootReason')));
      }
      const serial = ctx.settings.get('SerialNumber_custom').slice(0, 25);
      const why = triggered ? 'Triggered' : reason;
      triggered = false;
      return {
        reason: why,
        chargingStation: {
          model: CHARGE_POINT_MODEL,
          vendorName: CHARGE_POINT_VENDOR,
          ...(serial ? { serialNumber: serial } : {}),
          firmwareVersion: ctx.settings.get('FirmwareVersion_custom').slice(0, 50),
        },
      };
    },
    /** A Reset restarts the controller: the next run's boot says RemoteReset. */
    async resetRequested(): Promise<void> {
      await ctx.database.write((tx) =>
        tx
          .insert(ocppState)
          .values({ key: 'bootReason', value: 'RemoteReset' })
          .onConflictDoUpdate({ target: ocppState.key, set: { value: 'RemoteReset' } }),
      );
    },
  };
}

export type BootReasons = ReturnType<typeof createBootReason>;
