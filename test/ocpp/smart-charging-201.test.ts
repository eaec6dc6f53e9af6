import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase, type Database } from '../../db/client.js';
import { createLimitInputs } from '../../services/energy/limit-inputs.js';
import { createLogger } from '../../services/logger.js';
import { createScheduleApplier, type ScheduleApplierDeps } from '../../services/ocpp/charging-schedule.js';
import { createSmartCharging201 } from '../../services/ocpp/ocpp201/smart-charging.js';
import { createProfileStore, MAX_PROFILES, type ScheduleTransaction } from '../../services/ocpp/smart-charging.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { centralSystem, profile201 } from './smart-charging-201-support.js';

/**
 * OCPP 2.0.1 smart charging (block K, docs/ocpp.md) through the module's handlers, named after the OCA test cases of
 * the charging station (TC_K_xx_CS) they follow: every request, answer and ReportChargingProfiles checked by both
 * validators (smart-charging-201-support.ts). The store is the real one on a database file, the applier the shared
 * one, feeding the limit inputs of the allocator loop (smart-charging-201-charge-cycle.test.ts: the PWM follows).
 */

const iso = (ms: number) => new Date(ms).toISOString();
const open: Database[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function station(dir?: string) {
  const dataDir = dir ?? (await mkdtemp(join(tmpdir(), 'sc201-')));
  if (!dir) dirs.push(dataDir);
  const database = await openDatabase(`file:${join(dataDir, 'controller.db')}`);
  open.push(database);
  const profiles = await createProfileStore(database);
  const clock = new ManualClock(TEST_EPOCH);
  const limits = createLimitInputs();
  const values: Record<string, number> = { MaxCurrent: 16, Phases: 3 };
  let transaction: ScheduleTransaction | null = null;
  const logger = await createLogger({ logLevel: 'info', logFormat: 'json' }, new Writable({ write: (_c, _e, done) => done() }));
  const applierDeps: ScheduleApplierDeps = {
    charging: { coreState: () => undefined, limits },
    logger,
    setting: ((key: string) => values[key]) as ScheduleApplierDeps['setting'],
    now: () => clock.now(),
    after: (ms, fn) => clock.setTimeout(fn, ms),
    cancel: (id) => clock.clearTimeout(id),
    closed: () => false,
  };
  const schedule = createScheduleApplier(applierDeps, profiles, () => transaction);
  const csms = centralSystem();
  const smart = createSmartCharging201({ profiles, schedule, ...csms.deps, now: () => clock.now(), logger });
  return {
    dataDir,
    profiles,
    clock,
    limits,
    smart,
    csms,
    call: (action: Parameters<typeof csms.call>[1], request: Record<string, unknown>) => csms.call(smart, action, request),
    /** The transaction on EVSE 1 (the adapter's TransactionEvent Started / Ended). */
    async start(id: string) {
      transaction = { id, startedAt: clock.now() };
      await smart.transactionChanged(undefined, id);
    },
    async end() {
      const ended = transaction?.id;
      transaction = null;
      await smart.transactionChanged(ended, undefined);
    },
    ocppLimit: () => limits.get('ocpp'),
    /** The profiles GetChargingProfiles reports for `criteria` (ids by EVSE), the reports' tbc flags checked. */
    async reported(request: Record<string, unknown>) {
      const answer = await csms.call(smart, 'GetChargingProfiles', { requestId: 7, chargingProfile: {}, ...request });
      if (answer.status === 'NoProfiles') return 'NoProfiles';
      expect(answer).toEqual({ status: 'Accepted' });
      expect(csms.reports).toEqual([]); // sent after the answer
      await csms.afterAnswers();
      const reports = csms.reports.splice(0);
      expect(reports.map((r) => r.tbc ?? false)).toEqual(reports.map((_, i) => i < reports.length - 1));
      expect(new Set(reports.map((r) => [r.requestId, r.chargingLimitSource].join()))).toEqual(new Set(['7,CSO']));
      return Object.fromEntries(reports.map((r) => [r.evseId, r.chargingProfile.map((p) => p.id)]));
    },
  };
}

const set = (s: Awaited<ReturnType<typeof station>>, evseId: number, chargingProfile: unknown) => s.call('SetChargingProfile', { evseId, chargingProfile });
const ACCEPTED = { status: 'Accepted' };
const rejected = (reasonCode: string) => ({ status: 'Rejected', statusInfo: { reasonCode, additionalInfo: expect.any(String) } });

describe('SetChargingProfile (K01)', () => {
  test('TC_K_01_CS TxDefaultProfile on a specific EVSE, TC_K_10_CS on all EVSEs (0): installed, the EVSE one before the station one', async () => {
    const s = await station();
    expect(await set(s, 0, profile201(1, 'TxDefaultProfile', 12))).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 12 });
    expect(await set(s, 1, profile201(2, 'TxDefaultProfile', 10))).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 10 });
    expect(await s.reported({})).toEqual({ 0: [1], 1: [2] });
  });

  test('TC_K_02_CS TxProfile without transaction, TC_K_16_CS unknown transactionId, TC_K_11_CS on EVSE 0: Rejected; TC_K_60_CS with it: Accepted', async () => {
    const s = await station();
    const tx = (transactionId?: string) => profile201(5, 'TxProfile', 8, { stackLevel: 1, ...(transactionId ? { transactionId } : {}) });
    expect(await set(s, 1, tx('tx-1'))).toEqual(rejected('TxNotFound'));
    await s.start('tx-1');
    expect(await set(s, 1, tx('tx-9'))).toEqual(rejected('UnknownTxId'));
    expect(await set(s, 1, tx())).toEqual(rejected('MissingParam'));
    expect(await set(s, 0, tx('tx-1'))).toEqual(rejected('UnknownEvse'));
    expect(s.ocppLimit()).toBeNull(); // nothing installed
    expect(await s.reported({})).toBe('NoProfiles');
    expect(await set(s, 1, tx('tx-1'))).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 8 });
    expect(await s.reported({ evseId: 1 })).toEqual({ 1: [5] });
    // The transaction ends: its TxProfile goes.
    await s.end();
    expect(s.ocppLimit()).toBeNull();
    expect(await s.reported({})).toBe('NoProfiles');
  });

  test('TC_K_03_CS ChargingStationMaxProfile: on EVSE 0 only, never Relative; it caps the transaction profiles', async () => {
    const s = await station();
    const max = (more: Record<string, unknown> = {}) =>
      profile201(3, 'ChargingStationMaxProfile', 6, { chargingProfileKind: 'Absolute', ...more }, { startSchedule: iso(s.clock.now()) });
    expect(await set(s, 1, max())).toEqual(rejected('UnknownEvse'));
    expect(await set(s, 0, profile201(3, 'ChargingStationMaxProfile', 6))).toEqual(rejected('InvalidProfile'));
    expect(await set(s, 1, profile201(4, 'TxDefaultProfile', 10))).toEqual(ACCEPTED);
    expect(await set(s, 0, max())).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 6 });
    const [reported] = (await s.call('GetChargingProfiles', { requestId: 1, evseId: 0, chargingProfile: {} }), await s.csms.afterAnswers(), s.csms.reports);
    expect(reported!.chargingProfile).toEqual([
      {
        id: 3,
        stackLevel: 0,
        chargingProfilePurpose: 'ChargingStationMaxProfile',
        chargingProfileKind: 'Absolute',
        chargingSchedule: [{ id: 3, startSchedule: iso(TEST_EPOCH), chargingRateUnit: 'A', chargingSchedulePeriod: [{ startPeriod: 0, limit: 6 }] }],
      },
    ]);
  });

  test('TC_K_04_CS the same id replaces; another id at the same stackLevel, purpose and EVSE: Rejected while validity overlaps (K01.FR.06)', async () => {
    const s = await station();
    const now = s.clock.now();
    expect(await set(s, 1, profile201(1, 'TxDefaultProfile', 12))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(1, 'TxDefaultProfile', 9, { stackLevel: 2 }))).toEqual(ACCEPTED);
    expect(await s.reported({})).toEqual({ 1: [1] });
    expect(s.ocppLimit()).toEqual({ amps: 9 });
    expect(await set(s, 1, profile201(2, 'TxDefaultProfile', 7, { stackLevel: 2 }))).toEqual(rejected('DuplicateProfile'));
    // Another EVSE, or validity periods that do not overlap: both stay.
    expect(await set(s, 0, profile201(3, 'TxDefaultProfile', 7, { stackLevel: 2 }))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(1, 'TxDefaultProfile', 9, { stackLevel: 2, validTo: iso(now + 60_000) }))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(4, 'TxDefaultProfile', 7, { stackLevel: 2, validFrom: iso(now + 60_000) }))).toEqual(ACCEPTED);
    expect(await s.reported({})).toEqual({ 0: [3], 1: [1, 4] });
    expect(s.ocppLimit()).toEqual({ amps: 9 });
    await s.clock.advance(60_000); // validTo of 1, validFrom of 4: the applier's timer
    expect(s.ocppLimit()).toEqual({ amps: 7 });
    // TxProfiles: the same stackLevel for the same transaction (K01.FR.39).
    await s.start('tx-1');
    expect(await set(s, 1, profile201(5, 'TxProfile', 8, { stackLevel: 1, transactionId: 'tx-1' }))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(6, 'TxProfile', 8, { stackLevel: 1, transactionId: 'tx-1' }))).toEqual(rejected('DuplicateProfile'));
  });

  test('TC_K_14_CS an EVSE that does not exist; what this station cannot hold: Rejected with the reason, nothing installed', async () => {
    const s = await station();
    const start = { startSchedule: iso(s.clock.now()) };
    const periods = (list: unknown[]) => ({ chargingSchedulePeriod: list });
    const cases: [number, unknown, string][] = [
      [2, profile201(1, 'TxDefaultProfile', 10), 'UnknownEvse'],
      [0, profile201(1, 'ChargingStationExternalConstraints', 10), 'InvalidProfile'],
      [1, profile201(1, 'TxDefaultProfile', 10, { transactionId: 'tx-1' }), 'InvalidProfile'],
      [1, profile201(1, 'TxDefaultProfile', 10, {}, start), 'InvalidSchedule'], // Relative with startSchedule (K01.FR.41)
      [1, profile201(1, 'TxDefaultProfile', 10, { chargingProfileKind: 'Absolute' }), 'InvalidSchedule'], // K01.FR.40
      [1, profile201(1, 'TxDefaultProfile', 10, { chargingProfileKind: 'Recurring' }, start), 'MissingParam'],
      [1, profile201(1, 'TxDefaultProfile', 10, {}, periods([{ startPeriod: 10, limit: 10 }])), 'InvalidSchedule'], // K01.FR.31
      [
        1,
        profile201(
          1,
          'TxDefaultProfile',
          10,
          {},
          periods([
            { startPeriod: 0, limit: 10 },
            { startPeriod: 0, limit: 8 },
          ]),
        ),
        'InvalidSchedule',
      ], // K01.FR.35
      [1, profile201(1, 'TxDefaultProfile', 10, {}, periods([{ startPeriod: 0, limit: -1 }])), 'InvalidSchedule'],
      [1, profile201(1, 'TxDefaultProfile', 10, {}, periods([{ startPeriod: 0, limit: 10, numberPhases: 1, phaseToUse: 2 }])), 'UnsupportedParam'],
      [1, profile201(1, 'TxDefaultProfile', 10, {}, periods(Array.from({ length: 25 }, (_, i) => ({ startPeriod: i * 60, limit: 10 })))), 'TooManyElements'],
      [1, profile201(1, 'TxDefaultProfile', 10, { stackLevel: 11 }), 'InvalidStackLevel'],
    ];
    for (const [evseId, p, reason] of cases) expect(await set(s, evseId, p), JSON.stringify(p)).toEqual(rejected(reason));
    // Several schedules are for ISO 15118's negotiation, which this station does not speak.
    const two = profile201(1, 'TxDefaultProfile', 10);
    two.chargingSchedule.push({ ...two.chargingSchedule[0]!, id: 2 });
    expect(await set(s, 1, two)).toEqual(rejected('UnsupportedParam'));
    expect(await s.reported({})).toBe('NoProfiles');
    expect(s.ocppLimit()).toBeNull();
    // The store is full: the next one is refused, a replacement still accepted.
    const windowed = (id: number, limit: number) =>
      profile201(id, 'TxDefaultProfile', limit, { validFrom: iso(TEST_EPOCH + id * 1000), validTo: iso(TEST_EPOCH + id * 1000 + 1) });
    for (let id = 1; id <= MAX_PROFILES; id++) expect(await set(s, 1, windowed(id, 10))).toEqual(ACCEPTED);
    expect(await set(s, 0, profile201(99, 'TxDefaultProfile', 10))).toEqual(rejected('OutOfStorage'));
    expect(await set(s, 1, windowed(1, 11))).toEqual(ACCEPTED);
  });

  test('TC_K_19_CS Recurring, TC_K_21_CS validFrom, TC_K_22_CS validTo, TC_K_23_CS startSchedule: the limit follows the clock, W at 230 V', async () => {
    const s = await station();
    const now = s.clock.now();
    const daily = profile201(
      1,
      'TxDefaultProfile',
      0,
      { chargingProfileKind: 'Recurring', recurrencyKind: 'Daily' },
      {
        startSchedule: iso(now - 86_400_000 + 3600_000), // yesterday, an hour from now
        chargingRateUnit: 'W',
        chargingSchedulePeriod: [
          { startPeriod: 0, limit: 6900 }, // 10 A on 3 phases
          { startPeriod: 3600, limit: 2760, numberPhases: 1 }, // 12 A on 1 phase
        ],
      },
    );
    expect(await set(s, 0, daily)).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 12, numberPhases: 1 });
    await s.clock.advance(3600_000);
    expect(s.ocppLimit()).toEqual({ amps: 10 });
    const windowed = profile201(
      2,
      'TxDefaultProfile',
      8,
      { stackLevel: 1, chargingProfileKind: 'Absolute', validFrom: iso(now + 7200_000), validTo: iso(now + 7260_000) },
      { startSchedule: iso(now) },
    );
    expect(await set(s, 0, windowed)).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 10 });
    await s.clock.advance(3600_000);
    expect(s.ocppLimit()).toEqual({ amps: 8 });
    await s.clock.advance(60_000); // the daily schedule's second period again
    expect(s.ocppLimit()).toEqual({ amps: 12, numberPhases: 1 });
  });
});

