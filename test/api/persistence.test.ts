import { expect, test } from 'vitest';
import { startHarness } from '../harness.js';
import { txRecord } from '../transactions.js';

test('users, whitelist, key/value pairs and transactions survive a restart; sessions do not', async () => {
  const first = await startHarness();
  const session = await first.login();
  const user = (await first.http('POST', '/v1/users', { session, body: { userName: 'Persisted' } })).json;
  await first.http('POST', '/v1/whitelist', { session, body: { type: 'local', command: 'add', tags: [{ id: 'P1', userid: user.userId, tagType: 'NFC' }] } });
  await first.http('POST', '/v1/map', { session, body: { durable: 'yes' } });
  const t = txRecord({ startedAt: first.clock.now(), meterWh: 0 });
  await first.controller.transactions.begin(t);
  await first.controller.transactions.finish({ ...t, meterLastWh: 1234, meterLastAt: first.clock.now(), maxPowerW: 7000 }, { reason: 'Local' });
  await first.stop({ keepData: true });

  const second = await startHarness({ dataDir: first.dataDir });
  try {
    const stale = await second.http('GET', '/v1/users', { session });
    expect([stale.status, stale.json.code]).toEqual([401, 1003]);
    const fresh = await second.login();
    expect((await second.http('GET', '/v1/users', { session: fresh })).json.users).toEqual([user]);
    expect((await second.http('GET', '/v1/whitelist?type=local', { session: fresh })).json.tags).toEqual([{ id: 'P1', userid: user.userId, tagType: 'NFC' }]);
    expect((await second.http('GET', '/v1/map', { session: fresh })).json).toEqual({ durable: 'yes' });
    const summary = (await second.http('GET', '/v1/transactions/summary', { session: fresh })).json;
    expect(summary).toMatchObject({ transactionCount: 1, totalConsumption: 1234 });
  } finally {
    await second.stop();
  }
});

test('the initial operator account is created once: a restart keeps its password', async () => {
  const first = await startHarness({ env: { OPERATOR_PASSWORD: 'first-password' } });
  await first.stop({ keepData: true });
  const second = await startHarness({ dataDir: first.dataDir, env: { OPERATOR_PASSWORD: 'second-password' } });
  try {
    await expect(second.login('operator', 'first-password')).resolves.toMatch(/-/);
    expect((await second.controller.accounts.list()).map((a) => a.username)).toEqual(['operator']);
  } finally {
    await second.stop();
  }
});
