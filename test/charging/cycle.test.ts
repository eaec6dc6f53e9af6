import { describe, expect, it } from 'vitest';
import { chargeCycleMachine } from '../../machines/charge-cycle.js';
import { transitionTable } from '../../machines/transitions.js';
import { CHECKPOINT_INTERVAL_MS, POLL_INTERVAL_MS } from '../../services/core/charge-point.js';
import { transactions as transactionsTable } from '../../db/schema.js';
import { askToCharge, charging, codes, KNOWN, OTHER, taken, UNKNOWN, useChargers, type Charger } from './scenario.js';
import { startOcppCharger, until } from '../ocpp/support.js';

/**
 * Scenario tests of the charge cycle on the simulated hardware, through the API and the simulator, with the manual
 * clock. The last test checks that together they took every transition of docs/charge-cycle.md.
 */

const chargers = useChargers();
const charger = (): Promise<Charger> => chargers.start();

const brief = (s: any) => [s.systemState, s.ocppState, s.authState];

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
    await c.api('PATCH', '/v1/settings', { params: [{ key: 'FLLEnabled', value: 1 }, { key: 'PhaseCurrentLimits', value: [20, 12, 20] }] });
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

/** How to reach each stable state of the charge cycle. */
const REACH: Record<string, (c: Charger) => Promise<void>> = {
  idle: async () => {},
  authorized: (c) => c.tag(KNOWN),
  expired: async (c) => {
    await c.tag(KNOWN);
    await c.step(30_000);
  },
  waitForAuth: (c) => c.act('plug'),
  ready: async (c) => {
    await c.act('plug');
    await c.tag(KNOWN);
  },
  charging,
  evPaused: async (c) => {
    await charging(c);
    await c.act('pause');
  },
  pausing: async (c) => {
    await charging(c);
    await c.sim('load-limit', { amps: 0 });
    await c.step(0);
  },
  evsePaused: async (c) => {
    await REACH.ready!(c);
    await c.sim('load-limit', { amps: 0 });
    await c.step(0);
  },
  stopping: async (c) => {
    await charging(c);
    await c.tag(KNOWN);
  },
  finished: async (c) => {
    await REACH.ready!(c);
    await c.tag(KNOWN);
  },
};

/** The states where a transaction runs: there a recoverable fault suspends it instead of ending it. */
const IN_TRANSACTION = new Set(['ready', 'charging', 'evPaused', 'pausing', 'evsePaused']);

