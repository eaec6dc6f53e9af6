import { test } from 'vitest';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { csmsGivingInterval, expectHeartbeatsEvery, useOcppChargers } from './support.js';

/**
 * The heartbeat interval a controller starts with is the OcppHeartbeatInterval setting: it applies when the central
 * system's BootNotification answer gives none (interval 0), from the first heartbeat on.
 */

const { charger } = useOcppChargers();

test('the OcppHeartbeatInterval setting at start: heartbeats every 90 s when the central system gives no interval', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await csmsGivingInterval(clock, 0);
  const c = await charger({ csms, clock, settings: { OcppHeartbeatInterval: 90 } });
  await c.online();
  await expectHeartbeatsEvery(c, csms, 90);
});
