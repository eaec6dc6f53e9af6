import type { OCPP20 } from 'typed-ocpp';
import { scheduleProblem, type ChargingProfile, type InstalledProfile, type ProfilePurpose, type ProfileProblem } from '../smart-charging.js';

/**
 * OCPP 2.0.1 charging profiles (block K) in the shared store's shape (services/ocpp/smart-charging.ts) and back, and
 * the 2.0.1 rules of SetChargingProfile (K01) that refuse one, each with the reason code of the answer's statusInfo.
 */

export type Profile201 = OCPP20.SetChargingProfileRequest['chargingProfile'];
export type Purpose201 = Profile201['chargingProfilePurpose'];

/** The one EVSE (1) and the station (0). */
export const EVSE_IDS = [0, 1] as const;
export const isEvse = (evseId: number) => evseId === 0 || evseId === 1;

/** 2.0.1's purposes by the store's names; ChargingStationExternalConstraints has none (never installed). */
const TO_STORE: Partial<Record<Purpose201, ProfilePurpose>> = {
  ChargingStationMaxProfile: 'ChargePointMaxProfile',
  TxDefaultProfile: 'TxDefaultProfile',
  TxProfile: 'TxProfile',
};
const FROM_STORE: Record<ProfilePurpose, Purpose201> = {
  ChargePointMaxProfile: 'ChargingStationMaxProfile',
  TxDefaultProfile: 'TxDefaultProfile',
  TxProfile: 'TxProfile',
};

/** A 2.0.1 purpose as the store names it (undefined: ChargingStationExternalConstraints, which no profile here has). */
export const storePurpose = (purpose: Purpose201): ProfilePurpose | undefined => TO_STORE[purpose];

const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** A 2.0.1 profile in the store's shape: its first (the only accepted) schedule; customData dropped. */
export function toStored(p: Profile201): ChargingProfile {
  const s = p.chargingSchedule[0]!;
  return defined({
    chargingProfileId: p.id,
    transactionId: p.transactionId,
    stackLevel: p.stackLevel,
    chargingProfilePurpose: TO_STORE[p.chargingProfilePurpose]!,
    chargingProfileKind: p.chargingProfileKind,
    recurrencyKind: p.recurrencyKind,
    validFrom: p.validFrom,
    validTo: p.validTo,
    chargingSchedule: defined({
      id: s.id,
      startSchedule: s.startSchedule,
      duration: s.duration,
      chargingRateUnit: s.chargingRateUnit,
      minChargingRate: s.minChargingRate,
      chargingSchedulePeriod: s.chargingSchedulePeriod.map((x) => defined({ startPeriod: x.startPeriod, limit: x.limit, numberPhases: x.numberPhases })),
    }),
  });
}

/** An installed profile as 2.0.1 reports it (one installed under 1.6: its schedule's id is the profile's). */
export function toReported({ profile: p }: InstalledProfile): Profile201 {
  const s = p.chargingSchedule;
  return defined({
    id: p.chargingProfileId,
    stackLevel: p.stackLevel,
    chargingProfilePurpose: FROM_STORE[p.chargingProfilePurpose],
    chargingProfileKind: p.chargingProfileKind,
    recurrencyKind: p.recurrencyKind,
    validFrom: p.validFrom,
    validTo: p.validTo,
    transactionId: p.transactionId === undefined ? undefined : String(p.transactionId),
    chargingSchedule: [
      defined({
        id: s.id ?? p.chargingProfileId,
        startSchedule: s.startSchedule,
        duration: s.duration,
        chargingRateUnit: s.chargingRateUnit,
        minChargingRate: s.minChargingRate,
        chargingSchedulePeriod: s.chargingSchedulePeriod,
      }),
    ],
  });
}

const problem = (reasonCode: string, message: string): ProfileProblem => ({ reasonCode, message });
const time = (iso: string | undefined, otherwise: number) => (iso === undefined ? otherwise : Date.parse(iso));

/** Whether two profiles' validity periods overlap (none given: always valid). */
function overlap(a: ChargingProfile, b: ChargingProfile): boolean {
  return time(a.validFrom, -Infinity) < time(b.validTo, Infinity) && time(b.validFrom, -Infinity) < time(a.validTo, Infinity);
}

