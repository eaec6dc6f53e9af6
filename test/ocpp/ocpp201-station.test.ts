import { describe, expect, test } from 'vitest';
import { startCsms, type Csms, type Payload } from '../../bin/dev/central-system.js';
import { KNOWN, OTHER } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { actions, until, useOcppChargers } from './support.js';

/**
 * The OCPP 2.0.1 charging station against the development CSMS in 2.0.1 strict mode (ocpp-rpc's validator), every
 * frame validated a second time by typed-ocpp's 2.0.1 schemas (useOcppChargers checks `csms.invalid` after each
 * test). Scenarios named after the OCA test cases of the blocks built (B, C, E, F, G, P).
 */

const { charger, alsoClose } = useOcppChargers();
const V201 = { OcppVersions: 'ocpp2.0.1,ocpp1.6' };
/** A tag only the CSMS knows. */
const CSMS_TAG = 'C5C5C5C5';

async function csms201(clock: ManualClock): Promise<Csms> {
  return startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] });
}

async function station(settings: Record<string, number | string> = {}, opts: { csms?: Csms; restart?: () => void } = {}) {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = opts.csms ?? (await csms201(clock));
  return charger({ csms, clock, settings: { ...V201, ...settings }, ...(opts.restart ? { harness: { restart: opts.restart } } : {}) });
}

const statuses = (csms: Csms) => csms.calls('StatusNotification').map((p) => p.connectorStatus as string);
const events = (csms: Csms) => csms.calls('TransactionEvent');
const summary = (e: Payload) => `${e.eventType}:${e.triggerReason}:${e.seqNo}`;

describe('B provisioning', () => {
  test('TC_B_01_CS cold boot: BootNotification PowerUp, then the connector Available on EVSE 1', async () => {
    const c = await station();
    await c.online();
    expect(c.csms.protocol()).toBe('ocpp2.0.1');
    expect(c.csms.calls('BootNotification')[0]).toMatchObject({ reason: 'PowerUp', chargingStation: { vendorName: 'ChargeController', model: 'AC-Type2' } });
    await until(c, () => statuses(c.csms).length === 1, 'StatusNotification');
    expect(c.csms.calls('StatusNotification')[0]).toMatchObject({ connectorStatus: 'Available', evseId: 1, connectorId: 1 });
  });

  test('TC_B_02_CS Pending: nothing but BootNotification until accepted; transactions refused while pending', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await csms201(clock);
    let boots = 0;
    csms.answer('BootNotification', () => ({ status: ++boots === 1 ? 'Pending' : 'Accepted', currentTime: new Date(clock.now()).toISOString(), interval: 30 }));
    const c = await station({}, { csms });
    await until(c, () => JSON.stringify(c.link()) === JSON.stringify({ connected: 'pending' }), 'pending');
    const start = { idToken: { idToken: 'R1', type: 'Central' }, remoteStartId: 1 };
    expect(await csms.call('RequestStartTransaction', start)).toEqual({ status: 'Rejected' });
    await c.step(29_000);
    expect(actions(csms)).toEqual(['BootNotification']);
    await c.step(1_000);
    await c.online();
    expect(boots).toBe(2);
    await until(c, () => statuses(csms).length === 1, 'StatusNotification');
  });

  test('TC_B_03_CS Rejected: the CSMS calls are refused (SecurityError) until a later boot is accepted', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await csms201(clock);
    let boots = 0;
    csms.answer('BootNotification', () => ({
      status: ++boots === 1 ? 'Rejected' : 'Accepted',
      currentTime: new Date(clock.now()).toISOString(),
      interval: 60,
    }));
    const c = await station({}, { csms });
    await until(c, () => JSON.stringify(c.link()) === JSON.stringify({ connected: 'rejected' }), 'rejected');
    await expect(csms.call('DataTransfer', { vendorId: 'x' })).rejects.toMatchObject({ rpcErrorCode: 'SecurityError' });
    await c.step(60_000);
    await c.online();
  });

  test('TC_B_11/12_CS Reset Immediate ends the transaction (ImmediateReset), OnIdle waits for its end; the next boot says RemoteReset', async () => {
    let restarts = 0;
    const c = await station({}, { restart: () => restarts++ });
    await c.online();
    await c.act('plug');
    await c.tag(KNOWN);
    await until(c, () => events(c.csms).length >= 1, 'Started');
    expect(await c.csms.call('Reset', { type: 'OnIdle' })).toEqual({ status: 'Scheduled' });
    await c.step(1000);
    expect(restarts).toBe(0);
    await c.tag(KNOWN);
    await until(c, () => restarts === 1, 'the restart after the transaction');
    expect(events(c.csms).at(-1)).toMatchObject({ eventType: 'Ended', transactionInfo: { stoppedReason: 'Local' } });
    expect(await c.csms.call('Reset', { type: 'Immediate', evseId: 1 })).toEqual({ status: 'Rejected' });
    await c.tag(KNOWN);
    await until(c, () => events(c.csms).filter((e) => e.eventType === 'Started').length === 2, 'a second Started');
    expect(await c.csms.call('Reset', { type: 'Immediate' })).toEqual({ status: 'Accepted' });
    await until(c, () => restarts === 2, 'the restart');
    expect(events(c.csms).at(-1)).toMatchObject({ eventType: 'Ended', triggerReason: 'ResetCommand', transactionInfo: { stoppedReason: 'ImmediateReset' } });
    // The next run on the same data directory boots with RemoteReset.
    const dataDir = c.h.dataDir;
    await c.h.stop({ keepData: true });
    const next = await charger({ csms: c.csms, clock: c.clock, dataDir });
    await next.online();
    expect(c.csms.calls('BootNotification').at(-1)).toMatchObject({ reason: 'RemoteReset' });
  });
});