describe('faults and unavailability from every state', () => {
  for (const [name, reach] of Object.entries(REACH)) {
    const suspends = IN_TRANSACTION.has(name);
    const outcome = suspends ? 'error/suspendedevse, the transaction goes on' : 'error/faulted';
    it(`${name}: overtemperature → ${outcome} (outputs safe), cleared below 75 °C; disabled → unavailable`, async () => {
      const c = await charger();
      await reach(c);
      await c.step(2000); // past `Reading card`
      const before = await c.state();
      const expectedCompleted = (await c.api('GET', '/v1/transactions')).json.length + (before.transaction ? 1 : 0);
      await c.sim('temperature', { celsius: 85 });
      await c.step(1000);
      expect(brief(await c.state())).toEqual(
        suspends ? ['error', 'suspendedevse', 'authorized_for_charging'] : ['error', 'faulted', 'not_authorized_for_charging'],
      );
      expect((await c.view()).plant).toMatchObject({ contactorClosed: false, pwmDuty: null, cableLocked: suspends });
      expect(await codes(c)).toEqual(['OVERTEMPERATURE']);
      expect((await c.view()).hmi).toBe('Error');
      expect((await c.state()).transaction?.transactionId).toBe(suspends ? before.transaction.transactionId : undefined);
      await c.sim('temperature', { celsius: 76 });
      await c.step(1000);
      expect((await c.state()).systemState).toBe('error');
      await c.sim('temperature', { celsius: 74 });
      await c.step(1000);
      expect((await c.state()).systemState).not.toBe('error');
      // The suspended transaction resumes by itself, the same one (a paused EV's as ready: it has not asked for energy
      // since); a fault outside a transaction returns by the vehicle's presence.
      if (suspends) {
        expect(await c.state()).toMatchObject({
          systemState: name === 'evPaused' ? 'connected' : before.systemState,
          ocppState: before.ocppState,
          transaction: { transactionId: before.transaction.transactionId },
        });
      }
      await c.settings({ chargingEnabled: false });
      expect(brief(await c.state())).toEqual(['unavailable', 'unavailable', 'not_authorized_for_charging']);
      expect((await c.view()).hmi).toBe('Unavailable');
      const completed = (await c.api('GET', '/v1/transactions')).json;
      expect(completed).toHaveLength(expectedCompleted);
    });
  }

  it(`disabled from every state`, async () => {
    for (const [name, reach] of Object.entries(REACH)) {
      const c = await charger();
      await reach(c);
      await c.settings({ chargingEnabled: false });
      expect(brief(await c.state()), name).toEqual(['unavailable', 'unavailable', 'not_authorized_for_charging']);
      expect((await c.view()).plant, name).toMatchObject({ contactorClosed: false, pwmDuty: null, cableLocked: false });
      await c.h.stop();
      chargers.stopped(c);
    }
  });

  it('unavailable: tags refused; a fault wins; enabled again after the fault returns by the vehicle presence', async () => {
    const c = await charger();
    await c.act('plug');
    await c.settings({ chargingEnabled: false });
    const before = await c.beeps();
    await c.tag(KNOWN);
    expect(await c.beeps()).toBe(before + 1);
    expect((await c.state()).systemState).toBe('unavailable');
    await c.sim('fault', { fault: 'cp-short' });
    await c.step(50);
    expect((await c.state()).systemState).toBe('error');
    await c.tag(KNOWN);
    expect(await c.beeps()).toBe(before + 2);
    await c.h.http('DELETE', '/sim/fault/cp-short');
    await c.step(50);
    expect((await c.state()).systemState).toBe('unavailable');
    await c.settings({ chargingEnabled: true });
    expect((await c.state()).systemState).toBe('wait_for_auth');
  });

  it('CP error E: error with a message, vehicle_connector_error; the transaction ends; recovers to waiting', async () => {
    const c = await charger();
    await charging(c);
    await c.sim('fault', { fault: 'cp-short' });
    await c.step(50);
    expect(await c.state()).toMatchObject({ systemState: 'error', ocppState: 'faulted', connectionState: 'vehicle_connector_error', type2State: 'e' });
    expect((await c.api('GET', '/v1/messages')).json.messages).toEqual([
      { severity: 'ERROR', errorCode: 'CP_STATE_E', message: expect.stringContaining('state E'), correctiveActions: expect.any(String) },
    ]);
    await c.h.http('DELETE', '/sim/fault/cp-short');
    await c.step(50);
    expect((await c.state()).systemState).toBe('wait_for_auth');
    expect((await c.api('GET', '/v1/messages')).json.messages).toEqual([]);
    const [tx] = await c.h.controller.database.db.select().from(transactionsTable);
    expect(tx!.stopReason).toBe('Other');
  });

  it('CP level F is reported as type2State e with its own message', async () => {
    const c = await charger();
    await c.sim('fault', { fault: 'diode-fault' });
    await c.step(50);
    expect(await c.state()).toMatchObject({ systemState: 'error', type2State: 'e', connectionState: 'vehicle_connector_error' });
    expect(await codes(c)).toEqual(['CP_STATE_F']);
  });

  it('D without ventilation is an error that suspends the transaction; with ventilation available D charges', async () => {
    const c = await charger();
    await c.sim('ev', { ventilation: true });
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    const suspended = await c.state();
    expect(suspended).toMatchObject({ systemState: 'error', ocppState: 'suspendedevse', type2State: 'd', transaction: { transactionId: expect.any(String) } });
    expect(await codes(c)).toEqual(['CP_STATE_D_NO_VENTILATION']);
    expect((await c.view()).plant).toMatchObject({ contactorClosed: false, cableLocked: true });
    await c.settings({ ventilationAvailable: true });
    expect(await c.state()).toMatchObject({ systemState: 'charging', type2State: 'd', transaction: { transactionId: suspended.transaction.transactionId } });
    expect((await c.view()).plant.contactorClosed).toBe(true);
  });

  it('a brief overheat while charging suspends the transaction and charging resumes by itself; the session tag still ends it', async () => {
    const c = await charger();
    await charging(c);
    const id = (await c.state()).transaction.transactionId;
    await c.sim('temperature', { celsius: 90 });
    await c.step(1000);
    expect(brief(await c.state())).toEqual(['error', 'suspendedevse', 'authorized_for_charging']);
    await c.sim('temperature', { celsius: 25 });
    await c.step(1000);
    expect(await c.state()).toMatchObject({ systemState: 'charging', transaction: { transactionId: id } });
    expect((await c.view()).plant.contactorClosed).toBe(true);
    // Suspended again, the driver may end the session with the card; the fault stays until the station cools down.
    await c.sim('temperature', { celsius: 90 });
    await c.step(1000);
    await c.tag(KNOWN);
    expect(brief(await c.state())).toEqual(['error', 'faulted', 'not_authorized_for_charging']);
    expect((await c.state()).transaction).toBeUndefined();
    await c.sim('temperature', { celsius: 25 });
    await c.step(1000);
    expect(brief(await c.state())).toEqual(['wait_for_auth', 'preparing', 'wait_for_auth']);
    const [done] = (await c.api('GET', '/v1/transactions')).json;
    expect(done.transactionId).toBe(id);
    expect((await c.h.controller.database.db.select().from(transactionsTable))[0]!.stopReason).toBe('Local');
  });

  it('CP error E ends the transaction from every state of it, suspended included; disabling ends a suspended one (the fault then shows)', async () => {
    for (const name of [...IN_TRANSACTION, 'suspended']) {
      const c = await charger();
      if (name === 'suspended') {
        await charging(c);
        await c.sim('temperature', { celsius: 85 });
        await c.step(1000);
        expect((await c.state()).ocppState, name).toBe('suspendedevse');
      } else await REACH[name]!(c);
      await c.sim('fault', { fault: 'cp-short' });
      await c.step(50);
      expect(brief(await c.state()), name).toEqual(['error', 'faulted', 'not_authorized_for_charging']);
      expect((await c.view()).plant, name).toMatchObject({ contactorClosed: false, pwmDuty: null, cableLocked: false });
      expect((await c.h.controller.database.db.select().from(transactionsTable))[0]!.stopReason, name).toBe('Other');
    }
    const c = await charger();
    await charging(c);
    await c.sim('temperature', { celsius: 85 });
    await c.step(1000);
    await c.settings({ chargingEnabled: false });
    expect(brief(await c.state())).toEqual(['error', 'faulted', 'not_authorized_for_charging']);
    expect((await c.state()).transaction).toBeUndefined();
    await c.sim('temperature', { celsius: 25 });
    await c.step(1000);
    expect(brief(await c.state())).toEqual(['unavailable', 'unavailable', 'not_authorized_for_charging']);
  });

  it('an unsafe fault during a transaction ends it: a welded contactor', async () => {
    const c = await charger();
    await charging(c);
    await c.sim('fault', { fault: 'contactor-welded' });
    await c.act('pause');
    await c.step(1000);
    expect(brief(await c.state())).toEqual(['error', 'faulted', 'not_authorized_for_charging']);
    expect((await c.state()).transaction).toBeUndefined();
    expect((await c.h.controller.database.db.select().from(transactionsTable))[0]!.stopReason).toBe('Other');
  });

  it('a welded contactor is an error until it opens; a contactor that does not close is latched until unplug', async () => {
    const c = await charger();
    await c.sim('fault', { fault: 'contactor-welded' });
    await c.step(1000);
    expect((await c.state()).systemState).toBe('error');
    expect(await codes(c)).toEqual(['CONTACTOR_WELDED']);
    await c.h.http('DELETE', '/sim/fault/contactor-welded');
    await c.step(1000);
    expect((await c.state()).systemState).toBe('idle');

    await c.sim('fault', { fault: 'contactor-stuck-open' });
    await askToCharge(c);
    await c.step(200);
    expect((await c.state()).systemState).toBe('error');
    expect(await codes(c)).toEqual(['CONTACTOR_NOT_CLOSING']);
    await c.h.http('DELETE', '/sim/fault/contactor-stuck-open');
    await c.step(2000);
    expect((await c.state()).systemState).toBe('error');
    await c.act('unplug');
    expect((await c.state()).systemState).toBe('idle');
  });

  it('a contactor that does not close, unplugged with free charging on: idle, no transaction starts on the way', async () => {
    const c = await charger();
    await c.settings({ freeCharging: true });
    await c.sim('fault', { fault: 'contactor-stuck-open' });
    await c.act('plug');
    await c.act('charge');
    await c.step(200);
    expect(brief(await c.state())).toEqual(['error', 'faulted', 'not_authorized_for_charging']);
    await c.h.http('DELETE', '/sim/fault/contactor-stuck-open');
    // The fault is latched until the vehicle leaves; it clears with the unplug, which the charge cycle learns first.
    await c.act('unplug');
    await c.step(1000);
    expect(brief(await c.state())).toEqual(['idle', 'available', 'not_authorized_for_charging']);
    const rows = await c.h.controller.database.db.select().from(transactionsTable);
    expect(rows.map((r) => r.stopReason)).toEqual(['Other']);
  });

  it('warnings do not stop charging: meter not answering (L1 -1), temperature sensor, high temperature', async () => {
    const c = await charger();
    await charging(c);
    await c.step(1000);
    await c.sim('fault', { fault: 'meter-offline' });
    await c.sim('fault', { fault: 'temperature-sensor-offline' });
    await c.step(1000);
    let s = await c.state();
    expect(s.systemState).toBe('charging');
    expect(s.ambientTemp).toBeUndefined();
    expect(s.transaction).toMatchObject({ power: 0, OCPPMeterCurrent: { L1: -1 } });
    expect((await c.api('GET', '/v1/messages')).json.messages.map((m: any) => [m.severity, m.errorCode])).toEqual([
      ['WARNING', 'TEMPERATURE_SENSOR_FAILURE'],
      ['WARNING', 'METER_NOT_RESPONDING'],
    ]);
    await c.h.http('DELETE', '/sim/fault/meter-offline');
    await c.h.http('DELETE', '/sim/fault/temperature-sensor-offline');
    await c.sim('temperature', { celsius: 65 });
    await c.step(1000);
    s = await c.state();
    expect(s.ambientTemp).toBe(65);
    expect((await c.api('GET', '/v1/messages')).json.messages.map((m: any) => [m.severity, m.errorCode])).toEqual([['WARNING', 'HIGH_TEMPERATURE']]);
    expect(s.transaction.OCPPMeterCurrent).toEqual({ L1: 16, L2: 16, L3: 16 });
  });
});

