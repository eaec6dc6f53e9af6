import { describe, expect, test } from 'vitest';
import { startCsms, type Payload } from '../../bin/dev/central-system.js';
import { KNOWN } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { profile201 } from './smart-charging-201-support.js';
import { until, useOcppChargers, type OcppCharger } from './support.js';

/**
 * TxCtrlr TxStartPoint and TxStopPoint (E01 start options, E06 stop options) of the OCPP 2.0.1 station against the
 * development CSMS in strict 2.0.1 mode, every frame validated a second time (useOcppChargers). OCA-style names: the
 * use case and its scenario (the OCA test case numbers of these options are not at hand).
 */

const { charger } = useOcppChargers();
const V201 = { OcppVersions: 'ocpp2.0.1,ocpp1.6' };

async function station(settings: Record<string, number | string> = {}, restart?: () => void) {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] });
  return charger({ csms, clock, settings: { ...V201, ...settings }, ...(restart ? { harness: { restart } } : {}) });
}

const txCtrlr = (name: string) => ({ component: { name: 'TxCtrlr' }, variable: { name } });

/** Sets TxStartPoint and TxStopPoint through SetVariables; both must be Accepted. */
async function points(c: OcppCharger, start: string, stop: string): Promise<void> {
  const answer = await c.csms.call('SetVariables', {
    setVariableData: [
      { ...txCtrlr('TxStartPoint'), attributeValue: start },
      { ...txCtrlr('TxStopPoint'), attributeValue: stop },
    ],
  });
  expect(answer.setVariableResult.map((r: Payload) => r.attributeStatus)).toEqual(['Accepted', 'Accepted']);
}

const events = (c: OcppCharger) => c.csms.calls('TransactionEvent');
const summary = (e: Payload) => `${e.eventType}:${e.triggerReason}:${e.seqNo}`;
const register = (e: Payload, context: string) => {
  const sample = e.meterValue?.[0]?.sampledValue?.find((s: Payload) => s.context === context);
  return sample === undefined ? undefined : Number(sample.value);
};
/** Ended's Transaction.End minus Started's Transaction.Begin against the charge cycle's completed transactions. */
async function expectEnergyOfCore(c: OcppCharger): Promise<void> {
  const sent = events(c);
  const begin = register(sent[0]!, 'Transaction.Begin');
  const end = register(sent.at(-1)!, 'Transaction.End');
  const completed = await c.h.controller.transactions.listCompleted();
  const consumption = completed.reduce((sum, t) => sum + t.consumption, 0);
  expect(consumption).toBeGreaterThan(0);
  expect(end! - begin!).toBe(consumption);
}

/** Charges until the meter moved (the simulator's EV draws once `charge` is on and time passes). */
async function chargeAWhile(c: OcppCharger): Promise<void> {
  await c.act('charge');
  await until(c, () => events(c).some((e) => e.transactionInfo.chargingState === 'Charging'), 'Charging');
  for (let i = 0; i < 6; i++) await c.step(10_000);
}

