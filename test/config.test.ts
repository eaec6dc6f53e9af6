import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_RPI_PINS } from '../drivers/index.js';
import { ConfigError, loadConfig } from '../services/config.js';

describe('loadConfig', () => {
  test('defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('./data'),
      databaseUrl: `file:${resolve('./data/controller.db')}`,
      defaultDatabaseFile: resolve('./data/controller.db'),
      hardware: 'sim',
      logLevel: 'info',
      logLevelFromEnvironment: false,
      logFormat: 'json',
      operatorPassword: undefined,
      pins: {
        cpPwm: 18,
        cpLevel: [5, 6, 13, 19, 26],
        contactor: 17,
        contactorFeedback: undefined,
        lock: 27,
        lockFeedback: undefined,
        buzzer: 22,
        leds: [23, 24, 25],
      },
      meter: undefined,
      temperatureSensorPath: undefined,
      nfc: { path: '/dev/ttyS0', baudRate: 115200 },
      nfcReader: false,
      metricsToken: undefined,
      slowCommitMs: 0,
      siteTimeScale: 1,
    });
    expect(loadConfig({}, { stdoutIsTTY: true }).logFormat).toBe('pretty');
  });

  test('simulation listens on loopback by default, real hardware on every interface; HOST wins', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HARDWARE: 'rpi' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  test('each device chooses its implementation: with HARDWARE=sim a meter or reader port runs the real driver there', () => {
    expect(loadConfig({ HARDWARE: 'rpi' })).toMatchObject({ meter: { path: '/dev/ttyUSB0', baudRate: 9600, address: 1 }, nfcReader: true });
    expect(loadConfig({ METER_PORT: '/dev/ttyUSB3', METER_ADDRESS: '7' })).toMatchObject({
      meter: { path: '/dev/ttyUSB3', baudRate: 9600, address: 7 },
      nfcReader: false,
    });
    expect(loadConfig({ NFC_PORT: '/dev/ttyACM0' })).toMatchObject({ meter: undefined, nfc: { path: '/dev/ttyACM0', baudRate: 115200 }, nfcReader: true });
  });

  test('METRICS_TOKEN: 16 to 256 printable characters', () => {
    expect(loadConfig({ METRICS_TOKEN: 'a'.repeat(16) }).metricsToken).toBe('a'.repeat(16));
    for (const bad of ['short', 'has a space in it ok', 'x'.repeat(257)]) expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ SITE_TIME_SCALE: '0.1' }).siteTimeScale).toBe(0.1);
    for (const bad of ['0', '0.001', '1.5', '2', 'x', '-0.1']) expect(() => loadConfig({ SITE_TIME_SCALE: bad }), bad).toThrow(/SITE_TIME_SCALE/);
  });

  test('every variable is read; empty counts as unset', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '::1',
      DATA_DIR: '/var/lib/cc',
      DATABASE_URL: 'libsql://db.example:8080',
      HARDWARE: 'rpi',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      OPERATOR_PASSWORD: 'long enough',
      LOG_UNRELATED: 'x',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '::1',
      dataDir: '/var/lib/cc',
      databaseUrl: 'libsql://db.example:8080',
      defaultDatabaseFile: null,
      hardware: 'rpi',
      logLevel: 'debug',
      logLevelFromEnvironment: true,
      logFormat: 'pretty',
      operatorPassword: 'long enough',
    });
    expect(loadConfig({ PORT: '', HARDWARE: '' })).toMatchObject({ port: 8080, hardware: 'sim' });
  });

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['HOST', 'bad host!'],
    ['DATABASE_URL', 'postgres://x'],
    ['HARDWARE', 'arduino'],
    ['LOG_LEVEL', 'verbose'],
    ['LOG_FORMAT', 'xml'],
    ['OPERATOR_PASSWORD', 'short'],
  ])('%s=%s is refused with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        expect.stringMatching(new RegExp(`^${name}: .+ \\(got "${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\)$`)),
      ]);
    }
  });

  test('several bad variables are all named', () => {
    expect(() => loadConfig({ PORT: 'x', HARDWARE: 'y' })).toThrow(/PORT: .*\n.*HARDWARE: /s);
  });
});