describe('ClearChargingProfile (K10)', () => {
  async function withProfiles() {
    const s = await station();
    expect(await set(s, 0, profile201(1, 'TxDefaultProfile', 12))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(2, 'TxDefaultProfile', 10, { stackLevel: 1 }))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(3, 'TxDefaultProfile', 8, { stackLevel: 2 }))).toEqual(ACCEPTED);
    expect(await set(s, 0, profile201(4, 'ChargingStationMaxProfile', 14, { chargingProfileKind: 'Absolute' }, { startSchedule: iso(s.clock.now()) }))).toEqual(
      ACCEPTED,
    );
    expect(s.ocppLimit()).toEqual({ amps: 8 });
    return s;
  }

  test('TC_K_05_CS by chargingProfileId; TC_K_08_CS an id not installed: Unknown', async () => {
    const s = await withProfiles();
    expect(await s.call('ClearChargingProfile', { chargingProfileId: 3 })).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 10 });
    expect(await s.call('ClearChargingProfile', { chargingProfileId: 3 })).toEqual({ status: 'Unknown' });
    expect(await s.reported({})).toEqual({ 0: [1, 4], 1: [2] });
  });

  test('TC_K_06_CS by stackLevel and purpose; TC_K_07_CS an unknown combination: Unknown; TC_K_24_CS several at once; by evseId', async () => {
    const s = await withProfiles();
    expect(await s.call('ClearChargingProfile', { chargingProfileCriteria: { chargingProfilePurpose: 'TxDefaultProfile', stackLevel: 5 } })).toEqual({
      status: 'Unknown',
    });
    expect(await s.call('ClearChargingProfile', { chargingProfileCriteria: { chargingProfilePurpose: 'ChargingStationExternalConstraints' } })).toEqual({
      status: 'Unknown',
    });
    expect(await s.call('ClearChargingProfile', { chargingProfileCriteria: { chargingProfilePurpose: 'TxDefaultProfile', stackLevel: 2 } })).toEqual(ACCEPTED);
    expect(await s.reported({})).toEqual({ 0: [1, 4], 1: [2] });
    expect(await s.call('ClearChargingProfile', { chargingProfileCriteria: { evseId: 1 } })).toEqual(ACCEPTED);
    expect(s.ocppLimit()).toEqual({ amps: 12 });
    expect(await s.call('ClearChargingProfile', { chargingProfileCriteria: { chargingProfilePurpose: 'ChargingStationMaxProfile' } })).toEqual(ACCEPTED);
    expect(await s.reported({})).toEqual({ 0: [1] });
    expect(await s.call('ClearChargingProfile', {})).toEqual(ACCEPTED);
    expect(await s.reported({})).toBe('NoProfiles');
    expect(s.ocppLimit()).toBeNull();
  });
});

