import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { charging, KNOWN, OTHER, startCharger, type Charger } from '../charging/scenario.js';
import { OPERATOR_PASSWORD } from '../harness.js';

/**
 * The /v1/charge extension (api/routes/charge.ts): stop, pause, resume and the current of the running charge, by
 * role and ownership, every refusal in words; the current goes through the allocator (the `energy` extension of
 * /v1/system_state shows what the PWM offers and why).
 */

const ALICE = { username: 'Alice', password: 'alice-password-1' };
const BOB = { username: 'Bob', password: 'bob-password-1' };

let c: Charger;
beforeEach(async () => {
  c = await startCharger();
  await c.h.controller.accounts.set(ALICE.username, 'user', ALICE.password);
  await c.h.controller.accounts.set(BOB.username, 'user', BOB.password);
});
afterEach(() => c.h.stop());

/** Calls as `who`; one login at a time (spec 5 item 8): logs in again when another login took over. */
const as = (who: { username: string; password: string }) => {
  let session = '';
  return async (method: string, path: string, body?: unknown) => {
    let res = await c.h.http(method, path, { session, body });
    if (res.status === 401 && session !== 'nobody') {
      session = await c.h.login(who.username, who.password);
      res = await c.h.http(method, path, { session, body });
    }
    return res;
  };
};
/** The allocator's current (A) and its reason, after the loop's next step. */
const offered = async () => {
  await c.step(1_000);
  const { energy } = await c.state();
  return { currentA: energy.currentA, reason: energy.reason };
};

describe('the running charge from the API', () => {
  test('no charge running: every action is refused with why (409); GET says nothing runs', async () => {
    const operator = as({ username: 'operator', password: OPERATOR_PASSWORD });
    expect((await operator('GET', '/v1/charge')).json).toEqual({ running: false, paused: false, currentA: null, minA: 6, maxA: 16, mayControl: false });
    for (const action of ['stop', 'pause', 'resume']) {
      const res = await operator('POST', `/v1/charge/${action}`);
      expect(res.status).toBe(409);
      expect(res.json).toEqual({ success: false, cause: 'No charge is running (state idle)' });
    }
    expect((await operator('POST', '/v1/charge/current', { currentA: 10 })).status).toBe(409);
  });

  test('the current: whole amperes from 6 to MaxCurrent, applied through the allocator as the user’s limit; pause holds it, resume restores it', async () => {
    await charging(c);
    const operator = as({ username: 'operator', password: OPERATOR_PASSWORD });
    for (const bad of [5, 17, 10.5]) {
      const res = await operator('POST', '/v1/charge/current', { currentA: bad });
      expect(res.status).toBe(400);
      expect(res.json.cause).toBe('The current must be a whole number of amperes from 6 to 16 A (the MaxCurrent setting)');
    }
    expect((await operator('POST', '/v1/charge/current', { currentA: '10' })).status).toBe(400);
    expect((await operator('POST', '/v1/charge/current', {})).status).toBe(400);
    expect(await offered()).toMatchObject({ reason: expect.not.stringMatching(/^pause$/) });

    expect((await operator('POST', '/v1/charge/current', { currentA: 10 })).json).toEqual({ success: true });
    expect(await offered()).toEqual({ currentA: 10, reason: 'pause' });
    expect((await operator('GET', '/v1/charge')).json).toMatchObject({ running: true, paused: false, currentA: 10, mayControl: true });

    expect((await operator('POST', '/v1/charge/pause')).status).toBe(200);
    expect(await offered()).toEqual({ currentA: 0, reason: 'pause' });
    expect((await operator('POST', '/v1/charge/pause')).json).toEqual({ success: false, cause: 'The charge is paused already' });
    await c.step(5_000);
    expect((await c.state()).systemState).toBe('charging_pause');
    expect((await operator('POST', '/v1/charge/resume')).status).toBe(200);
    expect(await offered()).toMatchObject({ reason: 'ramp' }); // from a pause: 6 A first, then rising
    await c.step(5_000);
    expect(await offered()).toEqual({ currentA: 10, reason: 'pause' });

    // null frees it; the settings' maximum applies again.
    expect((await operator('POST', '/v1/charge/current', { currentA: null })).status).toBe(200);
    await c.step(20_000);
    expect((await offered()).reason).not.toBe('pause');

    // It belongs to its transaction: the next one starts without it.
    expect((await operator('POST', '/v1/charge/current', { currentA: 8 })).status).toBe(200);
    expect((await operator('POST', '/v1/charge/stop')).json).toEqual({ success: true });
    await c.step(7_000);
    expect((await c.state()).transaction).toBeUndefined();
    expect((await operator('GET', '/v1/charge')).json).toMatchObject({ running: false, currentA: null });
    await c.h.controller.events.settled();
    const events = (await operator('GET', '/v1/events')).json.events.filter((e: any) => e.kind === 'charge_control');
    expect(events.map((e: any) => e.message)).toEqual([
      'Current of the running charge set to 10 A by operator from 127.0.0.1',
      'Running charge: pause by operator from 127.0.0.1',
      'Running charge: resume by operator from 127.0.0.1',
      'Current of the running charge freed by operator from 127.0.0.1',
      'Current of the running charge set to 8 A by operator from 127.0.0.1',
      'Running charge: stop by operator from 127.0.0.1',
    ]);
  });

  test('role user: only the charge whose tag belongs to the user named as the account; others are refused with why (403)', async () => {
    await charging(c); // KNOWN belongs to the user Alice
    const alice = as(ALICE);
    const bob = as(BOB);
    expect((await alice('GET', '/v1/charge')).json).toMatchObject({ running: true, mayControl: true });
    const other = (await bob('GET', '/v1/charge')).json;
    expect(other).toMatchObject({ running: true, mayControl: false, why: expect.stringContaining('its tag belongs to another user') });
    const refused = await bob('POST', '/v1/charge/pause');
    expect(refused.status).toBe(403);
    expect(refused.json.cause).toBe(
      'This charge is not yours (its tag belongs to another user): ' +
        'a role below operator may act only on a charge whose tag belongs to the user named as its account',
    );
    expect((await bob('POST', '/v1/charge/current', { currentA: 8 })).status).toBe(403);
    expect((await c.h.http('GET', '/v1/charge', { session: 'nobody' })).status).toBe(401);
    expect((await alice('POST', '/v1/charge/current', { currentA: 8 })).status).toBe(200);
    expect((await alice('POST', '/v1/charge/stop')).status).toBe(200);
    await c.step(7_000);

    // A tag of no user: nobody's but the operator's.
    await c.act('unplug');
    await c.act('plug');
    await c.tag(OTHER);
    await c.act('charge');
    const res = await alice('POST', '/v1/charge/stop');
    expect(res.status).toBe(403);
    expect(res.json.cause).toMatch(/^This charge is not yours \(its tag belongs to no user\)/);
    expect(KNOWN).not.toBe(OTHER);
  });
});
