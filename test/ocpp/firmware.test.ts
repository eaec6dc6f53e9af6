import { expect, test } from 'vitest';
import { readHistory, readSlotState } from '../../services/field-service/slots.js';
import { useFileTransferFixtures } from './file-transfer-fixtures.js';
import { until, useOcppChargers } from './support.js';

/**
 * UpdateFirmware (OCPP 1.6 Firmware Management) against the strict central system with its second validator: the
 * update file is downloaded with HTTP GET from a local server standing in for the central system's file store,
 * installed by the real installer into a fake install root, reported by FirmwareStatusNotification; retries per
 * the request on the controller's clock; retrieveDate waited for; only http(s) locations.
 */

const { charger } = useOcppChargers();
const { fileStore, installRoot } = useFileTransferFixtures();

const statuses = (c: Awaited<ReturnType<typeof charger>>) => c.csms.calls('FirmwareStatusNotification').map((p: any) => p.status);
const now = (c: Awaited<ReturnType<typeof charger>>) => new Date(c.clock.now()).toISOString();

// The switch is asked for in the mode of the setting UpdateSwitchMode (finish-charge here), kept in the trial.
test('UpdateFirmware: downloaded (basic authentication from the URL), installed into the inactive slot for trial, the switch asked for', async () => {
  const r = await installRoot();
  const c = await charger({ harness: { updates: r.updates }, settings: { UpdateSwitchMode: 1 } });
  r.of.controller = c.h.controller;
  await c.online();
  const profiles = await c.csms.call('GetConfiguration', { key: ['SupportedFeatureProfiles'] });
  expect(profiles.configurationKey[0].value).toBe('Core,LocalAuthListManagement,RemoteTrigger,SmartCharging,Reservation,FirmwareManagement');
  const store = await fileStore(r.file);
  expect(await c.csms.call('UpdateFirmware', { location: `${store.url.replace('//', '//cs:pa%24%24@')}/fw/0.2.0.ccupdate`, retrieveDate: now(c) })).toEqual({});
  await until(c, () => statuses(c).includes('Installed'), 'the install');
  expect(statuses(c)).toEqual(['Downloading', 'Downloaded', 'Installing', 'Installed']);
  expect(store.requests.map(({ url, authorization }) => ({ url, authorization }))).toEqual([
    { url: '/fw/0.2.0.ccupdate', authorization: `Basic ${Buffer.from('cs:pa$$').toString('base64')}` },
  ]);
  expect(readSlotState(r.root).trial).toMatchObject({ slot: 'a', version: '0.2.0', attempts: 0, switchMode: 'finish-charge' });
  expect(r.switches).toEqual(['finish-charge']);
});

test('retrieveDate in the future is waited for; a failed download is tried again after retryInterval; every try failed: DownloadFailed', async () => {
  const r = await installRoot();
  const c = await charger({ harness: { updates: r.updates } });
  r.of.controller = c.h.controller;
  await c.online();
  const flaky = await fileStore(r.file, [503]);
  await c.csms.call('UpdateFirmware', {
    location: `${flaky.url}/u`,
    retrieveDate: new Date(c.clock.now() + 60_000).toISOString(),
    retries: 1,
    retryInterval: 30,
  });
  await c.step(59_000);
  expect(flaky.requests).toHaveLength(0);
  await c.step(1_000);
  await until(c, () => flaky.requests.length === 1, 'the first try');
  await c.step(29_000);
  expect(flaky.requests).toHaveLength(1);
  await c.step(1_000);
  await until(c, () => statuses(c).includes('Installed'), 'the second try');
  expect(statuses(c)).toEqual(['Downloading', 'Downloaded', 'Installing', 'Installed']);

  const r2 = await installRoot();
  const c2 = await charger({ harness: { updates: r2.updates } });
  r2.of.controller = c2.h.controller;
  await c2.online();
  const broken = await fileStore(r2.file, [500, 500]);
  await c2.csms.call('UpdateFirmware', { location: `${broken.url}/x`, retrieveDate: now(c2), retries: 0 });
  await until(c2, () => statuses(c2).includes('DownloadFailed'), 'the failure');
  expect(statuses(c2)).toEqual(['Downloading', 'DownloadFailed']);
  expect(readSlotState(r2.root).trial).toBeNull();
});

test('a tampered file: InstallationFailed, nothing installed; other locations than http(s) and a second request are refused', async () => {
  const r = await installRoot();
  const c = await charger({ harness: { updates: r.updates } });
  r.of.controller = c.h.controller;
  await c.online();
  const tampered = Buffer.from(r.file);
  tampered[tampered.length - 5]! ^= 0xff;
  const store = await fileStore(tampered);
  await expect(c.csms.call('UpdateFirmware', { location: 'ftp://files.example.com/fw', retrieveDate: now(c) })).rejects.toMatchObject({
    rpcErrorCode: 'PropertyConstraintViolation',
  });
  await c.csms.call('UpdateFirmware', { location: `${store.url}/fw`, retrieveDate: new Date(c.clock.now() + 10_000).toISOString() });
  await expect(c.csms.call('UpdateFirmware', { location: `${store.url}/fw`, retrieveDate: now(c) })).rejects.toMatchObject({ rpcErrorCode: 'GenericError' });
  await c.step(10_000);
  await until(c, () => statuses(c).includes('InstallationFailed'), 'the refusal');
  expect(statuses(c)).toEqual(['Downloading', 'Downloaded', 'Installing', 'InstallationFailed']);
  expect(readSlotState(r.root)).toMatchObject({ active: 'base', trial: null });
  expect(readHistory(r.root)).toEqual([]);
  expect(r.switches).toHaveLength(0);
});

test('without an installer (not under the launcher) UpdateFirmware is NotImplemented', async () => {
  const c = await charger();
  await c.online();
  await expect(c.csms.call('UpdateFirmware', { location: 'http://127.0.0.1/fw', retrieveDate: now(c) })).rejects.toMatchObject({
    rpcErrorCode: 'NotImplemented',
  });
});
