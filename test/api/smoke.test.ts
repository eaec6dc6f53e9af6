import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.stop());

test('login and read the system state', async () => {
  const session = await h.login();
  const res = await h.http('GET', '/v1/system_state', { session });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ systemState: 'idle', connectionState: 'no_vehicle_connected', authState: 'not_authorized_for_charging', ocppState: 'available', type2State: 'a' });
});
