import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { DEFAULT_METER_PORT, DEFAULT_NFC_PORT, HARDWARE_BACKENDS, type MeterPortOptions, type Pn532PortOptions, type RpiPins } from '../drivers/index.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;

const port = v.pipe(
  v.string(),
  v.regex(/^\d{1,5}$/, 'must be a whole number from 0 to 65535'),
  v.transform(Number),
  v.maxValue(65535, 'must be a whole number from 0 to 65535'),
);
const databaseUrl = v.pipe(
  v.string(),
  v.regex(/^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/, 'must start with file:, libsql://, http://, https://, ws:// or wss://'),
);

const GPIO_MESSAGE = 'must be a BCM GPIO number from 0 to 27';
const gpioPin = v.pipe(v.string(), v.regex(/^\d{1,2}$/, GPIO_MESSAGE), v.transform(Number), v.maxValue(27, GPIO_MESSAGE));
/** `count` comma-separated GPIO numbers, in the order `what`. */
const gpioPins = <T extends readonly number[]>(count: number, what: string) => {
  const message = `must be ${count} comma-separated BCM GPIO numbers from 0 to 27 (${what})`;
  return v.pipe(
    v.string(),
    v.regex(new RegExp(`^\\s*\\d{1,2}\\s*(,\\s*\\d{1,2}\\s*){${count - 1}}$`), message),
    v.transform((list) => list.split(',').map(Number) as unknown as T),
    v.check((list) => list.every((pin) => pin <= 27), message),
  );
};
const METER_BAUD_RATES = ['1200', '2400', '4800', '9600', '19200', '38400', '57600', '115200'] as const;
/** The PN532's HSU rates (UM0701-02 §6.2.3); 115200 is its default. */
const NFC_BAUD_RATES = ['9600', '19200', '38400', '57600', '115200', '230400', '460800', '921600'] as const;
const absolutePath = (example: string) => v.pipe(v.string(), v.regex(/^\/\S*$/, `must be an absolute path such as ${example}`));

