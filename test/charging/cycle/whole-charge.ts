/**
 * Charge-cycle scenarios: a whole charge through the API and the simulator. Run by test/charging/cycle.test.ts (in one process, so
 * that it can check that together the scenarios took every transition).
 */
import { describe, expect, it } from 'vitest';
import { charging, KNOWN, OTHER, UNKNOWN } from '../scenario.js';
import { brief, charger } from './chargers.js';

describe('a whole charge through the API and the simulator', () => {
  it('plug, refused tag, whitelisted tag, charge, EV pause and resume, stop by the same tag, unplug', async () => {
    const c = await charger();
    expect(await c.state()).toEqual({
      systemState: 'idle',
      connectionState: 'no_vehicle_connected',
      authState: 'not_authorized_for_charging',
      ocppState: 'available',
      type2State: 'a',
      ambientTemp: 25,
      energy: expect.objectContaining({ currentA: 16 }),
    });
    await c.act('plug');
    expect(await c.state()).toMatchObject({
      systemState: 'wait_for_auth',
      authState: 'wait_for_auth',
      ocppState: 'preparing',
      connectionState: 'vehicle_connected_type2',
      type2State: 'b',
    });
    expect((await c.view()).hmi).toBe('Waiting for authorization');

    const beepsBefore = await c.beeps();
    await c.tag(UNKNOWN);
    expect(brief(await c.state())).toEqual(['wait_for_auth', 'preparing', 'wait_for_auth']);
    expect(await c.beeps()).toBe(beepsBefore + 1);
    expect((await c.view()).plant.lastBeep).toEqual({ count: 1, ms: 800 });
    expect((await c.view()).hmi).toBe('Reading card');
    await c.step(1500);
    expect((await c.view()).hmi).toBe('Waiting for authorization');

    await c.tag(KNOWN);
    let view = await c.view();
    expect(view.plant).toMatchObject({ pwmCurrentA: 16, cableLocked: true, contactorClosed: false, lastBeep: { count: 1, ms: 150 } });
    expect(view.plant.pwmDuty).toBeCloseTo(26.67, 1);
    expect(brief(await c.state())).toEqual(['connected', 'suspendedev', 'authorized_for_charging']);
    expect((await c.api('GET', '/v1/transactions/active')).status).toBe(200);

    await c.act('charge');
    view = await c.view();
    expect(view.plant).toMatchObject({ contactorClosed: true, cableLocked: true });
    expect(await c.state()).toMatchObject({ systemState: 'charging', ocppState: 'charging', connectionState: 'vehicle_charging_type2', type2State: 'c' });

    await c.step(600_000); // 10 minutes at 3 × 16 A × 230 V = 11 040 W
    const during = await c.state();
    expect(during.transaction).toEqual({
      transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      transactionStart: '2026-06-01T08:00:01.550Z',
      transactionDuration: 600,
      tagId: KNOWN,
      userId: c.userId,
      consumption: 1838, // 1840 Wh by the register; the API shows the last meter poll (up to 1 s old)
      power: 11040,
      maxPower: 11040,
      OCPPMeterCurrent: { L1: 16, L2: 16, L3: 16 },
    });

    // EV pause: the contactor opens within 100 ms of C→B (40 ms debounce), PWM stays on.
    await c.sim('pause');
    await c.step(39);
    expect((await c.view()).plant.contactorClosed).toBe(true);
    await c.step(60);
    expect((await c.view()).plant).toMatchObject({ contactorClosed: false, pwmCurrentA: 16, cableLocked: true });
    expect(brief(await c.state())).toEqual(['charging_pause', 'suspendedev', 'authorized_for_charging']);
    await c.act('charge');
    expect((await c.state()).systemState).toBe('charging');
    await c.step(60_000);

    // Stop by the same tag under load: PWM off at once, contactor opens when the EV leaves C.
    await c.tag(KNOWN);
    expect((await c.view()).plant).toMatchObject({ pwmDuty: null, contactorClosed: true, cableLocked: true });
    expect(brief(await c.state())).toEqual(['finished', 'finishing', 'not_authorized_for_charging']);
    expect((await c.api('GET', '/v1/transactions/active')).status).toBe(204);
    await c.act('pause');
    expect((await c.view()).plant).toMatchObject({ contactorClosed: false, cableLocked: false });
    await c.step(1500);
    expect((await c.view()).hmi).toBe('Finished');

    await c.act('unplug');
    expect(brief(await c.state())).toEqual(['idle', 'available', 'not_authorized_for_charging']);
    const list = (await c.api('GET', '/v1/transactions')).json;
    expect(list).toEqual([
      {
        transactionId: during.transaction.transactionId,
        tagId: KNOWN,
        userId: c.userId,
        startTransaction: '2026-06-01T08:00:01.550Z',
        endTransaction: expect.any(String),
        consumption: 1840 + 184 + 0, // 10 min + 1 min of charging (nothing while paused)
        maxPower: 11040,
        meterStartWh: expect.any(Number),
        meterStopWh: expect.any(Number),
        stopReason: 'Local',
      },
    ]);
    expect((await c.api('GET', '/v1/transactions/summary')).json).toEqual({ transactionCount: 1, totalDuration: 660, totalConsumption: 2024 });
  });

  it('stop by tag while the EV stays in C: power is cut 6 s later', async () => {
    const c = await charger();
    await charging(c);
    await c.tag(KNOWN);
    await c.step(5_900);
    expect((await c.view()).plant.contactorClosed).toBe(true);
    await c.step(100);
    expect((await c.view()).plant).toMatchObject({ contactorClosed: false, cableLocked: false, vehicle: 'requesting' });
    expect(brief(await c.state())).toEqual(['finished', 'finishing', 'not_authorized_for_charging']);
    const [tx] = (await c.api('GET', '/v1/transactions')).json;
    expect(tx.consumption).toBe(0);
  });

  it('stop before the EV asked for energy, then a new transaction with a new tag presentation', async () => {
    const c = await charger();
    await c.act('plug');
    await c.tag(KNOWN);
    await c.tag(KNOWN);
    expect(brief(await c.state())).toEqual(['finished', 'finishing', 'not_authorized_for_charging']);
    await c.tag(UNKNOWN);
    expect((await c.state()).systemState).toBe('finished');
    await c.tag(OTHER);
    expect((await c.state()).systemState).toBe('connected');
    const first = (await c.api('GET', '/v1/transactions')).json;
    expect(first).toHaveLength(1);
    const active = (await c.state()).transaction;
    expect(active.tagId).toBe(OTHER);
    expect(active.transactionId).not.toBe(first[0].transactionId);
    expect(active.userId).toBeUndefined();
    await c.act('unplug');
    expect((await c.api('GET', '/v1/transactions')).json.map((t: any) => t.tagId)).toEqual([KNOWN, OTHER]);
  });

  it('other tags during a transaction: a known one is reported and ignored, an unknown one refused', async () => {
    const c = await charger();
    await charging(c);
    const before = await c.beeps();
    await c.tag(OTHER);
    await c.tag(UNKNOWN);
    expect((await c.state()).systemState).toBe('charging');
    expect(await c.beeps()).toBe(before + 1);
    expect(c.h.logs.join('')).toContain('a known tag other than the session tag was presented');
    await c.tag(KNOWN);
    await c.tag(KNOWN); // stopping: refused
    expect(await c.beeps()).toBe(before + 3);
  });

  it('a CP glitch shorter than the debounce does not end the session', async () => {
    const c = await charger();
    await c.act('plug');
    await c.tag(KNOWN);
    await c.sim('unplug');
    await c.step(20);
    await c.sim('plug');
    await c.step(100);
    expect((await c.state()).systemState).toBe('connected');
    expect((await c.api('GET', '/v1/transactions')).json).toEqual([]);
  });
});
