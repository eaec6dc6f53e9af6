import { beforeEach, describe, expect, test } from 'vitest';
import { dutyForCurrent } from '../../drivers/control-pilot/pwm.js';
import { createSimulatedHardware, SIM_FAULTS, type SimFault } from '../../drivers/sim/plant.js';
import type { ChargePointHardware, PilotLevel } from '../../drivers/types.js';
import { ManualClock } from '../clock.js';

const HOUR = 3_600_000;

let t: number;
const now = () => t;
beforeEach(() => {
  t = 1_700_000_000_000;
});

/** A plant with the EV plugged in and requesting, PWM announcing `amps`, contactor closed. */
function charging(amps = 16, opts: { phases?: 1 | 3; voltageV?: number } = {}) {
  const sim = createSimulatedHardware({ now, ...opts });
  sim.plant.plug();
  sim.plant.charge();
  sim.hardware.pilot.setDuty(dutyForCurrent(amps));
  sim.hardware.contactor.set(true);
  return sim;
}

describe('simulated plant: vehicle and pilot', () => {
  test('initial state', () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    expect(plant.state()).toEqual({
      vehicle: 'unplugged',
      ventilation: false,
      evMaxCurrentA: 16,
      activePhases: 3,
      pilotLevel: 'a',
      pwmDuty: null,
      pwmCurrentA: null,
      contactorCommanded: false,
      contactorClosed: false,
      cableLocked: false,
      energyWh: 0,
      powerW: 0,
      currentsA: [0, 0, 0],
      temperatureC: 25,
      leds: { color: 'off', mode: 'steady' },
      beeps: 0,
      faults: [],
      alternateMs: 0,
    });
    expect(hardware.pilot.level()).toBe('a');
    expect(hardware.pilot.duty()).toBeNull();
    expect(hardware.contactor.feedback()).toBe(false);
  });

  test('plug, charge, ventilation, pause, unplug: levels reported synchronously, once per change', () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    const seen: PilotLevel[] = [];
    const off = hardware.pilot.onLevel((level) => seen.push(level));
    plant.plug();
    expect(seen).toEqual(['b']);
    plant.charge();
    expect(hardware.pilot.level()).toBe('c');
    plant.setEvMaxCurrent(10); // not a level change
    plant.setVentilation(true);
    expect(plant.state()).toMatchObject({ vehicle: 'requesting', ventilation: true, pilotLevel: 'd' });
    plant.pause();
    plant.setVentilation(false);
    plant.unplug();
    expect(seen).toEqual(['b', 'c', 'd', 'b', 'a']);
    off();
    plant.plug();
    expect(seen).toHaveLength(5);
  });

  test('ventilation required before the request: D directly; unplug clears the request', () => {
    const { plant } = createSimulatedHardware({ now });
    plant.setVentilation(true);
    plant.plug();
    expect(plant.state().pilotLevel).toBe('b');
    plant.charge();
    expect(plant.state().pilotLevel).toBe('d');
    plant.unplug();
    expect(plant.state()).toMatchObject({ vehicle: 'unplugged', pilotLevel: 'a' });
    plant.plug();
    expect(plant.state()).toMatchObject({ vehicle: 'connected', pilotLevel: 'b' });
  });

  test('calls that make no sense throw a clear Error and change nothing', () => {
    const { plant } = createSimulatedHardware({ now });
    expect(() => plant.charge()).toThrow(/no vehicle is plugged in/);
    expect(() => plant.pause()).toThrow(/no vehicle/);
    expect(() => plant.unplug()).toThrow(/no vehicle/);
    plant.plug();
    expect(() => plant.plug()).toThrow(/already plugged in/);
    expect(() => plant.pause()).toThrow(/does not request/);
    plant.charge();
    expect(() => plant.charge()).toThrow(/already requests/);
    expect(plant.state().vehicle).toBe('requesting');
    expect(() => plant.setVentilation('yes' as unknown as boolean)).toThrow(/true or false/);
  });

  test('EV maximum current is validated (0..80 A)', () => {
    const { plant } = createSimulatedHardware({ now });
    for (const bad of [-1, 80.5, Number.NaN, Number.POSITIVE_INFINITY, '16' as unknown as number])
      expect(() => plant.setEvMaxCurrent(bad)).toThrow(/0 to 80 A/);
    plant.setEvMaxCurrent(0);
    plant.setEvMaxCurrent(80);
    expect(plant.state().evMaxCurrentA).toBe(80);
  });

  test('setDuty validates the duty and the state shows the announced current', () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    expect(() => hardware.pilot.setDuty(0)).toThrow(RangeError);
    expect(() => hardware.pilot.setDuty(100)).toThrow(RangeError);
    hardware.pilot.setDuty(50);
    expect(plant.state()).toMatchObject({ pwmDuty: 50, pwmCurrentA: 30 });
    hardware.pilot.setDuty(5);
    expect(plant.state()).toMatchObject({ pwmDuty: 5, pwmCurrentA: null });
    hardware.pilot.setDuty(null);
    expect(plant.state()).toMatchObject({ pwmDuty: null, pwmCurrentA: null });
  });
});

