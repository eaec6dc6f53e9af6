/**
 * Charge-cycle scenarios: a charge started by a user without a tag (AUTHORIZE, services/charge-control.ts), and the
 * core opening the main contactor for a phase switch (OPEN_CONTACTOR, services/core/phase-switching.ts). Run by
 * test/charging/cycle.test.ts (in one process, so that it can check that together the scenarios took every
 * transition).
 */
import { describe, expect, it } from 'vitest';
import { charging } from '../scenario.js';
import { brief, chargers } from './chargers.js';

describe('started by a user without a tag', () => {
  it('before plug-in (held until the vehicle comes), plugged in, and after a finished charge', async () => {
    const c = await chargers.start({ env: {} });
    const start = () => c.h.controller.chargeControl.start();
    start();
    await c.step(0);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    await c.act('plug');
    expect((await c.state()).transaction).toBeDefined();
    expect((await c.state()).transaction.tagId).toBeUndefined();
    c.h.controller.chargeControl.stop();
    await c.step(0);
    expect(brief(await c.state())[0]).toBe('finished');
    start();
    await c.step(0);
    expect((await c.state()).transaction).toBeDefined();
    c.h.controller.chargeControl.stop();
    await c.act('unplug');
    await c.act('plug');
    expect((await c.state()).systemState).toBe('wait_for_auth');
    start();
    await c.step(0);
    expect((await c.state()).transaction).toBeDefined();
  });
});

describe('a phase switch opens the main contactor while paused under load', () => {
  it('the transaction goes on with the contactor open, then charges on one phase', async () => {
    const c = await chargers.start({ env: { GPIO_PHASE_SWITCH: '16' } });
    c.h.controller.energy.stop(); // the scenario names the phase count the allocator would prefer
    await charging(c);
    const id = (await c.state()).transaction.transactionId;
    c.h.controller.charging.setPhaseSwitch({ wanted: 1 });
    await c.step(8_000); // drain (at most 6 s) and the main contactor's feedback
    expect((await c.view()).plant.contactorClosed).toBe(false);
    expect((await c.state()).transaction.transactionId).toBe(id);
    await c.step(15_000); // settle, resume
    expect((await c.view()).plant).toMatchObject({ contactorClosed: true, currentsA: [16, 0, 0] });
  });
});
