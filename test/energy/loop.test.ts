import { expect, test } from 'vitest';
import type { PerLine } from '../../services/energy/allocator.js';
import type { EnergyInputs } from '../../services/energy/contracts.js';
import { charging, KNOWN, useChargers, type Charger } from '../charging/scenario.js';

/**
 * The allocator loop on a controller with simulated hardware, through its real interfaces: the settings and the
 * simulator over HTTP, GET /v1/system_state's extension `energy`, /metrics; the surplus through a scripted grid meter
 * (an `EnergyInputs`). The manual clock drives the loop's second, the solar delays and the meter.
 */

const chargers = useChargers();

/** A grid connection point with a PV system of `pv` W and the EV's draw from the simulated meter (no house load). */
function scriptedGrid(): { inputs: EnergyInputs; pv: { w: number }; attach(c: Charger): void } {
  const pv = { w: 0 };
  let c: Charger | undefined;
  return {
    pv,
    attach: (charger) => void (c = charger),
    inputs: {
      gridPowerW() {
        if (!c) return null;
        const draw = Math.max(0, c.h.controller.charging.coreState()?.meter?.powerW ?? 0);
        const w = (draw - pv.w) / 3;
        return { value: [w, w, w] as PerLine, at: c.h.clock.now() };
      },
      gridOperator: () => null,
    },
  };
}

async function start(inputs?: EnergyInputs): Promise<Charger> {
  return chargers.start({ harness: { timeZone: 'UTC', ...(inputs ? { energyInputs: inputs } : {}) } });
}

const energy = async (c: Charger) => (await c.state()).energy;
const set = async (c: Charger, params: Record<string, unknown>) => {
  const res = await c.api('PATCH', '/v1/settings', { params: Object.entries(params).map(([key, value]) => ({ key, value })) });
  expect(res.status, res.text).toBe(200);
  expect(
    res.json.params.every((p: { success: boolean }) => p.success),
    res.text,
  ).toBe(true);
  await c.step(0);
};

test('GET /v1/system_state keeps the spec fields and adds the extension energy', async () => {
  const c = await start();
  const state = await c.state();
  expect(Object.keys(state)).toEqual(['systemState', 'connectionState', 'authState', 'ocppState', 'type2State', 'ambientTemp', 'energy']);
  expect(state.energy).toEqual({
    mode: 'fast',
    currentA: 16,
    phases: 3,
    reason: 'maxCurrent',
    description: 'Limited to 16 A by the maximum current setting',
    limits: [
      { source: 'pause', amps: null, status: 'fresh' },
      { source: 'session', amps: null, status: 'fresh' },
      { source: 'schedule', amps: null, status: 'off' },
      { source: 'gridOperator', amps: null, status: 'off' },
      { source: 'solar', amps: null, status: 'off' },
      { source: 'site', amps: null, status: 'off' },
      { source: 'ocpp', amps: null, status: 'off' },
      { source: 'mqtt', amps: null, status: 'off' },
      { source: 'supply', amps: 32, status: 'fresh' },
      { source: 'maxCurrent', amps: 16, status: 'fresh' },
      { source: 'cable', amps: null, status: 'off' },
      { source: 'hardware', amps: 32, status: 'fresh' },
    ],
    inputs: { gridPowerW: null, surplusW: null, gridOperatorW: null, siteShareA: null },
    solar: 'bypassed',
    today: { solarWh: 0, gridWh: 0 },
  });
});