describe('TxCtrlr in the device model', () => {
  test('TC_B_07-style: TxStartPoint/TxStopPoint ReadWrite, the supported points Accepted and kept over a restart, others Rejected with a reason', async () => {
    const c = await station();
    await c.online();
    const read = async () =>
      (await c.csms.call('GetVariables', { getVariableData: [txCtrlr('TxStartPoint'), txCtrlr('TxStopPoint')] })).getVariableResult.map(
        (r: Payload) => r.attributeValue,
      );
    expect(await read()).toEqual(['PowerPathClosed', 'PowerPathClosed']);
    const refused = await c.csms.call('SetVariables', {
      setVariableData: [
        { ...txCtrlr('TxStartPoint'), attributeValue: 'ParkingBayOccupancy' },
        { ...txCtrlr('TxStartPoint'), attributeValue: 'DataSigned,EVConnected' },
        { ...txCtrlr('TxStopPoint'), attributeValue: 'EnergyTransfer' },
        { ...txCtrlr('TxStopPoint'), attributeValue: '' },
      ],
    });
    expect(refused.setVariableResult.map((r: Payload) => [r.attributeStatus, r.attributeStatusInfo?.reasonCode])).toEqual(
      Array(4).fill(['Rejected', 'InvalidValue']),
    );
    expect(refused.setVariableResult[0].attributeStatusInfo.additionalInfo).toBe('supported: EVConnected,Authorized,PowerPathClosed,EnergyTransfer');
    expect(await read()).toEqual(['PowerPathClosed', 'PowerPathClosed']);
    await points(c, 'EVConnected,Authorized', 'EVConnected');
    expect(await read()).toEqual(['EVConnected,Authorized', 'EVConnected']);

    // The characteristics say what is supported; the values survive a restart on the same data directory.
    expect(
      await c.csms.call('GetReport', { requestId: 3, componentVariable: [{ component: { name: 'TxCtrlr' }, variable: { name: 'TxStopPoint' } }] }),
    ).toEqual({
      status: 'Accepted',
    });
    await until(c, () => c.csms.calls('NotifyReport').some((r) => r.requestId === 3), 'the report');
    expect(c.csms.calls('NotifyReport').find((r) => r.requestId === 3)!.reportData[0]).toMatchObject({
      variableAttribute: [{ type: 'Actual', value: 'EVConnected', mutability: 'ReadWrite', persistent: true }],
      variableCharacteristics: { dataType: 'MemberList', valuesList: 'EVConnected,Authorized,PowerPathClosed' },
    });
    const dataDir = c.h.dataDir;
    await c.h.stop({ keepData: true });
    const next = await charger({ csms: c.csms, clock: c.clock, dataDir });
    await next.online();
    const again = await c.csms.call('GetVariables', { getVariableData: [txCtrlr('TxStartPoint'), txCtrlr('TxStopPoint')] });
    expect(again.getVariableResult.map((r: Payload) => r.attributeValue)).toEqual(['EVConnected,Authorized', 'EVConnected']);
  });
});

