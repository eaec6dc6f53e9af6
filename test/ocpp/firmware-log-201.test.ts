import { sign } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { startCsms } from '../../bin/dev/central-system.js';
import { readSlotState } from '../../services/field-service/slots.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { useFileTransferFixtures } from './file-transfer-fixtures.js';
import { createIssued, createRoot } from './pki-201.js';
import { until, useOcppChargers, type OcppCharger } from './support.js';

/**
 * L UpdateFirmware and N GetLog of the 2.0.1 charging station (ocpp201/firmware-logs.ts over the update and upload
 * 1.6 uses, firmware.ts and diagnostics.ts) against the development CSMS in 2.0.1 strict mode, every frame validated
 * again by typed-ocpp's 2.0.1 schemas. The file store is a local HTTP server, as in the 1.6 tests; the update file is
 * installed by the real installer into a fake install root. Times on the test's manual clock.
 */

const { charger } = useOcppChargers();
const { fileStore, installRoot } = useFileTransferFixtures();

async function station(harness: Record<string, unknown> = {}): Promise<OcppCharger> {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] });
  const c = await charger({ csms, clock, settings: { OcppVersions: 'ocpp2.0.1,ocpp1.6' }, harness });
  await c.online();
  return c;
}

const firmware = (c: OcppCharger) => c.csms.calls('FirmwareStatusNotification').map((p) => `${p.status}:${p.requestId}`);
const logs = (c: OcppCharger) => c.csms.calls('LogStatusNotification').map((p) => `${p.status}:${p.requestId}`);
const iso = (c: OcppCharger, inS = 0) => new Date(c.clock.now() + inS * 1000).toISOString();

describe('L firmware (2.0.1)', () => {
  test('TC_L_01_CS UpdateFirmware → FirmwareStatusNotification Downloading/Downloaded/Installing/Installed, the update in its trial slot', async () => {
    const r = await installRoot();
    const c = await station({ updates: r.updates });
    r.of.controller = c.h.controller;
    const store = await fileStore(r.file);
    const request = { requestId: 5, firmware: { location: `${store.url}/fw/0.2.0.ccupdate`, retrieveDateTime: iso(c) } };
    expect(await c.csms.call('UpdateFirmware', request)).toEqual({ status: 'Accepted' });
    await until(c, () => firmware(c).includes('Installed:5'), 'the install');
    expect(firmware(c)).toEqual(['Downloading:5', 'Downloaded:5', 'Installing:5', 'Installed:5']);
    expect(store.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /fw/0.2.0.ccupdate']);
    expect(readSlotState(r.root).trial).toMatchObject({ version: '0.2.0' });
  });

  test('TC_L_xx_CS retrieveDateTime and installDateTime waited for (InstallScheduled); a failed download retried; TriggerMessage: the status', async () => {
    const r = await installRoot();
    const c = await station({ updates: r.updates });
    r.of.controller = c.h.controller;
    const store = await fileStore(r.file, [503]);
    // F06: no update under way: Idle, without a requestId.
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'FirmwareStatusNotification' })).toEqual({ status: 'Accepted' });
    await until(c, () => firmware(c).length === 1, 'the triggered status');
    expect(firmware(c)).toEqual(['Idle:undefined']);
    const request = {
      requestId: 6,
      retries: 1,
      retryInterval: 30,
      firmware: { location: `${store.url}/fw`, retrieveDateTime: iso(c, 60), installDateTime: iso(c, 600) },
    };
    expect(await c.csms.call('UpdateFirmware', request)).toEqual({ status: 'Accepted' });
    // One at a time: a second request while this one runs is Rejected (not cancelled: no AcceptedCanceled).
    expect(await c.csms.call('UpdateFirmware', { ...request, requestId: 7 })).toEqual({ status: 'Rejected' });
    await c.step(59_000);
    expect(store.requests).toHaveLength(0);
    await c.step(1_000);
    await until(c, () => store.requests.length === 1, 'the first try');
    await c.step(30_000);
    await until(c, () => firmware(c).includes('InstallScheduled:6'), 'the second try');
    expect(readSlotState(r.root).trial).toBeNull();
    // F06: the update under way: its last status again, with its requestId.
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'FirmwareStatusNotification' })).toEqual({ status: 'Accepted' });
    await until(c, () => firmware(c).filter((f) => f === 'InstallScheduled:6').length === 2, 'the triggered status');
    await c.step(500_000);
    expect(firmware(c)).not.toContain('Installing:6');
    await c.step(10_000);
    await until(c, () => firmware(c).includes('Installed:6'), 'the install at installDateTime');
    expect(firmware(c)).toEqual(['Idle:undefined', 'Downloading:6', 'Downloaded:6', 'InstallScheduled:6', 'InstallScheduled:6', 'Installing:6', 'Installed:6']);
  });

  test('TC_L_xx_CS a tampered update file: InstallationFailed (the installer checks its signature); an ftp location Rejected', async () => {
    const r = await installRoot();
    const c = await station({ updates: r.updates });
    r.of.controller = c.h.controller;
    const tampered = Buffer.from(r.file);
    tampered[tampered.length - 5]! ^= 0xff;
    const store = await fileStore(tampered);
    const ftp = { requestId: 1, firmware: { location: 'ftp://files.example.com/fw', retrieveDateTime: iso(c) } };
    expect(await c.csms.call('UpdateFirmware', ftp)).toEqual({ status: 'Rejected' });
    await c.csms.call('UpdateFirmware', { requestId: 2, firmware: { location: `${store.url}/fw`, retrieveDateTime: iso(c) } });
    await until(c, () => firmware(c).includes('InstallationFailed:2'), 'the refusal');
    expect(firmware(c)).toEqual(['Downloading:2', 'Downloaded:2', 'Installing:2', 'InstallationFailed:2']);
    expect(readSlotState(r.root)).toMatchObject({ active: 'base', trial: null });
  });
});