describe('loadConfig: Raspberry Pi hardware variables', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  test("defaults match the drivers' default pin assignment", () => {
    const c = loadConfig({});
    expect(c.pins).toMatchObject(DEFAULT_RPI_PINS);
    expect(c.pins.contactorFeedback).toBeUndefined();
    expect(c.pins.lockFeedback).toBeUndefined();
  });

  test('every variable is read', () => {
    const c = loadConfig({
      GPIO_CP_PWM: '12',
      GPIO_CP_LEVEL: '2, 3,4 ,7,8',
      GPIO_CONTACTOR: '9',
      GPIO_CONTACTOR_FEEDBACK: '10',
      GPIO_LOCK: '11',
      GPIO_LOCK_FEEDBACK: '0',
      GPIO_BUZZER: '27',
      GPIO_LEDS: '14,15,16',
      METER_PORT: '/dev/serial0',
      METER_BAUD: '19200',
      METER_ADDRESS: '247',
      TEMPERATURE_SENSOR: '/sys/bus/w1/devices/28-00000abc/temperature',
    });
    expect(c.pins).toEqual({
      cpPwm: 12,
      cpLevel: [2, 3, 4, 7, 8],
      contactor: 9,
      contactorFeedback: 10,
      lock: 11,
      lockFeedback: 0,
      buzzer: 27,
      leds: [14, 15, 16],
    });
    expect(c.meter).toEqual({ path: '/dev/serial0', baudRate: 19200, address: 247 });
    expect(c.temperatureSensorPath).toBe('/sys/bus/w1/devices/28-00000abc/temperature');
    expect(loadConfig({ GPIO_CONTACTOR_FEEDBACK: '', TEMPERATURE_SENSOR: '' })).toMatchObject({
      temperatureSensorPath: undefined,
      pins: { contactorFeedback: undefined },
    });
  });

  test.each([
    ['GPIO_CP_PWM', '28'],
    ['GPIO_CP_PWM', '-1'],
    ['GPIO_CP_PWM', 'x'],
    ['GPIO_CP_LEVEL', '5,6,13,19'],
    ['GPIO_CP_LEVEL', '5,6,13,19,26,4'],
    ['GPIO_CP_LEVEL', '5,6,13,19,30'],
    ['GPIO_CONTACTOR', '100'],
    ['GPIO_CONTACTOR_FEEDBACK', '1.5'],
    ['GPIO_LOCK', '40'],
    ['GPIO_LOCK_FEEDBACK', 'none'],
    ['GPIO_BUZZER', '99'],
    ['GPIO_LEDS', '23,24'],
    ['GPIO_LEDS', '23;24;25'],
    ['METER_PORT', 'ttyUSB0'],
    ['NFC_PORT', 'ttyS0'],
    ['NFC_BAUD', '115201'],
    ['METER_BAUD', '9601'],
    ['METER_ADDRESS', '0'],
    ['METER_ADDRESS', '248'],
    ['TEMPERATURE_SENSOR', 'relative/path'],
  ])('%s=%s is refused with a message naming the variable', (name, value) => {
    expect(problems({ [name]: value })).toEqual([
      expect.stringMatching(new RegExp(`^${name}: .+ \\(got "${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\)$`)),
    ]);
  });

  test('a pin used twice is refused, naming the later variable and the earlier one', () => {
    expect(problems({ GPIO_BUZZER: '17' })).toEqual(['GPIO_BUZZER: GPIO 17 is already used by GPIO_CONTACTOR (got "17")']);
    expect(problems({ GPIO_CONTACTOR_FEEDBACK: '6' })).toEqual(['GPIO_CONTACTOR_FEEDBACK: GPIO 6 is already used by GPIO_CP_LEVEL (got "6")']);
    // The default pins count too: a feedback input on the default lock pin.
    expect(problems({ GPIO_LOCK_FEEDBACK: '27' })).toEqual(['GPIO_LOCK_FEEDBACK: GPIO 27 is already used by GPIO_LOCK (got "27")']);
    expect(problems({ GPIO_LEDS: '2,3,2' })).toEqual(['GPIO_LEDS: GPIO 2 is listed twice (got "2,3,2")']);
    expect(problems({ GPIO_CP_PWM: '23', GPIO_LOCK: '23' })).toEqual([
      'GPIO_LOCK: GPIO 23 is already used by GPIO_CP_PWM (got "23")',
      'GPIO_LEDS: GPIO 23 is already used by GPIO_CP_PWM (got "23,24,25")',
    ]);
    // Moving a default pin away frees it for another device.
    expect(loadConfig({ GPIO_CONTACTOR: '4', GPIO_BUZZER: '17' }).pins).toMatchObject({ contactor: 4, buzzer: 17 });
  });
});

describe('loadConfig: the PN532 RFID/NFC reader', () => {
  test("defaults: the Raspberry Pi UART at the chip's 115200 baud", () => {
    expect(loadConfig({}).nfc).toEqual({ path: '/dev/ttyS0', baudRate: 115200 });
  });

  test('NFC_PORT and NFC_BAUD are read; empty counts as unset', () => {
    expect(loadConfig({ NFC_PORT: '/dev/serial0', NFC_BAUD: '230400' }).nfc).toEqual({ path: '/dev/serial0', baudRate: 230400 });
    expect(loadConfig({ NFC_PORT: '', NFC_BAUD: '' }).nfc).toEqual({ path: '/dev/ttyS0', baudRate: 115200 });
  });

  test.each([
    ['NFC_PORT', 'serial0'],
    ['NFC_PORT', '/dev/tty S0'],
    ['NFC_BAUD', '9601'],
    ['NFC_BAUD', 'fast'],
  ])('%s=%s is refused with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: .+ \\(got "${value}"\\)`));
  });
});
