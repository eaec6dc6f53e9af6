import { describe, expect, test } from 'vitest';
import { createHardware, HARDWARE_BACKENDS, SIM_FAULTS } from '../../drivers/index.js';

describe('createHardware', () => {
  test('backends', () => {
    expect(HARDWARE_BACKENDS).toEqual(['sim', 'rpi']);
    expect(SIM_FAULTS).toContain('cp-short');
  });

  test('sim: the simulated devices and their plant, on the injected clock', async () => {
    let t = 0;
    const { hardware, plant } = await createHardware('sim', { now: () => t, phases: 1 });
    expect(plant).toBeDefined();
    plant!.plug();
    plant!.charge();
    expect(hardware.pilot.level()).toBe('c');
    hardware.pilot.setDuty(10);
    hardware.contactor.set(true);
    t += 3_600_000;
    expect(await hardware.meter.read()).toEqual({ energyWh: 1380, powerW: 1380, currentsA: [6] });
    await hardware.close();
    expect(plant!.state()).toMatchObject({ pwmDuty: null, contactorClosed: false });
  });

  test('sim: three phases and 230 V by default', async () => {
    const { hardware, plant } = await createHardware('sim', { now: () => 0 });
    plant!.plug();
    plant!.charge();
    hardware.pilot.setDuty(10);
    hardware.contactor.set(true);
    expect(plant!.state()).toMatchObject({ powerW: 4140, currentsA: [6, 6, 6] });
  });

  test('rpi: a pin assigned twice is refused before pigpio is loaded', async () => {
    await expect(
      createHardware('rpi', { now: () => 0, pins: { cpPwm: 18, cpLevel: [5, 6, 13, 19, 26], contactor: 17, lock: 17, buzzer: 22, leds: [23, 24, 25] } }),
    ).rejects.toThrow(/GPIO 17 is assigned twice/);
  });

  test('an unknown backend is refused', async () => {
    await expect(createHardware('arduino' as 'sim', { now: () => 0 })).rejects.toThrow(/unknown hardware backend "arduino"/);
  });
});