describe('persistence of the active transaction', () => {
  it('on a slow disk the checkpoints waiting to be written collapse into the latest: the queue never grows', async () => {
    const c = await charger();
    await charging(c);
    await c.step(0);
    const written: number[] = [];
    const transactions = c.h.controller.transactions;
    const checkpoint = transactions.checkpoint.bind(transactions);
    transactions.checkpoint = async (record) => {
      written.push(record.meterLastWh ?? -1);
      await checkpoint(record);
    };
    // The disk is busy (a write held open) while the EV pauses and resumes five times: ten state changes.
    let release!: () => void;
    const held = c.h.controller.database.write(() => new Promise<void>((resolve) => (release = resolve)));
    let meterNow: number;
    try {
      // The clock moves on without waiting for persistence (which waits for the disk).
      for (let i = 0; i < 5; i++) {
        await c.sim('pause');
        await c.h.clock.advance(2_000);
        await c.sim('charge');
        await c.h.clock.advance(50);
      }
      expect((await c.state()).systemState).toBe('charging');
      // The first checkpoint waits for the disk; the nine after it wait as one, with the last state change's reading.
      expect(written).toHaveLength(1);
      meterNow = Math.round((await c.view()).plant.energyWh);
    } finally {
      release();
    }
    await held;
    await c.step(0);
    expect(written).toHaveLength(2);
    expect(Math.abs(written[1]! - meterNow)).toBeLessThanOrEqual(4);
    const row = (await c.h.controller.database.db.select().from(transactionsTable))[0]!;
    expect(row.meterLastWh).toBe(written[1]);
  });

  it('is checkpointed every 10 s and on every state change', async () => {
    const c = await charger();
    await charging(c);
    const row = async () => (await c.h.controller.database.db.select().from(transactionsTable))[0]!;
    const first = await row(); // written when charging began (a state change)
    await c.step(CHECKPOINT_INTERVAL_MS - POLL_INTERVAL_MS);
    expect((await row()).checkpointedAt).toBe(first.checkpointedAt);
    await c.step(2 * POLL_INTERVAL_MS);
    const second = await row();
    expect(second.checkpointedAt - first.checkpointedAt).toBeGreaterThanOrEqual(CHECKPOINT_INTERVAL_MS);
    expect(second.checkpointedAt - first.checkpointedAt).toBeLessThanOrEqual(CHECKPOINT_INTERVAL_MS + POLL_INTERVAL_MS);
    expect(second.meterLastWh - first.meterLastWh).toBeGreaterThanOrEqual(Math.floor((11040 * CHECKPOINT_INTERVAL_MS) / 3_600_000));
    expect(second.maxPowerW).toBe(11040);
    await c.step(3_000);
    await c.act('pause'); // state change: checkpoint with a fresh reading
    const third = await row();
    expect(third.meterLastWh).toBe(Math.round((await c.view()).plant.energyWh));
    expect(third.checkpointedAt).toBe(c.h.clock.now() - 10); // the pause was acted on after the 40 ms debounce
    expect(third.endedAt).toBeNull();
  });

  it('a graceful stop completes the running transaction (Reboot); the restarted controller is idle', async () => {
    const c = await charger();
    await charging(c);
    await c.step(60_000);
    const dataDir = c.h.dataDir;
    await c.h.stop({ keepData: true });
    chargers.stopped(c);
    const again = await chargers.start({ dataDir });
    const [tx] = (await again.api('GET', '/v1/transactions')).json;
    expect(tx).toMatchObject({ tagId: KNOWN, consumption: 184 });
    expect((await again.state()).systemState).toBe('idle');
    const rows = await again.h.controller.database.db.select().from(transactionsTable);
    expect(rows.map((r) => r.stopReason)).toEqual(['Reboot']);
  });
});

