import type { CommandedStopReason } from '../../machines/charge-cycle.js';
import type { ChargingSchedule } from './charging-schedule.js';
import type { IncomingCalls, OcppContext } from './context.js';
import { profileProblem, type ChargingProfile } from './smart-charging.js';
import type { QueueSender } from './queue.js';
import type { Reservations } from './reservation.js';

/** A Reset waits at most this long for the queue (the StopTransaction) to be sent before the controller restarts. */
export const RESET_DRAIN_MS = 10_000;

/** Why a remote start is refused now (a transaction runs, the connector is not free or already authorized); undefined: none. */
export function remoteStartRefusal(charging: OcppContext['charging']): string | undefined {
  const state = charging.coreState();
  if (!state || state.transaction || charging.newChargesRefused()) return 'busy or refusing new charges';
  const { ocppState: ocpp, authState } = state.system;
  if (!['available', 'preparing', 'finishing'].includes(ocpp) || authState === 'authorized_for_charging') return 'the connector is not free';
  return undefined;
}

/**
 * A reset: the audit trail names the central system, then (after the answer) the transaction stops with `reason`,
 * the queue is sent (at most RESET_DRAIN_MS) and the controller restarts. False: it cannot restart itself here.
 */
export function restartForCentralSystem(
  ctx: OcppContext,
  queue: Pick<QueueSender, 'drain'>,
  reason: Extract<CommandedStopReason, 'HardReset' | 'SoftReset'>,
): boolean {
  const { charging, logger } = ctx;
  if (!ctx.restart) {
    logger.warn({}, 'OCPP: Reset refused: this controller cannot restart itself here');
    return false;
  }
  const restart = ctx.restart;
  logger.info({ reason }, 'OCPP: reset: the transaction stops, the controller restarts');
  // The audit trail names who restarted the charger and from where, as for POST /v1/restart.
  const transactionEnded = charging.coreState()?.transaction != null;
  ctx.events?.record({ kind: 'restart', by: 'OCPP central system', address: ctx.setting('OcppUrl'), transactionEnded }, ctx.now());
  ctx.later(async () => {
    if (charging.coreState()?.transaction) charging.stopTransaction(reason);
    await charging.settled();
    await queue.drain(RESET_DRAIN_MS);
    restart();
  });
  return true;
}

/** The central system's commands to the charge point: remote start and stop, reset, unlock. */
export function createRemoteControl(ctx: OcppContext, schedule: ChargingSchedule, queue: QueueSender, reservations?: Pick<Reservations, 'accepts'>) {
  const { charging, logger } = ctx;

  async function remoteStart(idTag: string, connectorId: number | undefined, profile: ChargingProfile | undefined): Promise<string> {
    if ((connectorId !== undefined && connectorId !== 1) || remoteStartRefusal(charging)) return 'Rejected';
    // A reservation holds the connector for its tags only (OCPP 1.6 5.13).
    if (reservations && !(await reservations.accepts(idTag))) return 'Rejected';
    if (profile && (profile.chargingProfilePurpose !== 'TxProfile' || profileProblem(1, profile, true))) return 'Rejected';
    schedule.forNextTransaction(profile);
    logger.info({}, 'OCPP: remote start');
    charging.authorizeRemotely(idTag);
    return 'Accepted';
  }

  const reset = (reason: Extract<CommandedStopReason, 'HardReset' | 'SoftReset'>) => (restartForCentralSystem(ctx, queue, reason) ? 'Accepted' : 'Rejected');

  const calls: IncomingCalls = {
    RemoteStartTransaction: async (p) => ({ status: await remoteStart(p.idTag, p.connectorId, p.chargingProfile) }),
    RemoteStopTransaction: async (p) => {
      const ok = (await schedule.activeBackendId()) === String(p.transactionId);
      if (ok) charging.stopTransaction('Remote');
      return { status: ok ? 'Accepted' : 'Rejected' };
    },
    Reset: (p) => ({ status: reset(p.type === 'Hard' ? 'HardReset' : 'SoftReset') }),
    UnlockConnector: (p) => {
      if (p.connectorId !== 1) return { status: 'NotSupported' };
      if (charging.coreState()?.transaction) charging.stopTransaction('UnlockCommand');
      return { status: 'Unlocked' };
    },
  };

  return { calls };
}