describe('simulated plant: physics', () => {
  test('16 A on 3 × 230 V for one hour is exactly 11040 Wh, however often the meter is read', async () => {
    const { plant, hardware } = charging(16);
    expect(plant.state()).toMatchObject({ powerW: 11040, currentsA: [16, 16, 16], contactorClosed: true });
    for (let i = 0; i < 3600; i++) {
      t += 1000;
      await hardware.meter.read();
    }
    expect(await hardware.meter.read()).toEqual({ energyWh: 11040, powerW: 11040, currentsA: [16, 16, 16], voltagesV: [230, 230, 230] });
    expect(plant.state().energyWh).toBe(11040);
  });

  test('with a fractional power, frequent reads do not accumulate rounding: energy = P × t exactly', async () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    plant.plug();
    plant.charge();
    plant.setEvMaxCurrent(32);
    hardware.pilot.setDuty(26.7); // 16.02 A
    hardware.contactor.set(true);
    const { powerW } = plant.state();
    expect(powerW).toBeCloseTo(16.02 * 690, 9);
    let total = 0;
    for (let i = 0; i < 2000; i++) {
      const step = 1 + ((i * 7919) % 997); // irregular steps of 1..997 ms
      t += step;
      total += step;
      await hardware.meter.read();
      plant.state();
    }
    expect(plant.state().energyWh).toBe((powerW * total) / HOUR);
  });

  test('irregular time steps and state changes in between give the exact integral', async () => {
    const { plant, hardware } = charging(16);
    t += HOUR / 2; // 5520 Wh at 16 A
    plant.setEvMaxCurrent(32);
    hardware.pilot.setDuty(dutyForCurrent(32)); // 22080 W
    for (const step of [1, 999, 12_345, 7, HOUR / 4 - 13_352]) {
      t += step;
      plant.state();
    }
    t += HOUR / 4; // 0.5 h at 32 A: 11040 Wh
    hardware.contactor.set(false);
    t += HOUR; // nothing
    expect((await hardware.meter.read()).energyWh).toBe(5520 + 11040);
    expect(plant.state().powerW).toBe(0);
  });

  test('the register does not move while nothing flows and never goes back', () => {
    const { plant, hardware } = charging(16);
    t += HOUR;
    hardware.contactor.set(false);
    t += HOUR;
    expect(plant.state().energyWh).toBe(11040);
    t -= 10 * HOUR; // a clock stepping back changes nothing
    expect(plant.state().energyWh).toBe(11040);
  });

  test.each<[string, (hw: ChargePointHardware, plant: ReturnType<typeof createSimulatedHardware>['plant']) => void]>([
    ['no PWM (EV stays in C)', (hw) => hw.pilot.setDuty(null)],
    ['a duty announcing no current (5 %)', (hw) => hw.pilot.setDuty(5)],
    ['a duty above 97 %', (hw) => hw.pilot.setDuty(98)],
    ['the contactor open', (hw) => hw.contactor.set(false)],
    ['the EV not requesting (B)', (_hw, plant) => plant.pause()],
    ['the vehicle unplugged', (_hw, plant) => plant.unplug()],
    ['an EV limit of 0 A', (_hw, plant) => plant.setEvMaxCurrent(0)],
  ])('no current with %s', async (_name, change) => {
    const { plant, hardware } = charging(16);
    change(hardware, plant);
    t += HOUR;
    expect(await hardware.meter.read()).toEqual({ energyWh: 0, powerW: 0, currentsA: [0, 0, 0], voltagesV: [230, 230, 230] });
  });

  test('D (ventilation) charges like C', () => {
    const { plant } = charging(16);
    plant.setVentilation(true);
    expect(plant.state()).toMatchObject({ pilotLevel: 'd', powerW: 11040 });
  });

  test('the EV draws the lower of the announced current and its own limit', () => {
    const { plant, hardware } = charging(32);
    expect(plant.state().currentsA).toEqual([16, 16, 16]); // default EV limit 16 A
    plant.setEvMaxCurrent(32);
    expect(plant.state().currentsA).toEqual([32, 32, 32]);
    plant.setEvMaxCurrent(7.5);
    expect(plant.state()).toMatchObject({ currentsA: [7.5, 7.5, 7.5], powerW: 7.5 * 690 });
    hardware.pilot.setDuty(10); // 6 A announced
    expect(plant.state().currentsA).toEqual([6, 6, 6]);
    hardware.pilot.setDuty(9); // 8..10 % announces 6 A too
    expect(plant.state().currentsA).toEqual([6, 6, 6]);
  });

  test('single phase: one current, P = I × U', async () => {
    const { plant, hardware } = charging(16, { phases: 1 });
    expect(plant.state()).toMatchObject({ powerW: 3680, currentsA: [16] });
    t += HOUR;
    expect(await hardware.meter.read()).toEqual({ energyWh: 3680, powerW: 3680, currentsA: [16], voltagesV: [230] });
    expect(createSimulatedHardware({ now }).plant.state().currentsA).toEqual([0, 0, 0]);
  });

  test('the voltage is configurable', () => {
    expect(charging(10, { voltageV: 240 }).plant.state().powerW).toBe(7200);
    expect(() => createSimulatedHardware({ now, voltageV: 0 })).toThrow(RangeError);
    expect(() => createSimulatedHardware({ now, phases: 2 as 3 })).toThrow(RangeError);
  });

  test('time comes only from now()', async () => {
    const { plant, hardware } = charging(16);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(plant.state().energyWh).toBe(0);
    expect((await hardware.meter.read()).energyWh).toBe(0);
  });

  test('cable lock follows the command (its feedback)', () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    hardware.cableLock.set(true);
    expect(hardware.cableLock.commanded()).toBe(true);
    expect(hardware.cableLock.locked()).toBe(true);
    expect(plant.state().cableLocked).toBe(true);
    hardware.cableLock.set(false);
    expect(hardware.cableLock.locked()).toBe(false);
  });

  test('close() stops the PWM and opens the contactor', async () => {
    const { plant, hardware } = charging(16);
    hardware.leds.show({ color: 'green', mode: 'pulse' });
    await hardware.close();
    expect(plant.state()).toMatchObject({ pwmDuty: null, contactorCommanded: false, contactorClosed: false, powerW: 0, leds: { color: 'off' } });
  });
});

