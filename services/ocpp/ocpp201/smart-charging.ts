import type { OCPP20 } from 'typed-ocpp';
import type { Logger } from '../../logger.js';
import type { ScheduleApplier } from '../charging-schedule.js';
import type { InstalledProfile, ProfileProblem, ProfileStore } from '../smart-charging.js';
import { isEvse, setProblem, storePurpose, toReported, toStored, type Profile201 } from './smart-charging-profiles.js';

/**
 * OCPP 2.0.1 smart charging (block K) of the charging station, for the 2.0.1 adapter to plug in: SetChargingProfile,
 * ClearChargingProfile, GetChargingProfiles (then ReportChargingProfiles), GetCompositeSchedule, over the profile
 * store and the schedule applier both versions share (services/ocpp/smart-charging.ts, charging-schedule.ts), so a
 * profile drives the charge cycle's current as a 1.6 one does.
 *
 * The adapter gives:
 * - `profiles`: the shared profile store (createProfileStore);
 * - `schedule`: the shared applier (createScheduleApplier) whose `transaction()` is the running 2.0.1 transaction,
 *   its id the transactionId of TransactionEvent (pass `transaction` to createScheduleApplier unless that is the
 *   core's transaction id);
 * - `call(action, payload)`: a call to the CSMS (here only ReportChargingProfiles);
 * - `later(fn)`: runs `fn` after the current call was answered (the reports follow GetChargingProfiles' answer);
 * - `now()`: wall-clock UTC ms; `logger`.
 * It calls `transactionChanged(ended, started)` when a 2.0.1 transaction starts or ends, and `schedule.apply()` when
 * a setting the schedule reads changes (MaxCurrent, Phases).
 */
