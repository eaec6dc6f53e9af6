import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startCsms, type Csms, type CsmsOptions } from '../../bin/dev/central-system.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { createIssued, createRoot, signCsr, type Issued } from './pki-201.js';
import { expectValidFrames, until, useOcppChargers, type OcppCharger } from './support.js';

/**
 * Functional block A and the network profiles of B09/B10, end to end: the controller on simulated hardware against
 * development CSMSs in strict 2.0.1 mode (every frame checked again by typed-ocpp), over real TLS with a test PKI
 * made at test time (Node's TLS checks the certificates both ways: an independent peer of the station's own checks).
 * The certificates are valid both at the manual clock's time (the station checks them against it) and now (TLS
 * checks them against the real clock).
 */

const { charger, alsoClose } = useOcppChargers();
const DAY = 86_400_000;
const PASSWORD = 'station-password-1';
const V201 = { OcppVersions: 'ocpp2.0.1' };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The CSMS operator's PKI: its root (valid from before the manual clock's time) and server certificates for 127.0.0.1. */
function operatorPki() {
  const root = createRoot({ O: 'CSMS Operator', CN: 'CSMS Root CA' }, Date.now(), { notBefore: TEST_EPOCH - DAY });
  const server = (): { cert: string; key: string } => {
    const issued: Issued = createIssued(root, { CN: 'csms.test' }, Date.now(), { hosts: { ip: ['127.0.0.1'] } });
    return { cert: issued.pem, key: issued.key.export({ type: 'pkcs8', format: 'pem' }) as string };
  };
  const dir = mkdtempSync(join(tmpdir(), 'pki-201-'));
  dirs.push(dir);
  const caFile = join(dir, 'csms-root.pem');
  writeFileSync(caFile, root.pem);
  return { root, server, caFile };
}

/** A second 2.0.1 CSMS, closed and checked after the test. */
async function otherCsms(clock: ManualClock, options: CsmsOptions = {}): Promise<Csms> {
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'], ...options });
  alsoClose(csms);
  return csms;
}

/** Moves the manual clock 5 s at a time (the link's reconnection backoff runs on it) until `done` holds. */
async function advanceUntil(c: OcppCharger, done: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await c.step(5_000);
    await until(c, () => true);
  }
}

const variable = async (csms: Csms, component: string, name: string) =>
  (
    (await csms.call('GetVariables', { getVariableData: [{ component: { name: component }, variable: { name } }] })).getVariableResult[0] as {
      attributeValue?: string;
    }
  ).attributeValue;

const setVariable = async (csms: Csms, component: string, name: string, attributeValue: string) =>
  (
    (await csms.call('SetVariables', { setVariableData: [{ component: { name: component }, variable: { name }, attributeValue }] })).setVariableResult[0] as {
      attributeStatus: string;
    }
  ).attributeStatus;

const profile = (url: string, securityProfile: number, more: Record<string, unknown> = {}) => ({
  ocppVersion: 'OCPP20',
  ocppTransport: 'JSON',
  ocppCsmsUrl: url,
  messageTimeout: 30,
  securityProfile,
  ocppInterface: 'Wired0',
  ...more,
});

const securityEvents = (csms: Csms) => csms.calls('SecurityEventNotification').map((e) => e.type as string);

/** A charger whose Reset is counted; `resetAndRestart` starts its next run. */
async function restartable(opts: Parameters<typeof charger>[0] & object) {
  let restarts = 0;
  const c = await charger({ ...opts, harness: { restart: () => restarts++ } });
  return Object.assign(c, { restarted: () => restarts > 0 });
}

/** Reset Immediate, then the next run of the controller on the same data directory (as the restart would start it). */
async function resetAndRestart(c: OcppCharger & { restarted(): boolean }, settings: Record<string, number | string>): Promise<OcppCharger> {
  expect(await c.csms.call('Reset', { type: 'Immediate' })).toEqual({ status: 'Accepted' });
  await until(c, () => c.restarted(), 'the restart');
  const dataDir = c.h.dataDir;
  await c.h.stop({ keepData: true });
  return charger({ csms: c.csms, clock: c.clock, dataDir, settings });
}

