import { keepTime } from './central-time.js';
import type { OcppContext } from './context.js';

export const CHARGE_POINT_VENDOR = 'ChargeController';
export const CHARGE_POINT_MODEL = 'AC-Type2';

/**
 * BootNotification: who the charge point is; the answer moves the backend link (accepted, pending, rejected). The
 * central system's calls that arrive before the answer was processed wait for it (`ctx.bootAnswer`).
 */
export function boot(ctx: OcppContext): Promise<void> {
  const answered = bootNow(ctx).finally(() => {
    if (ctx.bootAnswer === answered) ctx.bootAnswer = undefined;
  });
  ctx.bootAnswer = answered;
  return answered;
}

async function bootNow(ctx: OcppContext): Promise<void> {
  const { settings, logger } = ctx;
  try {
    const serial = String(settings.get('SerialNumber_custom')).slice(0, 25);
    const answer = await ctx.call('BootNotification', {
      chargePointVendor: CHARGE_POINT_VENDOR,
      chargePointModel: CHARGE_POINT_MODEL,
      ...(serial ? { chargePointSerialNumber: serial, chargeBoxSerialNumber: serial } : {}),
      firmwareVersion: String(settings.get('FirmwareVersion_custom')).slice(0, 50),
    });
    keepTime(ctx, answer.currentTime);
    const intervalS = Number(answer.interval) || 0;
    logger.info({ status: answer.status, intervalS }, 'OCPP: BootNotification answered');
    if (answer.status === 'Rejected') ctx.events?.backend('refused', { reason: 'BootNotification rejected' });
    ctx.sendLink({ type: answer.status === 'Accepted' ? 'BOOT.ACCEPTED' : answer.status === 'Pending' ? 'BOOT.PENDING' : 'BOOT.REJECTED', intervalS });
  } catch (err) {
    logger.warn({ error: (err as Error).message }, 'OCPP: BootNotification failed');
    ctx.sendLink({ type: 'BOOT.FAILED' });
  }
}