export interface SmartCharging201Deps {
  profiles: ProfileStore;
  schedule: Pick<ScheduleApplier, 'apply' | 'transaction' | 'composite'>;
  call: (action: 'ReportChargingProfiles', payload: OCPP20.ReportChargingProfilesRequest) => Promise<unknown>;
  later: (fn: () => Promise<unknown> | void) => void;
  now: () => number;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** The central system's calls of block K, by action, each answering its 2.0.1 response. */
export interface SmartCharging201Calls {
  SetChargingProfile(p: OCPP20.SetChargingProfileRequest): Promise<OCPP20.SetChargingProfileResponse>;
  ClearChargingProfile(p: OCPP20.ClearChargingProfileRequest): Promise<OCPP20.ClearChargingProfileResponse>;
  GetChargingProfiles(p: OCPP20.GetChargingProfilesRequest): OCPP20.GetChargingProfilesResponse;
  GetCompositeSchedule(p: OCPP20.GetCompositeScheduleRequest): OCPP20.GetCompositeScheduleResponse;
}

/** Every profile here is the CSMS's: the station keeps no other source's limits as profiles. */
const SOURCE = 'CSO' as const;

const statusInfo = (p: ProfileProblem) => ({ reasonCode: p.reasonCode, additionalInfo: p.message });

export function createSmartCharging201(deps: SmartCharging201Deps) {
  const { profiles, schedule, logger } = deps;
  /** A RequestStartTransaction's TxProfile, for the transaction it starts. */
  let pendingRemoteProfile: Profile201 | undefined;

  const running = () => schedule.transaction()?.id ?? null;

  async function install(evseId: number, profile: Profile201, transactionId?: string): Promise<ProfileProblem | undefined> {
    const entry: InstalledProfile = { connectorId: evseId, profile: toStored(profile), ...(transactionId === undefined ? {} : { transactionId }) };
    if (!(await profiles.set(entry, true))) return { reasonCode: 'OutOfStorage', message: 'no room for another profile' };
    schedule.apply();
    return undefined;
  }

  /** The installed profiles GetChargingProfiles asks for (K09): every criterion given must hold. */
  function matching(p: OCPP20.GetChargingProfilesRequest): InstalledProfile[] {
    const c = p.chargingProfile;
    if (c.chargingLimitSource && !c.chargingLimitSource.includes(SOURCE)) return [];
    const purpose = c.chargingProfilePurpose === undefined ? undefined : storePurpose(c.chargingProfilePurpose);
    if (c.chargingProfilePurpose !== undefined && purpose === undefined) return [];
    return profiles
      .all()
      .filter(
        ({ connectorId, profile: q }) =>
          (p.evseId === undefined || connectorId === p.evseId) &&
          (purpose === undefined || q.chargingProfilePurpose === purpose) &&
          (c.stackLevel === undefined || q.stackLevel === c.stackLevel) &&
          (c.chargingProfileId === undefined || c.chargingProfileId.includes(q.chargingProfileId)),
      );
  }

  /** ReportChargingProfiles: one message per EVSE (one source), every one but the last `tbc`. */
  async function report(requestId: number, found: InstalledProfile[]): Promise<void> {
    const evses = [...new Set(found.map((f) => f.connectorId))].sort();
    for (const [i, evseId] of evses.entries()) {
      await deps.call('ReportChargingProfiles', {
        requestId,
        chargingLimitSource: SOURCE,
        evseId,
        chargingProfile: found.filter((f) => f.connectorId === evseId).map(toReported),
        ...(i < evses.length - 1 ? { tbc: true } : {}),
      });
    }
  }

  const calls: SmartCharging201Calls = {
    async SetChargingProfile({ evseId, chargingProfile }) {
      const problem = setProblem(evseId, chargingProfile, running(), profiles.all()) ?? (await install(evseId, chargingProfile, chargingProfile.transactionId));
      if (problem) {
        logger.warn({ evseId, id: chargingProfile.id, problem: problem.message }, 'OCPP 2.0.1: SetChargingProfile rejected');
        return { status: 'Rejected', statusInfo: statusInfo(problem) };
      }
      return { status: 'Accepted' };
    },

    async ClearChargingProfile({ chargingProfileId, chargingProfileCriteria: c }) {
      const purpose = c?.chargingProfilePurpose === undefined ? undefined : storePurpose(c.chargingProfilePurpose);
      // ChargingStationExternalConstraints are never the CSMS's to clear: none here.
      if (c?.chargingProfilePurpose !== undefined && purpose === undefined) return { status: 'Unknown' };
      const removed = await profiles.clear({
        ...(chargingProfileId === undefined ? {} : { id: chargingProfileId }),
        ...(c?.evseId === undefined ? {} : { connectorId: c.evseId }),
        ...(purpose === undefined ? {} : { chargingProfilePurpose: purpose }),
        ...(c?.stackLevel === undefined ? {} : { stackLevel: c.stackLevel }),
      });
      schedule.apply();
      return { status: removed ? 'Accepted' : 'Unknown' };
    },

    GetChargingProfiles(p) {
      const found = matching(p);
      if (found.length === 0) return { status: 'NoProfiles' };
      deps.later(() => report(p.requestId, found));
      return { status: 'Accepted' };
    },

    GetCompositeSchedule({ evseId, duration, chargingRateUnit }) {
      if (!isEvse(evseId)) return { status: 'Rejected', statusInfo: { reasonCode: 'UnknownEvse', additionalInfo: `no EVSE ${evseId}` } };
      if (duration < 0) return { status: 'Rejected', statusInfo: { reasonCode: 'ValuePositiveOnly', additionalInfo: 'a negative duration' } };
      const start = deps.now();
      const s = schedule.composite(start, duration, chargingRateUnit ?? 'A');
      return {
        status: 'Accepted',
        schedule: {
          evseId,
          duration: s.duration ?? duration,
          scheduleStart: new Date(start).toISOString(),
          chargingRateUnit: s.chargingRateUnit,
          chargingSchedulePeriod: s.chargingSchedulePeriod,
        },
      };
    },
  };

  return {
    calls,
    /**
     * RequestStartTransaction's chargingProfile (F01, K05): a TxProfile without transactionId, checked now (the
     * problem: answer Rejected) and installed when its transaction starts.
     */
    forNextTransaction(profile: Profile201 | undefined): ProfileProblem | undefined {
      if (profile && profile.chargingProfilePurpose !== 'TxProfile') return { reasonCode: 'InvalidProfile', message: 'not a TxProfile' };
      const problem = profile && setProblem(1, { ...profile, transactionId: 'next' }, 'next', []);
      if (problem) return problem;
      pendingRemoteProfile = profile;
      return undefined;
    },
    /** A 2.0.1 transaction started or ended (its transactionId): its TxProfiles follow it, the limit is recomputed. */
    async transactionChanged(ended: string | undefined, started: string | undefined): Promise<void> {
      if (ended) await profiles.transactionEnded(ended);
      const profile = started ? pendingRemoteProfile : undefined;
      if (started) pendingRemoteProfile = undefined;
      const problem = started && profile ? await install(1, { ...profile, transactionId: started }, started) : undefined;
      if (problem) logger.warn({ id: profile?.id, problem: problem.message }, 'OCPP 2.0.1: the remote start’s TxProfile could not be installed');
      schedule.apply();
    },
  };
}

export type SmartCharging201 = ReturnType<typeof createSmartCharging201>;
