import { describe, expect, test } from 'vitest';
import { BACKOFF_MIN_MS } from '../../machines/backend-link.js';
import { startCsms, type Csms } from '../../bin/dev/central-system.js';
import { KNOWN, OTHER, UNKNOWN } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';

/** A tag only the central system knows. */
const CSMS_TAG = 'C5C5C5C5';
import { actions, csmsGivingInterval, expectHeartbeatsEvery, expectValidFrames, until, useOcppChargers } from './support.js';

/**
 * The OCPP 1.6J core profile against a strict central system (ocpp-rpc's server in strict mode, every frame also
 * checked by typed-ocpp), on 127.0.0.1 with the manual clock for every interval. Scenarios after the OCA test
 * tool's: cold boot Pending then Accepted, an online charge with Authorize and meter values, an offline charge and
 * its replay, remote start and stop, reset, unlock, availability, heartbeat interval, a dead socket.
 */

const { charger, alsoClose } = useOcppChargers();

/** The charge point's StatusNotifications of connector 1, as statuses. */
const statuses = (csms: Csms) =>
  csms
    .calls('StatusNotification')
    .filter((p) => p.connectorId === 1)
    .map((p) => p.status as string);

describe('boot', () => {
  test('cold boot Pending, then Accepted: nothing but BootNotification before, the interval honoured', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now() });
    let boots = 0;
    csms.answer('BootNotification', () => ({
      status: ++boots === 1 ? 'Pending' : 'Accepted',
      currentTime: new Date(clock.now()).toISOString(),
      interval: boots === 1 ? 30 : 300,
    }));
    const c = await charger({ csms, clock });
    await until(c, () => c.link() && JSON.stringify(c.link()) === JSON.stringify({ connected: 'pending' }), 'pending');
    // While pending the central system may ask; the charge point sends nothing but BootNotification.
    const config = await csms.call('GetConfiguration', { key: ['HeartbeatInterval'] });
    expect(config.configurationKey).toEqual([{ key: 'HeartbeatInterval', readonly: false, value: '300' }]);
    expect(await csms.call('RemoteStartTransaction', { idTag: 'REMOTE-1' })).toEqual({ status: 'Rejected' }); // not while pending
    await c.act('plug');
    await c.tag(KNOWN);
    await c.step(29_000);
    expect(actions(csms)).toEqual(['BootNotification']);
    await c.step(1_000);
    await c.online();
    expect(boots).toBe(2);
    // Once accepted: the current status, then the transaction that started while pending.
    await until(c, () => csms.calls('StartTransaction').length === 1, 'StartTransaction');
    expect(actions(csms).slice(0, 2)).toEqual(['BootNotification', 'BootNotification']);
    expect(csms.calls('StatusNotification').map((p) => p.connectorId)).toEqual([0, 1]);
    expect(csms.calls('StartTransaction')[0]).toMatchObject({ connectorId: 1, idTag: KNOWN, timestamp: '2026-06-01T08:00:00.050Z' });
  });

  test("Rejected: the interval is honoured and the central system's calls are refused until accepted", async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await startCsms({ now: () => clock.now() });
    let boots = 0;
    csms.answer('BootNotification', () => ({
      status: ++boots === 1 ? 'Rejected' : 'Accepted',
      currentTime: new Date(clock.now()).toISOString(),
      interval: 60,
    }));
    const c = await charger({ csms, clock });
    await until(c, () => JSON.stringify(c.link()) === JSON.stringify({ connected: 'rejected' }), 'rejected');
    await expect(csms.call('GetConfiguration', {})).rejects.toMatchObject({ rpcErrorCode: 'SecurityError' });
    await c.step(59_000);
    expect(boots).toBe(1);
    await c.step(1_000);
    await c.online();
    expect(boots).toBe(2);
  });

  test("heartbeats at the central system's interval; ChangeConfiguration HeartbeatInterval changes it, the link staying online", async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const csms = await csmsGivingInterval(clock, 120);
    const c = await charger({ csms, clock });
    await c.online();
    await expectHeartbeatsEvery(c, csms, 120);
    const statuses = csms.calls('StatusNotification').length;
    expect(statuses).toBe(2); // connectors 0 and 1
    expect(await csms.call('ChangeConfiguration', { key: 'HeartbeatInterval', value: '45' })).toEqual({ status: 'Accepted' });
    await c.step(0);
    expect((await c.api('GET', '/v1/settings?params=OcppHeartbeatInterval')).json.params[0].OcppHeartbeatInterval).toBe(45);
    await expectHeartbeatsEvery(c, csms, 45);
    // The link stayed online: the statuses were not sent again.
    expect(csms.calls('StatusNotification')).toHaveLength(statuses);
  });

  test("the central system's time keeps the controller's clock: stored, shown and sent times follow it (1 h ahead)", async () => {
    const clock = new ManualClock(TEST_EPOCH);
    const ahead = 3_600_000;
    const csms = await startCsms({ now: () => clock.now() + ahead });
    const c = await charger({ csms, clock });
    await c.online();
    expect(c.h.logs.join('')).toContain("the controller's clock is set to the central system's");
    const status = (await until(c, () => csms.calls('StatusNotification')[0], 'a status'))!;
    expect(status.timestamp).toBe(new Date(clock.now() + ahead).toISOString());
    const controllerTime = async (charger: typeof c) =>
      Date.parse((await charger.api('GET', '/v1/settings?params=ControllerTime_custom')).json.params[0].ControllerTime_custom);
    expect(await controllerTime(c)).toBe(clock.now() + ahead);
    await c.act('plug');
    await c.tag(KNOWN);
    const start = (await until(c, () => csms.calls('StartTransaction')[0], 'StartTransaction'))!;
    expect(Date.parse(start.timestamp) - clock.now()).toBeGreaterThan(ahead - 1000);
    // The charge-point core stamped the transaction with the central system's time too, and the API shows it.
    expect(Date.parse((await c.state()).transaction.transactionStart)).toBe(Date.parse(start.timestamp));
    // Within 2 s of the central system nothing changes.
    const near = await startCsms({ now: () => clock.now() + 1_500 });
    const d = await charger({ csms: near, clock });
    await d.online();
    expect(await controllerTime(d)).toBe(clock.now());
  });

  test('OcppEnabled off: no connection, tags as before (stand-alone)', async () => {
    const c = await charger({ settings: { OcppEnabled: 0 } });
    await c.step(60_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(c.csms.connections).toEqual([]);
    await c.act('plug');
    await c.tag(UNKNOWN);
    expect((await c.state()).authState).toBe('wait_for_auth');
    await c.tag(KNOWN);
    expect((await c.state()).authState).toBe('authorized_for_charging');
  });
});

