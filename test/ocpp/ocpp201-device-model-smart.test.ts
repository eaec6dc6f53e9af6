import { describe, expect, test } from 'vitest';
import { startCsms, type Csms, type Payload } from '../../bin/dev/central-system.js';
import { KNOWN } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { profile201 } from './smart-charging-201-support.js';
import { expectHeartbeatsEvery, until, useOcppChargers } from './support.js';

/**
 * The 2.0.1 device model (B05–B08) and smart charging (K01–K08) as a CSMS reaches them: the development CSMS in
 * 2.0.1 strict mode, every frame validated a second time by typed-ocpp's 2.0.1 schemas (useOcppChargers checks
 * `csms.invalid` after each test). Scenarios named after the OCA test cases.
 */

const { charger } = useOcppChargers();

async function station(settings: Record<string, number | string> = {}) {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] });
  const c = await charger({ csms, clock, settings: { OcppVersions: 'ocpp2.0.1,ocpp1.6', ...settings } });
  await c.online();
  return c;
}

const variable = (component: string, name: string, attributeType?: string) => ({
  component: { name: component },
  variable: { name },
  ...(attributeType ? { attributeType } : {}),
});

/** Every reported variable of the NotifyReport parts of a request, as `Component.Variable`. */
const reported = (csms: Csms, requestId: number) =>
  csms
    .calls('NotifyReport')
    .filter((r) => r.requestId === requestId)
    .flatMap((r: Payload) => (r.reportData ?? []).map((d: Payload) => `${d.component.name}.${d.variable.name}`));

