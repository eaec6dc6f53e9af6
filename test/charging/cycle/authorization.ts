/**
 * Charge-cycle scenarios: authorization before plug-in. Run by test/charging/cycle.test.ts (in one process, so
 * that it can check that together the scenarios took every transition).
 */
import { describe, expect, it } from 'vitest';
import { transactions as transactionsTable } from '../../../db/schema.js';
import { KNOWN, OTHER, UNKNOWN } from '../scenario.js';
import { brief, charger } from './chargers.js';

describe('authorization before plug-in', () => {
  it('is held until plug-in, A to C directly charges at once, unplug ends with EVDisconnected', async () => {
    const c = await charger();
    await c.tag(KNOWN);
    expect(brief(await c.state())).toEqual(['idle', 'preparing', 'authorized_for_charging']);
    expect((await c.view()).hmi).toBe('Reading card');
    await c.step(1500);
    expect((await c.view()).hmi).toBe('Authorized');
    await c.sim('plug');
    await c.sim('charge');
    await c.step(50);
    expect((await c.state()).systemState).toBe('charging');
    expect((await c.view()).plant).toMatchObject({ contactorClosed: true, cableLocked: true });
    await c.act('unplug');
    expect((await c.view()).plant).toMatchObject({ contactorClosed: false, cableLocked: false, pwmDuty: null });
    const row = await c.h.controller.database.db.select().from(transactionsTable);
    expect(row.map((r) => r.stopReason)).toEqual(['EVDisconnected']);
  });

  it('expires after auth_timeout (30 s): auth_timeout until the next tag; plug-in then waits for one', async () => {
    const c = await charger();
    await c.tag(KNOWN);
    await c.step(29_900);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    await c.step(100);
    expect(brief(await c.state())).toEqual(['idle', 'available', 'auth_timeout']);
    expect((await c.view()).hmi).toBe('Authorization timed out');
    await c.tag(UNKNOWN);
    expect((await c.state()).authState).toBe('auth_timeout');
    await c.tag(KNOWN);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    await c.step(30_000);
    await c.act('plug');
    expect(brief(await c.state())).toEqual(['wait_for_auth', 'preparing', 'wait_for_auth']);
  });

  it('the same tag again withdraws it; another known tag replaces it and restarts the timeout; unknown is refused', async () => {
    const c = await charger();
    await c.tag(KNOWN);
    await c.tag(KNOWN);
    expect(brief(await c.state())).toEqual(['idle', 'available', 'not_authorized_for_charging']);
    await c.tag(UNKNOWN);
    await c.tag(KNOWN);
    await c.step(20_000);
    await c.tag(OTHER);
    await c.step(20_000);
    await c.tag(UNKNOWN);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    await c.act('plug');
    expect((await c.state()).transaction.tagId).toBe(OTHER);
  });
});
