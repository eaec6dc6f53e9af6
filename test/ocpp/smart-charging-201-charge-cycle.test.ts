import { Writable } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { createLogger } from '../../services/logger.js';
import { createScheduleApplier } from '../../services/ocpp/charging-schedule.js';
import { createSmartCharging201 } from '../../services/ocpp/ocpp201/smart-charging.js';
import { createProfileStore } from '../../services/ocpp/smart-charging.js';
import { KNOWN, startCharger, type Charger } from '../charging/scenario.js';
import { until } from './support.js';
import { centralSystem, profile201 } from './smart-charging-201-support.js';

/**
 * OCPP 2.0.1 smart charging end to end (docs/ocpp.md): the module wired as the 2.0.1 adapter wires it, on a running
 * controller (simulated hardware, manual clock), its profiles lowering the current the charge cycle offers the car
 * (the PWM), lowest of every limit winning, as the 1.6 profiles do (management.test.ts). Every message checked by
 * both 2.0.1 validators (smart-charging-201-support.ts).
 */

const started: Charger[] = [];
afterEach(async () => {
  for (const c of started.splice(0)) await c.h.stop();
});

async function charging() {
  const c = await startCharger();
  started.push(c);
  const { controller, clock } = c.h;
  const logger = await createLogger({ logLevel: 'info', logFormat: 'json' }, new Writable({ write: (_c, _e, done) => done() }));
  const profiles = await createProfileStore(controller.database);
  const schedule = createScheduleApplier(
    {
      charging: controller.charging,
      logger,
      setting: (key) => controller.settings.get(key),
      now: () => clock.now(),
      after: (ms, fn) => clock.setTimeout(fn, ms),
      cancel: (id) => clock.clearTimeout(id),
      closed: () => false,
    },
    profiles,
  );
  const csms = centralSystem();
  const smart = createSmartCharging201({ profiles, schedule, ...csms.deps, now: () => clock.now(), logger });
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  const tx = await until(c, () => controller.charging.coreState()?.transaction, 'the transaction');
  await smart.transactionChanged(undefined, tx.transactionId); // the adapter: TransactionEvent Started
  expect((await c.view()).plant.pwmCurrentA).toBe(16);
  const call = (action: Parameters<typeof csms.call>[1], request: Record<string, unknown>) => csms.call(smart, action, request);
  return { c, smart, call, transactionId: tx.transactionId, pwm: async () => (await c.view()).plant.pwmCurrentA as number };
}

test('a TxProfile lowers the PWM for its duration, a ChargingStationMaxProfile caps it, clearing lifts it; the composite shows it', async () => {
  const { c, call, transactionId, pwm } = await charging();
  const tx = profile201(
    1,
    'TxProfile',
    0,
    { transactionId },
    {
      duration: 120,
      chargingSchedulePeriod: [
        { startPeriod: 0, limit: 10 },
        { startPeriod: 60, limit: 8 },
      ],
    },
  );
  expect(await call('SetChargingProfile', { evseId: 1, chargingProfile: tx })).toEqual({ status: 'Accepted' });
  await c.step(0);
  expect(await pwm()).toBe(10);
  const composite = await call('GetCompositeSchedule', { evseId: 1, duration: 300, chargingRateUnit: 'A' });
  // Relative to the transaction's start (a few hundred ms before now): 10 A, 8 A, then the installation maximum.
  expect(composite.schedule.chargingSchedulePeriod.map((p: { limit: number }) => p.limit)).toEqual([10, 8, 16]);

  const max = profile201(2, 'ChargingStationMaxProfile', 6, { chargingProfileKind: 'Absolute' }, { startSchedule: new Date(c.h.clock.now()).toISOString() });
  expect(await call('SetChargingProfile', { evseId: 0, chargingProfile: max })).toEqual({ status: 'Accepted' });
  await c.step(0);
  expect(await pwm()).toBe(6);
  expect(await call('ClearChargingProfile', { chargingProfileCriteria: { chargingProfilePurpose: 'ChargingStationMaxProfile' } })).toEqual({
    status: 'Accepted',
  });
  await c.step(3_000); // a rise follows the allocator's ramp: 2 A a second (docs/energy.md)
  expect(await pwm()).toBe(10);
  await c.step(60_000);
  expect(await pwm()).toBe(8);
  await c.step(60_000);
  await c.step(4_000);
  expect(await pwm()).toBe(16);
});

test('below 6 A a TxDefaultProfile pauses charging; the controller’s own lower limit wins; the transaction’s end takes its TxProfile', async () => {
  const { c, smart, call, transactionId, pwm } = await charging();
  expect(await call('SetChargingProfile', { evseId: 1, chargingProfile: profile201(1, 'TxDefaultProfile', 3) })).toEqual({ status: 'Accepted' });
  await c.step(0);
  expect((await c.view()).plant.pwmCurrentA).not.toBe(16);
  expect((await c.state()).ocppState).toBe('suspendedevse');
  expect(await call('SetChargingProfile', { evseId: 1, chargingProfile: profile201(1, 'TxDefaultProfile', 12) })).toEqual({ status: 'Accepted' });
  await c.step(5_000);
  expect(await pwm()).toBe(12);
  // The user's lower current (the controller's own limit) wins; the composite says so.
  c.h.controller.charging.limits.set('pause', 9);
  await c.step(0);
  expect(await pwm()).toBe(9);
  const composite = await call('GetCompositeSchedule', { evseId: 0, duration: 60 });
  expect(composite.schedule.chargingSchedulePeriod).toEqual([{ startPeriod: 0, limit: 9 }]);
  c.h.controller.charging.limits.set('pause', null);

  expect(await call('SetChargingProfile', { evseId: 1, chargingProfile: profile201(2, 'TxProfile', 7, { stackLevel: 1, transactionId }) })).toEqual({
    status: 'Accepted',
  });
  await c.step(0);
  expect(await pwm()).toBe(7);
  await smart.transactionChanged(transactionId, undefined); // the adapter: TransactionEvent Ended
  await c.step(5_000);
  expect(await pwm()).toBe(12); // the TxDefaultProfile again
  await call('GetChargingProfiles', { requestId: 1, chargingProfile: {} });
});