describe('E transactions, C authorization, G availability', () => {
  test('TC_E_01/TC_C_02_CS online: Authorize ISO14443, Started/Updated/Ended with seqNo, meter values, ocppState occupied', async () => {
    const c = await station({ OcppMeterValueSampleInterval: 10 });
    c.csms.answer('Authorize', ({ idToken }) => ({ idTokenInfo: { status: idToken.idToken === CSMS_TAG ? 'Accepted' : 'Unknown' } }));
    await c.online();
    await c.act('plug');
    await until(c, () => statuses(c.csms).at(-1) === 'Occupied', 'Occupied');
    expect((await c.state()).ocppState).toBe('occupied');
    await c.tag(CSMS_TAG);
    expect(c.csms.calls('Authorize')).toEqual([{ idToken: { idToken: CSMS_TAG, type: 'ISO14443' } }]);
    await c.act('charge');
    await until(c, () => events(c.csms).some((e) => e.triggerReason === 'ChargingStateChanged'), 'ChargingStateChanged');
    const [started] = events(c.csms);
    expect(started).toMatchObject({
      eventType: 'Started',
      triggerReason: 'Authorized',
      seqNo: 0,
      evse: { id: 1, connectorId: 1 },
      idToken: { idToken: CSMS_TAG, type: 'ISO14443' },
      transactionInfo: { chargingState: 'EVConnected' },
      meterValue: [{ sampledValue: [{ context: 'Transaction.Begin', measurand: 'Energy.Active.Import.Register', unitOfMeasure: { unit: 'Wh' } }] }],
    });
    expect(started!.offline).toBeUndefined();
    const transactionId = started!.transactionInfo.transactionId as string;
    expect((await c.state()).transaction).toMatchObject({ transactionId, backendTransactionId: transactionId });
    expect((await c.state()).ocppState).toBe('occupied');
    await c.step(10_000);
    await until(c, () => events(c.csms).some((e) => e.triggerReason === 'MeterValuePeriodic'), 'MeterValuePeriodic');
    const periodic = events(c.csms).find((e) => e.triggerReason === 'MeterValuePeriodic')!;
    expect(typeof periodic.meterValue[0].sampledValue[0].value).toBe('number');
    await c.tag(CSMS_TAG);
    await until(c, () => events(c.csms).some((e) => e.eventType === 'Ended'), 'Ended');
    expect(events(c.csms).map(summary)).toEqual([
      'Started:Authorized:0',
      'Updated:ChargingStateChanged:1',
      'Updated:MeterValuePeriodic:2',
      'Ended:StopAuthorized:3',
    ]);
    expect(events(c.csms).every((e) => e.transactionInfo.transactionId === transactionId)).toBe(true);
    expect(events(c.csms).at(-1)).toMatchObject({ transactionInfo: { stoppedReason: 'Local' }, idToken: { idToken: CSMS_TAG, type: 'ISO14443' } });
    await c.act('unplug');
    await until(c, () => statuses(c.csms).at(-1) === 'Available', 'Available');
    expect((await c.state()).ocppState).toBe('available');
  });

  test('TC_E_offline: events queued while the CSMS cannot be reached carry offline, keep their order and seqNo, sent after reconnect', async () => {
    const c = await station({ OcppMeterValueSampleInterval: 30 });
    await c.online();
    const port = c.csms.port;
    await c.csms.close();
    await until(c, () => !c.h.controller.backend.online(), 'offline');
    for (const tag of [KNOWN, OTHER]) {
      await c.act('plug');
      await c.tag(tag);
      await c.act('charge');
      await c.step(30_000);
      await c.tag(tag);
      await c.act('unplug');
    }
    expect(await c.h.controller.backend.queued()).toBeGreaterThanOrEqual(6);
    const csms = await startCsms({ port, now: () => c.clock.now(), protocols: ['ocpp2.0.1'] });
    alsoClose(csms);
    await c.step(300_000);
    await until(c, () => events(csms).filter((e) => e.eventType === 'Ended').length === 2, 'the replay');
    const sent = events(csms);
    expect(sent.every((e) => e.offline === true)).toBe(true);
    const ids = [...new Set(sent.map((e) => e.transactionInfo.transactionId))];
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const mine = sent.filter((e) => e.transactionInfo.transactionId === id);
      expect(mine.map((e) => e.seqNo)).toEqual(mine.map((_, i) => i));
      expect(mine[0]!.eventType).toBe('Started');
      expect(mine.at(-1)!.eventType).toBe('Ended');
    }
    expect(sent.filter((e) => e.eventType === 'Started').map((e) => e.idToken.idToken)).toEqual([KNOWN, OTHER]);
    expect(await c.h.controller.backend.queued()).toBe(0);
  });

  test('TC_C_02/TC_E_05_CS an id the CSMS does not accept: Authorize Unknown refuses it; Started answered Blocked stops the transaction', async () => {
    const c = await station();
    c.csms.answer('Authorize', () => ({ idTokenInfo: { status: 'Unknown' } }));
    c.csms.answer('TransactionEvent', (p) => (p.idToken ? { idTokenInfo: { status: p.eventType === 'Started' ? 'Blocked' : 'Accepted' } } : {}));
    await c.online();
    await c.act('plug');
    await c.tag(CSMS_TAG);
    expect((await c.state()).authState).toBe('wait_for_auth');
    expect(c.csms.calls('Authorize')).toHaveLength(1);
    // A locally whitelisted tag starts the transaction; the CSMS blocks it in its answer to Started.
    await c.tag(KNOWN);
    await until(c, () => events(c.csms).some((e) => e.eventType === 'Ended'), 'Ended');
    expect(events(c.csms).at(-1)).toMatchObject({ triggerReason: 'Deauthorized', transactionInfo: { stoppedReason: 'DeAuthorized' } });
  });

  test('TC_E free charging: the transaction starts on plug-in with idToken NoAuthorization', async () => {
    const c = await station({ FreeCharging: 1 });
    await c.online();
    await c.act('plug');
    await until(c, () => events(c.csms).length >= 1, 'Started');
    expect(events(c.csms)[0]).toMatchObject({ eventType: 'Started', triggerReason: 'CablePluggedIn', idToken: { idToken: '', type: 'NoAuthorization' } });
  });

  test('TC_G_03/04_CS ChangeAvailability: Inoperative makes the connector Unavailable, Operative Available again; unknown EVSE Rejected', async () => {
    const c = await station();
    await c.online();
    expect(await c.csms.call('ChangeAvailability', { operationalStatus: 'Inoperative', evse: { id: 2 } })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('ChangeAvailability', { operationalStatus: 'Inoperative' })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c.csms).at(-1) === 'Unavailable', 'Unavailable');
    expect(await c.csms.call('ChangeAvailability', { operationalStatus: 'Operative', evse: { id: 1, connectorId: 1 } })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c.csms).at(-1) === 'Available', 'Available');
  });
});

