import type { IncomingCalls, OcppContext } from './context.js';
import type { Outbox } from './outbox.js';
import {
  compositeLimit,
  compositeSchedule,
  nextChange,
  profileProblem,
  type ChargingProfile,
  type ProfileStore,
  type ScheduleTransaction,
} from './smart-charging.js';

/**
 * Smart charging applied: the composite schedule of the installed profiles is the `ocpp` input of the allocator loop
 * (services/energy/manager.ts, so the PWM follows it), recomputed at every change; SetChargingProfile, ClearChargingProfile, GetCompositeSchedule.
 */
export function createChargingSchedule(ctx: OcppContext, profiles: ProfileStore, outbox: Outbox) {
  const { charging, logger } = ctx;
  let profileTimer: unknown;
  let appliedLimit: string | undefined;
  /** A RemoteStartTransaction's TxProfile, for the transaction it starts. */
  let pendingRemoteProfile: ChargingProfile | undefined;

  const phases = () => (ctx.setting('Phases') === 1 ? 1 : 3);
  const scheduleTransaction = (): ScheduleTransaction | null => {
    const tx = charging.coreState()?.transaction;
    return tx ? { id: tx.transactionId, startedAt: tx.startedAt } : null;
  };

  /** The composite schedule's limit now, into the charge cycle's load limit (so the PWM follows it). */
  function apply(): void {
    ctx.cancel(profileTimer);
    if (ctx.closed()) return;
    const at = ctx.now();
    const tx = scheduleTransaction();
    const composite = compositeLimit(profiles.all(), at, tx, phases());
    const limit = composite === undefined ? null : Math.max(0, Math.min(80, Math.round(composite.amps * 10) / 10));
    const numberPhases = composite?.numberPhases;
    const key = JSON.stringify([limit, numberPhases]);
    if (key !== appliedLimit) {
      appliedLimit = key;
      logger.info({ limitA: limit, ...(numberPhases ? { numberPhases } : {}) }, 'OCPP: charging schedule limit');
      // numberPhases is the allocator's preferred phase count (docs/energy.md, Allocator): the core switches with a phase switch.
      charging.limits.set('ocpp', limit, numberPhases);
    }
    const next = nextChange(profiles.all(), at, tx);
    if (next !== undefined) profileTimer = ctx.after(Math.min(next - at, 86_400_000), apply);
  }

  /** The central system's id of the running transaction. */
  const activeBackendId = async (): Promise<string | undefined> => {
    const tx = charging.coreState()?.transaction;
    return tx ? outbox.backendIdOf(tx.transactionId) : undefined;
  };

  async function setProfile(connectorId: number, profile: ChargingProfile): Promise<string> {
    const tx = charging.coreState()?.transaction;
    const problem = profileProblem(connectorId, profile, tx !== undefined && tx !== null);
    if (problem) {
      logger.warn({ problem }, 'OCPP: SetChargingProfile rejected');
      return 'Rejected';
    }
    let transactionId: string | undefined;
    if (profile.chargingProfilePurpose === 'TxProfile') {
      if (profile.transactionId !== undefined && String(profile.transactionId) !== (await activeBackendId())) return 'Rejected';
      transactionId = tx!.transactionId;
    }
    if (!(await profiles.set({ connectorId, profile, ...(transactionId ? { transactionId } : {}) }))) return 'Rejected';
    apply();
    return 'Accepted';
  }

  const calls: IncomingCalls = {
    SetChargingProfile: async (p) => ({ status: await setProfile(p.connectorId, p.csChargingProfiles) }),
    ClearChargingProfile: async (p) => {
      const removed = await profiles.clear({
        id: p.id,
        connectorId: p.connectorId,
        chargingProfilePurpose: p.chargingProfilePurpose,
        stackLevel: p.stackLevel,
      });
      apply();
      return { status: removed ? 'Accepted' : 'Unknown' };
    },
    GetCompositeSchedule: (p) => {
      if (p.connectorId !== 0 && p.connectorId !== 1) return { status: 'Rejected' };
      const start = ctx.now();
      const schedule = compositeSchedule(
        profiles.all(),
        start,
        p.duration,
        p.chargingRateUnit ?? 'A',
        scheduleTransaction(),
        phases(),
        ctx.setting('MaxCurrent'),
      );
      return {
        status: 'Accepted',
        connectorId: p.connectorId,
        scheduleStart: ctx.csmsTime(start),
        chargingSchedule: { ...schedule, startSchedule: ctx.csmsTime(start) },
      };
    },
  };

  return {
    apply,
    calls,
    activeBackendId,
    /** A remote start's TxProfile: installed when its transaction starts. */
    forNextTransaction(profile: ChargingProfile | undefined): void {
      pendingRemoteProfile = profile;
    },
    /** A transaction started or ended: its TxProfiles follow it. */
    transactionChanged(ended: string | undefined, started: string | undefined): void {
      if (ended) ctx.track(profiles.transactionEnded(ended).then(apply));
      if (started && pendingRemoteProfile) {
        const profile = pendingRemoteProfile;
        pendingRemoteProfile = undefined;
        ctx.track(profiles.set({ connectorId: 1, profile, transactionId: started }).then(apply));
      } else apply();
    },
  };
}

export type ChargingSchedule = ReturnType<typeof createChargingSchedule>;