test('every limit composes, the lowest wins and is named: MaxCurrent, the MQTT/simulator limit, OCPP, the pause', async () => {
  const c = await start();
  await charging(c);
  const pwm = async () => (await c.view()).plant.pwmCurrentA;
  expect(await pwm()).toBe(16);

  await set(c, { MaxCurrent: 10 });
  expect(await energy(c)).toMatchObject({ currentA: 10, reason: 'maxCurrent' });
  expect(await pwm()).toBe(10);

  await c.sim('load-limit', { amps: 8 }); // the simulator stands in for the MQTT load limit
  await c.step(0);
  expect(await energy(c)).toMatchObject({ currentA: 8, reason: 'mqtt', description: 'Limited to 8 A by the MQTT load limit' });
  expect(await pwm()).toBe(8);

  c.h.controller.charging.limits.set('ocpp', 7); // what services/ocpp/charging-schedule.ts sets from the composite
  await c.step(0);
  expect(await energy(c)).toMatchObject({ currentA: 7, reason: 'ocpp' });
  expect(await pwm()).toBe(7);

  c.h.controller.chargeControl.pause();
  await c.step(50);
  expect(await energy(c)).toMatchObject({ currentA: 0, reason: 'pause', description: 'Paused by the user' });
  expect((await c.state()).systemState).toBe('charging_pause');

  // Resumed, every limit lifted: 6 A after the pause, then up by the ramp (2 A a second) to MaxCurrent.
  c.h.controller.chargeControl.resume();
  c.h.controller.charging.limits.set('ocpp', null);
  await c.sim('load-limit', { amps: null });
  await c.step(0);
  expect(await energy(c)).toMatchObject({ currentA: 6, reason: 'ramp' });
  await c.step(1000);
  expect(await energy(c)).toMatchObject({ currentA: 8, reason: 'ramp' });
  await c.step(1000);
  expect(await energy(c)).toMatchObject({ currentA: 10, reason: 'maxCurrent' });
  expect((await c.state()).systemState).toBe('charging');
  expect(await pwm()).toBe(10);
});

test('the schedule pauses outside its windows and charges inside them', async () => {
  const c = await start();
  await charging(c);
  // TEST_EPOCH is Monday 08:00 UTC.
  await set(c, { ChargingSchedule: 'Tu-Fr 00:00-24:00, Mo 09:00-10:00' });
  expect(await energy(c)).toMatchObject({ currentA: 0, reason: 'schedule', description: 'Paused by the schedule' });
  expect((await c.state()).systemState).toBe('charging_pause');
  await c.step(60 * 60_000 + 6_000); // 09:00:06: 6 A, then the ramp
  expect(await energy(c)).toMatchObject({ currentA: 16, reason: 'maxCurrent' });
  expect((await c.view()).plant.pwmCurrentA).toBe(16);
  await set(c, { ChargingSchedule: 'Mo 08:00-09:00' });
  expect(await energy(c)).toMatchObject({ currentA: 0, reason: 'schedule' });
  await set(c, { ChargingSchedule: '' });
  expect(await energy(c)).toMatchObject({ reason: 'ramp' });
});

test('session limits: duration and energy reached pause the session with the reason', async () => {
  const c = await start();
  await charging(c);
  await set(c, { SessionDurationLimit: 2 });
  await c.step(60_000);
  expect((await energy(c)).currentA).toBe(16);
  await c.step(61_000); // the loop's next second
  expect(await energy(c)).toMatchObject({ currentA: 0, reason: 'session', description: 'Paused by the session limit' });
  expect((await c.state()).systemState).toBe('charging_pause');

  await set(c, { SessionDurationLimit: 0, SessionEnergyLimit: 1 });
  expect((await energy(c)).currentA).toBeGreaterThan(0);
  // 11 kW: 1 kWh takes about 5.5 minutes.
  for (let i = 0; i < 6 && (await energy(c)).currentA > 0; i++) await c.step(60_000);
  expect((await c.state()).transaction.consumption).toBeGreaterThanOrEqual(1000);
  expect(await energy(c)).toMatchObject({ currentA: 0, reason: 'session' });

  // A new session is not limited by the last one's figures.
  await c.tag(KNOWN);
  await c.act('unplug');
  await c.act('plug');
  await c.tag(KNOWN);
  expect((await energy(c)).currentA).toBeGreaterThan(0);
});