describe('B device model', () => {
  test('TC_B_06_CS GetVariables: Actual values, unknown component or variable, unsupported attribute', async () => {
    const c = await station({ OcppHeartbeatInterval: 300 });
    const answer = await c.csms.call('GetVariables', {
      getVariableData: [
        variable('OCPPCommCtrlr', 'HeartbeatInterval'),
        variable('TxCtrlr', 'TxStartPoint'),
        variable('NoSuchCtrlr', 'HeartbeatInterval'),
        variable('OCPPCommCtrlr', 'NoSuchVariable'),
        variable('OCPPCommCtrlr', 'HeartbeatInterval', 'Target'),
      ],
    });
    expect(answer.getVariableResult.map((r: Payload) => [r.attributeStatus, r.attributeValue])).toEqual([
      ['Accepted', '300'],
      ['Accepted', 'PowerPathClosed'],
      ['UnknownComponent', undefined],
      ['UnknownVariable', undefined],
      ['NotSupportedAttributeType', undefined],
    ]);
  });

  test('TC_B_07/08_CS SetVariables: a mapped variable changes the controller (heartbeats follow it); bad and read-only values are refused', async () => {
    const c = await station({ OcppHeartbeatInterval: 300 });
    const answer = await c.csms.call('SetVariables', {
      setVariableData: [
        { ...variable('OCPPCommCtrlr', 'HeartbeatInterval'), attributeValue: '60' },
        { ...variable('OCPPCommCtrlr', 'HeartbeatInterval'), attributeValue: 'often' },
        { ...variable('TxCtrlr', 'TxBeforeAcceptedEnabled'), attributeValue: 'false' },
      ],
    });
    expect(answer.setVariableResult.map((r: Payload) => r.attributeStatus)).toEqual(['Accepted', 'Rejected', 'Rejected']);
    expect(c.h.controller.settings.get('OcppHeartbeatInterval')).toBe(60);
    await expectHeartbeatsEvery(c, c.csms, 60);
    const read = await c.csms.call('GetVariables', { getVariableData: [variable('OCPPCommCtrlr', 'HeartbeatInterval')] });
    expect(read.getVariableResult[0]).toMatchObject({ attributeStatus: 'Accepted', attributeValue: '60' });
  });

  test('TC_B_07_CS SetVariables SampledDataCtrlr TxUpdatedInterval and TxUpdatedMeasurands during a transaction: the Updated events follow them', async () => {
    const c = await station({ OcppMeterValueSampleInterval: 0 });
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await until(c, () => c.csms.calls('TransactionEvent').some((e) => e.triggerReason === 'ChargingStateChanged'), 'ChargingStateChanged');
    const periodic = () => c.csms.calls('TransactionEvent').filter((e) => e.triggerReason === 'MeterValuePeriodic');
    await c.step(120_000);
    expect(periodic()).toEqual([]);
    const answer = await c.csms.call('SetVariables', {
      setVariableData: [
        { ...variable('SampledDataCtrlr', 'TxUpdatedInterval'), attributeValue: '30' },
        { ...variable('SampledDataCtrlr', 'TxUpdatedMeasurands'), attributeValue: 'Energy.Active.Import.Register,Power.Active.Import' },
      ],
    });
    expect(answer.setVariableResult.map((r: Payload) => r.attributeStatus)).toEqual(['Accepted', 'Accepted']);
    await c.step(30_000);
    await until(c, () => periodic().length === 1, 'a MeterValuePeriodic event 30 s after the change');
    const measurands = periodic()[0]!.meterValue[0].sampledValue.map((v: Payload) => v.measurand ?? 'Energy.Active.Import.Register');
    expect(new Set(measurands)).toEqual(new Set(['Energy.Active.Import.Register', 'Power.Active.Import']));
    await c.step(30_000);
    await until(c, () => periodic().length === 2, 'the next one 30 s later');
  });

  test('TC_B_12/13_CS GetBaseReport: FullInventory in NotifyReport parts (seqNo, tbc), ConfigurationInventory only the writable', async () => {
    const c = await station();
    expect(await c.csms.call('GetBaseReport', { requestId: 7, reportBase: 'FullInventory' })).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('NotifyReport').some((r) => r.requestId === 7 && !r.tbc), 'the last NotifyReport part');
    const parts = c.csms.calls('NotifyReport').filter((r) => r.requestId === 7);
    expect(parts.map((p) => p.seqNo)).toEqual(parts.map((_, i) => i));
    expect(parts.slice(0, -1).every((p) => p.tbc === true)).toBe(true);
    const full = reported(c.csms, 7);
    expect(full).toEqual(expect.arrayContaining(['OCPPCommCtrlr.HeartbeatInterval', 'TxCtrlr.TxStartPoint', 'LocalAuthListCtrlr.Entries']));

    expect(await c.csms.call('GetBaseReport', { requestId: 8, reportBase: 'ConfigurationInventory' })).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('NotifyReport').some((r) => r.requestId === 8 && !r.tbc), 'the configuration report');
    const configuration = reported(c.csms, 8);
    expect(configuration).toContain('OCPPCommCtrlr.HeartbeatInterval');
    expect(configuration).not.toContain('TxCtrlr.TxBeforeAcceptedEnabled');
    expect(configuration).toContain('TxCtrlr.TxStartPoint');
    expect(configuration.length).toBeLessThan(full.length);
  });

  test('TC_B_14..B_17_CS GetReport by component and criteria; a live variable reports the station now (LocalAuthListCtrlr.Entries)', async () => {
    const c = await station({ OCPPWLEnabled: 1 });
    const list = [
      { idToken: { idToken: 'L1', type: 'ISO14443' }, idTokenInfo: { status: 'Accepted' } },
      { idToken: { idToken: 'L2', type: 'ISO14443' }, idTokenInfo: { status: 'Accepted' } },
    ];
    expect(await c.csms.call('SendLocalList', { versionNumber: 1, updateType: 'Full', localAuthorizationList: list })).toEqual({ status: 'Accepted' });
    const request = { requestId: 9, componentVariable: [{ component: { name: 'LocalAuthListCtrlr' }, variable: { name: 'Entries' } }] };
    expect(await c.csms.call('GetReport', request)).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('NotifyReport').some((r) => r.requestId === 9), 'the report');
    const [entries] = c.csms.calls('NotifyReport').find((r) => r.requestId === 9)!.reportData as Payload[];
    expect(entries).toMatchObject({ variable: { name: 'Entries' }, variableAttribute: [{ value: '2' }] });
    expect(await c.csms.call('GetReport', { requestId: 10, componentVariable: [{ component: { name: 'NoSuchCtrlr' } }] })).toEqual({
      status: 'EmptyResultSet',
    });
  });
});