describe('transactions', () => {
  test('online charge: Authorize, StartTransaction, meter values, stop by tag; backendTransactionId shown (2.9, 2.13)', async () => {
    const c = await charger({ settings: { OcppMeterValueSampleInterval: 10 } });
    c.csms.answer('Authorize', ({ idTag }) => ({ idTagInfo: { status: idTag === CSMS_TAG ? 'Accepted' : 'Invalid' } }));
    await c.online();
    await c.act('plug');
    await c.tag(UNKNOWN);
    expect((await c.state()).authState).toBe('wait_for_auth');
    expect((await c.view()).plant.lastBeep).toEqual({ count: 1, ms: 800 });
    await c.tag(CSMS_TAG);
    expect(c.csms.calls('Authorize').map((p) => p.idTag)).toEqual([UNKNOWN, CSMS_TAG]);
    await c.act('charge');
    const start = (await until(c, () => c.csms.calls('StartTransaction')[0], 'StartTransaction'))!;
    expect(start).toMatchObject({ connectorId: 1, idTag: CSMS_TAG, meterStart: expect.any(Number) });
    await until(c, async () => (await c.state()).transaction?.backendTransactionId === '1', 'the backend id');
    await c.step(10_000);
    const values = (await until(c, () => c.csms.calls('MeterValues')[0], 'MeterValues'))!;
    expect(values.transactionId).toBe(1);
    const measurands = values.meterValue[0].sampledValue.map((v: any) => `${v.measurand}${v.phase ? `.${v.phase}` : ''}`);
    expect(measurands).toEqual([
      'Energy.Active.Import.Register',
      'Power.Active.Import',
      'Current.Import.L1',
      'Current.Import.L2',
      'Current.Import.L3',
      'Temperature',
    ]);
    expect(Number(values.meterValue[0].sampledValue[0].value)).toBeGreaterThan(start.meterStart);
    // The session's own tag stops it, without asking the central system.
    await c.tag(CSMS_TAG);
    const stop = (await until(c, () => c.csms.calls('StopTransaction')[0], 'StopTransaction'))!;
    expect(c.csms.calls('Authorize')).toHaveLength(2);
    expect(stop).toMatchObject({ transactionId: 1, idTag: CSMS_TAG, reason: 'Local' });
    expect(stop.meterStop).toBeGreaterThan(start.meterStart);
    expect(stop.transactionData.map((m: any) => m.sampledValue[0].context)).toEqual(['Transaction.Begin', 'Transaction.End']);
    const [completed] = (await c.api('GET', '/v1/transactions')).json;
    expect(completed).toMatchObject({ backendTransactionId: '1', tagId: CSMS_TAG, consumption: stop.meterStop - start.meterStart });
    await c.act('unplug');
    await until(c, () => statuses(c.csms).at(-1) === 'Available', 'Available');
    expect(statuses(c.csms)).toEqual(['Available', 'Preparing', 'SuspendedEV', 'Charging', 'Finishing', 'Available']);
  });

  test("offline charge: queued in order, replayed after reconnect with the central system's ids; status is not queued", async () => {
    const c = await charger({ settings: { OcppMeterValueSampleInterval: 30 } });
    await c.online();
    const port = c.csms.port;
    await c.csms.close();
    await until(c, () => !c.h.controller.backend.online(), 'offline');
    // Two charges while the central system cannot be reached (whitelisted tags).
    for (const tag of [KNOWN, OTHER]) {
      await c.act('plug');
      await c.tag(tag);
      await c.act('charge');
      await c.step(30_000);
      await c.tag(tag);
      await c.act('unplug');
    }
    expect(await c.h.controller.backend.queued()).toBe(6);
    const csms = await startCsms({ port, now: () => c.clock.now() });
    alsoClose(csms);
    await c.step(300_000); // the backoff, whatever it has grown to
    await until(c, () => csms.calls('StopTransaction').length === 2, 'the replay');
    const replay = actions(csms).filter((a) => a !== 'StatusNotification' && a !== 'BootNotification');
    expect(replay).toEqual(['StartTransaction', 'MeterValues', 'StopTransaction', 'StartTransaction', 'MeterValues', 'StopTransaction']);
    expect(csms.calls('StartTransaction').map((p) => p.idTag)).toEqual([KNOWN, OTHER]);
    expect(csms.calls('MeterValues').map((p) => p.transactionId)).toEqual([1, 2]);
    expect(csms.calls('StopTransaction').map((p) => [p.transactionId, p.reason])).toEqual([
      [1, 'Local'],
      [2, 'Local'],
    ]);
    expect(csms.calls('StatusNotification').map((p) => p.status)).toEqual(['Available', 'Available']);
    expect(await c.h.controller.backend.queued()).toBe(0);
    expect((await c.api('GET', '/v1/transactions')).json.map((t: any) => t.backendTransactionId)).toEqual(['1', '2']);
    expectValidFrames(csms);
  });

  test('a refused transaction message is sent again per TransactionMessageRetryInterval, given up after TransactionMessageAttempts', async () => {
    const c = await charger({ settings: { OcppTransactionMessageAttempts: 2, OcppTransactionMessageRetryInterval: 20 } });
    let refuse = true;
    c.csms.answer('StartTransaction', () => {
      if (refuse) throw new Error('not now');
      return { transactionId: 7, idTagInfo: { status: 'Accepted' } };
    });
    await c.online();
    await c.act('plug');
    await c.tag(KNOWN);
    await until(c, () => c.csms.calls('StartTransaction').length === 1, 'the first attempt');
    await c.step(19_000);
    expect(c.csms.calls('StartTransaction')).toHaveLength(1);
    refuse = false;
    await c.step(1_000);
    await until(c, () => c.csms.calls('StartTransaction').length === 2, 'the second attempt');
    await until(c, async () => (await c.state()).transaction?.backendTransactionId === '7', 'the id');
  });
});