describe('simulated plant: faults', () => {
  test('the list of faults', () => {
    expect(SIM_FAULTS).toEqual(['cp-short', 'diode-fault', 'meter-offline', 'contactor-welded', 'contactor-stuck-open', 'temperature-sensor-offline']);
    const { plant } = createSimulatedHardware({ now });
    expect(() => plant.inject('fire' as SimFault)).toThrow(/unknown fault "fire"/);
    expect(() => plant.clear('fire' as SimFault)).toThrow(/unknown fault/);
    plant.inject('meter-offline');
    plant.inject('cp-short');
    plant.inject('cp-short');
    expect(plant.state().faults).toEqual(['cp-short', 'meter-offline']);
    plant.clear('cp-short');
    plant.clear('diode-fault'); // not injected: nothing to do
    expect(plant.state().faults).toEqual(['meter-offline']);
  });

  test('cp-short forces E and stops the EV drawing; clearing it restores C', () => {
    const { plant, hardware } = charging(16);
    const seen: PilotLevel[] = [];
    hardware.pilot.onLevel((level) => seen.push(level));
    plant.inject('cp-short');
    expect(hardware.pilot.level()).toBe('e');
    expect(plant.state()).toMatchObject({ pilotLevel: 'e', powerW: 0 });
    plant.unplug(); // still E while shorted
    plant.plug();
    plant.charge();
    plant.clear('cp-short');
    expect(seen).toEqual(['e', 'c']);
    expect(plant.state().powerW).toBe(11040);
  });

  test('diode-fault makes the level F', () => {
    const { plant, hardware } = charging(16);
    const seen: PilotLevel[] = [];
    hardware.pilot.onLevel((level) => seen.push(level));
    plant.inject('diode-fault');
    expect(hardware.pilot.level()).toBe('f');
    expect(plant.state().powerW).toBe(0);
    plant.clear('diode-fault');
    expect(seen).toEqual(['f', 'c']);
  });

  test('meter-offline: read() rejects, the register keeps counting', async () => {
    const { plant, hardware } = charging(16);
    plant.inject('meter-offline');
    t += HOUR;
    await expect(hardware.meter.read()).rejects.toThrow(/meter/);
    plant.clear('meter-offline');
    expect((await hardware.meter.read()).energyWh).toBe(11040);
  });

  test('contactor-welded: feedback closed whatever is commanded, energy flows if the EV draws', () => {
    const { plant, hardware } = charging(16);
    plant.inject('contactor-welded');
    hardware.contactor.set(false);
    expect(hardware.contactor.commanded()).toBe(false);
    expect(hardware.contactor.feedback()).toBe(true);
    expect(plant.state()).toMatchObject({ contactorCommanded: false, contactorClosed: true, powerW: 11040 });
    t += HOUR;
    plant.clear('contactor-welded');
    expect(plant.state()).toMatchObject({ contactorClosed: false, powerW: 0, energyWh: 11040 });
  });

  test('contactor-stuck-open: feedback open although commanded closed, nothing flows', () => {
    const { plant, hardware } = charging(16);
    plant.inject('contactor-stuck-open');
    expect(hardware.contactor.commanded()).toBe(true);
    expect(hardware.contactor.feedback()).toBe(false);
    t += HOUR;
    expect(plant.state()).toMatchObject({ contactorClosed: false, powerW: 0, energyWh: 0 });
    plant.clear('contactor-stuck-open');
    expect(hardware.contactor.feedback()).toBe(true);
  });

  test('temperature: set, validated, and temperature-sensor-offline rejects', async () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    expect(await hardware.temperature.read()).toBe(25);
    plant.setTemperature(71.5);
    expect(await hardware.temperature.read()).toBe(71.5);
    expect(plant.state().temperatureC).toBe(71.5);
    for (const bad of [-56, 126, Number.NaN]) expect(() => plant.setTemperature(bad)).toThrow(/temperature/);
    plant.inject('temperature-sensor-offline');
    await expect(hardware.temperature.read()).rejects.toThrow(/temperature sensor/);
    plant.clear('temperature-sensor-offline');
    expect(await hardware.temperature.read()).toBe(71.5);
  });
});