describe('J meter values', () => {
  test('TC_J_01/02_CS clock-aligned: MeterValues of EVSE 0 when idle, an Updated MeterValueClock event during a transaction', async () => {
    const c = await station({ OcppClockAlignedDataInterval: 900, OcppMeterValueSampleInterval: 0 });
    await c.online();
    // The clock starts at 08:00:00.000; the next quarter hour is 08:15.
    await c.step(899_000);
    expect(c.csms.calls('MeterValues')).toHaveLength(0);
    await c.step(1_000);
    const aligned = (await until(c, () => c.csms.calls('MeterValues')[0], 'clock-aligned values'))!;
    expect(aligned).toMatchObject({ evseId: 0, meterValue: [{ timestamp: '2026-06-01T08:15:00.000Z' }] });
    expect(aligned.meterValue[0].sampledValue[0]).toMatchObject({
      context: 'Sample.Clock',
      measurand: 'Energy.Active.Import.Register',
      unitOfMeasure: { unit: 'Wh' },
      value: expect.any(Number),
    });
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await until(c, () => events(c.csms).length >= 1, 'Started');
    await c.step(900_000);
    const clock = (await until(c, () => events(c.csms).find((e) => e.triggerReason === 'MeterValueClock'), 'MeterValueClock'))!;
    expect(clock).toMatchObject({ eventType: 'Updated', meterValue: [{ timestamp: '2026-06-01T08:30:00.000Z' }] });
    expect(c.csms.calls('MeterValues')).toHaveLength(1);
  });
});

