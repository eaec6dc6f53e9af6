import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ocppChargingProfiles } from '../../db/schema.js';

/**
 * Charging profiles as the store keeps and the composition reads them, for both versions: OCPP 1.6's shape
 * (SmartCharging profile); an OCPP 2.0.1 profile is kept in it (services/ocpp/ocpp201/smart-charging-profiles.ts maps
 * it both ways: ChargingStationMaxProfile is ChargePointMaxProfile here, its one schedule `chargingSchedule`).
 */
export interface ChargingSchedulePeriod {
  startPeriod: number;
  limit: number;
  numberPhases?: number;
}
export interface ChargingSchedule {
  /** OCPP 2.0.1's schedule id (none from 1.6). */
  id?: number;
  duration?: number;
  startSchedule?: string;
  chargingRateUnit: 'A' | 'W';
  chargingSchedulePeriod: ChargingSchedulePeriod[];
  minChargingRate?: number;
}
export type ProfilePurpose = 'ChargePointMaxProfile' | 'TxDefaultProfile' | 'TxProfile';
export interface ChargingProfile {
  chargingProfileId: number;
  /** The central system's transaction id: 1.6's a number, 2.0.1's a string. */
  transactionId?: number | string;
  stackLevel: number;
  chargingProfilePurpose: ProfilePurpose;
  chargingProfileKind: 'Absolute' | 'Recurring' | 'Relative';
  recurrencyKind?: 'Daily' | 'Weekly';
  validFrom?: string;
  validTo?: string;
  chargingSchedule: ChargingSchedule;
}

/** A profile as installed: for a connector (0: the whole charge point), a TxProfile for one local transaction. */
export interface InstalledProfile {
  connectorId: number;
  profile: ChargingProfile;
  /** TxProfile: the local transaction it belongs to. */
  transactionId?: string;
}

/** Nominal phase voltage for schedules in W (A = W / (230 V × phases)). */
export const NOMINAL_VOLTAGE = 230;
export const MAX_STACK_LEVEL = 10;
export const MAX_PERIODS = 24;
export const MAX_PROFILES = 20;

const RECURRENCE_MS = { Daily: 86_400_000, Weekly: 604_800_000 } as const;

/** The running transaction a schedule may be relative to. */
export interface ScheduleTransaction {
  id: string;
  /** UTC ms. */
  startedAt: number;
}

const time = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

/** When the profile's schedule starts for the time `at` (UTC ms). */
function scheduleStart(p: ChargingProfile, at: number, tx: ScheduleTransaction | null): number {
  const start = time(p.chargingSchedule.startSchedule);
  switch (p.chargingProfileKind) {
    case 'Absolute':
      return start ?? time(p.validFrom) ?? tx?.startedAt ?? at;
    case 'Relative':
      return tx?.startedAt ?? at;
    case 'Recurring': {
      const base = start ?? 0;
      const period = RECURRENCE_MS[p.recurrencyKind ?? 'Daily'];
      return base + Math.floor((at - base) / period) * period;
    }
  }
}

/** A limit in A per phase and the phase count the profile asks for (a period's numberPhases; none: not given). */
export interface PhaseLimit {
  amps: number;
  numberPhases?: 1 | 3;
}

/**
 * A period's numberPhases as a phase count this charge point can use: 3, else 1 (it switches L2 and L3 together, so
 * 2 phases become 1: never more phases than the profile allows).
 */
const phaseCount = (numberPhases: number | undefined): 1 | 3 | undefined => (numberPhases === undefined ? undefined : numberPhases >= 3 ? 3 : 1);