describe('GetChargingProfiles (K09)', () => {
  test('TC_K_29_CS evseId 0, TC_K_30_CS evseId 1, TC_K_31_CS every EVSE, TC_K_32_CS by id, TC_K_33_CS..TC_K_36_CS by stackLevel, source, purpose', async () => {
    const s = await station();
    expect(await s.reported({})).toBe('NoProfiles');
    expect(await set(s, 0, profile201(1, 'TxDefaultProfile', 12))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(2, 'TxDefaultProfile', 10, { stackLevel: 1 }))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(3, 'TxDefaultProfile', 8, { stackLevel: 2 }))).toEqual(ACCEPTED);
    await s.start('tx-1');
    expect(await set(s, 1, profile201(4, 'TxProfile', 6, { stackLevel: 2, transactionId: 'tx-1' }))).toEqual(ACCEPTED);
    expect(await s.reported({ evseId: 0 })).toEqual({ 0: [1] });
    expect(await s.reported({ evseId: 1 })).toEqual({ 1: [2, 3, 4] });
    expect(await s.reported({})).toEqual({ 0: [1], 1: [2, 3, 4] });
    expect(await s.reported({ chargingProfile: { chargingProfileId: [1, 3] } })).toEqual({ 0: [1], 1: [3] });
    expect(await s.reported({ evseId: 1, chargingProfile: { stackLevel: 2 } })).toEqual({ 1: [3, 4] });
    expect(await s.reported({ evseId: 1, chargingProfile: { chargingLimitSource: ['CSO'] } })).toEqual({ 1: [2, 3, 4] });
    expect(await s.reported({ evseId: 1, chargingProfile: { chargingLimitSource: ['EMS', 'SO'] } })).toBe('NoProfiles');
    expect(await s.reported({ evseId: 1, chargingProfile: { chargingProfilePurpose: 'TxProfile' } })).toEqual({ 1: [4] });
    expect(await s.reported({ evseId: 1, chargingProfile: { chargingProfilePurpose: 'TxDefaultProfile', stackLevel: 1 } })).toEqual({ 1: [2] });
    expect(await s.reported({ evseId: 0, chargingProfile: { chargingProfilePurpose: 'TxProfile' } })).toBe('NoProfiles');
  });

  test('TC_K_13_CS profiles persist over a restart (one store for both versions: a 1.6 profile is reported in 2.0.1 terms)', async () => {
    const s = await station();
    expect(await set(s, 1, profile201(1, 'TxDefaultProfile', 12, { stackLevel: 3 }))).toEqual(ACCEPTED);
    await s.profiles.set({
      connectorId: 0,
      profile: {
        chargingProfileId: 16,
        stackLevel: 0,
        chargingProfilePurpose: 'ChargePointMaxProfile',
        chargingProfileKind: 'Relative',
        chargingSchedule: { chargingRateUnit: 'W', chargingSchedulePeriod: [{ startPeriod: 0, limit: 11000 }] },
      },
    });
    const again = await station(s.dataDir);
    await again.smart.transactionChanged(undefined, undefined); // the adapter's start: the limit applied
    expect(again.ocppLimit()).toEqual({ amps: 12 });
    await again.call('GetChargingProfiles', { requestId: 3, chargingProfile: {} });
    await again.csms.afterAnswers();
    expect(again.csms.reports.map((r) => r.chargingProfile)).toEqual([
      [
        {
          id: 16,
          stackLevel: 0,
          chargingProfilePurpose: 'ChargingStationMaxProfile',
          chargingProfileKind: 'Relative',
          chargingSchedule: [{ id: 16, chargingRateUnit: 'W', chargingSchedulePeriod: [{ startPeriod: 0, limit: 11000 }] }],
        },
      ],
      [
        {
          id: 1,
          stackLevel: 3,
          chargingProfilePurpose: 'TxDefaultProfile',
          chargingProfileKind: 'Relative',
          chargingSchedule: [{ id: 1, chargingRateUnit: 'A', chargingSchedulePeriod: [{ startPeriod: 0, limit: 12 }] }],
        },
      ],
    ]);
  });
});

