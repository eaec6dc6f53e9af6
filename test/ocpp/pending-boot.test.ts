import { expect, test } from 'vitest';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { NO_REPLY, startRawCentralSystem, type CallOutcome } from './raw-central-system.js';
import { useRawChargers } from './raw-charger.js';
import { until } from './support.js';

const { charger } = useRawChargers();

/**
 * Issue 29 item 1: Pending lets the central system configure the charge point. Its first call may come in the same
 * TCP read as the BootNotification's answer: it is served, not refused.
 */
test('a call in the same TCP write as the Pending answer to BootNotification is answered', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const cs = await startRawCentralSystem({ now: () => clock.now() });
  let outcome: CallOutcome | undefined;
  cs.answer('BootNotification', (_payload, id) => {
    const [configuration] = cs.together([
      [3, id, { status: 'Pending', currentTime: new Date(clock.now()).toISOString(), interval: 30 }],
      [2, 'cs-pending-1', 'GetConfiguration', { key: ['HeartbeatInterval'] }],
    ]);
    void configuration!.then((o) => (outcome = o));
    return NO_REPLY;
  });
  const c = await charger({ cs, clock });
  await until(c, () => outcome, 'the GetConfiguration answer');
  expect(outcome).toEqual({ result: { configurationKey: [{ key: 'HeartbeatInterval', readonly: false, value: expect.any(String) }] } });
  expect(JSON.stringify(c.link())).toBe(JSON.stringify({ connected: 'pending' }));
  expect(cs.errors()).toEqual([]);
});
