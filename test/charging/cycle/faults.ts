/**
 * Charge-cycle scenarios: faults and unavailability from every state. Run by test/charging/cycle.test.ts (in one process, so
 * that it can check that together the scenarios took every transition).
 */
import { describe, expect, it } from 'vitest';
import { transactions as transactionsTable } from '../../../db/schema.js';
import { askToCharge, charging, codes, KNOWN, type Charger } from '../scenario.js';
import { brief, charger, chargers } from './chargers.js';

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