describe('status and meter values', () => {
  test('StatusNotification follows ocppState, with errorCode from the active messages, for connectors 0 and 1', async () => {
    const c = await charger();
    await c.online();
    await c.sim('temperature', { celsius: 85 });
    await c.step(1000);
    const faulted = (await until(c, () => c.csms.calls('StatusNotification').find((p) => p.connectorId === 1 && p.status === 'Faulted'), 'Faulted'))!;
    expect(faulted).toMatchObject({ errorCode: 'HighTemperature', vendorErrorCode: 'OVERTEMPERATURE' });
    expect(c.csms.calls('StatusNotification').find((p) => p.connectorId === 0 && p.status === 'Faulted')).toMatchObject({ errorCode: 'HighTemperature' });
    await c.sim('temperature', { celsius: 25 });
    await c.step(1000);
    await until(c, () => statuses(c.csms).at(-1) === 'Available', 'Available again');
    expect(c.csms.calls('StatusNotification').at(-1)).toMatchObject({ errorCode: 'NoError' });
    await c.sim('fault', { fault: 'meter-offline' });
    await c.step(1000);
    await until(c, () => c.csms.calls('StatusNotification').at(-1)?.errorCode === 'PowerMeterFailure', 'PowerMeterFailure');
    expect(c.csms.calls('StatusNotification').at(-1)).toMatchObject({ connectorId: 1, status: 'Available', vendorErrorCode: 'METER_NOT_RESPONDING' });
  });

  test('clock-aligned meter values at every multiple of ClockAlignedDataInterval after midnight UTC', async () => {
    const c = await charger({ settings: { OcppClockAlignedDataInterval: 900, OcppMeterValueSampleInterval: 0 } });
    await c.online();
    // The clock starts at 08:00:00.000; the next quarter hour is 08:15.
    await c.step(899_000);
    expect(c.csms.calls('MeterValues')).toHaveLength(0);
    await c.step(1_000);
    const aligned = (await until(c, () => c.csms.calls('MeterValues')[0], 'clock-aligned values'))!;
    expect(aligned.meterValue[0].timestamp).toBe('2026-06-01T08:15:00.000Z');
    expect(aligned.meterValue[0].sampledValue[0]).toMatchObject({ context: 'Sample.Clock', measurand: 'Energy.Active.Import.Register', unit: 'Wh' });
    expect(aligned.transactionId).toBeUndefined();
  });

  test('StopTransactionOnInvalidId: a transaction the central system answers Invalid is stopped (DeAuthorized)', async () => {
    const c = await charger();
    c.csms.answer('StartTransaction', () => ({ transactionId: 5, idTagInfo: { status: 'Blocked' } }));
    await c.online();
    await c.act('plug');
    await c.tag(KNOWN);
    const stop = (await until(c, () => c.csms.calls('StopTransaction')[0], 'StopTransaction'))!;
    expect(stop).toMatchObject({ transactionId: 5, reason: 'DeAuthorized' });
    expect((await c.state()).systemState).toBe('finished');
  });
});

