/**
 * Charge-cycle scenarios: settings and load management. Run by test/charging/cycle.test.ts (in one process, so
 * that it can check that together the scenarios took every transition).
 */
import { describe, expect, it } from 'vitest';
import { charging, KNOWN } from '../scenario.js';
import { brief, charger } from './chargers.js';

describe('settings and load management', () => {
  it('free charging authorizes at plug-in, also while already waiting', async () => {
    const c = await charger();
    await c.settings({ freeCharging: true });
    await c.act('plug');
    let s = await c.state();
    expect(brief(s)).toEqual(['connected', 'suspendedev', 'authorized_for_charging']);
    expect(s.transaction.tagId).toBeUndefined();
    await c.act('unplug');
    await c.settings({ freeCharging: false });
    await c.act('plug');
    expect((await c.state()).systemState).toBe('wait_for_auth');
    await c.settings({ freeCharging: true });
    s = await c.state();
    expect(s.systemState).toBe('connected');
  });

  it('the maximum current sets the PWM duty; below 6 A the EVSE pauses (PWM off)', async () => {
    const c = await charger();
    await c.settings({ maxCurrentA: 32 });
    await c.act('plug');
    await c.tag(KNOWN);
    expect((await c.view()).plant.pwmDuty).toBeCloseTo(53.33, 1);
    await c.sim('load-limit', { amps: 10 });
    await c.step(0);
    expect((await c.view()).plant.pwmCurrentA).toBe(10);
    await c.sim('load-limit', { amps: 4 });
    await c.step(0);
    expect(brief(await c.state())).toEqual(['charging_pause', 'suspendedevse', 'authorized_for_charging']);
    expect((await c.view()).plant.pwmDuty).toBeNull();
    await c.act('charge'); // the EV asks while no current is available: nothing closes
    expect((await c.view()).plant.contactorClosed).toBe(false);
    await c.sim('load-limit', { amps: null });
    await c.step(0);
    expect((await c.state()).systemState).toBe('charging');
  });

  it('local whitelist off (FLLEnabled 0): whitelisted tags no longer authorize; the supply limits cap the PWM', async () => {
    const c = await charger();
    expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'FLLEnabled', value: 0 }] })).status).toBe(200);
    await c.act('plug');
    const before = await c.beeps();
    await c.tag(KNOWN);
    expect((await c.state()).systemState).toBe('wait_for_auth');
    expect((await c.view()).plant.lastBeep).toEqual({ count: 1, ms: 800 });
    expect(await c.beeps()).toBe(before + 1);
    await c.api('PATCH', '/v1/settings', {
      params: [
        { key: 'FLLEnabled', value: 1 },
        { key: 'PhaseCurrentLimits', value: [20, 12, 20] },
      ],
    });
    await c.tag(KNOWN);
    expect((await c.view()).plant.pwmCurrentA).toBe(12);
  });

  it('EVSE pause under load: PWM off, contactor open when the EV leaves C, or power cut after 6 s', async () => {
    const c = await charger();
    await charging(c);
    await c.sim('load-limit', { amps: 5 });
    await c.step(0);
    expect(brief(await c.state())).toEqual(['charging_pause', 'suspendedevse', 'authorized_for_charging']);
    expect((await c.view()).plant).toMatchObject({ pwmDuty: null, contactorClosed: true });
    await c.sim('load-limit', { amps: 16 });
    await c.step(0);
    expect((await c.state()).systemState).toBe('charging');
    await c.sim('load-limit', { amps: 5 });
    await c.act('pause');
    expect((await c.view()).plant.contactorClosed).toBe(false);
    expect((await c.state()).ocppState).toBe('suspendedevse');
    await c.sim('load-limit', { amps: null });
    await c.step(0);
    expect((await c.state()).ocppState).toBe('suspendedev');
    await c.act('charge');
    await c.sim('load-limit', { amps: 0 });
    await c.step(5_999);
    expect((await c.view()).plant.contactorClosed).toBe(true);
    await c.step(1);
    expect((await c.view()).plant.contactorClosed).toBe(false);
    expect((await c.state()).ocppState).toBe('suspendedevse');
    await c.act('pause');
    await c.sim('load-limit', { amps: null });
    await c.act('charge');
    await c.sim('load-limit', { amps: 0 });
    await c.step(0);
    await c.tag(KNOWN); // stop while pausing under load
    expect((await c.state()).systemState).toBe('finished');
  });

  it('a paused EV and a lowered limit: suspendedev becomes suspendedevse', async () => {
    const c = await charger();
    await charging(c);
    await c.act('pause');
    await c.sim('load-limit', { amps: 3 });
    await c.step(0);
    expect((await c.state()).ocppState).toBe('suspendedevse');
  });

  it('authorized while no current is available: the transaction starts paused by the EVSE', async () => {
    const c = await charger();
    await c.sim('load-limit', { amps: 2 });
    await c.act('plug');
    await c.act('charge');
    await c.tag(KNOWN);
    expect(brief(await c.state())).toEqual(['charging_pause', 'suspendedevse', 'authorized_for_charging']);
    await c.sim('load-limit', { amps: null });
    await c.step(0);
    expect((await c.state()).systemState).toBe('charging');
  });
});