describe('stopped by the central system (OCPP RemoteStopTransaction)', () => {
  it('before the EV asks for energy, while charging, and while pausing: finished, or stopping under load', async () => {
    const c = chargers.keep(await startOcppCharger());
    try {
      await c.online();
      const stop = async (n: number) => {
        expect(await c.csms.call('RemoteStopTransaction', { transactionId: n })).toEqual({ status: 'Accepted' });
        await until(c, () => c.csms.calls('StopTransaction').length === n, 'StopTransaction');
      };
      const start = async (n: number) => {
        await c.tag(KNOWN);
        await until(c, async () => (await c.state()).transaction?.backendTransactionId === String(n), 'the backend id');
      };
      await c.act('plug');
      await start(1);
      expect(brief(await c.state())).toEqual(['connected', 'suspendedev', 'authorized_for_charging']);
      await stop(1);
      expect(brief(await c.state())).toEqual(['finished', 'finishing', 'not_authorized_for_charging']);
      expect((await c.view()).plant).toMatchObject({ cableLocked: false, pwmCurrentA: null });
      await start(2);
      await c.act('charge');
      await stop(2);
      expect(brief(await c.state())).toEqual(['finished', 'finishing', 'not_authorized_for_charging']);
      expect((await c.view()).plant).toMatchObject({ contactorClosed: true, pwmCurrentA: null }); // until C→B or 6 s
      await c.act('pause');
      expect((await c.view()).plant.contactorClosed).toBe(false);
      await c.act('charge');
      await start(3);
      await c.sim('load-limit', { amps: 0 });
      await c.step(0);
      expect((await c.state()).ocppState).toBe('suspendedevse');
      await stop(3);
      expect(c.csms.calls('StopTransaction').map((p) => p.reason)).toEqual(['Remote', 'Remote', 'Remote']);
    } finally {
      await c.csms.close();
    }
  });
});

it('together the scenarios took every transition of docs/charge-cycle.md', () => {
  const table = transitionTable(chargeCycleMachine).map((r) => r.key);
  const done = taken.get('chargeCycle') ?? new Set();
  const missing = table.filter((k) => !done.has(k));
  expect(missing, 'transitions no scenario took').toEqual([]);
});