/** The profile's limit at `at` (A per phase, with the period's numberPhases), or undefined where it does not apply. */
export function profileLimit(p: ChargingProfile, at: number, tx: ScheduleTransaction | null, phases: number): PhaseLimit | undefined {
  const from = time(p.validFrom);
  const to = time(p.validTo);
  if ((from !== undefined && at < from) || (to !== undefined && at >= to)) return undefined;
  const elapsed = at - scheduleStart(p, at, tx);
  const { duration, chargingSchedulePeriod: periods, chargingRateUnit } = p.chargingSchedule;
  if (elapsed < 0 || (duration !== undefined && elapsed >= duration * 1000)) return undefined;
  const period = periods.filter((x) => x.startPeriod * 1000 <= elapsed).at(-1);
  if (!period) return undefined;
  const amps = chargingRateUnit === 'A' ? period.limit : period.limit / (NOMINAL_VOLTAGE * (period.numberPhases ?? phases));
  const numberPhases = phaseCount(period.numberPhases);
  return numberPhases === undefined ? { amps } : { amps, numberPhases };
}

/** The profile's limit at `at` in A per phase, or undefined where it does not apply. */
export function profileLimitA(p: ChargingProfile, at: number, tx: ScheduleTransaction | null, phases: number): number | undefined {
  return profileLimit(p, at, tx, phases)?.amps;
}

/** The highest stack level's limit among `profiles` at `at`. */
function stacked(profiles: InstalledProfile[], at: number, tx: ScheduleTransaction | null, phases: number): PhaseLimit | undefined {
  const sorted = [...profiles].sort((a, b) => b.profile.stackLevel - a.profile.stackLevel);
  for (const p of sorted) {
    const limit = profileLimit(p.profile, at, tx, phases);
    if (limit !== undefined) return limit;
  }
  return undefined;
}

/**
 * The composite limit at `at` (A per phase, with its phase count), undefined for none: the transaction's TxProfile,
 * or else the TxDefaultProfile (connector 1 before connector 0), each at its highest stack level in force, capped by
 * the ChargePointMaxProfile. The phase count is the fewest phases either of the two asks for (a maximum profile on
 * one phase allows no three): none when neither gives numberPhases.
 */
export function compositeLimit(installed: InstalledProfile[], at: number, tx: ScheduleTransaction | null, phases: number): PhaseLimit | undefined {
  const of = (purpose: ProfilePurpose) => installed.filter((p) => p.profile.chargingProfilePurpose === purpose);
  const max = stacked(of('ChargePointMaxProfile'), at, tx, phases);
  const txLimit =
    (tx
      ? stacked(
          of('TxProfile').filter((p) => p.transactionId === tx.id),
          at,
          tx,
          phases,
        )
      : undefined) ??
    stacked(
      of('TxDefaultProfile').filter((p) => p.connectorId === 1),
      at,
      tx,
      phases,
    ) ??
    stacked(
      of('TxDefaultProfile').filter((p) => p.connectorId === 0),
      at,
      tx,
      phases,
    );
  const limits = [max, txLimit].filter((x): x is PhaseLimit => x !== undefined);
  if (limits.length === 0) return undefined;
  const amps = Math.min(...limits.map((l) => l.amps));
  const counts = limits.map((l) => l.numberPhases).filter((n): n is 1 | 3 => n !== undefined);
  return counts.length ? { amps, numberPhases: Math.min(...counts) as 1 | 3 } : { amps };
}

/** The composite limit at `at` (A per phase), undefined for none (compositeLimit without the phase count). */
export function compositeLimitA(installed: InstalledProfile[], at: number, tx: ScheduleTransaction | null, phases: number): number | undefined {
  return compositeLimit(installed, at, tx, phases)?.amps;
}

/** The next time after `after` at which the composite limit may change (undefined: never). */
export function nextChange(installed: InstalledProfile[], after: number, tx: ScheduleTransaction | null): number | undefined {
  const times: number[] = [];
  for (const { profile: p } of installed) {
    const from = time(p.validFrom);
    const to = time(p.validTo);
    if (from !== undefined) times.push(from);
    if (to !== undefined) times.push(to);
    const start = scheduleStart(p, after, tx);
    for (const period of p.chargingSchedule.chargingSchedulePeriod) times.push(start + period.startPeriod * 1000);
    if (p.chargingSchedule.duration !== undefined) times.push(start + p.chargingSchedule.duration * 1000);
    if (p.chargingProfileKind === 'Recurring') times.push(start + RECURRENCE_MS[p.recurrencyKind ?? 'Daily']);
  }
  const later = times.filter((t) => t > after);
  return later.length ? Math.min(...later) : undefined;
}

