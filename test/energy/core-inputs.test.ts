import { expect, test } from 'vitest';
import { ModbusError } from '../../drivers/meter/modbus.js';
import type { ModbusLink } from '../../drivers/meter/grid-meter.js';
import { ENERGY_DEFAULTS } from '../../services/energy/allocator.js';
import { charging, useChargers, type Charger } from '../charging/scenario.js';

/**
 * The grid meter and the ripple-control contact read by the charge-point core (services/core/grid-inputs.ts) on a
 * whole controller with simulated hardware: the core's hardware holds the site's twins (the SDM630 twin on its bus,
 * the contact), its readings reach the energy inputs over the core's protocol, and the allocator uses them. The same
 * path as HARDWARE=rpi, where the bus is the charging meter's serial port and the contact a GPIO.
 */

const chargers = useChargers();

/** The core's grid meter bus, which the test can silence (a meter that stops answering). */
function silenceableBus() {
  const state = { silent: false, asked: 0 };
  const wrap = (bus: ModbusLink): ModbusLink => ({
    exchange(request, address) {
      state.asked++;
      return state.silent ? Promise.reject(new ModbusError('meter did not answer (test)')) : bus.exchange(request, address);
    },
  });
  return { state, wrap };
}

async function settings(c: Charger, params: Record<string, unknown>) {
  const res = await c.api('PATCH', '/v1/settings', { params: Object.entries(params).map(([key, value]) => ({ key, value })) });
  expect(res.status, res.text).toBe(200);
  await c.step(0);
}
const energy = async (c: Charger) => (await c.state()).energy;
const gridW = async (c: Charger) => (await c.view()).site.gridW as number[];

test('the core reads the grid meter twin: house + EV − PV reaches the allocator; silent, the reading ages into the failsafe', async () => {
  const bus = silenceableBus();
  const c = await chargers.start({
    chargePoint: (hw) => ({ ...hw, ...(hw.gridMeterBus ? { gridMeterBus: bus.wrap(hw.gridMeterBus) } : {}) }),
    harness: { timeZone: 'UTC' },
  });
  await c.step(5_000);
  expect(bus.state.asked).toBe(0); // GridPowerSource None: the core leaves the grid meter alone
  await settings(c, { GridPowerSource: 1, GridMeterAddress: 4, ChargingMode: 2 });
  await c.sim('day', { profile: 'sunny', speed: 1, startHour: 12, seed: 3 });
  await charging(c);
  await c.step(3_000);
  expect(bus.state.asked).toBeGreaterThanOrEqual(3); // about once a second, after each charging-meter read
  const inputs = c.h.controller.energyInputs.inputs;
  const read = inputs.gridPowerW()!;
  expect(read.at).toBeGreaterThan(c.h.clock.now() - 1_500);
  // What the site shows (the simulator's view) and what the core's twin measured agree (the EV's draw of the last second).
  const shown = await gridW(c);
  read.value.forEach((w, i) => expect(Math.abs(w - shown[i]!)).toBeLessThan(50));
  // Noon on a sunny day: the PV covers the house and more; Min + Solar charges above 6 A on the surplus.
  const status = await energy(c);
  expect(status.inputs.surplusW).toBeGreaterThan(1000);
  expect(status.limits.find((l: { source: string }) => l.source === 'solar')).toMatchObject({ status: 'fresh' });

  // The meter stops answering: the last reading stays (logged once) and ages; after the surplus's 60 s it is stale.
  bus.state.silent = true;
  const last = inputs.gridPowerW()!;
  await c.step(ENERGY_DEFAULTS.surplusMaxAgeMs - 5_000);
  expect(inputs.gridPowerW()).toEqual(last);
  expect((await energy(c)).inputs.surplusW).not.toBeNull();
  await c.step(10_000);
  const stale = await energy(c);
  expect(stale.inputs.surplusW).toBeNull();
  expect(stale).toMatchObject({ currentA: 6, reason: 'solar' }); // Min + Solar without a surplus: 6 A from the grid
  expect(c.h.logs.filter((l) => l.includes('the grid meter does not answer'))).toHaveLength(1);

  bus.state.silent = false;
  await c.step(2_000);
  expect(inputs.gridPowerW()!.at).toBeGreaterThan(c.h.clock.now() - 1_500);
  expect(c.h.logs.some((l) => l.includes('the grid meter answers again'))).toBe(true);
});

test('the core reads the ripple-control contact: closed dims the allocation to GridOperatorDimmedLimit, open lifts it', async () => {
  const c = await chargers.start({ harness: { timeZone: 'UTC' } });
  await settings(c, { GridOperatorSource: 3, GridOperatorDimmedLimit: 4140 });
  await charging(c);
  await c.step(5_000);
  expect(await energy(c)).toMatchObject({ currentA: 16 });
  await c.sim('ripple', { closed: true });
  await c.step(1_000); // the allocator's next step
  // 4,140 W on three phases at 230 V: 6 A.
  expect(await energy(c)).toMatchObject({ currentA: 6, reason: 'gridOperator' });
  expect((await c.view()).plant.pwmCurrentA).toBe(6);
  await c.sim('ripple', { closed: false });
  await c.step(10_000);
  expect(await energy(c)).toMatchObject({ currentA: 16 });
});