describe('E01 start points', () => {
  test('OCA-style E01 EVConnected: plug → Started CablePluggedIn (no idToken); tag → Updated Authorized; stop PowerPathClosed: the tag ends it', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EVConnected', 'PowerPathClosed');
    await c.act('plug');
    await until(c, () => events(c).length === 1, 'Started');
    const [started] = events(c);
    expect(started).toMatchObject({ eventType: 'Started', triggerReason: 'CablePluggedIn', seqNo: 0, transactionInfo: { chargingState: 'EVConnected' } });
    expect(started!.idToken).toBeUndefined();
    expect(register(started!, 'Transaction.Begin')).toEqual(expect.any(Number));
    const id = started!.transactionInfo.transactionId as string;
    expect((await c.state()).transaction).toBeUndefined();

    await c.tag(KNOWN);
    await until(c, () => events(c).length === 2, 'Updated Authorized');
    expect(events(c)[1]).toMatchObject({
      eventType: 'Updated',
      triggerReason: 'Authorized',
      idToken: { idToken: KNOWN, type: 'ISO14443' },
      transactionInfo: { transactionId: id, chargingState: 'EVConnected' },
    });
    // The charge cycle's transaction has its own id; the API shows the 2.0.1 one as its backendTransactionId.
    const core = (await c.state()).transaction;
    expect(core.transactionId).not.toBe(id);
    await until(c, async () => (await c.state()).transaction?.backendTransactionId === id, 'backendTransactionId');

    await chargeAWhile(c);
    await c.tag(KNOWN);
    await until(c, () => events(c).some((e) => e.eventType === 'Ended'), 'Ended');
    expect(events(c).at(-1)).toMatchObject({ triggerReason: 'StopAuthorized', transactionInfo: { transactionId: id, stoppedReason: 'Local' } });
    expect(events(c).every((e) => e.transactionInfo.transactionId === id)).toBe(true);
    expect(events(c).map((e) => e.seqNo)).toEqual(events(c).map((_, i) => i));
    await expectEnergyOfCore(c);
  });

  test('OCA-style E01 EVConnected: plugged and unplugged without an authorization: Started then Ended EVDisconnected', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EVConnected', 'EVConnected');
    await c.act('plug');
    await until(c, () => events(c).length === 1, 'Started');
    await c.act('unplug');
    await until(c, () => events(c).length === 2, 'Ended');
    expect(events(c).map(summary)).toEqual(['Started:CablePluggedIn:0', 'Ended:EVCommunicationLost:1']);
    expect(events(c)[1]).toMatchObject({ transactionInfo: { chargingState: 'Idle', stoppedReason: 'EVDisconnected' } });
  });

  test('OCA-style E01 Authorized: tag first → Started Authorized (Idle); plug → Updated CablePluggedIn; RequestStopTransaction by the 2.0.1 id', async () => {
    const c = await station();
    await c.online();
    await points(c, 'Authorized', 'PowerPathClosed');
    await c.tag(KNOWN);
    await until(c, () => events(c).length === 1, 'Started');
    const [started] = events(c);
    expect(started).toMatchObject({
      eventType: 'Started',
      triggerReason: 'Authorized',
      idToken: { idToken: KNOWN, type: 'ISO14443' },
      transactionInfo: { chargingState: 'Idle' },
    });
    const id = started!.transactionInfo.transactionId as string;
    await c.act('plug');
    await until(c, () => events(c).length >= 2, 'Updated CablePluggedIn');
    expect(events(c)[1]).toMatchObject({
      eventType: 'Updated',
      triggerReason: 'CablePluggedIn',
      transactionInfo: { transactionId: id, chargingState: 'EVConnected' },
    });
    expect(events(c)[1]!.idToken).toBeUndefined();
    await chargeAWhile(c);
    expect(await c.csms.call('RequestStopTransaction', { transactionId: (await c.state()).transaction.transactionId })).toEqual({ status: 'Rejected' });
    expect(await c.csms.call('RequestStopTransaction', { transactionId: id })).toEqual({ status: 'Accepted' });
    await until(c, () => events(c).some((e) => e.eventType === 'Ended'), 'Ended');
    expect(events(c).at(-1)).toMatchObject({ triggerReason: 'RemoteStop', transactionInfo: { transactionId: id, stoppedReason: 'Remote' } });
    await expectEnergyOfCore(c);
  });

  test('OCA-style E01 Authorized: no cable within EVConnectionTimeOut → Ended EVConnectTimeout, stoppedReason Timeout', async () => {
    const c = await station({ AuthTimeout: 30 });
    await c.online();
    await points(c, 'Authorized', 'PowerPathClosed');
    await c.tag(KNOWN);
    await until(c, () => events(c).length === 1, 'Started');
    await c.step(31_000);
    await until(c, () => events(c).length === 2, 'Ended');
    expect(events(c)[1]).toMatchObject({ eventType: 'Ended', triggerReason: 'EVConnectTimeout', transactionInfo: { stoppedReason: 'Timeout' } });
  });

  test('OCA-style E01 EnergyTransfer: nothing on plug and tag; Started ChargingStateChanged (Charging) when energy flows', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EnergyTransfer', 'PowerPathClosed');
    await c.act('plug');
    await c.tag(KNOWN);
    await c.step(1_000);
    expect(events(c)).toEqual([]);
    await c.act('charge');
    await until(c, () => events(c).length === 1, 'Started');
    expect(events(c)[0]).toMatchObject({
      eventType: 'Started',
      triggerReason: 'ChargingStateChanged',
      idToken: { idToken: KNOWN },
      transactionInfo: { transactionId: (await c.state()).transaction.transactionId, chargingState: 'Charging' },
    });
    for (let i = 0; i < 6; i++) await c.step(10_000);
    await c.tag(KNOWN);
    await until(c, () => events(c).some((e) => e.eventType === 'Ended'), 'Ended');
    await expectEnergyOfCore(c);
  });
});