describe('A security profiles, certificates and network profiles (B09/B10)', () => {
  test('TC_A_11 + TC_A_19-style: on profile 2 the CSMS installs its root, signs the station certificate, a profile 3 slot; Reset: mutual TLS', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const pki = operatorPki();
    const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'], password: PASSWORD, tls: pki.server() });
    const settings = { ...V201, OcppPassword: PASSWORD, OcppCaFile: pki.caFile };
    const c = await restartable({ csms, clock, settings });
    await c.online();
    expect(csms.url).toMatch(/^wss:/);
    expect(await variable(csms, 'SecurityCtrlr', 'SecurityProfile')).toBe('2');
    await until(c, () => securityEvents(csms).includes('StartupOfTheDevice'), 'StartupOfTheDevice');

    // M05 and M03: the root is installed and listed.
    expect(await csms.call('InstallCertificate', { certificateType: 'CSMSRootCertificate', certificate: pki.root.pem })).toEqual({ status: 'Accepted' });
    const ids = await csms.call('GetInstalledCertificateIds', { certificateType: ['CSMSRootCertificate'] });
    expect(ids).toMatchObject({ status: 'Accepted', certificateHashDataChain: [{ certificateType: 'CSMSRootCertificate' }] });
    expect(ids.certificateHashDataChain[0].certificateHashData.serialNumber).toBe(pki.root.cert.serialNumber.toLowerCase().replace(/^0+/, ''));

    // A profile 3 connection is refused while the station has no certificate.
    const csms3 = await otherCsms(clock, { tls: { ...pki.server(), clientCa: pki.root.pem } });
    expect(await csms.call('SetNetworkProfile', { configurationSlot: 1, connectionData: profile(csms3.url, 3) })).toMatchObject({
      status: 'Rejected',
      statusInfo: { reasonCode: 'NoCertificate' },
    });

    // A02: TriggerMessage → SignCertificate with a CSR for a key made here; the CSMS's CA signs it.
    expect(await csms.call('TriggerMessage', { requestedMessage: 'SignChargingStationCertificate' })).toEqual({ status: 'Accepted' });
    const request = await until(c, () => csms.calls('SignCertificate')[0], 'SignCertificate');
    expect(request.certificateType).toBe('ChargingStationCertificate');
    const signed = signCsr(request.csr as string, pki.root, Date.now(), { notBefore: TEST_EPOCH - DAY });
    expect(signed.cert.subject).toContain('CN=CP-TEST');
    expect(await csms.call('CertificateSigned', { certificateChain: signed.pem, certificateType: 'ChargingStationCertificate' })).toEqual({
      status: 'Accepted',
    });
    expect(await variable(csms, 'SecurityCtrlr', 'CertificateEntries')).toBe('2');

    // B09: slot 1 is the profile 3 connection; B10: it goes first.
    expect(await csms.call('SetNetworkProfile', { configurationSlot: 1, connectionData: profile(csms3.url, 3) })).toEqual({ status: 'Accepted' });
    await until(c, () => securityEvents(csms).includes('ReconfigurationOfSecurityParameters'), 'ReconfigurationOfSecurityParameters');
    expect(await setVariable(csms, 'OCPPCommCtrlr', 'NetworkConfigurationPriority', '1,0')).toBe('Accepted');
    expect(csms3.connections).toEqual([]);

    const next = await resetAndRestart(c, settings);
    await until(next, () => csms3.connected(), 'the connection to the profile 3 CSMS', 10_000);
    await until(next, () => next.h.controller.backend.online(), 'accepted by the profile 3 CSMS');
    expect(csms3.clientCertificates).toEqual(['CP-TEST']);
    expect(csms3.protocol()).toBe('ocpp2.0.1');
    expect(await variable(csms3, 'SecurityCtrlr', 'SecurityProfile')).toBe('3');
    expect(await variable(csms3, 'OCPPCommCtrlr', 'ActiveNetworkProfile')).toBe('1');
    await until(next, () => securityEvents(csms3).includes('StartupOfTheDevice'), 'StartupOfTheDevice at the new CSMS');
    expect(securityEvents(csms)).toContain('ResetOrReboot');

    expect(await csms3.call('SetNetworkProfile', { configurationSlot: 1, connectionData: profile(csms3.url, 3) })).toMatchObject({
      status: 'Rejected',
      statusInfo: { reasonCode: 'InvalidConfSlot' },
    });
    // No way back down (A05): a profile 2 connection is refused while profile 3 is in force.
    expect(await csms3.call('SetNetworkProfile', { configurationSlot: 2, connectionData: profile(csms.url, 2) })).toMatchObject({
      status: 'Rejected',
      statusInfo: { reasonCode: 'NoSecurityDowngrade' },
    });
    expectValidFrames(csms3);
  });

  test('B10 fallback: a CSMS refusing the password is tried NetworkProfileConnectionAttempts times, then slot 0 gets FailedToAuthenticateAtCsms', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'], password: PASSWORD });
    const refusals: string[] = [];
    const strange = await otherCsms(clock, { password: 'another password', log: (line) => line.startsWith('refused') && refusals.push(line) });
    const settings = { ...V201, OcppPassword: PASSWORD };
    const c = await restartable({ csms, clock, settings });
    await c.online();
    expect(await setVariable(csms, 'OCPPCommCtrlr', 'NetworkProfileConnectionAttempts', '2')).toBe('Accepted');
    expect(await csms.call('SetNetworkProfile', { configurationSlot: 2, connectionData: profile(strange.url, 1) })).toEqual({ status: 'Accepted' });
    expect(await setVariable(csms, 'OCPPCommCtrlr', 'NetworkConfigurationPriority', '2,0')).toBe('Accepted');
    const connections = csms.connections.length;

    const next = await resetAndRestart(c, settings);
    await advanceUntil(next, () => csms.connections.length > connections, 'the fallback to slot 0');
    expect(refusals).toHaveLength(2);
    expect(strange.connections).toEqual([]);
    await next.online();
    expect(await variable(csms, 'OCPPCommCtrlr', 'ActiveNetworkProfile')).toBe('0');
    await until(next, () => securityEvents(csms).filter((t) => t === 'FailedToAuthenticateAtCsms').length === 2, 'FailedToAuthenticateAtCsms twice');
    const event = csms.calls('SecurityEventNotification').find((e) => e.type === 'FailedToAuthenticateAtCsms')!;
    expect(event.techInfo).not.toContain(PASSWORD);
  });

  test('B10 fallback: a CSMS whose server certificate the installed roots do not vouch for is InvalidCsmsCertificate', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const pki = operatorPki();
    const stranger = operatorPki(); // another operator's PKI: its server certificate is not one of ours
    const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'], password: PASSWORD, tls: pki.server() });
    const impostor = await otherCsms(clock, { password: PASSWORD, tls: stranger.server() });
    const settings = { ...V201, OcppPassword: PASSWORD, OcppCaFile: pki.caFile };
    const c = await restartable({ csms, clock, settings });
    await c.online();
    expect(await setVariable(csms, 'OCPPCommCtrlr', 'NetworkProfileConnectionAttempts', '1')).toBe('Accepted');
    expect(await csms.call('SetNetworkProfile', { configurationSlot: 3, connectionData: profile(impostor.url, 2) })).toEqual({ status: 'Accepted' });
    expect(await setVariable(csms, 'OCPPCommCtrlr', 'NetworkConfigurationPriority', '3,0')).toBe('Accepted');
    const connections = csms.connections.length;

    const next = await resetAndRestart(c, settings);
    await advanceUntil(next, () => csms.connections.length > connections, 'the fallback to slot 0');
    expect(impostor.connections).toEqual([]);
    await until(next, () => securityEvents(csms).includes('InvalidCsmsCertificate'), 'InvalidCsmsCertificate');
  });

  test('SetNetworkProfile refusals: the installer slot, SOAP, old versions, a modem or VPN, a lower profile, the wrong scheme, no root', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'], password: PASSWORD });
    const c = await charger({ csms, clock, settings: { ...V201, OcppPassword: PASSWORD } });
    await c.online();
    const reason = async (slot: number, data: Record<string, unknown>) => {
      const answer = await csms.call('SetNetworkProfile', { configurationSlot: slot, connectionData: data });
      expect(answer.status).toBe('Rejected');
      return answer.statusInfo.reasonCode as string;
    };
    const ws = 'ws://127.0.0.1:1/ocpp';
    expect(await reason(0, profile(ws, 1))).toBe('InvalidConfSlot');
    expect(await reason(4, profile(ws, 1))).toBe('InvalidConfSlot');
    expect(await reason(1, profile(ws, 1, { ocppTransport: 'SOAP' }))).toBe('UnsupportedTransport');
    expect(await reason(1, profile(ws, 1, { ocppVersion: 'OCPP15' }))).toBe('UnsupportedVersion');
    expect(await reason(1, profile(ws, 1, { vpn: { server: 'vpn.example', user: 'u', password: 'p', key: 'k', type: 'IPSec' } }))).toBe('UnsupportedParam');
    expect(await reason(1, profile(ws, 0))).toBe('NoSecurityDowngrade');
    expect(await reason(1, profile('wss://127.0.0.1:1/ocpp', 1))).toBe('InvalidURL');
    expect(await reason(1, profile(ws, 2))).toBe('InvalidURL');
    expect(await reason(1, profile('wss://127.0.0.1:1/ocpp', 2))).toBe('NoRootCertificate');
    expect(await reason(1, profile('not a url', 1))).toBe('InvalidURL');
    // Nothing was stored: each stored profile records ReconfigurationOfSecurityParameters (checked last); with slot 1
    // first in the priority the station reconnects on slot 0.
    expect(await setVariable(csms, 'OCPPCommCtrlr', 'NetworkConfigurationPriority', '1,0')).toBe('Accepted');
    expect(await setVariable(csms, 'OCPPCommCtrlr', 'NetworkConfigurationPriority', '1,1')).toBe('Rejected');
    await csms.drop();
    await until(c, () => !c.h.controller.backend.online(), 'the link to see the drop');
    await advanceUntil(c, () => c.h.controller.backend.online(), 'the reconnection');
    expect(await variable(csms, 'OCPPCommCtrlr', 'ActiveNetworkProfile')).toBe('0');
    expect(csms.calls('SecurityEventNotification').map((e) => e.type)).not.toContain('ReconfigurationOfSecurityParameters');
  });
});

