import { describe, expect, test } from 'vitest';
import { createChargePointHardware, createReaderHardware, HARDWARE_BACKENDS, SIM_FAULTS } from '../../drivers/index.js';
import { checkTagUid } from '../../drivers/rfid/uid.js';

describe('createChargePointHardware', () => {
  test('backends', () => {
    expect(HARDWARE_BACKENDS).toEqual(['sim', 'rpi']);
    expect(SIM_FAULTS).toContain('cp-short');
  });

  test('sim: the simulated devices and their plant, on the injected clock', async () => {
    let t = 0;
    const { hardware, plant } = await createChargePointHardware('sim', { now: () => t, phases: 1 });
    expect(plant).toBeDefined();
    plant!.plug();
    plant!.charge();
    expect(hardware.pilot.level()).toBe('c');
    hardware.pilot.setDuty(10);
    hardware.contactor.set(true);
    t += 3_600_000;
    expect(await hardware.meter.read()).toEqual({ energyWh: 1380, powerW: 1380, currentsA: [6], voltagesV: [230] });
    await hardware.close();
    expect(plant!.state()).toMatchObject({ pwmDuty: null, contactorClosed: false });
  });

  test('sim: three phases and 230 V by default', async () => {
    const { hardware, plant } = await createChargePointHardware('sim', { now: () => 0 });
    plant!.plug();
    plant!.charge();
    hardware.pilot.setDuty(10);
    hardware.contactor.set(true);
    expect(plant!.state()).toMatchObject({ powerW: 4140, currentsA: [6, 6, 6] });
  });

  test('rpi: a pin assigned twice is refused before pigpio is loaded', async () => {
    await expect(
      createChargePointHardware('rpi', {
        now: () => 0,
        pins: { cpPwm: 18, cpLevel: [5, 6, 13, 19, 26], contactor: 17, lock: 17, buzzer: 22, leds: [23, 24, 25] },
      }),
    ).rejects.toThrow(/GPIO 17 is assigned twice/);
  });

  test('an unknown backend is refused', async () => {
    await expect(createChargePointHardware('arduino' as 'sim', { now: () => 0 })).rejects.toThrow(/unknown hardware backend "arduino"/);
    await expect(createReaderHardware('arduino' as 'sim')).rejects.toThrow(/unknown hardware backend "arduino"/);
  });
});

describe('createReaderHardware', () => {
  test('sim without a port: the PN532 driver on the simulated chip, which reads a tapped card', async () => {
    const { hardware, sim } = await createReaderHardware('sim');
    try {
      const tags: string[] = [];
      const read = new Promise<void>((resolve) => hardware.rfid.onTag((uid, technology) => (tags.push(`${uid} ${technology}`), resolve())));
      sim!.tap('04A1B2C3');
      await read;
      expect(tags).toEqual(['04A1B2C3 RFID']);
      expect(hardware.nfc?.mode()).toBe('rfid');
    } finally {
      await hardware.close();
    }
  });
});

describe('a tag presented to the simulated reader', () => {
  test('UIDs of 4, 7 or 10 bytes, upper-cased, with their technology', () => {
    expect(checkTagUid('04a1b2c3')).toEqual({ uid: '04A1B2C3', technology: 'RFID' });
    expect(checkTagUid('04A1B2C3D4E5F6', 'NFC')).toEqual({ uid: '04A1B2C3D4E5F6', technology: 'NFC' });
    expect(checkTagUid('0123456789abcdefABCD', 'RFID').uid).toBe('0123456789ABCDEFABCD');
  });

  test.each(['04a1b2', '04a1b2c3d', '04a1b2c3d4e5', 'zz112233', '04:a1:b2:c3', ' 04a1b2c3', '', 42])('UID %j is refused', (uid) => {
    expect(() => checkTagUid(uid)).toThrow(/8, 14 or 20 hex digits/);
  });

  test('an unknown technology is refused', () => {
    expect(() => checkTagUid('04a1b2c3', 'BLE')).toThrow(/RFID or NFC/);
  });
});
