import type { OcppContext } from './context.js';

/** A clock difference to the central system above this is logged. */
export const CLOCK_TOLERANCE_MS = 2_000;

/**
 * The central system keeps the controller's clock (BootNotification and Heartbeat `currentTime`): a difference over
 * CLOCK_TOLERANCE_MS sets the controller's wall clock (stored and shown times, the core's included) to its time.
 */
export function keepTime(ctx: Pick<OcppContext, 'now' | 'logger' | 'setTime'>, currentTime: unknown): void {
  if (typeof currentTime !== 'string') return;
  const central = Date.parse(currentTime);
  if (!Number.isFinite(central)) return;
  const driftMs = central - ctx.now();
  if (Math.abs(driftMs) <= CLOCK_TOLERANCE_MS) return;
  ctx.logger.warn({ driftMs }, "OCPP: the controller's clock is set to the central system's");
  ctx.setTime?.(central);
}