describe("A03 renewal on the station's own account", () => {
  test('A03-style: a certificate 30.5 days from expiry: nothing at boot; a day later the station sends SignCertificate on its own', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] });
    csms.answer('BootNotification', () => ({ status: 'Accepted', currentTime: new Date(clock.now()).toISOString(), interval: 86_400 }));
    const c = await charger({ csms, clock, settings: V201 });
    await c.online();
    const root = createRoot({ CN: 'CSMS Root CA' }, TEST_EPOCH);
    expect(await csms.call('InstallCertificate', { certificateType: 'CSMSRootCertificate', certificate: root.pem })).toEqual({ status: 'Accepted' });
    expect(await csms.call('TriggerMessage', { requestedMessage: 'SignChargingStationCertificate' })).toEqual({ status: 'Accepted' });
    const request = await until(c, () => csms.calls('SignCertificate')[0], 'SignCertificate');
    const signed = signCsr(request.csr as string, root, TEST_EPOCH, { notAfter: TEST_EPOCH + 30.5 * DAY });
    expect(await csms.call('CertificateSigned', { certificateChain: signed.pem, certificateType: 'ChargingStationCertificate' })).toEqual({
      status: 'Accepted',
    });
    const requests = () => csms.calls('SignCertificate').length;
    await c.step(23 * 3_600_000);
    await until(c, () => true);
    expect(requests()).toBe(1);
    await c.step(3_600_000);
    await until(c, () => requests() === 2, 'the renewal');
    expect(csms.calls('SignCertificate')[1]!.csr).not.toBe(request.csr);
  });
});