describe('L01 secure firmware update (2.0.1)', () => {
  test('TC_L_01-style: a file signed under the installed manufacturer root is SignatureVerified and installed; a bad signature or signer is not', async () => {
    const r = await installRoot();
    const c = await station({ updates: r.updates });
    r.of.controller = c.h.controller;
    const manufacturer = createRoot({ O: 'Charge Controller Project', CN: 'Firmware Root CA' }, TEST_EPOCH);
    const signer = createIssued(manufacturer, { CN: 'Firmware Signer' }, TEST_EPOCH);
    const stranger = createIssued(createRoot({ CN: 'Somebody Else' }, TEST_EPOCH), { CN: 'Firmware Signer' }, TEST_EPOCH);
    const signature = sign('sha256', r.file, signer.key).toString('base64');
    const store = await fileStore(r.file);
    const update = (requestId: number, signingCertificate: string, sig = signature) => ({
      requestId,
      firmware: { location: `${store.url}/fw`, retrieveDateTime: iso(c), signingCertificate, signature: sig },
    });
    const events = () => c.csms.calls('SecurityEventNotification').map((e) => e.type as string);

    // No manufacturer root installed yet: the signer is not trusted.
    expect(await c.csms.call('UpdateFirmware', update(1, signer.pem))).toMatchObject({
      status: 'InvalidCertificate',
      statusInfo: { reasonCode: 'InvalidChain' },
    });
    await c.csms.call('InstallCertificate', { certificateType: 'ManufacturerRootCertificate', certificate: manufacturer.pem });
    expect(await c.csms.call('UpdateFirmware', update(2, stranger.pem))).toMatchObject({ status: 'InvalidCertificate' });
    await until(c, () => events().filter((e) => e === 'InvalidFirmwareSigningCertificate').length === 2, 'InvalidFirmwareSigningCertificate twice');
    expect(await c.csms.call('UpdateFirmware', { requestId: 3, firmware: { location: `${store.url}/fw`, retrieveDateTime: iso(c), signature } })).toEqual({
      status: 'Rejected',
    });
    expect(store.requests).toHaveLength(0);

    // A signature of other bytes: downloaded, InvalidSignature, not installed.
    const wrong = sign('sha256', Buffer.from('another file'), signer.key).toString('base64');
    expect(await c.csms.call('UpdateFirmware', update(4, signer.pem, wrong))).toEqual({ status: 'Accepted' });
    await until(c, () => firmware(c).includes('InvalidSignature:4'), 'InvalidSignature');
    expect(firmware(c)).toEqual(['Downloading:4', 'Downloaded:4', 'InvalidSignature:4']);
    expect(readSlotState(r.root).trial).toBeNull();
    await until(c, () => events().includes('InvalidFirmwareSignature'), 'InvalidFirmwareSignature');

    // The right signature: verified, then installed.
    expect(await c.csms.call('UpdateFirmware', update(5, signer.pem))).toEqual({ status: 'Accepted' });
    await until(c, () => firmware(c).includes('Installed:5'), 'the install');
    expect(firmware(c).slice(3)).toEqual(['Downloading:5', 'Downloaded:5', 'SignatureVerified:5', 'Installing:5', 'Installed:5']);
    expect(readSlotState(r.root).trial).toMatchObject({ version: '0.2.0' });
  });
});