/**
 * GetCompositeSchedule's schedule from `start` for `durationS`, in `unit`; `defaultA` where no profile applies. A
 * period carries numberPhases where a profile in force gives it; a limit in W counts on that many phases.
 */
export function compositeSchedule(
  installed: InstalledProfile[],
  start: number,
  durationS: number,
  unit: 'A' | 'W',
  tx: ScheduleTransaction | null,
  phases: number,
  defaultA: number,
): ChargingSchedule {
  const end = start + durationS * 1000;
  const periods: ChargingSchedulePeriod[] = [];
  // The first period always (a schedule has one at least, even for a duration of 0).
  for (let at: number | undefined = start; at !== undefined && (at === start || at < end); at = nextChange(installed, at, tx)) {
    const composite = compositeLimit(installed, at, tx, phases);
    const amps = Math.min(defaultA, composite?.amps ?? defaultA);
    const numberPhases = composite?.numberPhases;
    const limit = unit === 'A' ? Math.round(amps * 10) / 10 : Math.round(amps * NOMINAL_VOLTAGE * (numberPhases ?? phases));
    const last = periods.at(-1);
    if (last?.limit !== limit || last.numberPhases !== numberPhases)
      periods.push({ startPeriod: Math.round((at - start) / 1000), limit, ...(numberPhases === undefined ? {} : { numberPhases }) });
  }
  return { duration: durationS, startSchedule: new Date(start).toISOString(), chargingRateUnit: unit, chargingSchedulePeriod: periods };
}

/** Why a profile is refused: a 2.0.1 reason code (its statusInfo) and the words for the log. */
export interface ProfileProblem {
  reasonCode: string;
  message: string;
}
const problem = (reasonCode: string, message: string): ProfileProblem => ({ reasonCode, message });

/** What both versions refuse in a profile's stack level and schedule (the charge point's limits and the periods' order). */
export function scheduleProblem(p: ChargingProfile): ProfileProblem | undefined {
  const periods = p.chargingSchedule.chargingSchedulePeriod;
  if (p.stackLevel > MAX_STACK_LEVEL) return problem('InvalidStackLevel', `stackLevel above ${MAX_STACK_LEVEL}`);
  if (periods.length > MAX_PERIODS) return problem('TooManyElements', `more than ${MAX_PERIODS} periods`);
  if (periods.length === 0) return problem('InvalidSchedule', 'no period');
  if (periods[0]!.startPeriod !== 0) return problem('InvalidSchedule', 'the first period must start at 0');
  if (periods.some((x, i) => i > 0 && x.startPeriod <= periods[i - 1]!.startPeriod))
    return problem('InvalidSchedule', 'periods must start in increasing order');
  if (periods.some((x) => x.limit < 0)) return problem('InvalidSchedule', 'a negative limit');
  if (periods.some((x) => x.numberPhases !== undefined && (x.numberPhases < 1 || x.numberPhases > 3)))
    return problem('InvalidSchedule', 'numberPhases must be 1 to 3');
  return undefined;
}

