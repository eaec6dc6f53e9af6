import { expect, test } from 'vitest';
import { startCsms } from '../../services/ocpp/csms.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { until, useOcppChargers } from './support.js';

/**
 * The heartbeat interval a controller starts with is the OcppHeartbeatInterval setting: it applies when the central
 * system's BootNotification answer gives none (interval 0), from the first heartbeat on.
 */

const { charger } = useOcppChargers();

test('the OcppHeartbeatInterval setting at start: heartbeats every 90 s when the central system gives no interval', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now() });
  csms.answer('BootNotification', () => ({ status: 'Accepted', currentTime: new Date(clock.now()).toISOString(), interval: 0 }));
  const c = await charger({ csms, clock, settings: { OcppHeartbeatInterval: 90 } });
  await c.online();
  const beats = () => csms.calls('Heartbeat').length;
  await c.step(89_000);
  expect(beats()).toBe(0);
  await c.step(1_000);
  await until(c, () => beats() === 1, 'a heartbeat after 90 s');
  await c.step(89_000);
  expect(beats()).toBe(1);
  await c.step(1_000);
  await until(c, () => beats() === 2, 'the second heartbeat after 90 s');
});