/**
 * Why this charging station refuses a SetChargingProfile (K01), or undefined. `runningTransaction`: the transactionId
 * of the transaction on EVSE 1 (null: none). Checked: the EVSE, the purpose's EVSE and kind, a TxProfile's
 * transaction, one schedule (several are for ISO 15118, which this station does not speak), startSchedule by kind,
 * phaseToUse (no ACPhaseSwitchingSupported), the shared limits and period order, and the 2.0.1 stacking conflicts.
 */
export function setProblem(evseId: number, p: Profile201, runningTransaction: string | null, installed: InstalledProfile[]): ProfileProblem | undefined {
  if (!isEvse(evseId)) return problem('UnknownEvse', `no EVSE ${evseId}`);
  if (p.chargingProfilePurpose === 'ChargingStationExternalConstraints')
    return problem('InvalidProfile', 'ChargingStationExternalConstraints are set by the station, not the CSMS');
  if (p.chargingProfilePurpose === 'ChargingStationMaxProfile') {
    if (evseId !== 0) return problem('UnknownEvse', 'ChargingStationMaxProfile is for evseId 0'); // K01.FR.03
    if (p.chargingProfileKind === 'Relative') return problem('InvalidProfile', 'ChargingStationMaxProfile cannot be Relative'); // K01.FR.38
  }
  if (p.chargingProfilePurpose === 'TxProfile') {
    if (evseId === 0) return problem('UnknownEvse', 'TxProfile needs an EVSE'); // K01.FR.16
    if (p.transactionId === undefined) return problem('MissingParam', 'TxProfile without transactionId'); // K01.FR.03
    if (runningTransaction === null) return problem('TxNotFound', 'no transaction on the EVSE'); // K01.FR.09
    if (p.transactionId !== runningTransaction) return problem('UnknownTxId', 'not the transaction on the EVSE'); // K01.FR.33
  } else if (p.transactionId !== undefined) return problem('InvalidProfile', 'transactionId is for TxProfile only');
  if (p.chargingSchedule.length > 1) return problem('UnsupportedParam', 'one chargingSchedule per profile (no ISO 15118)');
  const s = p.chargingSchedule[0]!;
  if (p.chargingProfileKind === 'Relative' && s.startSchedule !== undefined) return problem('InvalidSchedule', 'Relative with startSchedule'); // K01.FR.41
  if (p.chargingProfileKind !== 'Relative' && s.startSchedule === undefined)
    return problem('InvalidSchedule', `${p.chargingProfileKind} without startSchedule`); // K01.FR.40
  if (p.chargingProfileKind === 'Recurring' && p.recurrencyKind === undefined) return problem('MissingParam', 'Recurring without recurrencyKind');
  // K01.FR.20: phaseToUse needs ACPhaseSwitchingSupported (this station switches L2 and L3 together, never picks a phase).
  if (s.chargingSchedulePeriod.some((x) => x.phaseToUse !== undefined)) return problem('UnsupportedParam', 'phaseToUse: no ACPhaseSwitchingSupported');
  if (s.salesTariff !== undefined) return problem('UnsupportedParam', 'salesTariff is for ISO 15118');
  const stored = toStored(p);
  const shared = scheduleProblem(stored);
  if (shared) return shared;
  // A different profile at the same stack level and purpose: on the same EVSE with an overlapping validity (K01.FR.06);
  // a TxProfile, for the same transaction (K01.FR.39). The same id replaces (K01.FR.05).
  const conflict = installed.find(
    ({ connectorId, profile: q }) =>
      q.chargingProfileId !== p.id &&
      q.stackLevel === p.stackLevel &&
      q.chargingProfilePurpose === stored.chargingProfilePurpose &&
      (p.chargingProfilePurpose === 'TxProfile' ? String(q.transactionId) === p.transactionId : connectorId === evseId && overlap(q, stored)),
  );
  if (conflict) return problem('DuplicateProfile', `profile ${conflict.profile.chargingProfileId} has this stackLevel and purpose`);
  return undefined;
}
