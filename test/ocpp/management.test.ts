import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { startCsms } from '../../bin/dev/central-system.js';
import { KNOWN } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { until, useOcppChargers, type OcppCharger } from './support.js';

/**
 * The central system managing the charge point: configuration keys, the local authorization list and the cache,
 * remote trigger, smart charging (the composite schedule drives the PWM), security profiles 1 and 2.
 */

const { charger } = useOcppChargers();

const iso = (ms: number) => new Date(ms).toISOString();

describe('configuration', () => {
  test('GetConfiguration: every key, mapped keys from the settings, read-only ones readonly, unknown ones listed; never AuthorizationKey', async () => {
    const c = await charger({ settings: { OcppPassword: 'a-password-of-20-chr' } });
    await c.online();
    const all = await c.csms.call('GetConfiguration', {});
    const byKey = Object.fromEntries(all.configurationKey.map((k: any) => [k.key, k]));
    expect(byKey.HeartbeatInterval).toEqual({ key: 'HeartbeatInterval', readonly: false, value: '300' });
    expect(byKey.ConnectionTimeOut).toEqual({ key: 'ConnectionTimeOut', readonly: false, value: '30' });
    expect(byKey.LocalAuthListEnabled).toEqual({ key: 'LocalAuthListEnabled', readonly: false, value: 'false' });
    expect(byKey.NumberOfConnectors).toEqual({ key: 'NumberOfConnectors', readonly: true, value: '1' });
    expect(byKey.SupportedFeatureProfiles.value).toBe('Core,LocalAuthListManagement,RemoteTrigger,SmartCharging,Reservation');
    expect(byKey.ReserveConnectorZeroSupported).toEqual({ key: 'ReserveConnectorZeroSupported', readonly: true, value: 'false' });
    expect(byKey.SecurityProfile).toEqual({ key: 'SecurityProfile', readonly: true, value: '1' });
    expect(byKey.AuthorizationKey).toBeUndefined();
    expect(await c.csms.call('GetConfiguration', { key: ['MeterValueSampleInterval', 'NoSuchKey', 'AuthorizationKey'] })).toEqual({
      configurationKey: [{ key: 'MeterValueSampleInterval', readonly: false, value: '60' }],
      unknownKey: ['NoSuchKey', 'AuthorizationKey'],
    });
  });

  test('ChangeConfiguration: a mapped key changes its setting; bad values Rejected, read-only Rejected, unknown NotSupported', async () => {
    const c = await charger();
    await c.online();
    const change = (key: string, value: string) => c.csms.call('ChangeConfiguration', { key, value });
    expect(await change('ConnectionTimeOut', '45')).toEqual({ status: 'Accepted' });
    expect(await change('LocalAuthListEnabled', 'true')).toEqual({ status: 'Accepted' });
    expect(await change('ConnectionTimeOut', '2')).toEqual({ status: 'Rejected' }); // AuthTimeout is 5–600 s
    expect(await change('ConnectionTimeOut', 'soon')).toEqual({ status: 'Rejected' });
    expect(await change('LocalAuthListEnabled', 'yes')).toEqual({ status: 'Rejected' });
    expect(await change('NumberOfConnectors', '2')).toEqual({ status: 'Rejected' });
    expect(await change('NoSuchKey', '1')).toEqual({ status: 'NotSupported' });
    const params = (await c.api('GET', '/v1/settings?params=AuthTimeout,OCPPWLEnabled')).json.params;
    expect(params).toEqual([{ AuthTimeout: 45 }, { OCPPWLEnabled: { value: 1, label: 'On' } }]);
  });

  test('AuthorizationKey (security profile 1): write-only, needs a reboot, never returned or logged', async () => {
    const c = await charger();
    await c.online();
    const password = 'new-secret-password-42';
    const hex = Buffer.from(password, 'latin1').toString('hex');
    expect(await c.csms.call('ChangeConfiguration', { key: 'AuthorizationKey', value: hex })).toEqual({ status: 'RebootRequired' });
    expect(await c.csms.call('ChangeConfiguration', { key: 'AuthorizationKey', value: 'zz' })).toEqual({ status: 'Rejected' });
    const shown = (await c.api('GET', '/v1/settings?params=OcppPassword')).json.params[0];
    expect(shown).toEqual({ OcppPassword: '' });
    const all = JSON.stringify((await c.api('GET', '/v1/settings')).json);
    expect(all).not.toContain(password);
    await c.step(0);
    expect(c.h.logs.join('')).not.toContain(password);
    expect(c.h.logs.join('')).not.toContain(hex);
  });
});

