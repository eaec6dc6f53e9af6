import { RPCClient } from 'ocpp-rpc';
import { afterEach, expect, test } from 'vitest';
import { startCsms, type Csms, type OcppProtocol } from '../../bin/dev/central-system.js';

/**
 * The development central system speaks OCPP 2.0.1 too (`npm run csms -- --ocpp 2.0.1`), the peer the controller's
 * 2.0.1 charging station will be tested against (issue 31): the version negotiated by WebSocket subprotocol in the
 * central system's order of preference, its default answers valid 2.0.1, and both validators (ocpp-rpc's strict
 * mode and typed-ocpp's 2.0.1 schemas) applied to the version the connection speaks. The charge point here is
 * ocpp-rpc's client in strict mode.
 */

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function csmsFor(protocols: OcppProtocol[]): Promise<Csms> {
  const csms = await startCsms({ protocols });
  open.push(csms);
  return csms;
}

async function chargingStation(csms: Csms, protocols: string[]) {
  // ocpp-rpc's typings make every option required (the controller's transport casts the same way).
  const client = new RPCClient({ endpoint: csms.url, identity: 'CS-201', protocols, strictMode: true, reconnect: false } as never);
  open.push({ close: () => client.close({ force: true }) });
  await client.connect();
  return client;
}

const BOOT = { reason: 'PowerUp', chargingStation: { model: 'test', vendorName: 'test' } };

test('2.0.1: boot, status, a transaction and a call from the central system, every frame valid for 2.0.1', async () => {
  const csms = await csmsFor(['ocpp2.0.1']);
  const cs = await chargingStation(csms, ['ocpp2.0.1']);
  expect(cs.protocol).toBe('ocpp2.0.1');
  expect(csms.protocol()).toBe('ocpp2.0.1');
  expect(await cs.call('BootNotification', BOOT)).toMatchObject({ status: 'Accepted', interval: 300 });
  await cs.call('StatusNotification', { timestamp: new Date().toISOString(), connectorStatus: 'Available', evseId: 1, connectorId: 1 });
  const idToken = { idToken: '04A1B2C3', type: 'ISO14443' };
  expect(await cs.call('Authorize', { idToken })).toEqual({ idTokenInfo: { status: 'Accepted' } });
  const event = { timestamp: new Date().toISOString(), seqNo: 0, transactionInfo: { transactionId: 'tx-1' }, evse: { id: 1, connectorId: 1 } };
  expect(await cs.call('TransactionEvent', { ...event, eventType: 'Started', triggerReason: 'Authorized', idToken })).toEqual({
    idTokenInfo: { status: 'Accepted' },
  });
  expect(await cs.call('TransactionEvent', { ...event, seqNo: 1, eventType: 'Ended', triggerReason: 'StopAuthorized' })).toEqual({});
  type GetVariableData = { component: { name: string }; variable: { name: string } };
  cs.handle('GetVariables', async ({ params }) => ({
    getVariableResult: (params as { getVariableData: GetVariableData[] }).getVariableData.map((d) => ({
      attributeStatus: 'Accepted',
      attributeValue: '300',
      component: d.component,
      variable: d.variable,
    })),
  }));
  const answer = await csms.call('GetVariables', { getVariableData: [{ component: { name: 'OCPPCommCtrlr' }, variable: { name: 'HeartbeatInterval' } }] });
  expect(answer.getVariableResult[0]).toMatchObject({ attributeStatus: 'Accepted', attributeValue: '300' });
  expect(csms.calls('TransactionEvent').map((p) => p.eventType)).toEqual(['Started', 'Ended']);
  expect(csms.invalid).toEqual([]);
});

test('2.0.1: a 1.6 payload is refused by the strict server and named by the second validator', async () => {
  const csms = await csmsFor(['ocpp2.0.1']);
  const cs = await chargingStation(csms, ['ocpp2.0.1']);
  // A 1.6 BootNotification on a 2.0.1 connection: sent raw, past the client's own strict check.
  cs.sendRaw(JSON.stringify([2, 'm1', 'BootNotification', { chargePointVendor: 'test', chargePointModel: 'test' }]));
  await expect.poll(() => csms.invalid.length).toBe(2);
  expect(csms.invalid[0]).toMatch(/BootNotification.*required property 'reason'/);
  // ocpp-rpc 2.2's strict server answers with OCPP 1.6's spelling of the error code, which 2.0.1 renamed
  // (OccurrenceConstraintViolation): the second validator sees it. The controller's own 2.0.1 CALLERRORs must not.
  expect(csms.invalid[1]).toMatch(/\[4,"m1","OccurenceConstraintViolation".*call error/);
});

test('negotiation: the central system picks the first of its own versions that the charging station offers', async () => {
  const prefers201 = await csmsFor(['ocpp2.0.1', 'ocpp1.6']);
  expect((await chargingStation(prefers201, ['ocpp1.6', 'ocpp2.0.1'])).protocol).toBe('ocpp2.0.1');
  const prefers16 = await csmsFor(['ocpp1.6', 'ocpp2.0.1']);
  expect((await chargingStation(prefers16, ['ocpp2.0.1', 'ocpp1.6'])).protocol).toBe('ocpp1.6');
  const only16 = await csmsFor(['ocpp1.6']);
  await expect(chargingStation(only16, ['ocpp2.0.1'])).rejects.toThrow();
});