describe('A04 security events of the station itself', () => {
  test('the CSMS time an hour ahead sets the clock: SettingSystemTime after StartupOfTheDevice', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] });
    const ahead = () => new Date(clock.now() + 3_600_000).toISOString();
    csms.answer('BootNotification', () => ({ status: 'Accepted', currentTime: ahead(), interval: 300 }));
    const c = await charger({ csms, clock, settings: V201 });
    await c.online();
    await until(c, () => securityEvents(csms).includes('SettingSystemTime'), 'SettingSystemTime');
    expect(securityEvents(csms)).toEqual(['StartupOfTheDevice', 'SettingSystemTime']);
    const event = csms.calls('SecurityEventNotification')[1]!;
    expect(Date.parse(event.timestamp as string)).toBeGreaterThanOrEqual(clock.now() + 3_500_000);
  });

  test('A01: a new BasicAuthPassword by SetVariables is ReconfigurationOfSecurityParameters, without the password', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'], password: PASSWORD });
    const c = await charger({ csms, clock, settings: { ...V201, OcppPassword: PASSWORD } });
    await c.online();
    expect(await setVariable(csms, 'SecurityCtrlr', 'BasicAuthPassword', 'a-new-password-2345')).toBe('RebootRequired');
    await until(c, () => securityEvents(csms).includes('ReconfigurationOfSecurityParameters'), 'ReconfigurationOfSecurityParameters');
    expect(JSON.stringify(csms.calls('SecurityEventNotification'))).not.toContain('a-new-password-2345');
  });
});
