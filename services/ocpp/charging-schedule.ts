import type { ChargingService } from '../charging.js';
import type { Logger } from '../logger.js';
import type { IncomingCalls, OcppContext } from './context.js';
import type { Outbox } from './outbox.js';
import {
  compositeLimit,
  compositeSchedule,
  nextChange,
  profileProblem,
  type ChargingProfile,
  type ChargingSchedule as Schedule,
  type ProfileStore,
  type ScheduleTransaction,
} from './smart-charging.js';

/** What the schedule applier needs (OcppContext has it; the 2.0.1 adapter gives its own). */
export interface ScheduleApplierDeps {
  charging: Pick<ChargingService, 'coreState' | 'limits'>;
  logger: Logger;
  setting: OcppContext['setting'];
  /** Wall-clock time (UTC ms). */
  now: () => number;
  /** A timer on the actor clock, and its cancelling. */
  after: (ms: number, fn: () => void) => unknown;
  cancel: (id: unknown) => void;
  /** Closed: no more limits set. */
  closed: () => boolean;
}

/** The controller's own limits besides the central system's (A): the installation maximum and the other inputs of the allocator loop. */
const OWN_LIMITS = ['mqtt', 'sim', 'pause'] as const;

/**
 * Smart charging applied, for both OCPP versions: the composite limit of the installed profiles is the `ocpp` input
 * of the allocator loop (services/energy/manager.ts, so the PWM follows it, the lowest of every limit winning),
 * recomputed at every change of the schedule; and the composite schedule the central system asks for, with the
 * controller's own limits. `transaction`: the running transaction as the profiles name it (a TxProfile's
 * transactionId); by default (or answering undefined) the core's.
 */
export function createScheduleApplier(deps: ScheduleApplierDeps, profiles: ProfileStore, transaction?: () => ScheduleTransaction | null | undefined) {
  const { charging, logger } = deps;
  let profileTimer: unknown;
  let appliedLimit: string | undefined;

  const phases = () => (deps.setting('Phases') === 1 ? 1 : 3);
  // `transaction` answering undefined: the core's.
  const scheduleTransaction = (): ScheduleTransaction | null => {
    const named = transaction?.();
    if (named !== undefined) return named;
    const tx = charging.coreState()?.transaction;
    return tx ? { id: tx.transactionId, startedAt: tx.startedAt } : null;
  };
  /** The lowest of the controller's own limits now (A): MaxCurrent and every other limit input set. */
  const ownLimitA = () => Math.min(deps.setting('MaxCurrent'), ...OWN_LIMITS.map((source) => charging.limits.get(source)?.amps ?? Infinity));

  /** The composite schedule's limit now, into the charge cycle's load limit (so the PWM follows it). */
  function apply(): void {
    deps.cancel(profileTimer);
    if (deps.closed()) return;
    const at = deps.now();
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
    if (next !== undefined) profileTimer = deps.after(Math.min(next - at, 86_400_000), apply);
  }

  return {
    apply,
    transaction: scheduleTransaction,
    /** The composite schedule from `start` (UTC ms) for `durationS` in `unit`: the profiles, capped by the controller's own limits. */
    composite: (start: number, durationS: number, unit: 'A' | 'W'): Schedule =>
      compositeSchedule(profiles.all(), start, durationS, unit, scheduleTransaction(), phases(), ownLimitA()),
  };
}

export type ScheduleApplier = ReturnType<typeof createScheduleApplier>;

/**
 * OCPP 1.6's SetChargingProfile, ClearChargingProfile and GetCompositeSchedule, over the applier (one the 2.0.1
 * charging station shares, or its own).
 */
export function createChargingSchedule(ctx: OcppContext, profiles: ProfileStore, outbox: Outbox, applier = createScheduleApplier(ctx, profiles)) {
  const { charging, logger } = ctx;
  const { apply } = applier;
  /** A RemoteStartTransaction's TxProfile, for the transaction it starts. */
  let pendingRemoteProfile: ChargingProfile | undefined;

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
      if ((p.connectorId !== 0 && p.connectorId !== 1) || p.duration < 0) return { status: 'Rejected' };
      const start = ctx.now();
      const schedule = applier.composite(start, p.duration, p.chargingRateUnit ?? 'A');
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
