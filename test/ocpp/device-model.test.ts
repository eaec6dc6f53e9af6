import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { OCPP20 } from 'typed-ocpp';
import { afterEach, expect, test } from 'vitest';
import { openDatabase, type Database } from '../../db/client.js';
import { createDeviceModel } from '../../services/ocpp/ocpp201/device-model.js';
import type { AvailabilityState } from '../../services/ocpp/ocpp201/device-model-variables.js';
import { loadStoredKeys } from '../../services/ocpp/stored-keys.js';
import { computedValues, createSettings } from '../../services/settings/index.js';

/**
 * The OCPP 2.0.1 device model (issue 31, B05–B08) through its handlers, as the adapter plugs them in: every request,
 * answer and NotifyReport checked by ocpp-rpc's strict 2.0.1 validator and, independently, by typed-ocpp's 2.0.1
 * schemas. Scenarios after the OCA test cases where they match (TC_B_…_CS).
 */

const require = createRequire(import.meta.url);
const { createValidator } = require('ocpp-rpc/lib/validator.js') as {
  createValidator(protocol: string, schemas: unknown): { validate(schemaId: string, params: unknown): boolean };
};
const strict = createValidator('ocpp2.0.1', require('ocpp-rpc/lib/schemas/ocpp2_0_1.json'));

type Payload = Record<string, any>;

let messageId = 0;
/** Both validators on one call and its answer; a refusal fails the test. */
function checked(action: string, request: Payload, response: Payload): void {
  strict.validate(`urn:${action}.req`, request);
  strict.validate(`urn:${action}.conf`, response);
  const call = [2, `m${++messageId}`, action, request];
  if (!OCPP20.validate(call)) throw new Error(`typed-ocpp refuses ${action}: ${(OCPP20.validate.errors ?? []).join('; ')}`);
  const result = [3, call[1], response];
  if (!OCPP20.checkCallResult(result as never, call as never))
    throw new Error(`typed-ocpp refuses ${action}'s answer: ${(OCPP20.checkCallResult.errors ?? []).join('; ')}`);
}