test('Solar mode: no surplus pauses; a surplus starts charging after the start delay, at the surplus', async () => {
  const grid = scriptedGrid();
  const c = await start(grid.inputs);
  grid.attach(c);
  await set(c, { ChargingMode: 1 });
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  expect(await energy(c)).toMatchObject({ mode: 'solar', currentA: 0, reason: 'solar', solar: 'paused', description: 'Paused by solar surplus' });
  expect((await c.state()).systemState).toBe('charging_pause');

  grid.pv.w = 6000; // 6 kW exported: above 4,140 W (6 A on 3 phases) + the 200 W start margin
  await c.step(30_000);
  expect(await energy(c)).toMatchObject({ currentA: 0, solar: 'paused' });
  expect((await energy(c)).inputs.surplusW).toBeGreaterThan(5900);
  await c.step(40_000); // the start delay (60 s) has passed
  const started = await energy(c);
  expect(started).toMatchObject({ solar: 'charging', reason: 'solar' });
  // 6,000 W on 3 phases at 230 V: 8.6 A; the EV's own draw counts as surplus, so it stays there while charging.
  expect(started.currentA).toBe(8.6);
  expect((await c.state()).systemState).toBe('charging');
  await c.step(10_000);
  expect(await energy(c)).toMatchObject({ currentA: 8.6, solar: 'charging' });
  expect((await energy(c)).today.solarWh).toBeGreaterThan(0);
  expect((await energy(c)).today.gridWh).toBe(0);

  // The mode from EnergyControl is the setting (MQTT and the web interface use it).
  await c.h.controller.energy.setMode('fast');
  await c.step(0);
  expect((await c.api('GET', '/v1/settings')).text).toContain('"ChargingMode"');
  expect(await energy(c)).toMatchObject({ mode: 'fast', solar: 'bypassed' });
});

test('Min + Solar keeps 6 A from the grid without surplus', async () => {
  const grid = scriptedGrid();
  const c = await start(grid.inputs);
  grid.attach(c);
  await set(c, { ChargingMode: 2 });
  await charging(c);
  await c.step(5_000);
  expect(await energy(c)).toMatchObject({ mode: 'minSolar', currentA: 6, reason: 'solar' });
});

test('/metrics shows the offered current with its reason, each limit, surplus and grid power', async () => {
  const grid = scriptedGrid();
  const c = await start(grid.inputs);
  grid.attach(c);
  grid.pv.w = 3000;
  await c.step(2_000);
  const text = (await c.h.http('GET', '/metrics')).text;
  expect(text).toMatch(/energy_offered_current_amperes\{reason="maxCurrent",mode="fast",phases="3"\} 16/);
  expect(text).toMatch(/energy_limit_amperes\{source="supply",status="fresh"\} 32/);
  expect(text).toMatch(/energy_limit_amperes\{source="maxCurrent",status="fresh"\} 16/);
  expect(text).toMatch(/energy_surplus_watts \d+/);
  expect(text).toMatch(/energy_grid_power_watts\{line="L1"\} -1000/);
  expect(text).toMatch(/energy_today_watt_hours\{origin="solar"\} 0/);
});

test('the solar parameters act: a shorter start delay starts sooner', async () => {
  const grid = scriptedGrid();
  const c = await start(grid.inputs);
  grid.attach(c);
  await set(c, { ChargingMode: 1, SolarStartDelay: 10, SolarStopMargin: 0, SolarStopDelay: 0, SolarMinChargeTime: 0 });
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  grid.pv.w = 6000;
  await c.step(20_000); // the smoothing (a few seconds) and the 10 s delay
  expect(await energy(c)).toMatchObject({ solar: 'charging', currentA: 8.6 });
  // No stop margin, delay or minimum charge time: once the smoothed surplus (slow decay) is below 4,140 W it stops.
  grid.pv.w = 4000;
  await c.step(30_000);
  expect(await energy(c)).toMatchObject({ solar: 'charging' });
  await c.step(60_000);
  expect(await energy(c)).toMatchObject({ solar: 'paused', currentA: 0, reason: 'solar' });
});

test('departure: in Solar mode without surplus, a target that needs the time left charges from the grid', async () => {
  const grid = scriptedGrid();
  const c = await start(grid.inputs);
  grid.attach(c);
  await set(c, { ChargingMode: 1 });
  await charging(c).catch(() => undefined); // paused by solar: not charging
  expect(await energy(c)).toMatchObject({ currentA: 0, reason: 'solar' });
  // 08:00 now; 20 kWh at 11 kW take 109 minutes, more than the 60 left less the margin.
  await set(c, { DepartureTime: '09:00', DepartureEnergy: 20 });
  expect(await energy(c)).toMatchObject({ mode: 'solar', solar: 'bypassed', currentA: 6 });
  // 1 kWh by 12:00 is easy: solar again.
  await set(c, { DepartureTime: '12:00', DepartureEnergy: 1 });
  await c.step(1_000);
  expect(await energy(c)).toMatchObject({ mode: 'solar', currentA: 0, reason: 'solar' });
});
