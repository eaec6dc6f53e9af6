import { keepTime } from './central-time.js';
import type { OcppContext } from './context.js';

/** Heartbeat: the link is alive, and the central system's time keeps the controller's clock. */
export async function heartbeat(ctx: OcppContext): Promise<void> {
  try {
    keepTime(ctx, (await ctx.call('Heartbeat', {})).currentTime);
  } catch (err) {
    ctx.logger.warn({ error: (err as Error).message }, 'OCPP: Heartbeat failed');
  }
}