describe('E06 stop points', () => {
  test('OCA-style E06 EVConnected: the tag stops charging (Updated StopAuthorized), the unplug ends the transaction (stoppedReason Local)', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EVConnected', 'EVConnected');
    await c.act('plug');
    await c.tag(KNOWN);
    await chargeAWhile(c);
    await c.tag(KNOWN);
    await until(c, () => events(c).some((e) => e.triggerReason === 'StopAuthorized'), 'StopAuthorized');
    await c.step(5_000);
    expect(events(c).at(-1)).toMatchObject({ eventType: 'Updated', triggerReason: 'StopAuthorized', transactionInfo: { chargingState: 'EVConnected' } });
    expect((await c.state()).transaction).toBeUndefined();
    expect(events(c).some((e) => e.eventType === 'Ended')).toBe(false);
    // E14: the 2.0.1 transaction goes on without the charge cycle's; its events were all answered.
    const id = events(c)[0]!.transactionInfo.transactionId as string;
    expect(await c.csms.call('GetTransactionStatus', { transactionId: id })).toEqual({ ongoingIndicator: true, messagesInQueue: false });
    await c.act('unplug');
    await until(c, () => events(c).some((e) => e.eventType === 'Ended'), 'Ended');
    await c.step(1_000);
    expect(await c.csms.call('GetTransactionStatus', { transactionId: id })).toEqual({ ongoingIndicator: false, messagesInQueue: false });
    expect(await c.csms.call('GetTransactionStatus', {})).toEqual({ messagesInQueue: false });
    expect(events(c).map((e) => `${e.eventType}:${e.triggerReason}`)).toEqual([
      'Started:CablePluggedIn',
      'Updated:Authorized',
      'Updated:ChargingStateChanged',
      ...events(c)
        .slice(3, -2)
        .map((e) => `Updated:${e.triggerReason}`),
      'Updated:StopAuthorized',
      'Ended:EVCommunicationLost',
    ]);
    expect(events(c).at(-1)).toMatchObject({ transactionInfo: { chargingState: 'Idle', stoppedReason: 'Local' } });
    expect(events(c).map((e) => e.seqNo)).toEqual(events(c).map((_, i) => i));
    await expectEnergyOfCore(c);
  });

  test('OCA-style E06 EVConnected: a tag again while the cable is in charges again in the same transaction (Updated Authorized)', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EVConnected', 'EVConnected');
    await c.act('plug');
    for (let i = 0; i < 2; i++) {
      await c.tag(KNOWN);
      await until(c, async () => (await c.state()).transaction, 'charging');
      await c.tag(KNOWN);
      await until(c, async () => !(await c.state()).transaction, 'stopped');
    }
    await c.act('unplug');
    await until(c, () => events(c).some((e) => e.eventType === 'Ended'), 'Ended');
    const kinds = events(c)
      .filter((e) => e.triggerReason !== 'ChargingStateChanged')
      .map((e) => `${e.eventType}:${e.triggerReason}`);
    expect(kinds).toEqual([
      'Started:CablePluggedIn',
      'Updated:Authorized',
      'Updated:StopAuthorized',
      'Updated:Authorized',
      'Updated:StopAuthorized',
      'Ended:EVCommunicationLost',
    ]);
    expect(new Set(events(c).map((e) => e.transactionInfo.transactionId)).size).toBe(1);
    expect((await c.h.controller.transactions.listCompleted()).length).toBe(2);
  });

  test('OCA-style E06 PowerPathClosed against EVConnected: with PowerPathClosed the same tag ends the transaction at once', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EVConnected', 'PowerPathClosed,EVConnected');
    await c.act('plug');
    await c.tag(KNOWN);
    await until(c, () => events(c).length === 2, 'Authorized');
    await c.tag(KNOWN);
    await until(c, () => events(c).length === 3, 'Ended');
    expect(events(c).map(summary)).toEqual(['Started:CablePluggedIn:0', 'Updated:Authorized:1', 'Ended:StopAuthorized:2']);
  });

  test('E14 GetTransactionStatus: messagesInQueue while the CSMS refuses the Ended event, ongoingIndicator false once it ended', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EVConnected', 'EVConnected');
    await c.act('plug');
    await until(c, () => events(c).length === 1, 'Started');
    const id = events(c)[0]!.transactionInfo.transactionId as string;
    c.csms.answer('TransactionEvent', () => {
      throw new Error('not now');
    });
    await c.act('unplug');
    await until(c, () => events(c).length === 2, 'Ended (refused)');
    await c.step(0);
    expect(await c.csms.call('GetTransactionStatus', { transactionId: id })).toEqual({ ongoingIndicator: false, messagesInQueue: true });
    expect(await c.csms.call('GetTransactionStatus', {})).toEqual({ messagesInQueue: true });
    expect(await c.csms.call('GetTransactionStatus', { transactionId: 'other' })).toEqual({ ongoingIndicator: false, messagesInQueue: false });
  });

  test('OCA-style K01 TxProfile by the 2.0.1 id: set after the cable, before the tag; it limits charging and goes with the transaction', async () => {
    const c = await station({ MaxCurrent: 16 });
    await c.online();
    await points(c, 'EVConnected', 'EVConnected');
    await c.act('plug');
    await until(c, () => events(c).length === 1, 'Started');
    const id = events(c)[0]!.transactionInfo.transactionId as string;
    const tx = profile201(4, 'TxProfile', 9, { transactionId: id });
    expect(await c.csms.call('SetChargingProfile', { evseId: 1, chargingProfile: tx })).toEqual({ status: 'Accepted' });
    await c.tag(KNOWN);
    await c.act('charge');
    await until(c, async () => (await c.view()).plant.pwmCurrentA === 9, 'the TxProfile limit');
    // Charging stopped (stop point EVConnected: the transaction goes on), then the cable out: the profile goes.
    await c.tag(KNOWN);
    await c.act('unplug');
    await until(c, () => events(c).some((e) => e.eventType === 'Ended'), 'Ended');
    await c.step(0);
    expect(await c.csms.call('GetChargingProfiles', { requestId: 6, chargingProfile: { chargingProfilePurpose: 'TxProfile' } })).toEqual({
      status: 'NoProfiles',
    });
  });

  test('OCA-style F01 with E01 EVConnected: RequestStartTransaction after the cable answers the open transactionId; Updated RemoteStart', async () => {
    const c = await station();
    await c.online();
    await points(c, 'EVConnected', 'PowerPathClosed');
    await c.act('plug');
    await until(c, () => events(c).length === 1, 'Started');
    const id = events(c)[0]!.transactionInfo.transactionId as string;
    const start = { idToken: { idToken: 'REMOTE-1', type: 'Central' }, remoteStartId: 12 };
    expect(await c.csms.call('RequestStartTransaction', start)).toEqual({ status: 'Accepted', transactionId: id });
    await until(c, () => events(c).some((e) => e.triggerReason === 'RemoteStart'), 'Updated RemoteStart');
    expect(events(c).find((e) => e.triggerReason === 'RemoteStart')).toMatchObject({
      eventType: 'Updated',
      idToken: start.idToken,
      transactionInfo: { transactionId: id, remoteStartId: 12 },
    });
  });

  test('OCA-style B12 with E06 EVConnected: Reset OnIdle waits for the unplug that ends the transaction, not only for the end of charging', async () => {
    let restarts = 0;
    const c = await station({}, () => restarts++);
    await c.online();
    await points(c, 'EVConnected', 'EVConnected');
    await c.act('plug');
    await c.tag(KNOWN);
    await until(c, async () => (await c.state()).transaction, 'charging');
    expect(await c.csms.call('Reset', { type: 'OnIdle' })).toEqual({ status: 'Scheduled' });
    await c.tag(KNOWN);
    await until(c, () => events(c).some((e) => e.triggerReason === 'StopAuthorized'), 'StopAuthorized');
    await c.step(5_000);
    expect(restarts).toBe(0);
    await c.act('unplug');
    await until(c, () => restarts === 1, 'the restart after the Ended');
    expect(events(c).at(-1)).toMatchObject({ eventType: 'Ended', triggerReason: 'EVCommunicationLost' });
  });
});
