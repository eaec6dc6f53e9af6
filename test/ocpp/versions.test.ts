import { expect, test } from 'vitest';
import { startCsms } from '../../bin/dev/central-system.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { actions, until, useOcppChargers } from './support.js';

/**
 * Version negotiation (OcppVersions): the controller offers its versions in the setting's order and speaks the one
 * the central system picks. OCPP 1.6 stays the default.
 */

const { charger } = useOcppChargers();

test('the default offers OCPP 1.6 only', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1', 'ocpp1.6'] });
  const c = await charger({ csms, clock });
  await c.online();
  expect(csms.protocol()).toBe('ocpp1.6');
});

test('offering ocpp2.0.1,ocpp1.6 to a 1.6-only central system: the controller works as a 1.6 charge point', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp1.6'] });
  const c = await charger({ csms, clock, settings: { OcppVersions: 'ocpp2.0.1,ocpp1.6' } });
  await c.online();
  expect(csms.protocol()).toBe('ocpp1.6');
  expect(actions(csms)[0]).toBe('BootNotification');
  expect(csms.calls('BootNotification')[0]).toMatchObject({ chargePointVendor: 'ChargeController' });
  // A 1.6 call is answered as 1.6; a 2.0.1-only action is NotImplemented on a 1.6 connection.
  expect(await csms.call('GetConfiguration', { key: ['HeartbeatInterval'] })).toMatchObject({ configurationKey: [{ key: 'HeartbeatInterval' }] });
  await c.act('plug');
  await until(c, () => csms.calls('StatusNotification').some((p) => p.connectorId === 1 && p.status === 'Preparing'), 'Preparing');
});

test('offering ocpp2.0.1 only to a 1.6-only central system: no connection, the link keeps trying', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp1.6'] });
  const c = await charger({ csms, clock, settings: { OcppVersions: 'ocpp2.0.1' } });
  await until(c, () => JSON.stringify(c.link()).includes('backoff'), 'a failed attempt');
  expect(c.h.controller.backend.online()).toBe(false);
  expect(csms.frames).toEqual([]);
});