describe('remote control', () => {
  test('remote start and stop', async () => {
    const c = await charger();
    await c.online();
    expect(await c.csms.call('RemoteStartTransaction', { idTag: 'REMOTE-1', connectorId: 1 })).toEqual({ status: 'Accepted' });
    await c.step(0);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    expect(await c.csms.call('RemoteStartTransaction', { idTag: 'REMOTE-2' })).toEqual({ status: 'Rejected' });
    await c.act('plug');
    const start = (await until(c, () => c.csms.calls('StartTransaction')[0], 'StartTransaction'))!;
    expect(start.idTag).toBe('REMOTE-1');
    expect(await c.csms.call('RemoteStartTransaction', { idTag: 'REMOTE-2' })).toEqual({ status: 'Rejected' });
    await until(c, async () => (await c.state()).transaction?.backendTransactionId, 'the backend id');
    expect(await c.csms.call('RemoteStopTransaction', { transactionId: 99 })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('RemoteStopTransaction', { transactionId: 1 })).toEqual({ status: 'Accepted' });
    const stop = (await until(c, () => c.csms.calls('StopTransaction')[0], 'StopTransaction'))!;
    expect(stop).toMatchObject({ transactionId: 1, reason: 'Remote', idTag: 'REMOTE-1' });
    expect((await c.state()).systemState).toBe('finished');
  });

  test("remote start with a TxProfile: the transaction charges at the profile's limit", async () => {
    const c = await charger();
    await c.online();
    const chargingProfile = {
      chargingProfileId: 9,
      stackLevel: 0,
      chargingProfilePurpose: 'TxProfile',
      chargingProfileKind: 'Relative',
      chargingSchedule: { chargingRateUnit: 'A', chargingSchedulePeriod: [{ startPeriod: 0, limit: 11 }] },
    };
    expect(await c.csms.call('RemoteStartTransaction', { idTag: 'REMOTE-1', chargingProfile })).toEqual({ status: 'Accepted' });
    await c.act('plug');
    await c.act('charge');
    expect((await c.view()).plant.pwmCurrentA).toBe(11);
    await c.tag(KNOWN); // another known tag is only reported
    await c.csms.call('RemoteStopTransaction', { transactionId: 1 });
    await until(c, () => c.csms.calls('StopTransaction')[0], 'StopTransaction');
    await c.act('pause');
    await c.act('unplug');
    // The TxProfile ended with its transaction.
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    expect((await c.view()).plant.pwmCurrentA).toBe(16);
  });

  test('reset during a transaction: stopped with reason SoftReset / HardReset, then the controller restarts', async () => {
    for (const type of ['Soft', 'Hard'] as const) {
      let restarts = 0;
      const c = await charger({ harness: { restart: () => restarts++ } });
      await c.online();
      await c.act('plug');
      await c.tag(KNOWN);
      await c.act('charge');
      await until(c, () => c.csms.calls('StartTransaction').length === 1, 'StartTransaction');
      expect(await c.csms.call('Reset', { type })).toEqual({ status: 'Accepted' });
      await until(c, () => restarts === 1, 'the restart');
      expect(c.csms.calls('StopTransaction')[0]).toMatchObject({ transactionId: 1, reason: `${type}Reset` });
      // The audit trail: who restarted the charger, from where, and that the transaction ended with it.
      const restartEvents = ((await c.api('GET', '/v1/events')).json.events as { kind: string }[]).filter((e) => e.kind === 'restart');
      expect(restartEvents).toEqual([expect.objectContaining({ by: 'OCPP central system', address: c.csms.url, transactionEnded: true })]);
    }
    // A controller that cannot restart itself refuses.
    const c = await charger();
    await c.online();
    expect(await c.csms.call('Reset', { type: 'Soft' })).toEqual({ status: 'Rejected' });
  });

  test('unlock during a transaction: stopped with reason UnlockCommand, the cable unlocked', async () => {
    const c = await charger();
    await c.online();
    await c.act('plug');
    await c.tag(KNOWN);
    await until(c, () => c.csms.calls('StartTransaction').length === 1, 'StartTransaction');
    expect((await c.view()).plant.cableLocked).toBe(true);
    expect(await c.csms.call('UnlockConnector', { connectorId: 2 })).toEqual({ status: 'NotSupported' });
    expect(await c.csms.call('UnlockConnector', { connectorId: 1 })).toEqual({ status: 'Unlocked' });
    await until(c, () => c.csms.calls('StopTransaction')[0], 'StopTransaction');
    expect(c.csms.calls('StopTransaction')[0]!.reason).toBe('UnlockCommand');
    expect((await c.view()).plant.cableLocked).toBe(false);
  });

  test('availability: Inoperative is Scheduled while a transaction runs and takes effect at its end', async () => {
    const c = await charger();
    await c.online();
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await until(c, () => statuses(c.csms).at(-1) === 'Charging', 'Charging');
    expect(await c.csms.call('ChangeAvailability', { connectorId: 0, type: 'Inoperative' })).toEqual({ status: 'Scheduled' });
    await c.step(1000);
    expect((await c.state()).systemState).toBe('charging');
    await c.tag(KNOWN);
    await until(c, () => statuses(c.csms).at(-1) === 'Unavailable', 'Unavailable');
    expect((await c.api('GET', '/v1/settings?params=ChargingEnabled')).json.params[0].ChargingEnabled.value).toBe(0);
    expect(await c.csms.call('ChangeAvailability', { connectorId: 0, type: 'Operative' })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c.csms).at(-1) === 'Preparing', 'available again: waiting for a tag');
  });
});