describe('F remote control, P data transfer', () => {
  test('TC_F_01/TC_F_03_CS remote start then stop: Started RemoteStart with remoteStartId and the Central idToken, Ended Remote', async () => {
    const c = await station();
    await c.online();
    const start = { idToken: { idToken: 'REMOTE-1', type: 'Central' }, remoteStartId: 42 };
    expect(await c.csms.call('RequestStartTransaction', { ...start, evseId: 2 })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('RequestStartTransaction', start)).toEqual({ status: 'Accepted' });
    await c.act('plug');
    await until(c, () => events(c.csms).length >= 1, 'Started');
    const [started] = events(c.csms);
    expect(started).toMatchObject({ triggerReason: 'RemoteStart', idToken: start.idToken, transactionInfo: { remoteStartId: 42 } });
    const transactionId = started!.transactionInfo.transactionId as string;
    expect(await c.csms.call('RequestStopTransaction', { transactionId: 'other' })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('UnlockConnector', { evseId: 1, connectorId: 1 })).toEqual({ status: 'OngoingAuthorizedTransaction' });
    expect(await c.csms.call('RequestStopTransaction', { transactionId })).toEqual({ status: 'Accepted' });
    await until(c, () => events(c.csms).some((e) => e.eventType === 'Ended'), 'Ended');
    expect(events(c.csms).at(-1)).toMatchObject({ triggerReason: 'RemoteStop', transactionInfo: { transactionId, stoppedReason: 'Remote' } });
    expect(await c.csms.call('UnlockConnector', { evseId: 1, connectorId: 1 })).toEqual({ status: 'Unlocked' });
    expect(await c.csms.call('UnlockConnector', { evseId: 1, connectorId: 2 })).toEqual({ status: 'UnknownConnector' });
  });

  test('TC_F_06..F_11_CS TriggerMessage: StatusNotification, Heartbeat, TransactionEvent; BootNotification once accepted Rejected', async () => {
    const c = await station();
    await c.online();
    await until(c, () => statuses(c.csms).length === 1, 'StatusNotification');
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'StatusNotification', evse: { id: 1, connectorId: 1 } })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c.csms).length === 2, 'the triggered StatusNotification');
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'Heartbeat' })).toEqual({ status: 'Accepted' });
    await until(c, () => c.csms.calls('Heartbeat').length === 1, 'Heartbeat');
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'BootNotification' })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'TransactionEvent' })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'SignV2GCertificate' })).toEqual({ status: 'NotImplemented' });
    await c.act('plug');
    await c.tag(KNOWN);
    await until(c, () => events(c.csms).length >= 1, 'Started');
    expect(await c.csms.call('TriggerMessage', { requestedMessage: 'TransactionEvent' })).toEqual({ status: 'Accepted' });
    await until(c, () => events(c.csms).some((e) => e.triggerReason === 'Trigger'), 'the triggered event');
  });

  test('TC_P_01_CS DataTransfer: UnknownVendorId; a call the station does not answer is NotImplemented; CALLERRORs in 2.0.1 codes', async () => {
    const c = await station();
    await c.online();
    expect(await c.csms.call('DataTransfer', { vendorId: 'com.example' })).toEqual({ status: 'UnknownVendorId' });
    await expect(
      c.csms.call('SetVariableMonitoring', {
        setMonitoringData: [{ value: 1, type: 'Delta', severity: 5, component: { name: 'OCPPCommCtrlr' }, variable: { name: 'HeartbeatInterval' } }],
      }),
    ).rejects.toMatchObject({
      rpcErrorCode: 'NotImplemented',
    });
    // A request missing a required member: the strict validator refuses it with 2.0.1's spelling of the code.
    c.csms.rawSend(JSON.stringify([2, 'bad-1', 'RequestStopTransaction', {}]));
    await until(c, () => c.csms.frames.some((f) => f.direction === 'in' && f.message[0] === 4 && f.message[1] === 'bad-1'), 'the CALLERROR');
    const error = c.csms.frames.find((f) => f.message[0] === 4 && f.message[1] === 'bad-1')!;
    expect(error.message[2]).toBe('OccurrenceConstraintViolation');
    // The second validator named the bad call (sent on purpose) and nothing else: the station's answer is valid 2.0.1.
    expect(c.csms.invalid).toEqual([expect.stringContaining("must have required property 'transactionId'")]);
    c.csms.invalid.splice(0);
  });
});

describe('D local list (over the store 1.6 shares)', () => {
  test('TC_D_01/02_CS SendLocalList Full then Differential, GetLocalListVersion', async () => {
    const c = await station({ OCPPWLEnabled: 1 }, {});
    await c.online();
    expect(await c.csms.call('GetLocalListVersion', {})).toEqual({ versionNumber: 0 });
    const full = {
      versionNumber: 3,
      updateType: 'Full',
      localAuthorizationList: [{ idToken: { idToken: 'L1', type: 'ISO14443' }, idTokenInfo: { status: 'Accepted' } }],
    };
    expect(await c.csms.call('SendLocalList', full)).toEqual({ status: 'Accepted' });
    expect(await c.csms.call('SendLocalList', { versionNumber: 2, updateType: 'Differential' })).toEqual({ status: 'VersionMismatch' });
    expect(await c.csms.call('GetLocalListVersion', {})).toEqual({ versionNumber: 3 });
  });
});