describe('K smart charging (one schedule applier for both versions)', () => {
  const pwm = async (c: Awaited<ReturnType<typeof station>>) => (await c.view()).plant.pwmCurrentA as number;

  async function charging(c: Awaited<ReturnType<typeof station>>) {
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await until(c, () => c.csms.calls('TransactionEvent').some((e) => e.eventType === 'Started'), 'Started');
    return c.csms.calls('TransactionEvent').find((e) => e.eventType === 'Started')!.transactionInfo.transactionId as string;
  }

  test('TC_K_01/K_10_CS TxDefaultProfile and ChargingStationMaxProfile lower the PWM, lowest wins (MaxCurrent too), Clear lifts them', async () => {
    const c = await station({ MaxCurrent: 16 });
    await charging(c);
    expect(await pwm(c)).toBe(16);
    expect(await c.csms.call('SetChargingProfile', { evseId: 1, chargingProfile: profile201(1, 'TxDefaultProfile', 10) })).toEqual({ status: 'Accepted' });
    await until(c, async () => (await pwm(c)) === 10, 'the TxDefaultProfile limit');
    const max = profile201(2, 'ChargingStationMaxProfile', 8, { chargingProfileKind: 'Absolute' }, { startSchedule: new Date(c.clock.now()).toISOString() });
    expect(await c.csms.call('SetChargingProfile', { evseId: 0, chargingProfile: max })).toEqual({ status: 'Accepted' });
    await until(c, async () => (await pwm(c)) === 8, 'the station maximum');
    const capped = await c.csms.call('GetCompositeSchedule', { evseId: 1, duration: 600, chargingRateUnit: 'A' });
    expect(capped.schedule.chargingSchedulePeriod.map((p: Payload) => p.limit)).toEqual([8]);
    // A profile above the controller's own limit does not raise it: MaxCurrent 16 stays the ceiling.
    expect(await c.csms.call('ClearChargingProfile', { chargingProfileId: 2 })).toEqual({ status: 'Accepted' });
    expect(await c.csms.call('SetChargingProfile', { evseId: 1, chargingProfile: profile201(1, 'TxDefaultProfile', 32) })).toEqual({ status: 'Accepted' });
    // The allocator raises the current by its ramp at each step (docs/energy.md): the manual clock moves past the ramp.
    await c.step(60_000);
    await until(c, async () => (await pwm(c)) === 16, 'MaxCurrent as the ceiling');
    const composite = await c.csms.call('GetCompositeSchedule', { evseId: 1, duration: 600, chargingRateUnit: 'A' });
    expect(composite).toMatchObject({ status: 'Accepted', schedule: { evseId: 1, chargingRateUnit: 'A' } });
    expect(Math.max(...composite.schedule.chargingSchedulePeriod.map((p: Payload) => p.limit as number))).toBe(16);
    expect(await c.csms.call('ClearChargingProfile', { chargingProfileCriteria: { chargingProfilePurpose: 'TxDefaultProfile' } })).toEqual({
      status: 'Accepted',
    });
    expect(await c.csms.call('ClearChargingProfile', { chargingProfileId: 99 })).toEqual({ status: 'Unknown' });
  });

  test('TC_K_29..K_31_CS GetChargingProfiles: ReportChargingProfiles, NoProfiles when none match; SmartChargingCtrlr Entries counts them', async () => {
    const c = await station();
    expect(await c.csms.call('GetChargingProfiles', { requestId: 3, chargingProfile: { chargingProfilePurpose: 'TxDefaultProfile' } })).toEqual({
      status: 'NoProfiles',
    });
    expect(await c.csms.call('SetChargingProfile', { evseId: 1, chargingProfile: profile201(5, 'TxDefaultProfile', 12) })).toEqual({ status: 'Accepted' });
    expect(await c.csms.call('GetChargingProfiles', { requestId: 4, chargingProfile: { chargingProfilePurpose: 'TxDefaultProfile' } })).toEqual({
      status: 'Accepted',
    });
    await until(c, () => c.csms.calls('ReportChargingProfiles').length === 1, 'ReportChargingProfiles');
    expect(c.csms.calls('ReportChargingProfiles')[0]).toMatchObject({ requestId: 4, chargingLimitSource: 'CSO', evseId: 1, chargingProfile: [{ id: 5 }] });
    const entries = { component: { name: 'SmartChargingCtrlr' }, variable: { name: 'Entries', instance: 'ChargingProfiles' } };
    expect((await c.csms.call('GetVariables', { getVariableData: [entries] })).getVariableResult[0]).toMatchObject({ attributeValue: '1' });
  });

  test('TC_K_05_CS RequestStartTransaction with a TxProfile: installed for its transaction, limiting it, gone when it ends', async () => {
    const c = await station({ MaxCurrent: 16 });
    const start = { idToken: { idToken: 'REMOTE-K', type: 'Central' }, remoteStartId: 5, chargingProfile: profile201(11, 'TxProfile', 9) };
    const wrong = { ...start, chargingProfile: profile201(12, 'TxDefaultProfile', 9) };
    expect(await c.csms.call('RequestStartTransaction', wrong)).toMatchObject({ status: 'Rejected' });
    expect(await c.csms.call('RequestStartTransaction', start)).toEqual({ status: 'Accepted' });
    await c.act('plug');
    await c.act('charge');
    await until(c, () => c.csms.calls('TransactionEvent').some((e) => e.eventType === 'Started'), 'Started');
    await until(c, async () => (await pwm(c)) === 9, 'the TxProfile limit');
    await c.act('unplug');
    await until(c, () => c.csms.calls('TransactionEvent').some((e) => e.eventType === 'Ended'), 'Ended');
    expect(await c.csms.call('GetChargingProfiles', { requestId: 6, chargingProfile: { chargingProfilePurpose: 'TxProfile' } })).toEqual({
      status: 'NoProfiles',
    });
  });
});