describe('connection', () => {
  test('a dead socket is found by ping/pong and reconnected; the link is not shown online meanwhile', async () => {
    const c = await charger({ settings: { OcppWebSocketPingInterval: 60 } });
    await c.online();
    c.csms.freeze();
    await c.step(60_000); // the ping the frozen peer never answers
    expect(c.h.controller.backend.online()).toBe(true);
    await c.step(60_000); // no pong before the next ping: closed
    await until(c, () => !c.h.controller.backend.online(), 'the dead link noticed');
    expect(c.link()).toBe('backoff');
    await c.step(BACKOFF_MIN_MS);
    await c.online();
    expect(c.csms.connections).toEqual(['CP-TEST', 'CP-TEST']);
  });

  test('the first connection is retried with backoff until the central system answers', async () => {
    const placeholder = await startCsms();
    const port = placeholder.port;
    await placeholder.close();
    const clock = new ManualClock(TEST_EPOCH);
    const c = await charger({ csms: { ...placeholder, url: `ws://127.0.0.1:${port}/ocpp`, close: async () => {} } as Csms, clock });
    await until(c, () => c.link() === 'backoff', 'a failed first attempt');
    await c.step(BACKOFF_MIN_MS);
    await until(c, () => c.link() === 'backoff', 'a second failed attempt');
    const csms = await startCsms({ port, now: () => clock.now() });
    alsoClose(csms);
    await c.step(2 * BACKOFF_MIN_MS); // the doubled backoff
    await c.online();
    expectValidFrames(csms);
  });

  test('the charge point refuses a malformed call of the central system (strict validation inbound)', async () => {
    const c = await charger();
    await c.online();
    const frames = c.csms.frames.length;
    // 21 characters: over OCPP's idTag limit of 20.
    await expect(c.csms.call('RemoteStartTransaction', { idTag: 'X'.repeat(21) })).rejects.toThrow();
    await c.step(0);
    expect(c.csms.frames.length).toBe(frames); // the central system's own strict mode refused to send it
    c.csms.rawSend('[2,"bad-1","RemoteStartTransaction",{"idTag":"XXXXXXXXXXXXXXXXXXXXX"}]');
    await until(c, () => c.csms.frames.some((f) => f.message[0] === 4 && f.message[1] === 'bad-1'), 'the CALLERROR');
    expect((await c.state()).authState).toBe('not_authorized_for_charging');
    c.csms.invalid.splice(0); // the malformed frame itself, sent on purpose
  });
});