describe('local authorization list and cache', () => {
  test('SendLocalList Full and Differential (versioned), GetLocalListVersion, used offline per LocalAuthorizeOffline', async () => {
    const c = await charger({ settings: { OCPPWLEnabled: 1 } });
    await c.online();
    const send = (listVersion: number, updateType: string, localAuthorizationList?: unknown[]) =>
      c.csms.call('SendLocalList', { listVersion, updateType, ...(localAuthorizationList ? { localAuthorizationList } : {}) });
    expect(await c.csms.call('GetLocalListVersion', {})).toEqual({ listVersion: 0 });
    expect(
      await send(1, 'Full', [
        { idTag: 'AA000001', idTagInfo: { status: 'Accepted' } },
        { idTag: 'AA000002', idTagInfo: { status: 'Blocked' } },
        { idTag: 'AA000003', idTagInfo: { status: 'Accepted', expiryDate: iso(TEST_EPOCH - 1000) } },
      ]),
    ).toEqual({ status: 'Accepted' });
    expect(await send(2, 'Differential', [{ idTag: 'AA000004', idTagInfo: { status: 'Accepted' } }, { idTag: 'AA000001' }])).toEqual({ status: 'Accepted' });
    expect(await send(2, 'Differential', [{ idTag: 'AA000005', idTagInfo: { status: 'Accepted' } }])).toEqual({ status: 'VersionMismatch' });
    expect(await send(3, 'Full', [{ idTag: 'AA000006' }])).toEqual({ status: 'Failed' });
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ idTag: `T${i}`, idTagInfo: { status: 'Accepted' } }));
    expect(await send(3, 'Full', tooMany)).toEqual({ status: 'Failed' });
    expect(await c.csms.call('GetLocalListVersion', {})).toEqual({ listVersion: 2 });
    // Offline: the list decides (LocalAuthorizeOffline on, AllowOfflineTxForUnknownId off).
    await c.csms.close();
    await until(c, () => !c.h.controller.backend.online(), 'offline');
    await c.act('plug');
    for (const tag of ['AA000001', 'AA000002', 'AA000003']) {
      await c.tag(tag);
      expect({ tag, auth: (await c.state()).authState }).toEqual({ tag, auth: 'wait_for_auth' });
    }
    await c.tag('AA000004');
    expect((await c.state()).authState).toBe('authorized_for_charging');
  });

  test('GetLocalListVersion is -1 while the OCPP whitelist is off; the list is then not used', async () => {
    const c = await charger({ settings: { OcppLocalPreAuthorize: 1 } });
    c.csms.answer('Authorize', () => ({ idTagInfo: { status: 'Invalid' } }));
    await c.online();
    expect(
      await c.csms.call('SendLocalList', {
        listVersion: 1,
        updateType: 'Full',
        localAuthorizationList: [{ idTag: 'AA000001', idTagInfo: { status: 'Accepted' } }],
      }),
    ).toEqual({ status: 'Accepted' });
    expect(await c.csms.call('GetLocalListVersion', {})).toEqual({ listVersion: -1 });
    await c.act('plug');
    await c.tag('AA000001');
    await until(c, () => c.csms.calls('Authorize').length === 1, 'Authorize');
    expect((await c.state()).authState).toBe('wait_for_auth');
  });

  test('the cache: Authorize answers are used offline; LocalPreAuthorize skips Authorize online; ClearCache empties it', async () => {
    const c = await charger({ settings: { OcppLocalPreAuthorize: 1 } });
    await c.online();
    await c.act('plug');
    await c.tag('BB000001');
    expect(c.csms.calls('Authorize')).toHaveLength(1);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    await c.tag('BB000001'); // stop
    await c.act('unplug');
    await c.act('plug');
    await c.tag('BB000001'); // pre-authorized from the cache
    expect(c.csms.calls('Authorize')).toHaveLength(1);
    await c.tag('BB000001');
    await c.act('unplug');
    expect(await c.csms.call('ClearCache', {})).toEqual({ status: 'Accepted' });
    await c.csms.close();
    await until(c, () => !c.h.controller.backend.online(), 'offline');
    await c.act('plug');
    await c.tag('BB000001');
    expect((await c.state()).authState).toBe('wait_for_auth');
  });

  test('AllowOfflineTxForUnknownId: any tag charges while offline; the transaction is replayed later', async () => {
    const c = await charger({ settings: { OcppAllowOfflineTxForUnknownId: 1 } });
    await c.online();
    await c.csms.close();
    await until(c, () => !c.h.controller.backend.online(), 'offline');
    await c.act('plug');
    await c.tag('CC000001');
    expect((await c.state()).authState).toBe('authorized_for_charging');
  });
});

