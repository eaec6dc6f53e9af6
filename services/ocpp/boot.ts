import { keepTime } from './central-time.js';
import type { OcppContext } from './context.js';

export const CHARGE_POINT_VENDOR = 'ChargeController';
export const CHARGE_POINT_MODEL = 'AC-Type2';

/**
 * One rule for the heartbeat interval, whichever way it comes (ChangeConfiguration HeartbeatInterval, the setting,
 * BootNotification): the range of the OcppHeartbeatInterval setting; an answer's interval outside it is brought into
 * it (0: none given).
 */
function heartbeatIntervalS(ctx: OcppContext, seconds: number): number {
  const field = ctx.settings.field('OcppHeartbeatInterval');
  if (seconds <= 0 || field?.type !== 'int') return seconds;
  return Math.min(field.range[1], Math.max(field.range[0], seconds));
}

/**
 * BootNotification: who the charge point is; the answer moves the backend link (accepted, pending, rejected). The
 * central system's calls that arrive before the answer was processed wait for it (`ctx.bootAnswer`).
 */
export function boot(ctx: OcppContext, payload: () => Record<string, unknown> = () => ocpp16Boot(ctx)): Promise<void> {
  const answered = bootNow(ctx, payload).finally(() => {
    if (ctx.bootAnswer === answered) ctx.bootAnswer = undefined;
  });
  ctx.bootAnswer = answered;
  return answered;
}

/** OCPP 1.6's BootNotification (2.0.1's: ocpp201/boot.ts; the answers have the same fields). */
function ocpp16Boot({ settings }: OcppContext): Record<string, unknown> {
  const serial = settings.get('SerialNumber_custom').slice(0, 25);
  return {
    chargePointVendor: CHARGE_POINT_VENDOR,
    chargePointModel: CHARGE_POINT_MODEL,
    ...(serial ? { chargePointSerialNumber: serial, chargeBoxSerialNumber: serial } : {}),
    firmwareVersion: settings.get('FirmwareVersion_custom').slice(0, 50),
  };
}

async function bootNow(ctx: OcppContext, payload: () => Record<string, unknown>): Promise<void> {
  const { logger } = ctx;
  try {
    const answer = await ctx.call('BootNotification', payload());
    keepTime(ctx, answer.currentTime);
    const given = Number(answer.interval) || 0;
    const intervalS = answer.status === 'Accepted' ? heartbeatIntervalS(ctx, given) : given;
    if (intervalS !== given)
      logger.warn({ given, intervalS }, "OCPP: the heartbeat interval of the BootNotification answer is outside HeartbeatInterval's range");
    logger.info({ status: answer.status, intervalS }, 'OCPP: BootNotification answered');
    if (answer.status === 'Rejected') ctx.events?.backend('refused', { reason: 'BootNotification rejected' });
    ctx.sendLink({ type: answer.status === 'Accepted' ? 'BOOT.ACCEPTED' : answer.status === 'Pending' ? 'BOOT.PENDING' : 'BOOT.REJECTED', intervalS });
  } catch (err) {
    logger.warn({ error: (err as Error).message }, 'OCPP: BootNotification failed');
    ctx.sendLink({ type: 'BOOT.FAILED' });
  }
}