describe('GetCompositeSchedule (K08)', () => {
  const composite = async (s: Awaited<ReturnType<typeof station>>, evseId: number, duration: number, chargingRateUnit?: string) => {
    const answer = await s.call('GetCompositeSchedule', { evseId, duration, ...(chargingRateUnit ? { chargingRateUnit } : {}) });
    expect(answer.status).toBe('Accepted');
    expect(answer.schedule).toMatchObject({ evseId, duration, scheduleStart: iso(s.clock.now()), chargingRateUnit: chargingRateUnit ?? 'A' });
    return answer.schedule.chargingSchedulePeriod.map((p: { startPeriod: number; limit: number }) => [p.startPeriod, p.limit]);
  };

  test('TC_K_39_CS no profile: the station maximum, in A or W; own limits count (lowest wins); TC_K_47_CS unknown EVSE: Rejected', async () => {
    const s = await station();
    expect(await composite(s, 1, 600)).toEqual([[0, 16]]);
    expect(await composite(s, 0, 600, 'W')).toEqual([[0, 16 * 230 * 3]]);
    s.limits.set('mqtt', 11); // an external load manager's limit
    expect(await composite(s, 1, 600)).toEqual([[0, 11]]);
    expect(await s.call('GetCompositeSchedule', { evseId: 2, duration: 600 })).toEqual(rejected('UnknownEvse'));
    expect(await s.call('GetCompositeSchedule', { evseId: 1, duration: -1 })).toEqual(rejected('ValuePositiveOnly'));
    expect(await composite(s, 1, 0)).toEqual([[0, 11]]); // a schedule has a period at least
  });

  test('TC_K_40_CS stacking: the highest stackLevel in force wins, a lower one where it ends', async () => {
    const s = await station();
    expect(await set(s, 1, profile201(1, 'TxDefaultProfile', 10))).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(2, 'TxDefaultProfile', 6, { stackLevel: 1 }, { duration: 300 }))).toEqual(ACCEPTED);
    await s.start('tx-1'); // Relative schedules count from the transaction's start
    expect(await composite(s, 1, 900)).toEqual([
      [0, 6],
      [300, 10],
    ]);
  });

  test('TC_K_41_CS combining purposes: TxProfile over TxDefaultProfile, capped by ChargingStationMaxProfile', async () => {
    const s = await station();
    const now = s.clock.now();
    await s.start('tx-1');
    expect(
      await set(s, 0, profile201(1, 'ChargingStationMaxProfile', 13, { chargingProfileKind: 'Absolute' }, { startSchedule: iso(now), duration: 600 })),
    ).toEqual(ACCEPTED);
    expect(await set(s, 1, profile201(2, 'TxDefaultProfile', 10))).toEqual(ACCEPTED);
    const tx = profile201(
      3,
      'TxProfile',
      0,
      { transactionId: 'tx-1' },
      {
        chargingSchedulePeriod: [
          { startPeriod: 0, limit: 15 },
          { startPeriod: 900, limit: 8 },
        ],
      },
    );
    expect(await set(s, 1, tx)).toEqual(ACCEPTED);
    expect(await composite(s, 1, 1200)).toEqual([
      [0, 13],
      [600, 15],
      [900, 8],
    ]);
    expect(s.ocppLimit()).toEqual({ amps: 13 });
    await s.end();
    expect(await composite(s, 1, 1200)).toEqual([[0, 10]]);
  });
});

test('TC_K_37_CS RequestStartTransaction with a TxProfile: installed for the transaction it starts, gone when it ends', async () => {
  const s = await station();
  expect(s.smart.forNextTransaction(profile201(9, 'TxDefaultProfile', 7) as never)).toMatchObject({ reasonCode: 'InvalidProfile' });
  expect(s.smart.forNextTransaction(profile201(9, 'TxProfile', 7) as never)).toBeUndefined();
  await s.start('tx-7');
  expect(s.ocppLimit()).toEqual({ amps: 7 });
  await s.call('GetChargingProfiles', { requestId: 1, evseId: 1, chargingProfile: {} });
  await s.csms.afterAnswers();
  expect(s.csms.reports[0]!.chargingProfile[0]).toMatchObject({ id: 9, chargingProfilePurpose: 'TxProfile', transactionId: 'tx-7' });
  await s.end();
  expect(s.ocppLimit()).toBeNull();
});