/** The environment variables the controller reads; empty values count as unset. */
const EnvSchema = v.object({
  PORT: v.optional(port, '8080'),
  HOST: v.optional(v.pipe(v.string(), v.regex(/^[\w.:-]+$/, 'must be a host name or an IP address'))),
  DATA_DIR: v.optional(v.string(), './data'),
  DATABASE_URL: v.optional(databaseUrl),
  HARDWARE: v.optional(v.picklist(HARDWARE_BACKENDS, `must be one of ${HARDWARE_BACKENDS.join(', ')}`), 'sim'),
  LOG_LEVEL: v.optional(v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`), 'info'),
  LOG_FORMAT: v.optional(v.picklist(LOG_FORMATS, `must be one of ${LOG_FORMATS.join(', ')}`)),
  OPERATOR_PASSWORD: v.optional(v.pipe(v.string(), v.minLength(8, 'must be at least 8 characters'), v.maxLength(255, 'must be at most 255 characters'))),
  // Raspberry Pi backend (HARDWARE=rpi): BCM GPIO numbers, the meter's serial line and the temperature sensor.
  GPIO_CP_PWM: v.optional(gpioPin, '18'),
  GPIO_CP_LEVEL: v.optional(gpioPins<RpiPins['cpLevel']>(5, 'comparators >10.5 V, >7.5 V, >4.5 V, >1.5 V, <-10 V'), '5,6,13,19,26'),
  GPIO_CONTACTOR: v.optional(gpioPin, '17'),
  GPIO_CONTACTOR_FEEDBACK: v.optional(gpioPin),
  GPIO_LOCK: v.optional(gpioPin, '27'),
  GPIO_LOCK_FEEDBACK: v.optional(gpioPin),
  // The phase contactor of 1-/3-phase switching; unset: none. With HARDWARE=sim it installs the simulated one.
  GPIO_PHASE_SWITCH: v.optional(gpioPin),
  // The ripple-control receiver's contact (GridOperatorSource); unset: none. HARDWARE=sim uses the simulated site's.
  GPIO_RIPPLE_CONTACT: v.optional(gpioPin),
  GPIO_BUZZER: v.optional(gpioPin, '22'),
  GPIO_LEDS: v.optional(gpioPins<RpiPins['leds']>(3, 'red, green, blue'), '23,24,25'),
  METER_PORT: v.optional(absolutePath('/dev/ttyUSB0')),
  METER_BAUD: v.optional(v.pipe(v.picklist(METER_BAUD_RATES, `must be one of ${METER_BAUD_RATES.join(', ')}`), v.transform(Number)), '9600'),
  METER_ADDRESS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'must be a Modbus address from 1 to 247'),
      v.transform(Number),
      v.minValue(1, 'must be a Modbus address from 1 to 247'),
      v.maxValue(247, 'must be a Modbus address from 1 to 247'),
    ),
    '1',
  ),
  TEMPERATURE_SENSOR: v.optional(absolutePath('/sys/bus/w1/devices/28-0123456789ab/temperature')),
  NFC_PORT: v.optional(absolutePath('/dev/ttyS0')),
  NFC_BAUD: v.optional(v.pipe(v.picklist(NFC_BAUD_RATES, `must be one of ${NFC_BAUD_RATES.join(', ')}`), v.transform(Number)), '115200'),
  FAULT_SLOW_COMMIT_MS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,5}$/, 'must be a whole number of milliseconds from 0 to 10000'),
      v.transform(Number),
      v.maxValue(10_000, 'must be a whole number of milliseconds from 0 to 10000'),
    ),
  ),
  SITE_TIME_SCALE: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(0\.\d{1,3}|1)$/, 'must be a number from 0.01 to 1'),
      v.transform(Number),
      v.minValue(0.01, 'must be a number from 0.01 to 1'),
    ),
  ),
  MQTT_CA_FILE: v.optional(absolutePath('/etc/ssl/certs/broker-ca.pem')),
  METRICS_TOKEN: v.optional(v.pipe(v.string(), v.regex(/^[\x21-\x7e]{16,256}$/, 'must be 16 to 256 printable characters without spaces (a bearer token)'))),
});

/** The variables naming GPIO pins, in the order used to report a pin assigned twice (the later one is named). */
const PIN_VARIABLES = [
  'GPIO_CP_PWM',
  'GPIO_CP_LEVEL',
  'GPIO_CONTACTOR',
  'GPIO_CONTACTOR_FEEDBACK',
  'GPIO_LOCK',
  'GPIO_LOCK_FEEDBACK',
  'GPIO_PHASE_SWITCH',
  'GPIO_RIPPLE_CONTACT',
  'GPIO_BUZZER',
  'GPIO_LEDS',
] as const;

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  /** `file:<DATA_DIR>/controller.db` unless DATABASE_URL names another database. */
  databaseUrl: string;
  /** The database file when it is the default one in DATA_DIR (created owner-only), else null. */
  defaultDatabaseFile: string | null;
  hardware: (typeof HARDWARE_BACKENDS)[number];
  /** LOG_LEVEL, else `info` until the LogLevel setting is read. */
  logLevel: (typeof LOG_LEVELS)[number];
  /** Whether LOG_LEVEL is set: then it wins over the LogLevel setting for the whole run. */
  logLevelFromEnvironment: boolean;
  logFormat: (typeof LOG_FORMATS)[number];
  /** Initial password of the built-in `operator` account on a fresh database; random when unset. */
  operatorPassword: string | undefined;
  /** HARDWARE=rpi: BCM GPIO numbers of the devices (GPIO_* variables). */
  pins: RpiPins;
  /**
   * The SDM630 meter's serial device, baud rate and Modbus address (METER_PORT, METER_BAUD, METER_ADDRESS): always
   * with HARDWARE=rpi (/dev/ttyUSB0 by default); with HARDWARE=sim only when METER_PORT is set (a real meter on a
   * PC), undefined for the simulated meter.
   */
  meter: MeterPortOptions | undefined;
  /** HARDWARE=rpi: the DS18B20's `temperature` file (TEMPERATURE_SENSOR); unset = the first 28-* 1-wire device. */
  temperatureSensorPath: string | undefined;
  /** The PN532 RFID/NFC reader's serial device and baud rate (NFC_PORT, NFC_BAUD). */
  nfc: Pn532PortOptions;
  /** Whether the reader is the real PN532 on `nfc` (HARDWARE=rpi, or NFC_PORT set with HARDWARE=sim). */
  nfcReader: boolean;
  /** CA certificates (PEM) that mqtts:// brokers are checked against besides the system's (MQTT_CA_FILE). */
  mqttCaFile: string | undefined;
  /** The bearer token that lets non-loopback clients read /metrics (METRICS_TOKEN); unset: loopback only. */
  metricsToken: string | undefined;
  /** Fault injection (FAULT_SLOW_COMMIT_MS, tests and the safety bench): every database commit takes this much longer. */
  slowCommitMs: number;
  /** The site link's times scaled (SITE_TIME_SCALE, tests with whole controllers on one site): 1 in production. */
  siteTimeScale: number;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Reads and validates the configuration; throws ConfigError naming every bad variable and its problem. */
export function loadConfig(env: NodeJS.ProcessEnv, opts: { stdoutIsTTY?: boolean } = {}): Config {
  const present = Object.fromEntries(
    Object.keys(EnvSchema.entries)
      .map((name) => [name, env[name]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = v.safeParse(EnvSchema, present);
  if (!result.success) {
    throw new ConfigError(
      result.issues.map((issue) => {
        const name = issue.path?.map((p) => String(p.key)).join('.') ?? '?';
        return `${name}: ${issue.message} (got ${JSON.stringify(present[name])})`;
      }),
    );
  }
  const e = result.output;
  const pinOwner = new Map<number, string>();
  const pinProblems: string[] = [];
  for (const name of PIN_VARIABLES) {
    const value = e[name];
    for (const pin of value === undefined ? [] : typeof value === 'number' ? [value] : value) {
      const owner = pinOwner.get(pin);
      if (owner !== undefined)
        pinProblems.push(
          `${name}: GPIO ${pin} is ${owner === name ? 'listed twice' : `already used by ${owner}`} (got ${JSON.stringify(present[name] ?? String(value))})`,
        );
      else pinOwner.set(pin, name);
    }
  }
  if (pinProblems.length > 0) throw new ConfigError(pinProblems);
  const dataDir = resolve(e.DATA_DIR);
  const defaultDatabaseFile = e.DATABASE_URL === undefined ? join(dataDir, 'controller.db') : null;
  const databaseUrl = e.DATABASE_URL ?? `file:${defaultDatabaseFile}`;
  const rpi = e.HARDWARE === 'rpi';
  return {
    port: e.PORT,
    // In simulation the /sim routes (which need no session) answer only this machine unless HOST says otherwise.
    host: e.HOST ?? (rpi ? '0.0.0.0' : '127.0.0.1'),
    dataDir,
    databaseUrl,
    defaultDatabaseFile,
    hardware: e.HARDWARE,
    logLevel: e.LOG_LEVEL,
    logLevelFromEnvironment: present.LOG_LEVEL !== undefined,
    logFormat: e.LOG_FORMAT ?? (opts.stdoutIsTTY ? 'pretty' : 'json'),
    operatorPassword: e.OPERATOR_PASSWORD,
    pins: {
      cpPwm: e.GPIO_CP_PWM,
      cpLevel: e.GPIO_CP_LEVEL,
      contactor: e.GPIO_CONTACTOR,
      contactorFeedback: e.GPIO_CONTACTOR_FEEDBACK,
      lock: e.GPIO_LOCK,
      lockFeedback: e.GPIO_LOCK_FEEDBACK,
      phaseSwitch: e.GPIO_PHASE_SWITCH,
      rippleContact: e.GPIO_RIPPLE_CONTACT,
      buzzer: e.GPIO_BUZZER,
      leds: e.GPIO_LEDS,
    },
    meter: rpi || e.METER_PORT !== undefined ? { path: e.METER_PORT ?? DEFAULT_METER_PORT.path, baudRate: e.METER_BAUD, address: e.METER_ADDRESS } : undefined,
    temperatureSensorPath: e.TEMPERATURE_SENSOR,
    nfc: { path: e.NFC_PORT ?? DEFAULT_NFC_PORT.path, baudRate: e.NFC_BAUD },
    nfcReader: rpi || e.NFC_PORT !== undefined,
    mqttCaFile: e.MQTT_CA_FILE,
    metricsToken: e.METRICS_TOKEN,
    slowCommitMs: e.FAULT_SLOW_COMMIT_MS ?? 0,
    siteTimeScale: e.SITE_TIME_SCALE ?? 1,
  };
}