describe('remote trigger and data transfer', () => {
  test('TriggerMessage, DataTransfer, not supported calls', async () => {
    const c = await charger();
    await c.online();
    const before = c.csms.calls('StatusNotification').length;
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'StatusNotification' })).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('StatusNotification').length === before + 2, 'the statuses');
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'Heartbeat' })).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('Heartbeat').length === 1, 'a heartbeat');
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'MeterValues', connectorId: 1 })).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('MeterValues').length === 1, 'meter values');
    expect(c.csms.calls('MeterValues')[0]!.meterValue[0].sampledValue[0]).toMatchObject({ measurand: 'Energy.Active.Import.Register', context: 'Trigger' });
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'BootNotification' })).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('BootNotification').length === 2, 'a boot notification');
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'DiagnosticsStatusNotification' })).toEqual({ status: 'NotImplemented' });
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'Heartbeat', connectorId: 5 })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('DataTransfer', { vendorId: 'com.example', messageId: 'x', data: 'y' })).toEqual({ status: 'UnknownVendorId' });
    await expect(c.csms.call('UpdateFirmware', { location: 'https://example.com/f.bin', retrieveDate: iso(TEST_EPOCH + 60_000) })).rejects.toMatchObject({
      rpcErrorCode: 'NotImplemented',
    });
  });
});

describe('smart charging', () => {
  const profile = (id: number, purpose: string, limit: number, more: Record<string, unknown> = {}, unit = 'A') => ({
    chargingProfileId: id,
    stackLevel: 1,
    chargingProfilePurpose: purpose,
    chargingProfileKind: 'Relative',
    chargingSchedule: { chargingRateUnit: unit, chargingSchedulePeriod: [{ startPeriod: 0, limit }] },
    ...more,
  });

  async function charging(): Promise<OcppCharger> {
    const c = await charger();
    await c.online();
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await until(c, () => c.csms.calls('StartTransaction').length === 1, 'StartTransaction');
    expect((await c.view()).plant.pwmCurrentA).toBe(16);
    return c;
  }

  test('a TxProfile lowers the PWM for its duration; then the PWM returns to the maximum; GetCompositeSchedule shows it', async () => {
    const c = await charging();
    const tx = profile(1, 'TxProfile', 10, {
      transactionId: 1,
      chargingSchedule: {
        duration: 120,
        chargingRateUnit: 'A',
        chargingSchedulePeriod: [
          { startPeriod: 0, limit: 10 },
          { startPeriod: 60, limit: 8 },
        ],
      },
    });
    expect(await c.csms.call('SetChargingProfile', { connectorId: 1, csChargingProfiles: tx })).toEqual({ status: 'Accepted' });
    await c.step(0);
    expect((await c.view()).plant.pwmCurrentA).toBe(10);
    const composite = await c.csms.call('GetCompositeSchedule', { connectorId: 1, duration: 300, chargingRateUnit: 'A' });
    expect(composite.status).toBe('Accepted');
    // Relative to the transaction's start (a few hundred ms before now): 10 A, 8 A, then the installation maximum.
    expect(composite.chargingSchedule.chargingSchedulePeriod.map((p: any) => p.limit)).toEqual([10, 8, 16]);
    await c.step(60_000);
    expect((await c.view()).plant.pwmCurrentA).toBe(8);
    await c.step(60_000);
    await c.step(4_000); // a rise follows the allocator's ramp: 2 A a second (docs/energy.md)
    expect((await c.view()).plant.pwmCurrentA).toBe(16);
  });

  test('a ChargePointMaxProfile in W caps a TxDefaultProfile; validTo ends it; a limit below 6 A pauses charging', async () => {
    const c = await charging();
    const now = c.clock.now();
    // 4140 W on 3 phases at 230 V = 6 A.
    expect(
      await c.csms.call('SetChargingProfile', {
        connectorId: 0,
        csChargingProfiles: profile(1, 'ChargePointMaxProfile', 4140, {
          chargingProfileKind: 'Absolute',
          chargingSchedule: { startSchedule: iso(now), chargingRateUnit: 'W', chargingSchedulePeriod: [{ startPeriod: 0, limit: 4140 }] },
          validTo: iso(now + 30_000),
        }),
      }),
    ).toEqual({ status: 'Accepted' });
    expect(await c.csms.call('SetChargingProfile', { connectorId: 1, csChargingProfiles: profile(2, 'TxDefaultProfile', 12) })).toEqual({ status: 'Accepted' });
    await c.step(0);
    expect((await c.view()).plant.pwmCurrentA).toBe(6);
    await c.step(30_000);
    await c.step(3_000); // the ramp: 2 A a second
    expect((await c.view()).plant.pwmCurrentA).toBe(12);
    expect(await c.csms.call('SetChargingProfile', { connectorId: 1, csChargingProfiles: profile(3, 'TxDefaultProfile', 3, { stackLevel: 2 }) })).toEqual({
      status: 'Accepted',
    });
    await c.step(0);
    expect((await c.state()).ocppState).toBe('suspendedevse');
    expect(await c.csms.call('ClearChargingProfile', { id: 3 })).toEqual({ status: 'Accepted' });
    expect(await c.csms.call('ClearChargingProfile', { id: 3 })).toEqual({ status: 'Unknown' });
    await c.step(3_000); // from the pause: 6 A, then the ramp
    expect((await c.view()).plant.pwmCurrentA).toBe(12);
    await c.csms.call('ClearChargingProfile', {});
    await c.step(2_000);
    expect((await c.view()).plant.pwmCurrentA).toBe(16);
  });

  test('profiles the charge point cannot hold are Rejected', async () => {
    const c = await charger();
    await c.online();
    const set = (connectorId: number, p: unknown) => c.csms.call('SetChargingProfile', { connectorId, csChargingProfiles: p });
    expect(await set(1, profile(1, 'TxProfile', 10))).toEqual({ status: 'Rejected' }); // no transaction
    expect(await set(1, profile(1, 'ChargePointMaxProfile', 10))).toEqual({ status: 'Rejected' });
    expect(await set(2, profile(1, 'TxDefaultProfile', 10))).toEqual({ status: 'Rejected' });
    expect(await set(1, profile(1, 'TxDefaultProfile', 10, { chargingProfileKind: 'Recurring' }))).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('GetCompositeSchedule', { connectorId: 3, duration: 60 })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('GetCompositeSchedule', { connectorId: 1, duration: -1 })).toEqual({ status: 'Rejected' });
    // Periods out of order, a negative limit, numberPhases 0 (a W limit would divide by it): the checks both versions share.
    const periods = (list: unknown[]) => profile(1, 'TxDefaultProfile', 10, { chargingSchedule: { chargingRateUnit: 'W', chargingSchedulePeriod: list } });
    expect(
      await set(
        1,
        periods([
          { startPeriod: 0, limit: 10 },
          { startPeriod: 0, limit: 8 },
        ]),
      ),
    ).toEqual({ status: 'Rejected' });
    expect(await set(1, periods([{ startPeriod: 0, limit: -10 }]))).toEqual({ status: 'Rejected' });
    expect(await set(1, periods([{ startPeriod: 0, limit: 4000, numberPhases: 0 }]))).toEqual({ status: 'Rejected' });
    expect(await set(1, periods([{ startPeriod: 0, limit: 4000, numberPhases: 1 }]))).toEqual({ status: 'Accepted' });
  });
});