describe('simulated plant: the self-driven EV', () => {
  test('switches between C and B every period on its own, each change reported with the time it was due', () => {
    const clock = new ManualClock(1_000);
    const { plant, hardware } = createSimulatedHardware({ now: () => clock.now(), timers: clock });
    const seen: Array<[PilotLevel, number]> = [];
    hardware.pilot.onLevel((level, at) => seen.push([level, at!]));
    plant.plug();
    plant.alternate(100);
    expect(plant.state().alternateMs).toBe(100);
    clock.increment(350);
    expect(seen).toEqual([
      ['b', 1_000],
      ['c', 1_100],
      ['b', 1_200],
      ['c', 1_300],
    ]);
    plant.alternate(0);
    clock.increment(1_000);
    expect(seen).toHaveLength(4);
    expect(plant.state()).toMatchObject({ alternateMs: 0, vehicle: 'requesting' });
  });

  test('a late timer does not make the vehicle late: the reading carries the time it was due', () => {
    const clock = new ManualClock(0);
    const { plant, hardware } = createSimulatedHardware({ now: () => clock.now(), timers: clock });
    const seen: number[] = [];
    hardware.pilot.onLevel((_level, at) => seen.push(at!));
    plant.plug();
    plant.alternate(50);
    // Time jumps past two periods in one step: both switches are reported with their own due times.
    clock.increment(120);
    expect(seen).toEqual([0, 50, 100]);
  });

  test('unplugging stops it; it needs a vehicle, a valid period and timers', () => {
    const clock = new ManualClock(0);
    const { plant } = createSimulatedHardware({ now: () => clock.now(), timers: clock });
    expect(() => plant.alternate(100)).toThrow(/no vehicle is plugged in/);
    plant.plug();
    for (const bad of [5, 1.5, -1, 3_600_001, Number.NaN]) expect(() => plant.alternate(bad)).toThrow(/0 \(off\) or 10 to 3600000 ms/);
    plant.alternate(100);
    plant.unplug();
    expect(plant.state().alternateMs).toBe(0);
    expect(clock.pending()).toBe(0);
    expect(() => createSimulatedHardware({ now: () => 0 }).plant.alternate(100)).toThrow(/plug|timers/);
  });
});