describe('N logs (2.0.1)', () => {
  test('TC_N_01_CS GetLog DiagnosticsLog → LogStatusNotification Uploading/Uploaded, the bundle PUT under the returned filename', async () => {
    const c = await station();
    const store = await fileStore();
    const answer = await c.csms.call('GetLog', { logType: 'DiagnosticsLog', requestId: 3, log: { remoteLocation: `${store.url}/logs/` } });
    expect(answer).toMatchObject({ status: 'Accepted', filename: expect.stringMatching(/^diagnostics-.*\.json\.gz$/) });
    await until(c, () => logs(c).includes('Uploaded:3'), 'the upload');
    expect(logs(c)).toEqual(['Uploading:3', 'Uploaded:3']);
    // F06: nothing under way any more: Idle.
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'LogStatusNotification' })).toEqual({ status: 'Accepted' });
    await until(c, () => logs(c).length === 3, 'the triggered status');
    expect(logs(c).at(-1)).toBe('Idle:undefined');
    const [upload] = store.requests;
    expect(upload).toMatchObject({ method: 'PUT', url: `/logs/${answer.filename as string}` });
    expect(JSON.parse(gunzipSync(upload!.body).toString('utf8'))).toMatchObject({ format: 'charge-controller-diagnostics' });
  });

  test('TC_N_xx_CS a failed upload retried after retryInterval, then UploadFailure; ftp and a second request Rejected', async () => {
    const c = await station();
    const store = await fileStore(undefined, [500, 500]);
    expect(await c.csms.call('GetLog', { logType: 'DiagnosticsLog', requestId: 1, log: { remoteLocation: 'ftp://x.example/l' } })).toEqual({
      status: 'Rejected',
    });
    const request = { logType: 'DiagnosticsLog', requestId: 4, retries: 1, retryInterval: 20, log: { remoteLocation: `${store.url}/l.gz` } };
    expect(await c.csms.call('GetLog', request)).toMatchObject({ status: 'Accepted' });
    expect(await c.csms.call('GetLog', { ...request, requestId: 8 })).toEqual({ status: 'Rejected' });
    await until(c, () => store.requests.length === 1, 'the first try');
    await c.step(19_000);
    expect(store.requests).toHaveLength(1);
    await c.step(1_000);
    await until(c, () => logs(c).includes('UploadFailure:4'), 'the failure');
    expect(logs(c)).toEqual(['Uploading:4', 'UploadFailure:4']);
  });

  test('TC_N_02-style GetLog SecurityLog: the security events recorded (sent or not) of the range, uploaded', async () => {
    const c = await station({ restart: () => undefined });
    await until(c, () => c.csms.calls('SecurityEventNotification').length === 1, 'StartupOfTheDevice sent');
    await c.step(1000);
    const before = iso(c);
    expect(await c.csms.call('Reset', { type: 'OnIdle' })).toEqual({ status: 'Accepted' });
    const store = await fileStore();
    const all = await c.csms.call('GetLog', { logType: 'SecurityLog', requestId: 9, log: { remoteLocation: `${store.url}/sec/` } });
    expect(all).toMatchObject({ status: 'Accepted', filename: expect.stringMatching(/^security-log-.*\.json\.gz$/) });
    await until(c, () => logs(c).includes('Uploaded:9'), 'the upload');
    const uploaded = JSON.parse(gunzipSync(store.requests[0]!.body).toString('utf8')) as { format: string; events: { type: string }[] };
    expect(uploaded.format).toBe('charge-controller-security-log');
    expect(uploaded.events.map((e) => e.type)).toEqual(['StartupOfTheDevice', 'ResetOrReboot']);
    // A range: only the events from `before` on.
    const later = { logType: 'SecurityLog', requestId: 10, log: { remoteLocation: `${store.url}/sec/`, oldestTimestamp: before } };
    expect(await c.csms.call('GetLog', later)).toMatchObject({ status: 'Accepted' });
    await until(c, () => logs(c).includes('Uploaded:10'), 'the second upload');
    const ranged = JSON.parse(gunzipSync(store.requests[1]!.body).toString('utf8')) as { events: { type: string }[] };
    expect(ranged.events.map((e) => e.type)).toEqual(['ResetOrReboot']);
  });
});