/** Why an OCPP 1.6 SetChargingProfile is refused, or undefined. */
export function profileProblem(connectorId: number, p: ChargingProfile, activeTransaction: boolean): string | undefined {
  if (connectorId !== 0 && connectorId !== 1) return 'no such connector';
  const schedule = scheduleProblem(p);
  if (schedule) return schedule.message;
  if (p.chargingProfilePurpose === 'ChargePointMaxProfile' && connectorId !== 0) return 'ChargePointMaxProfile is for connector 0';
  if (p.chargingProfilePurpose === 'TxProfile' && (connectorId !== 1 || !activeTransaction)) return 'TxProfile needs connector 1 with a transaction';
  if (p.chargingProfileKind === 'Recurring' && (!p.recurrencyKind || !p.chargingSchedule.startSchedule))
    return 'Recurring needs recurrencyKind and startSchedule';
  return undefined;
}

/** The installed profiles, in the database and in memory. */
export async function createProfileStore(database: Database) {
  const { db } = database;
  let installed: InstalledProfile[] = (await db.select().from(ocppChargingProfiles)).map((r) => ({
    connectorId: r.connectorId,
    profile: JSON.parse(r.profile) as ChargingProfile,
    ...(r.transactionId !== null ? { transactionId: r.transactionId } : {}),
  }));

  const same = (a: InstalledProfile, b: InstalledProfile) =>
    a.profile.chargingProfileId === b.profile.chargingProfileId ||
    (a.connectorId === b.connectorId && a.profile.stackLevel === b.profile.stackLevel && a.profile.chargingProfilePurpose === b.profile.chargingProfilePurpose);

  async function remove(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await database.write((tx) => tx.delete(ocppChargingProfiles).where(inArray(ocppChargingProfiles.id, ids)));
    installed = installed.filter((p) => !ids.includes(p.profile.chargingProfileId));
  }

  return {
    all: (): InstalledProfile[] => installed,

    /**
     * Installs a profile, replacing one with the same id or (OCPP 1.6; `sameIdOnly` for 2.0.1, which refuses such a
     * profile before, K01.FR.06) the same connector, stack level and purpose.
     */
    async set(entry: InstalledProfile, sameIdOnly = false): Promise<boolean> {
      const replaces = (p: InstalledProfile) => (sameIdOnly ? p.profile.chargingProfileId === entry.profile.chargingProfileId : same(p, entry));
      const replaced = installed.filter(replaces);
      if (installed.length - replaced.length >= MAX_PROFILES) return false;
      await database.write(async (tx) => {
        for (const r of replaced) await tx.delete(ocppChargingProfiles).where(eq(ocppChargingProfiles.id, r.profile.chargingProfileId));
        await tx.insert(ocppChargingProfiles).values({
          id: entry.profile.chargingProfileId,
          connectorId: entry.connectorId,
          purpose: entry.profile.chargingProfilePurpose,
          stackLevel: entry.profile.stackLevel,
          transactionId: entry.transactionId ?? null,
          profile: JSON.stringify(entry.profile),
        });
      });
      installed = [...installed.filter((p) => !replaces(p)), entry];
      return true;
    },

    /** ClearChargingProfile: removes what matches every given criterion; true when something was removed. */
    async clear(criteria: { id?: number; connectorId?: number; chargingProfilePurpose?: ProfilePurpose; stackLevel?: number }): Promise<boolean> {
      const matching = installed.filter(
        (p) =>
          (criteria.id === undefined || p.profile.chargingProfileId === criteria.id) &&
          (criteria.connectorId === undefined || p.connectorId === criteria.connectorId) &&
          (criteria.chargingProfilePurpose === undefined || p.profile.chargingProfilePurpose === criteria.chargingProfilePurpose) &&
          (criteria.stackLevel === undefined || p.profile.stackLevel === criteria.stackLevel),
      );
      await remove(matching.map((p) => p.profile.chargingProfileId));
      return matching.length > 0;
    },

    /** A transaction ended: its TxProfiles go (OCPP 1.6, 3.13.4). */
    async transactionEnded(transactionId: string): Promise<void> {
      await remove(installed.filter((p) => p.transactionId === transactionId).map((p) => p.profile.chargingProfileId));
    },
  };
}

export type ProfileStore = Awaited<ReturnType<typeof createProfileStore>>;
