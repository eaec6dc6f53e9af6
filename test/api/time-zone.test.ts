import { afterEach, describe, expect, test } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { txRecord } from '../transactions.js';

/**
 * The controller's time zone is the TimeZone setting (issue 33): an IANA name the runtime knows (else 400 with the
 * rule), empty for the system's; it is the zone of GET /v1/time and of the energy history's local days.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('the TimeZone setting', () => {
  test('empty: the system’s zone; a name the runtime knows is the zone of /v1/time and of the local days', async () => {
    h = await startHarness({ timeZone: 'UTC' });
    const session = await h.login();
    const time = await h.http('GET', '/v1/time', { session });
    expect(time.status).toBe(200);
    expect(time.json).toMatchObject({ timeZone: 'UTC', offset: '+00:00', source: 'system' });
    expect([true, false, null]).toContain(time.json.ntpSynchronized);

    // 23:30 UTC on 1 June is 1:30 on 2 June in Berlin.
    const startedAt = Date.parse('2026-06-01T23:30:00.000Z');
    const t = txRecord({ startedAt, meterWh: 1_000 });
    await h.controller.transactions.begin(t);
    await h.controller.transactions.finish({ ...t, meterLastWh: 3_000, meterLastAt: startedAt + 60_000 }, { reason: 'Local', at: startedAt + 60_000 });
    const day = async () =>
      (await h!.http('GET', '/v1/energy/history?from=2026-06-01&to=2026-06-02', { session })).json.periods.map(
        (p: { consumptionWh: number }) => p.consumptionWh,
      );
    expect(await day()).toEqual([2_000, 0]);

    const set = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'TimeZone', value: 'Europe/Berlin' }] } });
    expect(set.status, set.text).toBe(200);
    expect(await day()).toEqual([0, 2_000]);
    const now = (await h.http('GET', '/v1/time', { session })).json;
    expect(now.timeZone).toBe('Europe/Berlin');
    expect(now.offset).toMatch(/^\+0[12]:00$/);

    // The completed transaction carries what billing needs.
    const [listed] = (await h.http('GET', '/v1/transactions', { session })).json;
    expect(listed).toMatchObject({ meterStartWh: 1_000, meterStopWh: 3_000, consumption: 2_000, stopReason: 'Local' });
  });

  test('a name the runtime does not know is refused with the rule and changes nothing', async () => {
    h = await startHarness({ timeZone: 'UTC' });
    const session = await h.login();
    for (const value of ['Mars/Olympus_Mons', 'Europe/Berlin; rm', 'x'.repeat(65)]) {
      const res = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'TimeZone', value }] } });
      expect(res.status, value).toBe(400);
      expect(res.text).toMatch(/IANA|characters/);
    }
    expect((await h.http('GET', '/v1/time', { session })).json.timeZone).toBe('UTC');
  });
});