const open: { dir: string; database: Database }[] = [];
afterEach(async () => {
  for (const { dir, database } of open.splice(0)) {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** A station on a database (a new one, or `dir`'s again: a restart). */
async function station(dir?: string) {
  dir ??= await mkdtemp(join(tmpdir(), 'cc-device-model-'));
  const database = await openDatabase(`file:${join(dir, 'controller.db')}`);
  open.push({ dir, database });
  const settings = await createSettings(database, { now: () => 0, computed: () => computedValues(() => 0) });
  const storedKeys = await loadStoredKeys(database);
  const reports: Payload[] = [];
  const invalid: string[] = [];
  const logged: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logged.push(line) });
  const pending: (() => Promise<unknown> | void)[] = [];
  const state = { availability: 'Available' as AvailabilityState, power: 0, problem: false, entries: 0 };
  const model = await createDeviceModel({
    settings,
    storedKeys,
    database,
    station: {
      availability: () => state.availability,
      power: () => state.power,
      problem: () => state.problem,
      localListEntries: () => state.entries,
      chargingProfiles: () => 0,
      securityProfile: () => 1,
      activeNetworkProfile: () => 0,
      certificateEntries: () => 2,
    },
    // A refused NotifyReport is collected (the model would only log it) and fails the call that caused it.
    call: async (action, payload) => {
      reports.push(payload);
      try {
        checked(action, payload, {});
        if (action !== 'NotifyReport') throw new Error(`unexpected ${action}`);
      } catch (err) {
        invalid.push(String(err));
      }
      return {};
    },
    later: (fn) => pending.push(fn),
    now: () => Date.parse('2026-11-28T12:00:00Z'),
    logger,
  });
  /** One call of the CSMS, both ways validated; then what it left to do after the answer (NotifyReport). */
  const handle = async (action: keyof typeof model.calls, request: Payload): Promise<Payload> => {
    const response = (await (model.calls[action] as (p: Payload) => unknown)(request)) as Payload;
    checked(action, request, response);
    for (const fn of pending.splice(0)) await fn();
    expect(invalid).toEqual([]);
    return response;
  };
  return { dir, model, settings, storedKeys, handle, reports, logged, state };
}

const v = (component: string | Payload, variable: string | Payload, more: Payload = {}) => ({
  component: typeof component === 'string' ? { name: component } : component,
  variable: typeof variable === 'string' ? { name: variable } : variable,
  ...more,
});
const set = (component: string | Payload, variable: string | Payload, attributeValue: string, more: Payload = {}) =>
  v(component, variable, { attributeValue, ...more });

test('TC_B_06_CS, TC_B_07_CS: GetVariables of known, unknown and attribute-less variables; EVSE and connector components', async () => {
  const s = await station();
  s.state.power = 7200;
  const answer = await s.handle('GetVariables', {
    getVariableData: [
      v('OCPPCommCtrlr', 'HeartbeatInterval'),
      v('ChargingStation', 'VendorName'),
      v({ name: 'EVSE', evse: { id: 1 } }, 'Power'),
      v({ name: 'EVSE', evse: { id: 1 } }, 'Power', { attributeType: 'MaxSet' }),
      v({ name: 'Connector', evse: { id: 1, connectorId: 1 } }, 'ConnectorType'),
      v('OCPPCommCtrlr', { name: 'MessageAttempts', instance: 'TransactionEvent' }),
      v('NoSuchCtrlr', 'Enabled'),
      v('OCPPCommCtrlr', 'NoSuchVariable'),
      v('OCPPCommCtrlr', 'MessageAttempts'),
      v('OCPPCommCtrlr', 'HeartbeatInterval', { attributeType: 'Target' }),
      v({ name: 'EVSE', evse: { id: 2 } }, 'Power'),
    ],
  });
  expect(answer.getVariableResult.map((r: Payload) => [r.attributeStatus, r.attributeValue])).toEqual([
    ['Accepted', '300'],
    ['Accepted', 'ChargeController'],
    ['Accepted', '7200'],
    ['Accepted', String(s.settings.get('MaxCurrent') * 3 * 230)],
    ['Accepted', 'sType2'],
    ['Accepted', '3'],
    ['UnknownComponent', undefined],
    ['UnknownVariable', undefined],
    ['UnknownVariable', undefined],
    ['NotSupportedAttributeType', undefined],
    ['UnknownComponent', undefined],
  ]);
});

test('TC_B_08_CS (SetVariables): HeartbeatInterval is the controller setting; a change in the settings is what GetVariables reads', async () => {
  const s = await station();
  const answer = await s.handle('SetVariables', { setVariableData: [set('OCPPCommCtrlr', 'HeartbeatInterval', '120')] });
  expect(answer.setVariableResult).toEqual([{ attributeType: 'Actual', attributeStatus: 'Accepted', ...v('OCPPCommCtrlr', 'HeartbeatInterval') }]);
  expect(s.settings.get('OcppHeartbeatInterval')).toBe(120);
  expect(s.model.value('OCPPCommCtrlr', 'HeartbeatInterval')).toBe('120');

  await s.settings.set({ role: 'installer', username: 'installer' }, [{ key: 'OcppHeartbeatInterval', value: 600 }]);
  const read = await s.handle('GetVariables', { getVariableData: [v('OCPPCommCtrlr', 'HeartbeatInterval')] });
  expect(read.getVariableResult[0].attributeValue).toBe('600');

  // The authorization switches and the transaction message retries are settings too.
  const more = await s.handle('SetVariables', {
    setVariableData: [
      set('AuthCtrlr', 'LocalPreAuthorize', 'true'),
      set('LocalAuthListCtrlr', 'Enabled', 'true'),
      set('OCPPCommCtrlr', { name: 'MessageAttemptInterval', instance: 'TransactionEvent' }, '90'),
      set('SampledDataCtrlr', 'TxUpdatedInterval', '15'),
    ],
  });
  expect(more.setVariableResult.map((r: Payload) => r.attributeStatus)).toEqual(['Accepted', 'Accepted', 'Accepted', 'Accepted']);
  expect([s.settings.get('OcppLocalPreAuthorize'), s.settings.get('OCPPWLEnabled')]).toEqual([1, 1]);
  expect([s.settings.get('OcppTransactionMessageRetryInterval'), s.settings.get('OcppMeterValueSampleInterval')]).toEqual([90, 15]);
  expect(s.model.value('SampledDataCtrlr', 'TxUpdatedInterval')).toBe('15');
});

test('TC_B_09_CS, TC_B_10_CS: out of range, wrong type, read-only, unknown: refused per item, nothing changed', async () => {
  const s = await station();
  const answer = await s.handle('SetVariables', {
    setVariableData: [
      set('OCPPCommCtrlr', 'HeartbeatInterval', '10'),
      set('OCPPCommCtrlr', 'WebSocketPingInterval', 'sixty'),
      set('AuthCtrlr', 'LocalAuthorizeOffline', 'yes'),
      set('SampledDataCtrlr', 'TxUpdatedMeasurands', 'Temperature'),
      set('ChargingStation', 'VendorName', 'Other'),
      set('TxCtrlr', 'TxStartPoint', 'ParkingBayOccupancy'),
      set({ name: 'EVSE', evse: { id: 1 } }, 'Power', '1000', { attributeType: 'MaxSet' }),
      set('OCPPCommCtrlr', 'HeartbeatInterval', '60', { attributeType: 'MinSet' }),
      set('NoSuchCtrlr', 'HeartbeatInterval', '60'),
      set('OCPPCommCtrlr', 'Heartbeat', '60'),
    ],
  });
  expect(answer.setVariableResult.map((r: Payload) => r.attributeStatus)).toEqual([
    'Rejected',
    'Rejected',
    'Rejected',
    'Rejected',
    'Rejected',
    'Rejected',
    'Rejected',
    'NotSupportedAttributeType',
    'UnknownComponent',
    'UnknownVariable',
  ]);
  expect([s.settings.get('OcppHeartbeatInterval'), s.settings.get('OcppWebSocketPingInterval'), s.settings.get('OcppLocalAuthorizeOffline')]).toEqual([
    300, 60, 1,
  ]);
  expect(s.storedKeys.get('MeterValuesSampledData')).toBe('Energy.Active.Import.Register,Power.Active.Import,Current.Import,Temperature');
  expect(s.model.value('TxCtrlr', 'TxStartPoint')).toBe('PowerPathClosed');
});

test('RebootRequired: Identity is the charge box id, applied at the next start', async () => {
  const s = await station();
  const answer = await s.handle('SetVariables', { setVariableData: [set('SecurityCtrlr', 'Identity', 'CS-0042')] });
  expect(answer.setVariableResult[0].attributeStatus).toBe('RebootRequired');
  expect(s.settings.get('OcppChargeBoxId')).toBe('CS-0042');
  const bad = await s.handle('SetVariables', { setVariableData: [set('SecurityCtrlr', 'Identity', 'no spaces allowed')] });
  expect(bad.setVariableResult[0].attributeStatus).toBe('Rejected');
  expect(s.settings.get('OcppChargeBoxId')).toBe('CS-0042');
});

test('BasicAuthPassword is WriteOnly: set (RebootRequired), never read back, reported or logged', async () => {
  const s = await station();
  const password = 'a-secret-password-1234';
  const answer = await s.handle('SetVariables', { setVariableData: [set('SecurityCtrlr', 'BasicAuthPassword', password)] });
  expect(answer.setVariableResult[0].attributeStatus).toBe('RebootRequired');
  expect(s.settings.get('OcppPassword')).toBe(password);
  const read = await s.handle('GetVariables', { getVariableData: [v('SecurityCtrlr', 'BasicAuthPassword')] });
  expect(read.getVariableResult[0]).toEqual({ attributeStatus: 'Rejected', attributeType: 'Actual', ...v('SecurityCtrlr', 'BasicAuthPassword') });
  expect(s.model.value('SecurityCtrlr', 'BasicAuthPassword')).toBeUndefined();
  await s.handle('GetBaseReport', { requestId: 1, reportBase: 'FullInventory' });
  const reported = s.reports.flatMap((r) => r.reportData).find((d: Payload) => d.variable.name === 'BasicAuthPassword');
  expect(reported.variableAttribute).toEqual([{ type: 'Actual', mutability: 'WriteOnly', persistent: true, constant: false }]);
  expect(reported.variableCharacteristics).toEqual({ dataType: 'string', maxLimit: 40, supportsMonitoring: false });
  expect(JSON.stringify(s.reports)).not.toContain(password);
  expect(s.logged.join('')).toContain('BasicAuthPassword');
  expect(s.logged.join('')).not.toContain(password);
  // Too short for the setting: refused, the password kept.
  const short = await s.handle('SetVariables', { setVariableData: [set('SecurityCtrlr', 'BasicAuthPassword', 'short')] });
  expect(short.setVariableResult[0].attributeStatus).toBe('Rejected');
  expect(s.settings.get('OcppPassword')).toBe(password);
});

test('TC_B_12_CS FullInventory: NotifyReport in parts of ItemsPerMessage with seqNo, tbc and generatedAt', async () => {
  const s = await station();
  expect(await s.handle('GetBaseReport', { requestId: 7, reportBase: 'FullInventory' })).toEqual({ status: 'Accepted' });
  const items = (await s.handle('GetVariables', { getVariableData: [v('DeviceDataCtrlr', { name: 'ItemsPerMessage', instance: 'GetReport' })] }))
    .getVariableResult[0].attributeValue;
  expect(items).toBe('20');
  expect(s.reports.length).toBeGreaterThan(2);
  s.reports.forEach((r, i) => {
    expect(r).toMatchObject({ requestId: 7, seqNo: i, tbc: i < s.reports.length - 1, generatedAt: '2026-11-28T12:00:00.000Z' });
    expect(r.reportData.length).toBe(i < s.reports.length - 1 ? 20 : r.reportData.length);
    expect(r.reportData.length).toBeLessThanOrEqual(20);
  });
  const all = s.reports.flatMap((r) => r.reportData);
  const find = (c: string, name: string) => all.find((d: Payload) => d.component.name === c && d.variable.name === name);
  expect(find('OCPPCommCtrlr', 'HeartbeatInterval')).toEqual({
    component: { name: 'OCPPCommCtrlr' },
    variable: { name: 'HeartbeatInterval' },
    variableAttribute: [{ type: 'Actual', value: '300', mutability: 'ReadWrite', persistent: true, constant: false }],
    variableCharacteristics: { dataType: 'integer', minLimit: 30, maxLimit: 86400, unit: 's', supportsMonitoring: false },
  });
  expect(find('EVSE', 'Power').variableAttribute.map((a: Payload) => [a.type, a.value, a.mutability])).toEqual([
    ['Actual', '0', 'ReadOnly'],
    ['MaxSet', String(s.settings.get('MaxCurrent') * 3 * 230), 'ReadOnly'],
  ]);
  expect(find('EVSE', 'Power').variableCharacteristics).toEqual({ dataType: 'decimal', unit: 'W', maxLimit: 32 * 3 * 230, supportsMonitoring: false });
  expect(find('ChargingStation', 'Model').variableAttribute[0]).toMatchObject({ value: 'AC-Type2', mutability: 'ReadOnly', constant: true });
  for (const [c, name] of [
    ['ChargingStation', 'AvailabilityState'],
    ['Connector', 'ConnectorType'],
    ['AuthCacheCtrlr', 'Enabled'],
    ['TxCtrlr', 'TxStopPoint'],
    ['SmartChargingCtrlr', 'RateUnit'],
    ['ClockCtrlr', 'DateTime'],
  ]) {
    expect(find(c!, name!), `${c}.${name}`).toBeDefined();
  }
});

test('TC_B_13_CS ConfigurationInventory holds only what the CSMS can set; SummaryInventory the availability', async () => {
  const s = await station();
  expect(await s.handle('GetBaseReport', { requestId: 1, reportBase: 'ConfigurationInventory' })).toEqual({ status: 'Accepted' });
  const configuration = s.reports.flatMap((r) => r.reportData);
  expect(configuration.every((d: Payload) => d.variableAttribute[0].mutability !== 'ReadOnly')).toBe(true);
  expect(configuration.map((d: Payload) => d.variable.name)).toContain('HeartbeatInterval');
  s.reports.length = 0;
  s.state.availability = 'Occupied';
  expect(await s.handle('GetBaseReport', { requestId: 2, reportBase: 'SummaryInventory' })).toEqual({ status: 'Accepted' });
  expect(s.reports).toHaveLength(1);
  expect(s.reports[0]).toMatchObject({ requestId: 2, seqNo: 0 });
  expect(s.reports[0]!.tbc).toBe(false);
  expect(s.reports[0]!.reportData.map((d: Payload) => [d.component.name, d.variable.name, d.variableAttribute[0].value])).toEqual([
    ['ChargingStation', 'AvailabilityState', 'Occupied'],
    ['EVSE', 'AvailabilityState', 'Occupied'],
    ['Connector', 'AvailabilityState', 'Occupied'],
    ['ChargingStation', 'Problem', 'false'],
  ]);
});

test('TC_B_14_CS … TC_B_17_CS GetReport: by componentVariable, by componentCriteria, both; nothing matching is EmptyResultSet', async () => {
  const s = await station();
  const names = () =>
    s.reports
      .splice(0)
      .flatMap((r) => r.reportData.map((d: Payload) => `${d.component.name}.${d.variable.name}${d.variable.instance ? `.${d.variable.instance}` : ''}`));

  expect(
    await s.handle('GetReport', { requestId: 1, componentVariable: [v('OCPPCommCtrlr', 'HeartbeatInterval'), { component: { name: 'AuthCacheCtrlr' } }] }),
  ).toEqual({
    status: 'Accepted',
  });
  expect(names()).toEqual(['OCPPCommCtrlr.HeartbeatInterval', 'AuthCacheCtrlr.Available', 'AuthCacheCtrlr.Enabled', 'AuthCacheCtrlr.Policy']);

  // Enabled: the components whose Enabled is true (the local list is off by default, the cache on).
  await s.handle('GetReport', { requestId: 2, componentCriteria: ['Enabled'] });
  const enabled = new Set(names().map((n) => n.split('.')[0]));
  expect(enabled).toContain('AuthCacheCtrlr');
  expect(enabled).not.toContain('LocalAuthListCtrlr');

  expect(await s.handle('GetReport', { requestId: 3, componentCriteria: ['Problem'] })).toEqual({ status: 'EmptyResultSet' });
  s.state.problem = true;
  expect(await s.handle('GetReport', { requestId: 4, componentCriteria: ['Problem'], componentVariable: [v('ChargingStation', 'Model')] })).toEqual({
    status: 'Accepted',
  });
  expect(names()).toEqual(['ChargingStation.Model']);

  await s.handle('GetReport', { requestId: 5, componentCriteria: ['Available'], componentVariable: [{ component: { name: 'EVSE' } }] });
  expect(names()).toContain('EVSE.AvailabilityState');
  expect(await s.handle('GetReport', { requestId: 6, componentCriteria: ['Active'] })).toEqual({ status: 'EmptyResultSet' });
  expect(await s.handle('GetReport', { requestId: 7, componentVariable: [v('NoSuchCtrlr', 'Enabled')] })).toEqual({ status: 'EmptyResultSet' });
  expect(s.reports).toEqual([]);
});

test('a request over ItemsPerMessage or BytesPerMessage is refused with a CALLERROR, nothing set', async () => {
  const s = await station();
  const calls = s.model.calls as unknown as Record<string, (p: Payload) => unknown>;
  const items = Array.from({ length: 51 }, () => set('OCPPCommCtrlr', 'HeartbeatInterval', '45'));
  // 1.6 spellings: the transport maps them to 2.0.1's OccurrenceConstraintViolation and FormatViolation.
  await expect(calls.SetVariables!({ setVariableData: items })).rejects.toMatchObject({ rpcErrorCode: 'OccurenceConstraintViolation' });
  const big = Array.from({ length: 40 }, () => set('SecurityCtrlr', 'OrganizationName', 'x'.repeat(1000)));
  strict.validate('urn:SetVariables.req', { setVariableData: big });
  await expect(calls.SetVariables!({ setVariableData: big })).rejects.toMatchObject({ rpcErrorCode: 'FormationViolation' });
  expect(s.settings.get('OcppHeartbeatInterval')).toBe(300);
  expect(s.model.value('SecurityCtrlr', 'OrganizationName')).toBe('ChargeController');
  const gets = Array.from({ length: 51 }, () => v('OCPPCommCtrlr', 'HeartbeatInterval'));
  expect(() => calls.GetVariables!({ getVariableData: gets })).toThrow(/more than 50 items/);
  const report = Array.from({ length: 21 }, () => ({ component: { name: 'TxCtrlr' } }));
  expect(() => calls.GetReport!({ requestId: 1, componentVariable: report })).toThrow(/more than 20 items/);
  expect(s.reports).toEqual([]);
});

test('stored variables persist: measurands (the 1.6 keys the metering reads) and OrganizationName, across a restart', async () => {
  const s = await station();
  const answer = await s.handle('SetVariables', {
    setVariableData: [
      set('SampledDataCtrlr', 'TxUpdatedMeasurands', 'Energy.Active.Import.Register,Current.Offered'),
      set('AlignedDataCtrlr', 'Measurands', 'Power.Active.Import'),
      set('SecurityCtrlr', 'OrganizationName', 'Example Charging Ltd'),
    ],
  });
  expect(answer.setVariableResult.map((r: Payload) => r.attributeStatus)).toEqual(['Accepted', 'Accepted', 'Accepted']);
  expect(s.storedKeys.measurands('MeterValuesSampledData')).toEqual(['Energy.Active.Import.Register', 'Current.Offered']);

  const again = await station(s.dir);
  expect(again.model.value('SampledDataCtrlr', 'TxUpdatedMeasurands')).toBe('Energy.Active.Import.Register,Current.Offered');
  expect(again.model.value('AlignedDataCtrlr', 'Measurands')).toBe('Power.Active.Import');
  expect(again.model.value('SecurityCtrlr', 'OrganizationName')).toBe('Example Charging Ltd');
  expect(again.storedKeys.get('MeterValuesAlignedData')).toBe('Power.Active.Import');
});

test('value(): what the adapter reads (TxStartPoint, TxUpdatedInterval, instances); unknown is undefined', async () => {
  const s = await station();
  expect(s.model.value('TxCtrlr', 'TxStartPoint')).toBe('PowerPathClosed');
  expect(s.model.value('TxCtrlr', 'TxStopPoint')).toBe('PowerPathClosed');
  expect(s.model.value('SampledDataCtrlr', 'TxUpdatedInterval')).toBe('60');
  expect(s.model.value('OCPPCommCtrlr', 'MessageAttempts', 'TransactionEvent')).toBe('3');
  expect(s.model.value('OCPPCommCtrlr', 'MessageAttempts')).toBeUndefined();
  expect(s.model.value('NoSuchCtrlr', 'Enabled')).toBeUndefined();
  // 2.0.1 has no Temperature measurand: the shared 1.6 default shows without it.
  expect(s.model.value('SampledDataCtrlr', 'TxUpdatedMeasurands')).toBe('Energy.Active.Import.Register,Power.Active.Import,Current.Import');
});