describe('security profiles', () => {
  const tls = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
  const cert = { cert: readFileSync(`${tls}server.pem`), key: readFileSync(`${tls}server.key`) };

  test('profile 2: wss:// with the server certificate checked against OcppCaFile; profile 1: basic auth', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), tls: cert, password: 'right-password-1234' });
    const c = await charger({ csms, clock, settings: { OcppCaFile: `${tls}ca.pem`, OcppPassword: 'right-password-1234' } });
    await c.online();
    expect(csms.url.startsWith('wss://')).toBe(true);
    expect(await csms.call('GetConfiguration', { key: ['SecurityProfile'] })).toMatchObject({ configurationKey: [{ value: '2' }] });
    expect(c.h.logs.join('')).not.toContain('right-password-1234');
  });

  test('a wrong password is refused by the central system; the link keeps retrying and is never online', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), password: 'right-password-1234' });
    const c = await charger({ csms, clock, settings: { OcppPassword: 'wrong-password-12345' } });
    await until(c, () => c.link() === 'backoff', 'the refusal');
    const refusal = c.h.logs.find((l) => l.includes('could not connect to the central system'));
    expect(refusal).toContain('401');
    expect(c.h.controller.backend.online()).toBe(false);
    expect(c.h.logs.join('')).not.toContain('wrong-password-12345');
  });

  test('a server certificate no trusted authority signed is refused (without OcppCaFile)', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), tls: cert });
    const c = await charger({ csms, clock });
    await until(c, () => c.link() === 'backoff', 'the refusal');
    const refusal = c.h.logs.find((l) => l.includes('could not connect to the central system'));
    expect(refusal).toMatch(/certificate/i);
    expect(csms.connections).toEqual([]);
  });

  test('configuration errors are clear and nothing connects', async () => {
    const c = await charger({ settings: { OcppCaFile: '/no/such/ca.pem' } });
    await c.step(0);
    expect(c.link()).toBe('disconnected');
    expect(c.h.logs.join('')).toContain('OCPP is enabled but cannot connect: OcppCaFile is set but OcppUrl is not wss://');
    const d = await charger({ settings: { OcppUrl: 'wss://127.0.0.1:1/ocpp', OcppCaFile: '/no/such/ca.pem' } });
    await d.step(0);
    expect(d.link()).toBe('disconnected');
    expect(d.h.logs.join('')).toContain('OcppCaFile \\"/no/such/ca.pem\\" cannot be read');
  });
});