describe('simulated plant: buzzer, LEDs', () => {
  test('buzzer beeps are counted', () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    hardware.buzzer.beep(3, 200);
    expect(plant.state()).toMatchObject({ beeps: 3, lastBeep: { count: 3, ms: 200 } });
    hardware.buzzer.beep(1);
    expect(plant.state()).toMatchObject({ beeps: 4, lastBeep: { count: 1, ms: 100 } });
    expect(() => hardware.buzzer.beep(0)).toThrow(RangeError);
    expect(() => hardware.buzzer.beep(1.5)).toThrow(RangeError);
    expect(() => hardware.buzzer.beep(1, 0)).toThrow(RangeError);
    expect(plant.state().beeps).toBe(4);
  });

  test('LEDs show a pattern', () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    hardware.leds.show({ color: 'blue', mode: 'slow-blink' });
    expect(hardware.leds.current()).toEqual({ color: 'blue', mode: 'slow-blink' });
    expect(plant.state().leds).toEqual({ color: 'blue', mode: 'slow-blink' });
    expect(() => hardware.leds.show({ color: 'purple', mode: 'steady' } as never)).toThrow(/colour/);
    expect(() => hardware.leds.show({ color: 'red', mode: 'strobe' } as never)).toThrow(/mode/);
    expect(plant.state().leds).toEqual({ color: 'blue', mode: 'slow-blink' });
  });

  test('the state is plain JSON and a snapshot', () => {
    const { plant, hardware } = charging(16);
    hardware.buzzer.beep(2);
    const state = plant.state();
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    state.currentsA.push(99);
    state.leds.color = 'red';
    expect(plant.state().currentsA).toEqual([16, 16, 16]);
    expect(plant.state().leds.color).toBe('off');
  });

  test('a throwing level listener does not keep the others from being called', () => {
    const { plant, hardware } = createSimulatedHardware({ now });
    const seen: PilotLevel[] = [];
    hardware.pilot.onLevel(() => {
      throw new Error('listener bug');
    });
    hardware.pilot.onLevel((level) => seen.push(level));
    expect(() => plant.plug()).toThrow('listener bug');
    expect(seen).toEqual(['b']);
    expect(plant.state().vehicle).toBe('connected');
  });
});
